#!/usr/bin/env bash
# test_bank_sha384.sh - a TPM with sha256 and sha384 banks and no sha1, a
# kernel whose ima_hash is sha384, and imatrust-agent with bank = sha384,
# against a real imatrust-verifier and swtpm (TAP; issue 34).
#
# swtpm is manufactured with the banks sha256,sha384; a synthetic
# firmware log with both banks' digests of every event (gen-boot-log.py)
# is extended into PCRs 0-7 as firmware would; the fake kernel's
# boot_aggregate and file digests are sha384 and it extends PCR 10 in both
# banks, each with its own hash of the template data. Checks: the TPM has
# the two banks; the agent's sha384 quotes make the machine trusted,
# pinned to sha384, with the firmware log stored; the verifier's running
# sha384 PCR 10, and the sha256 one it carries, are the TPM's; an unknown
# file turns the machine untrusted, the reason naming the record (path,
# sha384 digest, verdict). Every process is killed on every exit path;
# logs are shown on failure.
set -u

. "$(dirname "$0")/swtpm-lib.sh"
here=$SWTPM_LIB_ROOT/tests/integration
require_tools swtpm swtpm_setup swtpm_localca openssl python3 curl jq \
	tpm2_pcrextend tpm2_pcrread tpm2_getcap
swtpm_test_setup
for b in imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done
AGENT_PID='' VERIFIER_PID=''
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID' EXIT
has() { grep -qE -- "$2" "$1"; }

export SWTPM_PCR_BANKS=sha256,sha384	# swtpm_manufacture
export IMATRUST_PCR_BANKS=sha256,sha384	# fake_kernel: what it extends
export IMATRUST_IMA_HASH=sha384		# ... and its digests' algorithm

# --- PKI, and a TPM with sha256 and sha384 banks -----------------------------
ca="$tmp/ekca"
mkdir -p "$ca" "$tmp/tpm" "$tmp/state"
swtpm_ca_init "$ca"
swtpm_manufacture "$tmp/tpm" "$ca" "$tmp/swtpm_setup.log" ||
	bail "no TPM" "$tmp/swtpm_setup.log"
swtpm_ca_bundle "$ca" "$tmp/ek-ca.pem"
verifier_cert
swtpm_start "$tmp/tpm" "$tmp/swtpm.log" ||
	bail "swtpm does not start" "$tmp/swtpm.log"
tpm2_getcap pcrs >"$tmp/getcap.log" 2>&1
check "swtpm allocates sha256 and sha384, not sha1" \
	[ "$(grep -cE 'sha(256|384): \[ 0, 1, 2' "$tmp/getcap.log")" = 2 -a \
	  "$(grep -cE 'sha1: \[ 0' "$tmp/getcap.log")" = 0 ]

# --- firmware: a log of both banks, its digests in the PCRs ------------------
blog="$tmp/binary_bios_measurements"
GEN_BOOT_LOG_BANKS=sha256,sha384 python3 "$here/gen-boot-log.py" "$blog" \
	>"$tmp/digests" || bail "gen-boot-log.py failed"
extended=0
while read -r pcr sha256 sha384; do
	tpm2_pcrextend "$pcr:sha256=$sha256,sha384=$sha384" \
		>>"$tmp/extend.log" 2>&1 || break
	extended=$((extended + 1))
done <"$tmp/digests"
check "the 16 events of the log are extended in both banks of PCRs 0-7" \
	[ "$extended" = 16 ]
# boot_aggregate: sha384 over the sha384 PCRs 0-9 the firmware left
tpm2_pcrread -o "$tmp/pcrs.bin" sha384:0,1,2,3,4,5,6,7,8,9 \
	>"$tmp/pcrread.log" 2>&1 || bail "tpm2_pcrread" "$tmp/pcrread.log"
IMATRUST_BOOT_AGGREGATE=$(sha384sum "$tmp/pcrs.bin" | cut -d' ' -f1)
export IMATRUST_BOOT_AGGREGATE

mux_port=$(swtpm_free_ports)
"$mux" "$mux_port" "${TPM2TOOLS_TCTI##*port=}" >"$tmp/mux.log" 2>&1 &
pids+=($!)
tcti="swtpm:host=127.0.0.1,port=$mux_port"
list="$tmp/binary_runtime_measurements"
: >"$list"
within 5 kernel boot ||
	bail "fake kernel wrote no boot_aggregate" "$tmp/kernel.log"

# --- verifier, a sha384 reference --------------------------------------------
vport=$(swtpm_free_ports)
verifier_conf "$tmp/verifier.conf" "$vport" "$tmp/verifier.db" \
	"ek_ca = $tmp/ek-ca.pem" "nonce_ttl = 30" || bail "verifier_conf"
token=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add ops \
	2>"$tmp/token.log") || bail "token add" "$tmp/token.log"
lab_verifier_start || bail "verifier does not start" "$tmp/verifier.log"
api_url=https://127.0.0.1:$vport
sha384_hex() { printf '%s' "$1" | sha384sum | cut -d' ' -f1; }
api POST /v1/references "{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":\"test\"},\"refs\":[{\"path\":\"/usr/bin/ok\",\"algo\":\"sha384\",\"digest\":\"$(sha384_hex fine)\"}]}" \
	>"$tmp/ref.json"
check "a sha384 reference for /usr/bin/ok is added" \
	[ "$(jq -r .added "$tmp/ref.json")" = 1 ]
kernel file /usr/bin/ok fine || fail "fake kernel measures /usr/bin/ok"

# --- the agent quotes sha384 -------------------------------------------------
lab_agent_start bank-384 "bank = sha384" "boot_log = $blog"
detail() { api GET /v1/machines/bank-384 >"$tmp/detail.json" && jq -r "$1" "$tmp/detail.json"; }
is() { [ "$(detail "$1")" = "$2" ]; }
if within 30 is .machine.state trusted; then
	ok "the agent enrolls and its sha384 evidence is trusted"
else fail "the agent enrolls and its sha384 evidence is trusted" "$tmp/detail.json"; fi
check "the machine is pinned to sha384" is .machine.bank sha384
check "the firmware log of both banks is stored for the boot" \
	is .boot_log.present true
# the TPM's PCR 10 of BANK, lower-case hex, read through the mux
tpm_pcr10() {
	TPM2TOOLS_TCTI=$tcti tpm2_pcrread -o "$tmp/pcr10.bin" "$1:10" \
		>>"$tmp/pcrread.log" 2>&1 &&
		od -An -v -tx1 "$tmp/pcr10.bin" | tr -d ' \n'
}
pcr384=$(tpm_pcr10 sha384)
pcr256=$(tpm_pcr10 sha256)
check "the verifier's running sha384 PCR 10 is the TPM's (${pcr384:0:16}...)" \
	within 10 is .boot.pcr10.sha384 "$pcr384"
check "... and the sha256 PCR 10 it carries too (${pcr256:0:16}...)" \
	is .boot.pcr10.sha256 "$pcr256"
check "... over the 2 records, boot_aggregate in sha384" \
	[ "$(detail .boot.next_record_index)" = 2 -a \
	  "$(detail .boot.boot_aggregate)" = "$IMATRUST_BOOT_AGGREGATE" ]

# --- an unknown file ---------------------------------------------------------
kernel file /usr/bin/evil "not in any image" ||
	fail "fake kernel measures /usr/bin/evil"
if within 30 is .machine.state untrusted; then
	ok "an unknown file makes it untrusted"
else fail "an unknown file makes it untrusted" "$tmp/detail.json"; fi
reason=$(api GET /v1/machines/bank-384 | jq -c .machine.state_reason)
expect "the reason names the path" '/usr/bin/evil' "$reason"
expect "... its sha384 digest" "sha384:$(sha384_hex "not in any image")" "$reason"
expect "... and the verdict unknown" '\"verdict\":\"unknown\"' "$reason"
check "the running sha384 PCR 10 follows the TPM's" \
	within 10 is .boot.pcr10.sha384 "$(tpm_pcr10 sha384)"

echo "1..$tap_n"
[ "$failures" = 0 ]

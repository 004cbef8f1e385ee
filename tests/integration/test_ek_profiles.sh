#!/usr/bin/env bash
# test_ek_profiles.sh - the high-range EKs of the TCG EK Credential
# Profile and a certificate chain in NV, agent and verifier against a real
# swtpm (TAP).
#
# swtpm_setup --rsa-keysize 3072 manufactures a TPM with an RSA-3072 EK
# (template H-6, certificate at NV 0x01c0001c) and an ECC P-384 EK (H-3,
# 0x01c00016), certified by swtpm-localca's intermediate CA; the test
# writes that intermediate into the chain index 0x01c00100. ek_ca is a
# directory holding only the root, hashed by openssl rehash. Checks: an
# agent with ek = rsa3072 and one with ek = p384 enroll (their
# certificate chained through the intermediate from NV) and get trusted
# verdicts; the RSA-3072 EK again under another id is refused (one id per
# EK); with ek_ca a directory of another root, an agent with
# ek = auto (the RSA EK with a certificate: H-6) waits in 'pending', its
# reason saying the chain does not reach ek_ca; with an L-1 template and a
# nonce in NV (0x01c00004, 0x01c00003), the RSA 2048 EK is made from them.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/swtpm-lib.sh
. "$here/swtpm-lib.sh"
root=$SWTPM_LIB_ROOT
bin=${IMATRUST_BIN:-$root/build/bin}

# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need swtpm swtpm_setup swtpm_localca openssl python3 tpm2_getcap \
	tpm2_nvdefine tpm2_nvwrite tpm2_createprimary tpm2_readpublic \
	tpm2_createek tpm2_flushcontext curl jq
mux=$(tool_path tpm_mux) || exit 1
ekcheck=$(tool_path agent_tpm_check) || exit 1
kern=$(tool_path fake_kernel) || exit 1
for b in imatrust-agent imatrust-verifier imatrust; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done

tmp=$(mktemp -d)
pids=()
AGENT_PID=
VERIFIER_PID=
trap 'swtpm_lab_exit $AGENT_PID $VERIFIER_PID' EXIT
trap 'exit 130' INT TERM

# --- a TPM with the high-range EKs, the intermediate in NV ---------------
ca="$tmp/ekca"
mkdir -p "$ca" "$tmp/tpm"
swtpm_ca_init "$ca"
if swtpm_setup --tpm2 --tpmstate "$tmp/tpm" --config "$ca/swtpm_setup.conf" \
	--create-ek-cert --rsa-keysize 3072 --pcr-banks sha1,sha256 \
	>"$tmp/swtpm_setup.log" 2>&1; then
	ok "swtpm manufactured with RSA-3072 and P-384 EK certificates"
else
	fail "swtpm manufactured with RSA-3072 and P-384 EK certificates"
	bail "no TPM" "$tmp/swtpm_setup.log"
fi
verifier_cert
swtpm_start "$tmp/tpm" "$tmp/swtpm.log" ||
	bail "swtpm does not start" "$tmp/swtpm.log"
tpm2_getcap handles-nv-index >"$tmp/nv-indices" 2>&1
check "the TPM holds no RSA-2048 EK certificate (0x01c00002)" \
	fails grep -qi "0x1c00002$" "$tmp/nv-indices"
openssl x509 -in "$ca/issuercert.pem" -outform DER -out "$tmp/inter.der"
if tpm2_nvdefine 0x01c00100 -C p -s "$(stat -c %s "$tmp/inter.der")" \
	-a "ppwrite|ppread|ownerread|authread|no_da|platformcreate" \
	>"$tmp/nv.log" 2>&1 &&
	tpm2_nvwrite 0x01c00100 -C p -i "$tmp/inter.der" >>"$tmp/nv.log" 2>&1; then
	ok "the intermediate CA written to the chain index 0x01c00100"
else fail "the intermediate CA written to the chain index 0x01c00100" \
	"$tmp/nv.log"; fi

# ek_ca directories: the swtpm root only; another root only
mkdir -p "$tmp/roots" "$tmp/other"
cp "$ca/swtpm-localca-rootca-cert.pem" "$tmp/roots/root.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/other/key" -out "$tmp/other/other.pem" -days 2 \
	-subj "/CN=another vendor root" >/dev/null 2>&1
rm -f "$tmp/other/key"
check "openssl rehash names the roots by subject hash" \
	openssl rehash "$tmp/roots" "$tmp/other"

swtpm_lab_mux

# --- verifier, operator token ---------------------------------------------
vport=$(swtpm_free_ports)
api_url="https://127.0.0.1:$vport"
# verifier_on EK_CA DB: (re)start the verifier with ek_ca = EK_CA on the
# database DB
verifier_on() {
	if [ -n "$VERIFIER_PID" ]; then
		kill "$VERIFIER_PID"
		wait "$VERIFIER_PID" 2>/dev/null
		VERIFIER_PID=
	fi
	verifier_conf "$tmp/verifier.conf" "$vport" "$2" "ek_ca = $1" ||
		bail "verifier_conf"
	lab_verifier_start || bail "verifier does not start" "$tmp/verifier.log"
}
verifier_on "$tmp/roots" "$tmp/verifier.db"
token=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add test \
	2>>"$tmp/verifier.log")
[ -n "$token" ] || bail "no operator token" "$tmp/verifier.log"

# agent_run ID EK: an agent as ID with ek = EK on a state directory of its
# own, until it is stopped by agent_stop
agent_run() {
	rm -rf "$tmp/state"
	mkdir -p "$tmp/state"
	: >"$tmp/agent.log"
	lab_agent_start "$1" "ek = $2"
}
agent_stop() {
	kill "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID" 2>/dev/null
	AGENT_PID=
}

for kind in rsa3072 p384; do
	agent_run "m-$kind" "$kind"
	check "ek = $kind: the agent enrolls" \
		within 20 grep -q "enrolled as 'm-$kind'" "$tmp/agent.log"
	check "ek = $kind: it sends the certificate and 1 intermediate" \
		grep -q "EK $kind (H-[36]) with certificate, 1 intermediates" \
		"$tmp/agent.log"
	check "ek = $kind: a trusted verdict" \
		within 20 grep -q "verdict trusted" "$tmp/agent.log"
	expect "ek = $kind: the machine is trusted" trusted \
		"$(state_of "m-$kind")"
	agent_stop
done

# one id per EK: the RSA-3072 EK again under another id is refused. (The
# P-384 EK of the same TPM enrolled above under an id of its own: nothing
# in these certificates ties the two EKs to one TPM, proto/DESIGN.md §10.)
agent_run m-second rsa3072
check "the same EK under a second id: 409 taken" \
	within 20 grep -q "409 taken: this EK .* is enrolled under another id" \
	"$tmp/agent.log"
agent_stop

# --- a chain that does not reach ek_ca ------------------------------------
# (a database of its own: the first still holds this EK under m-rsa3072)
verifier_on "$tmp/other" "$tmp/other.db"
token=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add test \
	2>>"$tmp/verifier.log")
agent_run m-refused auto
check "ek = auto (key_alg = rsa): the RSA EK with a certificate, H-6" \
	within 10 grep -q "EK rsa3072 (H-6) with certificate" "$tmp/agent.log"
check "another root in ek_ca: the agent's enrollment is answered" \
	within 20 grep -q "enrolling as 'm-refused'" "$tmp/agent.log"
check "another root in ek_ca: the machine waits in pending" \
	within 10 test "$(state_of m-refused)" = pending
expect "the reason says the chain does not reach ek_ca" \
	"does not chain" "$(reason_of m-refused)"
agent_stop

# --- ek = auto keeps the EK a machine took before (agent_ek.c) -------------
check "ek = auto remembers the template it took in state_dir" \
	grep -qx "H-6" "$tmp/state/ek.profile"
# an agent before "ek" always took the low range of key_alg: its AK in
# state_dir, without ek.profile, keeps auto on that EK, not H-6
rm -f "$tmp/state/ek.profile"
: >"$tmp/agent.log"
lab_agent_start m-legacy "ek = auto"
check "ek = auto with an older agent's AK: that agent's EK, L-1" \
	within 10 grep -q "EK rsa2048 (L-1)" "$tmp/agent.log"
agent_stop
check "... and remembered" grep -qx "L-1" "$tmp/state/ek.profile"
: >"$tmp/agent.log"
lab_agent_start m-legacy "ek = auto"
check "ek = auto with ek.profile: the EK it names, not the search's" \
	within 10 grep -q "the EK this machine took before (L-1)" "$tmp/agent.log"
check "... L-1 again" within 10 grep -q "EK rsa2048 (L-1)" "$tmp/agent.log"
agent_stop

# --- the low-range template and nonce the TPM keeps in NV -----------------
# L-1 with an empty unique at 0x01c00004, a nonce at 0x01c00003: the EK is
# the primary of that template with the nonce, zero-padded to 256 bytes,
# as its unique (tpm2_createprimary -u), not the profile's L-1. (Not
# tpm2_createek -t: tpm2-tools 5.4 copies the nonce's address there, not
# the nonce.) (swtpm
# serves one connection: the mux's; tpm2-tools go through the mux now.)
export TPM2TOOLS_TCTI=$tcti
tpm2_createek -G rsa -u "$tmp/l1.pub" -c "$tmp/l1.ctx" >/dev/null 2>&1
tpm2_flushcontext -t >/dev/null 2>&1
# TPMT_PUBLIC of L-1 up to the unique field (56 bytes), then an empty one
{ tail -c +3 "$tmp/l1.pub" | head -c 56; printf '\0\0'; } >"$tmp/tmpl.bin"
head -c 16 /dev/urandom >"$tmp/nonce.bin"
# tpm2_createprimary -u reads a TPMU_PUBLIC_ID with a little-endian size
{ printf '\000\001'; cat "$tmp/nonce.bin"; head -c 240 /dev/zero; } \
	>"$tmp/unique.bin"
nvattr="ppwrite|ppread|ownerread|authread|no_da|platformcreate"
if tpm2_nvdefine 0x01c00004 -C p -s 58 -a "$nvattr" >"$tmp/nv.log" 2>&1 &&
	tpm2_nvwrite 0x01c00004 -C p -i "$tmp/tmpl.bin" >>"$tmp/nv.log" 2>&1 &&
	tpm2_nvdefine 0x01c00003 -C p -s 16 -a "$nvattr" >>"$tmp/nv.log" 2>&1 &&
	tpm2_nvwrite 0x01c00003 -C p -i "$tmp/nonce.bin" >>"$tmp/nv.log" 2>&1; then
	ok "an L-1 template and a nonce written to 0x01c00004 and 0x01c00003"
else fail "an L-1 template and a nonce written to 0x01c00004 and 0x01c00003" \
	"$tmp/nv.log"; fi
mkdir -p "$tmp/ekout"
ekrun() { "$ekcheck" "$@" >"$tmp/ekcheck.log" 2>&1; }
check "ek rsa2048 (no certificate: L-1) from the template in NV" \
	ekrun ek rsa "$tmp/ekout"
printf '%s' 837197674484b3f81a90cc8d46a5d724fd52d76e06520b64f2a1da1b331469aa |
	xxd -r -p >"$tmp/policy-a.bin"
tpm2_createprimary -C e -g sha256 -G rsa2048:null:aes128cfb \
	-a "fixedtpm|fixedparent|sensitivedataorigin|adminwithpolicy|restricted|decrypt" \
	-L "$tmp/policy-a.bin" -u "$tmp/unique.bin" -c "$tmp/p.ctx" \
	>"$tmp/createprimary.log" 2>&1
tpm2_readpublic -c "$tmp/p.ctx" -o "$tmp/p.pub" >>"$tmp/createprimary.log" 2>&1
tpm2_flushcontext -t >/dev/null 2>&1
check "that EK is the primary of the template with the nonce as unique" \
	cmp "$tmp/ekout/ek.pub" "$tmp/p.pub"
check "... not the profile's L-1" fails cmp -s "$tmp/ekout/ek.pub" "$tmp/l1.pub"

echo "1..$tap_n"
[ "$failures" -eq 0 ]

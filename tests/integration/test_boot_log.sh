#!/usr/bin/env bash
# test_boot_log.sh - the firmware event log from imatrust-agent to the
# verifier and back out through the operator CLI, with a real swtpm (TAP).
#
# A synthetic crypto-agile event log (gen-boot-log.py: the Spec ID event,
# an EV_EFI_ACTION and an EV_SEPARATOR for each of PCRs 0-7, an EV_IPL in
# each of PCRs 11, 12 and 14 as systemd-stub and shim log them) whose
# digests are extended into swtpm's PCRs before the fake kernel's
# boot_aggregate and the agent start, as firmware would. Checks: the agent
# reads and sends it, quoting PCRs 11, 12 and 14 too, the verifier
# replays them and boot-log shows them, the machine detail shows it,
# "boot-log --raw" gives
# back the same bytes, an agent restart in the same boot sends it again
# and that changes nothing, and an agent that sends another log for the
# same boot turns the machine failed with the reason. Every process is
# killed on every exit path; logs are shown on failure.
set -u

. "$(dirname "$0")/swtpm-lib.sh"
here=$SWTPM_LIB_ROOT/tests/integration
require_tools swtpm swtpm_setup swtpm_localca openssl python3 \
	tpm2_pcrextend tpm2_pcrread sqlite3
swtpm_test_setup
for b in imatrust-agent imatrust-verifier imatrust; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done
AGENT_PID=
trap 'swtpm_lab_exit $AGENT_PID' EXIT
has() { grep -qE -- "$2" "$1"; }
count() { grep -cE -- "$2" "$1" 2>/dev/null || true; }
q() { db_query "$tmp/verifier.db" "$1"; }
is() { [ "$(q "$1")" = "$2" ]; }
more_than() { [ "$(count "$1" "$2")" -gt "$3" ]; }

# --- PKI ------------------------------------------------------------------
ca="$tmp/ekca"
mkdir -p "$ca" "$tmp/tpm" "$tmp/state"
swtpm_ca_init "$ca"
swtpm_manufacture "$tmp/tpm" "$ca" "$tmp/swtpm_setup.log" ||
	bail "no TPM" "$tmp/swtpm_setup.log"
swtpm_ca_bundle "$ca" "$tmp/ek-ca.pem"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
	>"$tmp/openssl.log" 2>&1 || bail "no TLS certificate" "$tmp/openssl.log"

# --- firmware: the log, and its digests in the PCRs -----------------------
swtpm_start "$tmp/tpm" "$tmp/swtpm.log" ||
	bail "swtpm does not start" "$tmp/swtpm.log"
blog="$tmp/binary_bios_measurements"
GEN_BOOT_LOG_MORE=11,12,14 python3 "$here/gen-boot-log.py" "$blog" \
	>"$tmp/digests" || bail "gen-boot-log.py failed"
extended=0
while read -r pcr sha1 sha256; do
	# both banks where the TPM has them, else sha256 alone
	tpm2_pcrextend "$pcr:sha1=$sha1,sha256=$sha256" \
		>>"$tmp/extend.log" 2>&1 ||
	tpm2_pcrextend "$pcr:sha256=$sha256" >>"$tmp/extend.log" 2>&1 ||
		break
	extended=$((extended + 1))
done <"$tmp/digests"
if [ "$extended" = 19 ]; then
	ok "the 19 events of the synthetic log are extended into PCRs 0-7, 11, 12, 14"
else fail "the 19 events of the synthetic log are extended into PCRs 0-7, 11, 12, 14" \
	"$tmp/extend.log"; fi

# boot_aggregate over the PCRs the firmware left (fake_kernel takes it)
tpm2_pcrread -o "$tmp/pcrs.bin" sha256:0,1,2,3,4,5,6,7,8,9 \
	>"$tmp/pcrread.log" 2>&1 || bail "tpm2_pcrread" "$tmp/pcrread.log"
IMATRUST_BOOT_AGGREGATE=$(sha256sum "$tmp/pcrs.bin" | cut -d' ' -f1)
export IMATRUST_BOOT_AGGREGATE
# PCR 11 as the TPM has it, for boot-log's replay below
tpm2_pcrread -o "$tmp/pcr11.bin" sha256:11 >>"$tmp/pcrread.log" 2>&1 ||
	bail "tpm2_pcrread" "$tmp/pcrread.log"
pcr11=$(od -An -v -tx1 "$tmp/pcr11.bin" | tr -d ' \n')

swtpm_port=${TPM2TOOLS_TCTI##*port=}
mux_port=$(swtpm_free_ports)
"$mux" "$mux_port" "$swtpm_port" >"$tmp/mux.log" 2>&1 &
pids+=($!)
tcti="swtpm:host=127.0.0.1,port=$mux_port"
list="$tmp/binary_runtime_measurements"
: >"$list"
within 5 env IMATRUST_TCTI="$tcti" "$kern" "$list" boot >"$tmp/kernel.log"
[ -s "$list" ] || bail "fake kernel wrote no boot_aggregate" "$tmp/kernel.log"

# --- verifier and an operator token ---------------------------------------
vport=$(swtpm_free_ports)
verifier_conf "$tmp/verifier.conf" "$vport" "$tmp/verifier.db" \
	"ek_ca = $tmp/ek-ca.pem" "nonce_ttl = 30" || bail "verifier_conf"
"$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add ops \
	>"$tmp/token" 2>"$tmp/token.log" || bail "token add" "$tmp/token.log"
"$bin/imatrust-verifier" -d -c "$tmp/verifier.conf" >>"$tmp/verifier.log" \
	2>&1 &
pids+=($!)
within 10 has "$tmp/verifier.log" "listening on" ||
	bail "verifier does not listen" "$tmp/verifier.log"
export IMATRUST_URL=https://127.0.0.1:$vport IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token
cli() { "$bin/imatrust" "$@"; }

# --- agent ----------------------------------------------------------------
cat >"$tmp/agent.conf" <<EOC
verifier_url = https://127.0.0.1:$vport
ca_cert = $tmp/cert.pem
id = boot-1
tcti = $tcti
state_dir = $tmp/state
measurement_list = $list
boot_log = $blog
heartbeat = 1
poll_fallback_ms = 100
backoff_max = 2
log_level = debug
EOC
start_agent() {
	"$bin/imatrust-agent" -c "$tmp/agent.conf" >>"$tmp/agent.log" 2>&1 &
	AGENT_PID=$!
}
stop_agent() {
	kill "$AGENT_PID" 2>/dev/null
	wait "$AGENT_PID"
	AGENT_PID=
}

start_agent
size=$(stat -c %s "$blog")
if within 20 has "$tmp/agent.log" "firmware event log .*: $size bytes"; then
	ok "the agent reads the firmware event log ($size bytes)"
else fail "the agent reads the firmware event log ($size bytes)"; fi
if within 20 has "$tmp/agent.log" "evidence: .*firmware event log" &&
   within 20 is "select count(*) from boot_logs" 1; then
	ok "the agent sends it and the verifier stores it for the boot"
else fail "the agent sends it and the verifier stores it for the boot"; fi
cli machine --json boot-1 >"$tmp/detail.json" 2>"$tmp/cli.log"
want=$(sha256sum "$blog" | cut -d' ' -f1)
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["boot_log"]
sys.exit(not (d["present"] and d["size"] == int(sys.argv[2]) and
              d["sha256"] == sys.argv[3]))' "$tmp/detail.json" "$size" "$want"
then ok "the machine detail shows the log: present, size, sha256"
else fail "the machine detail shows the log: present, size, sha256" \
	"$tmp/detail.json"; fi
if cli machine boot-1 boot-log --raw "$tmp/raw.bin" 2>"$tmp/cli.log" &&
   cmp -s "$blog" "$tmp/raw.bin"; then
	ok "imatrust machine ID boot-log --raw gives back the same bytes"
else fail "imatrust machine ID boot-log --raw gives back the same bytes" \
	"$tmp/cli.log"; fi
if cli machine boot-1 boot-log --json >"$tmp/bl.json" 2>"$tmp/cli.log" &&
   grep -q "$want" "$tmp/bl.json" &&
   cli machine boot-1 boot-log >"$tmp/bl.txt" 2>>"$tmp/cli.log"; then
	ok "imatrust machine ID boot-log prints the JSON and the table"
else fail "imatrust machine ID boot-log prints the JSON and the table" \
	"$tmp/cli.log"; fi
if ! cli machine boot-1 boot-log --json --raw x 2>"$tmp/cli.log" &&
   grep -q usage "$tmp/cli.log"; then
	ok "boot-log refuses --raw with --json"
else fail "boot-log refuses --raw with --json" "$tmp/cli.log"; fi
# the first log is the machine's baseline; an operator approves it
if [ "$(q "select count(*) from boot_baselines where machine_id = 'boot-1' and approved_by is null")" = 1 ] &&
   cli machine boot-1 boot-baseline approve >"$tmp/approve.txt" 2>"$tmp/cli.log" &&
   grep -q "^boot baseline of boot-1 approved: sha256 $want; machines re-judged" "$tmp/approve.txt" &&
   [ "$(q "select count(*) from boot_baselines where machine_id = 'boot-1' and approved_by is not null")" = 1 ] &&
   [ "$(q "select count(*) from audit where action = 'boot-baseline'")" = 1 ]; then
	ok "the first log is the baseline; machine ID boot-baseline approve approves it (audited)"
else fail "the first log is the baseline; machine ID boot-baseline approve approves it (audited)" \
	"$tmp/cli.log" "$tmp/approve.txt"; fi
if ! cli machine boot-1 boot-baseline 2>"$tmp/cli.log" && grep -q usage "$tmp/cli.log"; then
	ok "boot-baseline without approve is a usage error"
else fail "boot-baseline without approve is a usage error" "$tmp/cli.log"; fi
state=$(q "select state from machines where id = 'boot-1'")
if [ "$state" = trusted ] || [ "$state" = untrusted ]; then
	ok "the machine is judged ($state), not failed"
else fail "the machine is judged ($state), not failed"; fi
# PCRs 11, 12 and 14: quoted by the agent, replayed and shown
if has "$tmp/agent.log" "PCRs 0x005fff quoted"; then
	ok "the agent quotes PCRs 0-10, 11, 12 and 14 (what the log extends)"
else fail "the agent quotes PCRs 0-10, 11, 12 and 14 (what the log extends)" \
	"$tmp/agent.log"; fi
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pcrs"]["sha256"]
sys.exit(not (d["extended"] == [0, 1, 2, 3, 4, 5, 6, 7, 11, 12, 14] and
              p["11"] == sys.argv[2] and "12" in p and "14" in p and
              "10" not in p and "13" not in p))' "$tmp/bl.json" "$pcr11" &&
   grep -q "^extended PCRs: 0 1 2 3 4 5 6 7 11 12 14$" "$tmp/bl.txt" &&
   grep -q "^sha256 11 $pcr11$" "$tmp/bl.txt"; then
	ok "boot-log shows PCRs 11, 12, 14 replayed to the TPM's values, not 10"
else fail "boot-log shows PCRs 11, 12, 14 replayed to the TPM's values, not 10" \
	"$tmp/bl.json" "$tmp/bl.txt"; fi

# --- the same boot: a restart sends it again, a no-op ---------------------
sent=$(count "$tmp/agent.log" "evidence: .*firmware event log")
stop_agent
start_agent
if within 20 more_than "$tmp/agent.log" "evidence: .*firmware event log" \
	"$sent" && sleep 2 &&
   [ "$(q "select count(*) from boot_logs")" = 1 ] &&
   [ "$(q "select state from machines where id = 'boot-1'")" = "$state" ]
then ok "a restarted agent sends the log again: stored once, state kept"
else fail "a restarted agent sends the log again: stored once, state kept"; fi
beats=$(count "$tmp/agent.log" "evidence: ")
logs=$(count "$tmp/agent.log" "evidence: .*firmware event log")
sleep 3
if [ "$(count "$tmp/agent.log" "evidence: ")" -gt "$beats" ] &&
   [ "$(count "$tmp/agent.log" "evidence: .*firmware event log")" = "$logs" ]
then ok "heartbeats do not carry the log once the verifier has it"
else fail "heartbeats do not carry the log once the verifier has it"; fi

# --- another log for the same boot: failed --------------------------------
stop_agent
python3 "$here/gen-boot-log.py" "$blog" "other firmware" >/dev/null
start_agent
if within 20 is "select state from machines where id = 'boot-1'" failed &&
   q "select state_reason from machines where id = 'boot-1'" |
	grep -q "changed within one boot"; then
	ok "another log for the same boot: failed, the reason says why"
else fail "another log for the same boot: failed, the reason says why"; fi
if cli machine boot-1 boot-log --raw "$tmp/raw2.bin" 2>"$tmp/cli.log" &&
   cmp -s "$tmp/raw.bin" "$tmp/raw2.bin"; then
	ok "the boot keeps its first log"
else fail "the boot keeps its first log" "$tmp/cli.log"; fi
stop_agent

echo "1..$tap_n"
[ "$failures" -eq 0 ]

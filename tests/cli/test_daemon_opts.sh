#!/usr/bin/env bash
# test_daemon_opts.sh - imatrust-agent and imatrust-verifier share their
# command line (proto/io/daemon.c): -H, -n, -c, -d, a bad option, and
# log_level = debug|info|warning honoured by both (TAP). The verifier runs
# on a free loopback port; the agent is pointed at a list that does not
# exist, so it logs its start and stops without a TPM.
set -u

. "$(dirname "$0")/lib.sh"

skip_without openssl curl python3
unset JOURNAL_STREAM

port=$(free_port)
self_cert
# verifier.conf with log_level $1
verifier_conf() { write_verifier_conf "log_level = $1"; }
# agent.conf with log_level $1; the list is absent, so the agent stops.
agent_conf() {
	cat >"$tmp/agent.conf" <<EOF
verifier_url = https://127.0.0.1:$port
ca_cert = $tmp/cert.pem
id = node-1
tcti = swtpm:host=127.0.0.1,port=1
state_dir = $tmp
measurement_list = $tmp/absent-list
log_level = $1
EOF
}
verifier_conf info
agent_conf info

for d in agent verifier; do
	prog="$bin/imatrust-$d"
	expect 0 "imatrust-$d -H" "$prog" -H
	contains "$tmp/out" '^log_level = info$' "imatrust-$d -H prints log_level's default"
	expect 2 "imatrust-$d: a bad option is exit 2" "$prog" -x
	contains "$tmp/err" "^usage: imatrust-$d \[-dn\] \[-c FILE\]" \
		"imatrust-$d: the usage names -d -n -c"
	contains "$tmp/err" '^  -H       describe every configuration key$' \
		"imatrust-$d: the usage names -H"
	expect 0 "imatrust-$d -n accepts its config" \
		"$prog" -n -c "$tmp/$d.conf"
	contains "$tmp/out" "^$tmp/$d.conf: configuration OK" \
		"imatrust-$d -n says the file is OK"
	expect 1 "imatrust-$d -n on a missing file" "$prog" -n -c "$tmp/absent"
	contains "$tmp/err" "absent: No such file" "imatrust-$d names the missing file"
	sed -i 's/^log_level = .*/log_level = loud/' "$tmp/$d.conf"
	expect 1 "imatrust-$d -n refuses log_level = loud" \
		"$prog" -n -c "$tmp/$d.conf"
done
expect 2 "the agent takes no operand" "$bin/imatrust-agent" -n extra

# The verifier: serve until /v1/health answers, then stop; its log.
run_verifier() {
	"$bin/imatrust-verifier" "$@" -c "$tmp/verifier.conf" >"$tmp/log" 2>&1 &
	pid=$!
	health_wait
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=""
}
verifier_conf info
run_verifier
contains "$tmp/log" '^<6>imatrust-verifier: listening on https://127\.0\.0\.1' \
	"verifier, log_level = info: info lines"
verifier_conf warning
run_verifier
lacks "$tmp/log" '^<[67]>' "verifier, log_level = warning: no info or debug line"
run_verifier -d
contains "$tmp/log" '^<6>imatrust-verifier: listening on' \
	"verifier, -d over log_level = warning: info lines again"

agent_conf info
expect 1 "the agent stops without its list" \
	"$bin/imatrust-agent" -c "$tmp/agent.conf"
contains "$tmp/err" '^<6>imatrust-agent: starting: id node-1' \
	"agent, log_level = info: info lines"
contains "$tmp/err" "^<4>imatrust-agent: $tmp/absent-list: No such file" \
	"agent: the warning names the list"
agent_conf warning
expect 1 "the agent stops without its list (warning)" \
	"$bin/imatrust-agent" -c "$tmp/agent.conf"
lacks "$tmp/err" '^<[67]>' "agent, log_level = warning: no info or debug line"
contains "$tmp/err" '^<4>' "agent, log_level = warning: the warning still shows"
expect 1 "the agent stops without its list (-d)" \
	"$bin/imatrust-agent" -d -c "$tmp/agent.conf"
contains "$tmp/err" '^<6>imatrust-agent: starting' \
	"agent, -d over log_level = warning: info lines again"

echo "1..$n"

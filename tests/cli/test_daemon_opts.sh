#!/usr/bin/env bash
# test_daemon_opts.sh - imatrust-agent and imatrust-verifier share their
# command line (proto/daemon/daemon.c): -H, -n, -c, -d, a bad option, and
# log_level = debug|info|warning honoured by both (TAP). The verifier runs
# on a free loopback port; the agent is pointed at a list that does not
# exist, so it logs its start and stops without a TPM.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${IMATRUST_BIN:-$here/../../build/bin}
tmp=$(mktemp -d)
pid=""
cleanup() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' "$2"; }
expect() {
	local code=$1 desc=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" -eq "$code" ]; then ok "$desc"; else
		echo "# exit $rc, wanted $code"; sed 's/^/# /' "$tmp/out"
		not_ok "$desc" "$tmp/err"; fi
}
contains() {
	if grep -qE -- "$2" "$1"; then ok "$3"; else not_ok "$3" "$1"; fi
}
lacks() {
	if grep -qE -- "$2" "$1"; then not_ok "$3" "$1"; else ok "$3"; fi
}

for tool in openssl curl python3; do
	if ! command -v "$tool" >/dev/null; then
		echo "1..0 # SKIP $tool not installed"
		exit 0
	fi
done
unset JOURNAL_STREAM

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
# verifier.conf with log_level $1
verifier_conf() {
	cat >"$tmp/verifier.conf" <<EOF
listen = 127.0.0.1
port = $port
tls_cert = $tmp/cert.pem
tls_key = $tmp/key.pem
database = $tmp/verifier.db
log_level = $1
EOF
}
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
	for _ in $(seq 50); do
		curl -sf --cacert "$tmp/cert.pem" \
			"https://127.0.0.1:$port/v1/health" >/dev/null && break
		sleep 0.1
	done
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

# shellcheck shell=bash
# verifiers.sh - imatrust-verifiers on loopback for simulated fleets
# (sourced by tests/scale/scale-out.sh and tests/bench/scale-out).
#
#   verifiers_pki DIR     DIR/cert.pem and DIR/key.pem (P-256, for
#                         127.0.0.1 and *.agents.bench, the names
#                         soak-agents and bench-verifier connect to) and
#                         DIR/result-key.pem, which every instance shares
#   free_ports N          N free TCP ports on 127.0.0.1, one line
#   verifiers_start DIR N DATABASE AGENTS [LINE...]
#                         N verifiers on DATABASE (an SQLite path or a
#                         postgresql:// URI), one after the other (the
#                         first takes the leader lock), each with
#                         DIR/vI.conf and DIR/vI.log, sized for AGENTS
#                         connections all from one address; LINEs
#                         (key = value) end each config. Sets the arrays
#                         VERIFIER_PORTS and VERIFIER_PIDS; non-zero with
#                         the log's tail when one does not answer
#                         /v1/health within 10 s.
#   verifiers_stop        SIGTERM them all and wait; safe in a trap
#   verifier_up PORT CA   does /v1/health on PORT answer 200? (health.sh)
#
# Needs bin (the build's bin/ directory).
# shellcheck disable=SC2154 # bin is the sourcing script's

# shellcheck source=SCRIPTDIR/health.sh
. "$(dirname "${BASH_SOURCE[0]}")/health.sh"

VERIFIER_PORTS=()
VERIFIER_PIDS=()

verifiers_pki() {
	local dir=$1

	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$dir/key.pem" -out "$dir/cert.pem" -days 2 \
		-subj /CN=verifier \
		-addext "subjectAltName=IP:127.0.0.1,DNS:*.agents.bench" \
		>/dev/null 2>&1 &&
		openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
			-out "$dir/result-key.pem" 2>/dev/null
}

free_ports() {
	python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])' "$1"
}

verifiers_start() {
	local dir=$1 n=$2 db=$3 agents=$4 i port tries
	local -a ports

	shift 4
	read -r -a ports < <(free_ports "$n")
	for ((i = 1; i <= n; i++)); do
		port=${ports[$((i - 1))]}
		{
			printf 'listen = 127.0.0.1\nport = %s\n' "$port"
			printf 'tls_cert = %s\ntls_key = %s\n' "$dir/cert.pem" "$dir/key.pem"
			printf 'database = %s\nresult_key = %s\n' "$db" "$dir/result-key.pem"
			printf 'max_connections = %s\n' $((agents + 256))
			# every connection comes from one address (HAProxy's):
			# its forgers' failed checks would hold back everyone
			printf 'max_connections_per_ip = %s\n' $((agents + 256))
			printf 'max_failed_checks = 0\n'
			printf 'connection_timeout = 120\n'
			[ $# -eq 0 ] || printf '%s\n' "$@"
		} >"$dir/v$i.conf"
		"$bin/imatrust-verifier" -c "$dir/v$i.conf" >"$dir/v$i.log" 2>&1 &
		VERIFIER_PIDS+=($!)
		VERIFIER_PORTS+=("$port")
		tries=100
		until verifier_up "$port" "$dir/cert.pem"; do
			tries=$((tries - 1))
			if [ "$tries" -eq 0 ] || ! kill -0 "${VERIFIER_PIDS[-1]}" 2>/dev/null; then
				echo "verifiers.sh: verifier $i did not start:" >&2
				tail -20 "$dir/v$i.log" >&2
				return 1
			fi
			sleep 0.1
		done
	done
}

verifiers_stop() {
	local p

	for p in "${VERIFIER_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${VERIFIER_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	VERIFIER_PIDS=()
	VERIFIER_PORTS=()
}

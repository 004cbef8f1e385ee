# shellcheck shell=bash
# swtpm-lib.sh - start and stop one swtpm on free loopback ports (sourced).
#
#   swtpm_start STATEDIR LOGFILE  starts swtpm, exports TPM2TOOLS_TCTI, and
#                                 sets SWTPM_PID; returns non-zero on failure
#   swtpm_stop                    kills the swtpm this shell started
#
# The caller installs the trap that calls swtpm_stop on every exit path.
# swtpm listens on 127.0.0.1 only: a server port P and a control port P+1.

SWTPM_PID=

# Print a port P such that P and P+1 are both free on 127.0.0.1.
swtpm_free_ports() {
	python3 - <<'PY'
import random, socket
for _ in range(200):
    p = random.randrange(20000, 60000, 2)
    socks = []
    try:
        for q in (p, p + 1):
            s = socket.socket()
            s.bind(("127.0.0.1", q))
            socks.append(s)
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(p)
    break
PY
}

swtpm_start() {
	local state=$1 log=$2 port
	for _ in 1 2 3; do
		port=$(swtpm_free_ports) || return 1
		[ -n "$port" ] || return 1
		swtpm socket --tpm2 --tpmstate dir="$state" \
			--server type=tcp,port="$port",bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 \
			--flags not-need-init,startup-clear >>"$log" 2>&1 &
		SWTPM_PID=$!
		export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port"
		for _ in $(seq 50); do
			if ! kill -0 "$SWTPM_PID" 2>/dev/null; then
				break	# lost a port race: try other ports
			fi
			if tpm2_getcap properties-fixed >/dev/null 2>&1; then
				return 0
			fi
			sleep 0.1
		done
		swtpm_stop
	done
	return 1
}

swtpm_stop() {
	if [ -n "$SWTPM_PID" ]; then
		kill "$SWTPM_PID" 2>/dev/null
		wait "$SWTPM_PID" 2>/dev/null
		SWTPM_PID=
	fi
}

# ---- a local CA for EK certificates, as the lab has ----

# swtpm_ca_init DIR: swtpm-localca configuration with its CA under DIR
# (the CA itself is made by the first swtpm_manufacture).
swtpm_ca_init() {
	local ca=$1

	mkdir -p "$ca"
	cat >"$ca/swtpm-localca.conf" <<EOC
statedir = $ca
signingkey = $ca/signkey.pem
issuercert = $ca/issuercert.pem
certserial = $ca/certserial
EOC
	printf -- '--platform-manufacturer imatrust\n--platform-version 2.1\n--platform-model test\n' \
		>"$ca/swtpm-localca.options"
	cat >"$ca/swtpm_setup.conf" <<EOC
create_certs_tool = /usr/bin/swtpm_localca
create_certs_tool_config = $ca/swtpm-localca.conf
create_certs_tool_options = $ca/swtpm-localca.options
active_pcr_banks = ${SWTPM_PCR_BANKS:-sha1,sha256}
EOC
}

# swtpm_manufacture STATE CA [uncertified] LOG: a fresh TPM state with
# sha1 and sha256 banks (or those of $SWTPM_PCR_BANKS, as fake_kernel's
# IMATRUST_PCR_BANKS) and, unless "uncertified", EK and platform
# certificates signed by CA.
swtpm_manufacture() {
	local state=$1 ca=$2 certs=(--create-ek-cert --create-platform-cert)

	if [ "$3" = uncertified ]; then
		certs=()
		shift
	fi
	mkdir -p "$state"
	swtpm_setup --tpm2 --tpmstate "$state" --config "$ca/swtpm_setup.conf" \
		"${certs[@]}" --pcr-banks "${SWTPM_PCR_BANKS:-sha1,sha256}" \
		>"$3" 2>&1
}

# swtpm_ca_bundle CA OUT: the PEM bundle EK certificates chain to.
swtpm_ca_bundle() {
	cat "$1/swtpm-localca-rootca-cert.pem" "$1/issuercert.pem" >"$2"
}

# ---- TAP and setup shared by the integration tests ----

SWTPM_LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# verifier_up PORT CA
# shellcheck source=SCRIPTDIR/../lib/health.sh
. "$SWTPM_LIB_ROOT/tests/lib/health.sh"

tap_n=0
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
not_ok() {
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n - $1"
	# shellcheck disable=SC1003 # sed "$a\" ends the last line
	[ -n "${2:-}" ] && [ -f "$2" ] && sed -e 's/^/# /' -e '$a\' "$2"
}
# shellcheck disable=SC1003 # sed "$a\" ends the last line
bail() { echo "Bail out! $1"; [ -f "${2:-}" ] && sed -e 's/^/# /' -e '$a\' "$2"; exit 1; }

# Every tool named must be installed (deploy/install-deps.sh brings them):
# a missing one fails the test rather than skipping it.
require_tools() {
	local tool

	for tool in "$@"; do
		command -v "$tool" >/dev/null || bail "$tool not installed (deploy/install-deps.sh)"
	done
}

# Path of a test driver built by `make` (tests/tools/<name>.c).
tool_path() {
	local path="${IMATRUST_TOOLS:-$SWTPM_LIB_ROOT/build/tests/tools}/$1"

	if [ ! -x "$path" ]; then
		# called in $(...): tell stderr, the caller exits
		echo "Bail out! no $path: run make first" >&2
		return 1
	fi
	echo "$path"
}

# swtpm_test_setup: $bin, the drivers $probe, $kern and $mux, an empty
# $tmp and a trap that on exit kills every pid the test adds to pids and
# removes $tmp.
swtpm_test_setup() {
	bin=${IMATRUST_BIN:-$SWTPM_LIB_ROOT/build/bin}
	# shellcheck disable=SC2034 # for the tests that source this
	probe=$(tool_path attest_probe) || exit 1
	kern=$(tool_path fake_kernel) || exit 1
	mux=$(tool_path tpm_mux) || exit 1
	tmp=$(mktemp -d)
	pids=()
	trap swtpm_test_cleanup EXIT
}

swtpm_test_cleanup() {
	local p

	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}

# verifier_cert: the verifier's TLS key and certificate for 127.0.0.1,
# $tmp/key.pem and $tmp/cert.pem.
verifier_cert() {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 2 \
		-subj /CN=verifier -addext "subjectAltName=IP:127.0.0.1" \
		>/dev/null 2>&1
}

# ---- checks of the TAP scripts that start daemons -------------------------

# fail DESCRIPTION [LOG], check DESCRIPTION CMD... (ok when CMD succeeds),
# within SECONDS CMD... (CMD succeeds within SECONDS, polled every 0.2 s),
# fails CMD... (CMD fails); $failures counts the failed checks.
failures=0
fail() { failures=$((failures + 1)); not_ok "$@"; }
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}
within() {
	local n=$(($1 * 5))
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.2
	done
}
fails() { ! "$@"; }

# swtpm_lab: after swtpm_test_setup, an EK CA ($ca, its bundle
# $tmp/ek-ca.pem), the verifier's TLS certificate, a certified TPM on
# swtpm behind tpm_mux ($tcti, for the agent) and the fake kernel's list
# ($list) with its boot_aggregate; kernel ARGS... runs the fake kernel.
# Bails out when any of it does not start.
swtpm_lab() {
	ca="$tmp/ekca"
	mkdir -p "$ca" "$tmp/tpm" "$tmp/state"
	swtpm_ca_init "$ca"
	swtpm_manufacture "$tmp/tpm" "$ca" "$tmp/swtpm_setup.log" ||
		bail "no TPM" "$tmp/swtpm_setup.log"
	swtpm_ca_bundle "$ca" "$tmp/ek-ca.pem"
	verifier_cert
	swtpm_start "$tmp/tpm" "$tmp/swtpm.log" ||
		bail "swtpm does not start" "$tmp/swtpm.log"
	swtpm_lab_mux
}

# swtpm_lab_mux: swtpm_lab's last step, for a test that provisions its
# running swtpm itself: tpm_mux in front of it ($tcti, its pid in pids)
# and the fake kernel's list ($list) with its boot_aggregate.
swtpm_lab_mux() {
	mux_port=$(swtpm_free_ports)
	"$mux" "$mux_port" "${TPM2TOOLS_TCTI##*port=}" >"$tmp/mux.log" 2>&1 &
	pids+=($!)
	tcti="swtpm:host=127.0.0.1,port=$mux_port"
	list="$tmp/binary_runtime_measurements"
	: >"$list"
	within 5 kernel boot ||
		bail "fake kernel wrote no boot_aggregate" "$tmp/kernel.log"
}
kernel() { IMATRUST_TCTI=$tcti "$kern" "$list" "$@" >>"$tmp/kernel.log" 2>&1; }

# swtpm_lab_exit PID...: the EXIT trap of a test that started daemons:
# kills them and swtpm, shows every log of $tmp when a check failed,
# removes $tmp. Install as trap 'swtpm_lab_exit $A_PID $B_PID' EXIT.
swtpm_lab_exit() {
	local p f

	for p in "$@"; do
		kill "$p" 2>/dev/null
	done
	swtpm_stop
	if [ "$failures" -gt 0 ]; then
		for f in "$tmp"/*.log; do
			[ -s "$f" ] && sed "s|^|# $(basename "$f"): |" "$f"
		done
	fi
	swtpm_test_cleanup
}

# lab_verifier_start: imatrust-verifier -d -c $tmp/verifier.conf in the
# background (VERIFIER_PID, log $tmp/verifier.log), then wait until
# https://127.0.0.1:$vport/v1/health answers; non-zero when it does not.
lab_verifier_start() {
	"$bin/imatrust-verifier" -d -c "$tmp/verifier.conf" \
		>>"$tmp/verifier.log" 2>&1 &
	# shellcheck disable=SC2034 # the sourcing test stops it
	VERIFIER_PID=$!
	# shellcheck disable=SC2154 # $vport is the sourcing test's
	within 10 verifier_up "$vport" "$tmp/cert.pem"
}

# lab_agent_start ID [LINE...]: imatrust-agent as machine ID on the lab's
# TPM and list, to the verifier on $vport (AGENT_PID, log $tmp/agent.log),
# with LINEs (key = value) added to its configuration.
lab_agent_start() {
	local id=$1

	shift
	{
	cat <<EOC
verifier_url = https://127.0.0.1:$vport
ca_cert = $tmp/cert.pem
id = $id
tcti = $tcti
state_dir = $tmp/state
measurement_list = $list
heartbeat = 1
poll_fallback_ms = 100
backoff_max = 2
log_level = debug
EOC
	[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$tmp/agent.conf"
	"$bin/imatrust-agent" -c "$tmp/agent.conf" >>"$tmp/agent.log" 2>&1 &
	# shellcheck disable=SC2034 # the sourcing test stops it
	AGENT_PID=$!
}

# verifier_run CONF PORT LOG: start imatrust-verifier with CONF (its TLS
# certificate $tmp/cert.pem, verifier_cert) and wait until PORT answers
# /v1/health; $vpid is its pid, added to pids.
verifier_run() {
	"$bin/imatrust-verifier" -c "$1" 2>>"$3" &
	vpid=$!
	pids+=("$vpid")
	within 5 verifier_up "$2" "$tmp/cert.pem" ||
		bail "verifier did not start" "$3"
}

# ---- machines of their own swtpm, the verifier's API ----------------------
# (test_attest, test_enroll, test_history, test_verify)

# start_tpm NAME: machine NAME's swtpm on its state $tmp/NAME/tpm
# (swtpm_manufacture) behind a tpm_mux: $tcti_NAME for its agent,
# $swtpm_NAME and $mux_NAME the pids (in pids too), $tmp/NAME/probe.
start_tpm() {
	local d=$tmp/$1 port
	mkdir -p "$d/probe"
	swtpm_start "$d/tpm" "$d/swtpm.log" || bail "swtpm $1" "$d/swtpm.log"
	pids+=("$SWTPM_PID")
	eval "swtpm_$1=$SWTPM_PID"
	port=$(swtpm_free_ports)
	"$mux" "$port" "${TPM2TOOLS_TCTI##*port=}" 2>>"$d/mux.log" &
	pids+=($!)
	eval "mux_$1=$!"
	eval "tcti_$1=swtpm:host=127.0.0.1,port=$port"
	sleep 0.2
}

# as NAME CMD...: run attest_probe or fake_kernel for machine NAME
as() {
	local n=$1
	shift
	IMATRUST_TCTI=$(eval echo "\$tcti_$n") PROBE_ID=$n \
		PROBE_STATE=$tmp/$n/probe "$@"
}

# ---- the verifier's database: an SQLite file, or PostgreSQL ---------------
# With IMATRUST_TEST_PG_URI set (tests/integration/run-pg.sh), every
# database a test names by a file DB is a PostgreSQL database instead: the
# first DB named is IMATRUST_TEST_PG_URI's database, emptied then (schema
# public dropped), each other DB a database of its own on the same server,
# (again) created then as NAME_2, NAME_3... (NAME: the first one's; the
# role needs CREATEDB). $tmp/pg-databases keeps which is which.

# db_uri DB: what "database =" says for DB: DB, or its PostgreSQL URI.
db_uri() {
	local db=$1 map=$tmp/pg-databases uri n name re

	if [ -z "${IMATRUST_TEST_PG_URI:-}" ]; then
		printf '%s\n' "$db"
		return 0
	fi
	command -v psql >/dev/null || {
		echo "Bail out! psql not installed (deploy/install-deps.sh)" >&2
		return 1
	}
	touch "$map"
	uri=$(awk -F '\t' -v db="$db" '$1 == db { print $2 }' "$map")
	if [ -z "$uri" ]; then
		n=$(($(wc -l <"$map") + 1))
		uri=$IMATRUST_TEST_PG_URI
		if [ "$n" -eq 1 ]; then
			db_psql "$uri" -c "SET client_min_messages = warning" \
				-c "DROP SCHEMA public CASCADE" \
				-c "CREATE SCHEMA public" || return 1
		else
			name=$(db_psql "$uri" -c "SELECT current_database()") &&
				name=${name}_$n &&
				db_psql "$uri" -c "SET client_min_messages = warning" \
					-c "DROP DATABASE IF EXISTS \"$name\"" \
					-c "CREATE DATABASE \"$name\" ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0" ||
				return 1
			# the same URI with the other database: the dbname
			# parameter, else the path
			re='^(.*[?&]dbname=)[^&]*(.*)$'
			if [[ $uri =~ $re ]]; then
				uri=${BASH_REMATCH[1]}$name${BASH_REMATCH[2]}
			else
				re='^(postgres(ql)?://[^/?]*)(/[^?]*)?(.*)$'
				[[ $uri =~ $re ]] || return 1
				uri=${BASH_REMATCH[1]}/$name${BASH_REMATCH[4]}
			fi
		fi
		printf '%s\t%s\n' "$db" "$uri" >>"$map"
	fi
	printf '%s\n' "$uri"
}

# db_psql URI ARGS...: psql, its rows as sqlite3 prints them (columns
# separated by |, NULL empty), stopping at the first error.
db_psql() {
	local uri=$1
	shift
	psql -X -A -t -q -v ON_ERROR_STOP=1 "$uri" "$@"
}

# db_query DB SQL [PG_SQL]: the rows of SQL on the verifier's database DB,
# as sqlite3 prints them; on PostgreSQL the rows of PG_SQL (default SQL).
# Where the two spellings differ PG_SQL must print the same text: a blob
# as lower(hex(x)) is encode(x, 'hex') there.
db_query() {
	local uri

	if [ -z "${IMATRUST_TEST_PG_URI:-}" ]; then
		sqlite3 "$1" "$2"
	else
		uri=$(db_uri "$1") && db_psql "$uri" -c "${3:-$2}"
	fi
}

# records_once_sql MACHINE: SQL printing "N|GAPS" for MACHINE's records
# (every boot): N stored, and GAPS chunks that do not start where the one
# before ends (the first at 0): a gap or a record stored twice. Both
# engines read it alike.
records_once_sql() {
	printf '%s' "select coalesce(sum(n), 0), coalesce(sum(case when first_idx <> prev_end then 1 else 0 end), 0) from (select length(c.verdicts) as n, c.first_idx, lag(c.first_idx + length(c.verdicts), 1, cast(0 as bigint)) over (partition by c.boot_id order by c.first_idx) as prev_end from record_chunks c join boots b on b.id = c.boot_id where b.machine_id = '$1') x"
}

# verifier_conf CONF PORT DB [LINE...]: a verifier on 127.0.0.1:PORT with
# the TLS key of verifier_cert and the database DB (db_uri), then LINEs
# (key = value). On PostgreSQL the result key is named where SQLite would
# make it by default, beside DB, unless a LINE says result_key.
verifier_conf() {
	local conf=$1 port=$2 db=$3 line key=

	shift 3
	if [ -n "${IMATRUST_TEST_PG_URI:-}" ]; then
		key="result_key = $(dirname "$db")/result-key.pem"
		for line in "$@"; do
			case $line in result_key*) key= ;; esac
		done
	fi
	db=$(db_uri "$db") || return 1
	{
		printf 'listen = 127.0.0.1\nport = %s\n' "$port"
		printf 'tls_cert = %s\ntls_key = %s\n' "$tmp/cert.pem" "$tmp/key.pem"
		printf 'database = %s\n' "$db"
		[ -z "$key" ] || printf '%s\n' "$key"
		[ $# -eq 0 ] || printf '%s\n' "$@"
	} >"$conf"
}

# api METHOD PATH [BODY]: the operator API at $api_url with $token (BODY
# as curl --data-binary takes it: "@FILE" reads FILE)
api() {
	# shellcheck disable=SC2154 # $token and $api_url are the sourcing test's
	curl -s --cacert "$tmp/cert.pem" -X "$1" \
		-H "Authorization: Bearer $token" \
		-H "Content-Type: application/json" \
		${3:+--data-binary "$3"} "$api_url$2"
}
state_of() { api GET "/v1/machines/$1" | jq -r '.state // .machine.state'; }
reason_of() { api GET "/v1/machines/$1" | jq -c '.state_reason // .machine.state_reason'; }
sha256_hex() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
add_ref() {	# add_ref PATH CONTENT: a dir-tree:test reference
	api POST /v1/references "{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":\"test\"},\"refs\":[{\"path\":\"$1\",\"algo\":\"sha256\",\"digest\":\"$(sha256_hex "$2")\"}]}" >/dev/null
}

# expect DESCRIPTION PATTERN OUTPUT: ok when OUTPUT matches *PATTERN*
expect() {
	if [[ "$3" == *$2* ]]; then ok "$1"; else echo "# got: $3"; not_ok "$1"; fi
}

# shellcheck shell=bash
# lib.sh - TAP and setup shared by the shell tests that run the programs
# without a TPM (sourced; its name is not test_*.sh, so run-suite.sh does
# not run it). tests/integration/swtpm-lib.sh serves the swtpm tests.
#
#   ok / not_ok DESC [FILE]      a TAP line; not_ok shows FILE as comments
#   expect CODE DESC CMD...      CMD exits with CODE (output: $tmp/out, err)
#   contains / lacks FILE ERE DESC
#   skip_without TOOL...         "1..0 # SKIP" and exit 0 if one is missing
#   free_port                    a free TCP port on 127.0.0.1
#   self_cert [rsa]              $tmp/key.pem, $tmp/cert.pem for 127.0.0.1
#   write_verifier_conf LINE...  $tmp/verifier.conf on $port with that cert
#   token_add NAME [ROLE]        a token of ROLE (admin) for NAME in $token
#   health_wait                  until the verifier on $port answers
#   verifier_start               the verifier as $pid, $url, one TAP line
#   record_body_hex PCR TEMPLATE PATH ALGO DIGEST_HEX [SIG_HEX]
#                                the hex of one record as the body of a
#                                record_chunks row holds it
#   plant_machine ID STATE REASON RECORDS
#                                a machine as the evidence path leaves it,
#                                and a boot with RECORDS: SQL rows "(idx,
#                                'path', x'sha256', 'verdict')" after the
#                                boot_aggregate record (index 0), each
#                                record a chunk of its own
#
# Sourcing it sets $bin, $imatrust, $tmp, $pid and a trap that stops $pid
# and removes $tmp on exit; a test with more to stop defines cleanup_more.

CLI_LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${IMATRUST_BIN:-$CLI_LIB_ROOT/build/bin}
# shellcheck disable=SC2034 # for the tests that source this
imatrust="$bin/imatrust"
tmp=$(mktemp -d)
pid=""
cleanup() {
	if declare -F cleanup_more >/dev/null; then
		cleanup_more
	fi
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	# shellcheck disable=SC1003 # sed "$a\" ends the last line
	[ -n "${2:-}" ] && [ -f "$2" ] && sed -e 's/^/# /' -e '$a\' "$2"
	return 0
}
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

# shellcheck source=tests/lib/need.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/need.sh"
skip_without() {
	need "$@"
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# An EC P-256 key unless "rsa" (RSA 2048) is asked for.
self_cert() {
	local key=(-newkey ec -pkeyopt ec_paramgen_curve:P-256)

	[ "${1:-}" = rsa ] && key=(-newkey rsa:2048)
	openssl req -x509 "${key[@]}" -nodes \
		-keyout "$tmp/key.pem" -out "$tmp/cert.pem" -days 1 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
}

# The lines given follow the listener, certificate and database keys.
write_verifier_conf() {
	{
		# shellcheck disable=SC2154 # $port is the sourcing test's
		printf 'listen = 127.0.0.1\nport = %s\n' "$port"
		printf 'tls_cert = %s\ntls_key = %s\n' "$tmp/cert.pem" "$tmp/key.pem"
		printf 'database = %s\n' "$tmp/verifier.db"
		printf '%s\n' "$@"
	} >"$tmp/verifier.conf"
}

# token_add NAME [ROLE]: a new token in $token, admin unless ROLE says
# otherwise (what every token was before roles; test_token.sh tests the
# default, operator)
token_add() {
	# shellcheck disable=SC2034 # for the tests that source this
	token=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add "$1" \
		--role "${2:-admin}" 2>"$tmp/err") ||
		{ echo "Bail out! token add"; cat "$tmp/err"; exit 1; }
}

health_wait() {
	for _ in $(seq 50); do
		curl -sf --cacert "$tmp/cert.pem" \
			"https://127.0.0.1:$port/v1/health" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Its log in $tmp/verifier.log; exit 1 if it does not serve.
verifier_start() {
	"$bin/imatrust-verifier" -c "$tmp/verifier.conf" >"$tmp/verifier.log" 2>&1 &
	pid=$!
	# shellcheck disable=SC2034 # for the tests that source this
	url="https://127.0.0.1:$port"
	if health_wait; then
		ok "the verifier serves HTTPS"
	else
		not_ok "the verifier serves HTTPS" "$tmp/verifier.log"
		exit 1
	fi
}

# record_body_hex PCR TEMPLATE PATH ALGO DIGEST_HEX [SIG_HEX]: one record
# as a record_chunks body holds it (db/db_record_chunk.h), in hex: varint
# pcr; the template, path and digest algorithm each as varint length,
# bytes and a NUL; the digest and the ima-sig signature (none: empty) as
# varint length and bytes. Varints are LEB128. Seed a record as its own
# chunk with: INSERT INTO record_chunks (boot_id, first_idx, verdicts,
# body) VALUES (BOOT, IDX, LETTER, x'HEX'), LETTER one of kumvxsb.
record_body_hex() {
	local digest=${5:-} sig=${6:-} out="" field v s b

	if [ $# -lt 5 ] || [ $# -gt 6 ] || ! [[ $1 =~ ^[0-9]{1,10}$ ]] ||
	   [ "$1" -gt 4294967295 ] || ! [[ $digest =~ ^([0-9a-fA-F]{2})*$ ]] ||
	   ! [[ $sig =~ ^([0-9a-fA-F]{2})*$ ]]; then
		echo "record_body_hex: want PCR (0..2^32-1) TEMPLATE PATH ALGO" \
			"DIGEST_HEX [SIG_HEX] (hex: whole bytes), got: $*" >&2
		return 1
	fi
	# n:NUMBER the pcr; t:TEXT its bytes and a NUL; h:HEX those bytes
	for field in "n:$1" "t:$2" "t:$3" "t:$4" "h:$digest" "h:$sig"; do
		case $field in
		n:*) v=${field#n:} s="" ;;
		t:*) s=$(printf '%s' "${field#t:}" | od -An -v -tx1 | tr -d ' \n')
		     v=$((${#s} / 2)) s=${s}00 ;;
		h:*) s=${field#h:} v=$((${#s} / 2)) ;;
		esac
		while [ "$v" -ge 128 ]; do
			printf -v b '%02x' $(((v & 127) | 128))
			out+=$b v=$((v >> 7))
		done
		printf -v b '%02x' "$v"
		out+=$b${s,,}
	done
	printf '%s\n' "$out"
}

plant_machine() {
	local id=$1 state=$2 reason=$3 records=$4 now next rows chunks idx path \
		digest verdict letter hex
	now=$(date +%s)
	next=$(($(printf '%s' "$records" | grep -o '(' | wc -l) + 1))
	# the records given, read back: index, path, digest in hex, verdict
	rows=$(sqlite3 -batch -bail -separator $'\t' :memory: \
		"CREATE TABLE planted (idx, path, digest, verdict);
		 INSERT INTO planted VALUES $records;
		 SELECT idx, path, hex(digest), verdict FROM planted
		 ORDER BY idx") || { echo "Bail out! plant_machine $id: $records"; exit 1; }
	hex=$(record_body_hex 10 ima-ng boot_aggregate sha256 \
		"$(printf '%064d' 0)") || { echo "Bail out! plant_machine $id"; exit 1; }
	chunks="(0, 'x', x'$hex')"
	while IFS=$'\t' read -r idx path digest verdict; do
		case $verdict in
		known) letter=k ;; unknown) letter=u ;; mismatch) letter=m ;;
		violation) letter=v ;; excluded) letter=x ;; signed) letter=s ;;
		bad-signature) letter=b ;;
		*) echo "Bail out! plant_machine $id: no verdict \"$verdict\""; exit 1 ;;
		esac
		hex=$(record_body_hex 10 ima-ng "$path" sha256 "$digest") ||
			{ echo "Bail out! plant_machine $id: record $idx"; exit 1; }
		chunks+=", ($idx, '$letter', x'$hex')"
	done <<<"$rows"
	sqlite3 -batch -bail "$tmp/verifier.db" <<SQL || { echo "Bail out! plant_machine $id"; exit 1; }
INSERT INTO machines (id, ek_pub, ak_pub, ak_name, state, state_reason,
	created_at, last_seen, activated, ek_fpr)
VALUES ('$id', x'0001', x'0001', x'000b01', '$state', '$reason', $now, $now,
	1, zeroblob(32));
INSERT INTO boots (machine_id, reset_count, restart_count, started_at,
	next_record_index, pcr10_sha1, pcr10_sha256)
VALUES ('$id', 1, 0, $now, $next, zeroblob(20), zeroblob(32));
CREATE TEMP TABLE planted (first_idx, verdicts, body);
INSERT INTO planted VALUES $chunks;
INSERT INTO record_chunks (boot_id, first_idx, verdicts, body)
	SELECT b.id, p.first_idx, p.verdicts, p.body
	FROM planted p, boots b WHERE b.machine_id = '$id';
SQL
}

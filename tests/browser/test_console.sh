#!/usr/bin/env bash
# test_console.sh - the fleet console in a real headless Chromium (TAP).
#
# A real imatrust-verifier on a free loopback port, three real
# imatrust-agent daemons, each with its own swtpm behind tests/tools/
# tpm_mux and a list written by tests/tools/fake_kernel (no QEMU):
#
#	web-1	an EK certificate from the test CA: trusted; later runs an
#		unknown file and turns untrusted
#	evil-1	the same, then measures files whose paths are HTML and
#		script: the console must show them as text and run nothing
#	pend-1	an EK without a certificate: pending until approved
#
# then tests/browser/console.py drives Chromium through chromedriver
# (Debian's chromium, chromium-driver, python3-selenium) and prints the
# TAP lines of the page. Screenshots of each step are kept in
# build/test-logs/console/ (CONSOLE_SHOTS overrides), named in the output.
# Skips only when chromium is not installed (deploy/install-deps.sh
# installs it, so CI does not skip).
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/integration/swtpm-lib.sh
. "$here/../integration/swtpm-lib.sh"
root=$SWTPM_LIB_ROOT
bin=${IMATRUST_BIN:-$root/build/bin}
# Debian's python3: python3-selenium is installed for it, not for
# another python3 that may come first in PATH.
py=/usr/bin/python3

# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need chromium chromedriver
require_tools swtpm swtpm_setup swtpm_localca openssl curl jq tpm2_getcap
"$py" -c 'import selenium' 2>/dev/null ||
	bail "python3-selenium not installed for $py (deploy/install-deps.sh)"
mux=$(tool_path tpm_mux) || exit 1
kern=$(tool_path fake_kernel) || exit 1
for b in imatrust-agent imatrust-verifier; do
	[ -x "$bin/$b" ] || bail "no $bin/$b: run make first"
done

shots=${CONSOLE_SHOTS:-$root/build/test-logs/console}
rm -rf "$shots"
mkdir -p "$shots"
tmp=$(mktemp -d)
pids=()
# shellcheck disable=SC2317 # the EXIT trap calls it
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	# the logs stay beside the screenshots, for a failure's reading
	cp "$tmp"/*.log "$shots"/ 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "# screenshots and logs: $shots"

# --- PKI: an EK CA (swtpm-localca), the verifier's TLS certificate -------
ca=$tmp/ekca
swtpm_ca_init "$ca"
swtpm_manufacture "$tmp/ca-init" "$ca" "$tmp/ca-init.log" ||
	bail "EK CA" "$tmp/ca-init.log"
swtpm_ca_bundle "$ca" "$tmp/ek-ca.pem"
verifier_cert

# --- the verifier -----------------------------------------------------------
vport=$(swtpm_free_ports)
url=https://127.0.0.1:$vport
cat >"$tmp/verifier.conf" <<EOC
listen = 127.0.0.1
port = $vport
tls_cert = $tmp/cert.pem
tls_key = $tmp/key.pem
database = $tmp/verifier.db
ek_ca = $tmp/ek-ca.pem
nonce_ttl = 30
EOC
token=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add console) ||
	bail "token add"
reader=$("$bin/imatrust-verifier" -c "$tmp/verifier.conf" token add viewer \
	--role reader 2>/dev/null) || bail "token add --role reader"
"$bin/imatrust-verifier" -d -c "$tmp/verifier.conf" >>"$tmp/verifier.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	curl -sf --cacert "$tmp/cert.pem" "$url/v1/health" >/dev/null && break
	sleep 0.1
done
curl -sf --cacert "$tmp/cert.pem" "$url/v1/health" >/dev/null ||
	bail "the verifier does not start" "$tmp/verifier.log"

api() {	# api METHOD PATH [BODY]
	curl -s --cacert "$tmp/cert.pem" -X "$1" \
		-H "Authorization: Bearer $token" \
		-H "Content-Type: application/json" \
		${3:+--data-binary "$3"} "$url$2"
}
sha256_hex() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
api POST /v1/references "{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":\"image\"},\"refs\":[{\"path\":\"/usr/bin/tool\",\"algo\":\"sha256\",\"digest\":\"$(sha256_hex one)\"}]}" >"$tmp/refs.json"
jq -e '.added == 1' "$tmp/refs.json" >/dev/null || bail "reference import" "$tmp/refs.json"

# --- machines: swtpm, mux, list, agent ------------------------------------
machines='{}'
# machine NAME [uncertified]
machine() {
	local n=$1 d=$tmp/$1 mport
	mkdir -p "$d/state"
	swtpm_manufacture "$d/tpm" "$ca" ${2:+"$2"} "$tmp/$n-setup.log" ||
		bail "swtpm_setup $n" "$tmp/$n-setup.log"
	swtpm_start "$d/tpm" "$tmp/$n-swtpm.log" || bail "swtpm $n" "$tmp/$n-swtpm.log"
	pids+=("$SWTPM_PID")
	SWTPM_PID=	# the cleanup kills it with the others
	mport=$(swtpm_free_ports)
	"$mux" "$mport" "${TPM2TOOLS_TCTI##*port=}" >"$tmp/$n-mux.log" 2>&1 &
	pids+=($!)
	local tcti=swtpm:host=127.0.0.1,port=$mport
	for _ in $(seq 50); do
		IMATRUST_TCTI=$tcti "$kern" "$d/list" boot >"$tmp/$n-kernel.log" 2>&1 && break
		sleep 0.1
	done
	[ -s "$d/list" ] || bail "fake_kernel $n" "$tmp/$n-kernel.log"
	IMATRUST_TCTI=$tcti "$kern" "$d/list" file /usr/bin/tool one >>"$tmp/$n-kernel.log" 2>&1
	cat >"$d/agent.conf" <<EOC
verifier_url = $url
ca_cert = $tmp/cert.pem
id = $n
tcti = $tcti
state_dir = $d/state
measurement_list = $d/list
boot_log = none
heartbeat = 1
poll_fallback_ms = 100
backoff_max = 1
EOC
	"$bin/imatrust-agent" -c "$d/agent.conf" >>"$tmp/$n-agent.log" 2>&1 &
	pids+=($!)
	machines=$(jq -c --arg n "$n" --arg l "$d/list" --arg t "$tcti" \
		'.[$n] = {list: $l, tcti: $t}' <<<"$machines")
}
machine web-1
machine evil-1
machine pend-1 uncertified

# state_is ID STATE: within 20 s
state_is() {
	for _ in $(seq 100); do
		[ "$(api GET "/v1/machines/$1" | jq -r .machine.state)" = "$2" ] && return 0
		sleep 0.2
	done
	return 1
}
for m in web-1:trusted evil-1:trusted pend-1:pending; do
	state_is "${m%%:*}" "${m#*:}" ||
		bail "${m%%:*} is not ${m#*:}" "$tmp/${m%%:*}-agent.log"
done
ok "three agents against swtpm: web-1 and evil-1 trusted, pend-1 pending (API)"

CONSOLE_URL=$url CONSOLE_CA=$tmp/cert.pem CONSOLE_TOKEN=$token \
	CONSOLE_READER=$reader \
	CONSOLE_SHOTS=$shots CONSOLE_KERNEL=$kern CONSOLE_MACHINES=$machines \
	CONSOLE_TAP_START=$tap_n \
	timeout 150 "$py" "$here/console.py" 2>"$tmp/console.log"
rc=$?
[ "$rc" -eq 0 ] || sed 's/^/# /' "$tmp/console.log"
exit "$rc"

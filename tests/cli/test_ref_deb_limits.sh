#!/usr/bin/env bash
# test_ref_deb_limits.sh - packages that cost far more to read than to
# send (issue 33), against a real imatrust-verifier (TAP): 300,000 empty
# files with 1,000-byte paths, 600,000 empty files, 256 MiB of zeros in
# about 1 MB, each imported in four banks, each refused with a 413 that
# names the limit of import_deb.h it reached, nothing stored, the
# verifier's peak memory (VmHWM) bounded, and a real package imported
# after them. The packages are written at test time by make-deb-bomb.py.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

skip_without openssl sqlite3 curl jq dpkg-deb python3

# generous: the old verifier peaked at 2.7 GB on the first package
VMHWM_MAX_KB=$((300 * 1024))
banks=sha256,sha1,sha512,sha384

port=$(free_port)
self_cert
write_verifier_conf
token_add alice
printf '%s\n' "$token" >"$tmp/token"

mkdir -p "$tmp/pool"
"$here/../fixtures/deb/make-deb-bomb.py" files 300000 1000 "$tmp/pool/long-paths.deb"
"$here/../fixtures/deb/make-deb-bomb.py" files 600000 30 "$tmp/pool/many-files.deb"
"$here/../fixtures/deb/make-deb-bomb.py" zeros 256 "$tmp/pool/zeros.deb"

verifier_start
export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token

# refused DEB LIMIT: the import fails with a 413 naming LIMIT
refused() {
	expect 1 "$1.deb ($(stat -c %s "$tmp/pool/$1.deb") bytes) is refused" \
		"$imatrust" ref import-deb --algo "$banks" "$tmp/pool/$1.deb"
	contains "$tmp/err" "answered 413: .*limit $2 reached" \
		"$1.deb: a 413 naming $2 and the value reached"
}
refused long-paths DEB_PATH_BYTES_MAX
refused many-files DEB_FILES_MAX
refused zeros DEB_RATIO_MAX

expect 0 "ref sources after the refusals" "$imatrust" ref sources --json
[ "$(jq length "$tmp/out")" = 0 ] && ok "nothing was stored" ||
	not_ok "nothing was stored" "$tmp/out"

hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status")
if [ -n "$hwm" ] && [ "$hwm" -lt "$VMHWM_MAX_KB" ]; then
	ok "the verifier peaked at ${hwm} kB (< $VMHWM_MAX_KB)"
else
	echo "# VmHWM ${hwm:-?} kB"
	not_ok "the verifier peaked under $VMHWM_MAX_KB kB"
fi

# a real package still goes in, in the same four banks
d=$tmp/src/tool
mkdir -p "$d/DEBIAN" "$d/usr/bin"
printf 'Package: tool\nVersion: 1.0\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n' \
	>"$d/DEBIAN/control"
printf '#!/bin/sh\necho tool\n' >"$d/usr/bin/tool"
dpkg-deb -Zxz --root-owner-group --build "$d" "$tmp/pool/tool.deb" >/dev/null
expect 0 "a real package is imported after them" \
	"$imatrust" ref import-deb --algo "$banks" "$tmp/pool/tool.deb"
expect 0 "ref ls /usr/bin/tool" "$imatrust" ref ls --json
[ "$(jq '[.[] | select(.path == "/usr/bin/tool")] | length' "$tmp/out")" = 4 ] &&
	ok "its binary is stored in each of the four banks" ||
	not_ok "its binary is stored in each of the four banks" "$tmp/out"

echo "1..$n"

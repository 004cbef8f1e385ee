#!/usr/bin/env bash
# test_ref_deb.sh - Debian packages as references, against a real
# imatrust-verifier on a free loopback port (TAP): import-deb and
# import-archive (a local archive indexed by dpkg-scanpackages), a version
# imported twice, an upgrade that keeps the old version until it is
# retired, a changed conffile under both conffiles policies, and refused
# input (a corrupt .deb, a .deb that differs from its index) storing
# nothing. A machine is planted running the packages' files.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

skip_without openssl sqlite3 curl jq dpkg-deb dpkg-scanpackages xz

port=$(free_port)
self_cert
write_verifier_conf "stale_after = 86400"
token_add alice
printf '%s\n' "$token" >"$tmp/token"

# tool 1.0 and 1.1: a binary and a conffile each
mkpkg() {	# mkpkg VERSION -> $tmp/pool/tool_VERSION_amd64.deb
	local v=$1 d=$tmp/src/tool-$1
	mkdir -p "$d/DEBIAN" "$d/usr/bin" "$d/etc"
	printf 'Package: tool\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n' \
		"$v" >"$d/DEBIAN/control"
	echo /etc/tool.conf >"$d/DEBIAN/conffiles"
	printf '#!/bin/sh\necho tool %s\n' "$v" >"$d/usr/bin/tool"
	chmod 755 "$d/usr/bin/tool"
	echo "level = $v" >"$d/etc/tool.conf"
	mkdir -p "$tmp/pool"
	dpkg-deb -Zxz --root-owner-group --build "$d" \
		"$tmp/pool/tool_${v}_amd64.deb" >/dev/null
}
mkpkg 1.0
mkpkg 1.1
sha() { sha256sum "$1" | cut -d' ' -f1; }
bin10=$(sha "$tmp/src/tool-1.0/usr/bin/tool")
bin11=$(sha "$tmp/src/tool-1.1/usr/bin/tool")
conf_changed=$(printf 'level = mine\n' | sha256sum | cut -d' ' -f1)

plant_machine node-1 untrusted \
	'{"check":"record","index":1,"path":"/usr/bin/tool","verdict":"unknown"}' \
	"(1, '/usr/bin/tool', x'$bin10', 'unknown')"

verifier_start
export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token
state() { "$imatrust" machines --json | jq -r '.[] | select(.id == "node-1") | .state'; }
reason() { "$imatrust" machines --json | jq -r '.[] | select(.id == "node-1") | .state_reason | tostring'; }

# a corrupt package is refused and stores nothing
head -c 600 "$tmp/pool/tool_1.0_amd64.deb" >"$tmp/cut.deb"
expect 1 "a truncated .deb is refused" "$imatrust" ref import-deb "$tmp/cut.deb"
contains "$tmp/err" 'not imported: ' "the refusal says what was wrong"
printf 'not a package' >"$tmp/junk.deb"
expect 1 "a file that is no .deb is refused" "$imatrust" ref import-deb "$tmp/junk.deb"
expect 0 "ref sources after the refusals" "$imatrust" ref sources --json
[ "$(jq length "$tmp/out")" = 0 ] && ok "nothing was stored" || not_ok "nothing was stored" "$tmp/out"

# tool 1.0: node-1 ran its binary
expect 0 "ref import-deb tool 1.0" "$imatrust" ref import-deb --algo sha256,sha1 \
	"$tmp/pool/tool_1.0_amd64.deb"
contains "$tmp/out" '^tool_1.0_amd64: [1-9][0-9]* added.*now trusted 1' "node-1 became trusted"
[ "$(state)" = trusted ] && ok "node-1 is trusted" || not_ok "node-1 is trusted" /dev/null
expect 0 "the same version again" "$imatrust" ref import-deb "$tmp/pool/tool_1.0_amd64.deb"
contains "$tmp/out" 'deb:tool_1.0_amd64 already imported' "importing it again is a no-op"
expect 0 "ref sources --kind deb" "$imatrust" ref sources --kind deb --json
[ "$(jq -r '.[0].package + " " + .[0].version + " " + .[0].arch' "$tmp/out")" = "tool 1.0 amd64" ] &&
	ok "the source records package, version and architecture" || not_ok "source metadata" "$tmp/out"
expect 0 "machine records say which package" "$imatrust" machine records --json node-1
[ "$(jq -r '.[] | select(.path == "/usr/bin/tool") | .accepted_by.source' "$tmp/out")" = deb:tool_1.0_amd64 ] &&
	ok "the record names deb:tool_1.0_amd64" || not_ok "accepted_by names the package" "$tmp/out"
[ "$(jq -r '.[] | select(.path == "/usr/bin/tool") | .accepted_by.version' "$tmp/out")" = 1.0 ] &&
	ok "... and its version" || not_ok "accepted_by names the version" "$tmp/out"

# another file under the same package version is refused
printf 'x\n' >>"$tmp/src/tool-1.0/usr/bin/tool"
dpkg-deb -Zxz --root-owner-group --build "$tmp/src/tool-1.0" "$tmp/other.deb" >/dev/null
expect 1 "another file with the same version is refused" "$imatrust" ref import-deb "$tmp/other.deb"
contains "$tmp/err" 'imported from another file' "the refusal says why"

# an archive with 1.1: both versions are accepted until 1.0 is retired
mkdir -p "$tmp/archive/pool"
cp "$tmp/pool/tool_1.0_amd64.deb" "$tmp/pool/tool_1.1_amd64.deb" "$tmp/archive/pool/"
(cd "$tmp/archive" && dpkg-scanpackages -m pool /dev/null 2>/dev/null | xz >Packages.xz)
expect 0 "ref import-archive" "$imatrust" ref import-archive "$tmp/archive"
contains "$tmp/out" 'already imported' "tool 1.0 of the archive is a no-op"
contains "$tmp/out" '^tool_1.1_amd64: [1-9][0-9]* added' "tool 1.1 was imported"
contains "$tmp/out" '2 packages, 0 failed' "the archive's two packages"
[ "$(state)" = trusted ] && ok "node-1 still runs 1.0 and is trusted" || not_ok "trusted during the upgrade" /dev/null
rec=$(record_body_hex 10 ima-ng /usr/bin/tool sha256 "$bin11") &&
	sqlite3 "$tmp/verifier.db" "INSERT INTO record_chunks (boot_id, first_idx, verdicts, body) VALUES (1, 2, 'k', x'$rec'); UPDATE boots SET next_record_index = 3" ||
	not_ok "planting record 2 (tool 1.1's binary)"
expect 0 "ref retire deb:tool_1.0_amd64" "$imatrust" ref retire deb:tool_1.0_amd64
contains "$tmp/out" 'now untrusted 1' "retiring 1.0 re-judges node-1 at once"
reason >"$tmp/why"
contains "$tmp/why" '/usr/bin/tool' "the reason names the file still running 1.0's binary"
contains "$tmp/why" '"verdict":"mismatch"' "... a mismatch: 1.1 lists another digest for it"

# a .deb that differs from its index is not uploaded
cp "$tmp/other.deb" "$tmp/archive/pool/tool_1.1_amd64.deb"
expect 1 "a package that differs from the index" "$imatrust" ref import-archive "$tmp/archive"
contains "$tmp/err" 'differs from the index|says' "the mismatch is named"
head -c 40 "$tmp/archive/Packages.xz" >"$tmp/archive/Packages.cut" && mv "$tmp/archive/Packages.cut" "$tmp/archive/Packages.xz"
expect 1 "a truncated index" "$imatrust" ref import-archive "$tmp/archive"

# a changed conffile: a mismatch, unless the policy accepts any conffile
# (planted as accepted before; the policy change re-judges every record):
# the boot's records are now the boot_aggregate and the conffile alone
rec0=$(record_body_hex 10 ima-ng boot_aggregate sha256 "$(printf '%064d' 0)") &&
	rec=$(record_body_hex 10 ima-ng /etc/tool.conf sha256 "$conf_changed") &&
	sqlite3 "$tmp/verifier.db" "DELETE FROM record_chunks WHERE boot_id = 1; INSERT INTO record_chunks (boot_id, first_idx, verdicts, body) VALUES (1, 0, 'x', x'$rec0'), (1, 1, 'k', x'$rec'); UPDATE boots SET next_record_index = 2" ||
	not_ok "planting the changed conffile as record 1"
printf '{"machines":["node-*"],"sources":["deb:*"],"conffiles":"reference"}' >"$tmp/p.json"
expect 0 "policy with conffiles = reference" "$imatrust" policy put fleet "$tmp/p.json"
[ "$(state)" = untrusted ] && ok "a changed conffile is not accepted" || not_ok "changed conffile refused" /dev/null
reason >"$tmp/why"
contains "$tmp/why" 'mismatch' "it is a mismatch"
printf '{"machines":["node-*"],"sources":["deb:*"],"conffiles":"any"}' >"$tmp/p.json"
expect 0 "policy with conffiles = any" "$imatrust" policy put fleet "$tmp/p.json"
[ "$(state)" = trusted ] && ok "with conffiles = any it is" || not_ok "conffiles = any" /dev/null

# a stranger on the network with no token: every import route is 401, and
# the body is not read (a large one is refused from the headers)
for r in "POST /v1/references/deb" "POST /v1/references/list?name=x" \
	 "POST /v1/references/keylime?name=x" "POST /v1/references/retire" \
	 "GET /v1/policies/default/keylime"; do
	# "METHOD PATH" into $1 $2 (read: no glob of the ? in a path)
	read -r -a words <<<"$r"
	set -- "${words[@]}"
	code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$tmp/cert.pem" \
		-X "$1" -H 'Authorization: Bearer not-a-token-not-a-token' \
		-H 'Content-Type: application/json' --data-binary '{"v":1}' "$url$2")
	[ "$code" = 401 ] && ok "$1 $2 without a token: 401" ||
		not_ok "$1 $2 without a token: $code" /dev/null
done
expect 0 "nothing changed" "$imatrust" ref sources --json
[ "$(jq length "$tmp/out")" = 2 ] && ok "the sources are as they were" || not_ok "sources unchanged" "$tmp/out"

echo "1..$n"

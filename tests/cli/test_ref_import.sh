#!/usr/bin/env bash
# test_ref_import.sh - imports the verifier parses itself (a golden
# measurement list proven by its PCRs, a Keylime runtime policy and the
# export of a policy as one, one of 20,000 excludes refused), and
# retiring a source, against a real
# imatrust-verifier on a free loopback port (TAP). A machine is planted
# with the records of a real kernel's list (tests/fixtures/ima), untrusted
# because nothing vouches for its files; each import or retirement must
# move it, and each refused input must store nothing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
fx="$here/../fixtures/ima"

skip_without openssl sqlite3 curl jq

port=$(free_port)
self_cert
write_verifier_conf "stale_after = 86400"
token_add alice
printf '%s\n' "$token" >"$tmp/token"

# node-1 ran the four files of the ima-ng-sha256 boot: unknown for now
records=$(awk -v q="'" 'NR > 1 && $4 !~ /^sha256:0+$/ {
	split($4, d, ":");
	printf "%s(%d, %s%s%s, x%s%s%s, %sunknown%s)", sep, NR - 1, q, $5, q,
	       q, d[2], q, q, q; sep = ", " }' \
	"$fx/ima-ng-sha256/ascii_runtime_measurements")
plant_machine node-1 untrusted \
	'{"check":"record","index":1,"path":"/data/bin/bb1","verdict":"unknown"}' \
	"$records"

verifier_start
export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token

state() { "$imatrust" machines --json | jq -r '.[] | select(.id == "node-1") | .state'; }

# a golden list that does not replay to the PCRs given is refused
expect 1 "a list with another boot's PCRs is refused" "$imatrust" ref \
	import-list --name lab --pcrs "sha256:$fx/ima-sig-sha256/pcrs-sha256" \
	"$fx/ima-ng-sha256/binary_runtime_measurements"
contains "$tmp/err" 'refused: .*sha256' "the refusal names the bank that did not verify"
expect 0 "nothing of it was stored" "$imatrust" ref ls --source lab --kind golden-list --json
[ "$(jq length "$tmp/out")" = 0 ] && ok "no reference of the refused list" ||
	not_ok "no reference of the refused list" "$tmp/out"
cp "$fx/ima-ng-sha256/binary_runtime_measurements" "$tmp/list"
printf '\001' | dd of="$tmp/list" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 1 "a list with one byte changed is refused" "$imatrust" ref \
	import-list --name lab --pcrs "sha256:$fx/ima-ng-sha256/pcrs-sha256" "$tmp/list"

# the real list with its own PCRs: node-1's files are vouched for
expect 0 "ref import-list" "$imatrust" ref import-list --name lab \
	--pcrs "sha256:$fx/ima-ng-sha256/pcrs-sha256" \
	--pcrs "sha1:$fx/ima-ng-sha256/pcrs-sha1" \
	"$fx/ima-ng-sha256/binary_runtime_measurements"
contains "$tmp/out" '^lab: [1-9][0-9]* added, 0 withdrawn; machines re-judged 1, now trusted 1' \
	"the import made node-1 trusted"
[ "$(state)" = trusted ] && ok "node-1 is trusted" || not_ok "node-1 is trusted" /dev/null
expect 0 "the records name the list" "$imatrust" ref ls --path /data/bin/bb1
contains "$tmp/out" 'golden-list:lab' "the reference's source is the list"

# export the default policy as Keylime's, import it back under another name
expect 0 "ref export-keylime" "$imatrust" ref export-keylime --policy default
cp "$tmp/out" "$tmp/policy.json"
missing=""
for k in meta release digests excludes keyrings ima ima-buf verification-keys; do
	jq -e --arg k "$k" 'has($k)' "$tmp/policy.json" >/dev/null ||
		missing="$missing $k"
done
[ -z "$missing" ] && ok "the export has Keylime's eight top-level keys" ||
	not_ok "the export lacks:$missing" "$tmp/policy.json"
[ "$(jq -r '.digests["/data/bin/bb1"][0]' "$tmp/policy.json")" = \
  "$(awk '$5 == "/data/bin/bb1" { sub("sha256:", "", $4); print $4 }' \
	"$fx/ima-ng-sha256/ascii_runtime_measurements")" ] &&
	ok "the export carries the list's digest" || not_ok "the export carries the digest" "$tmp/policy.json"
expect 0 "ref import-keylime of the export" "$imatrust" ref import-keylime \
	--name roundtrip "$tmp/policy.json"
expect 0 "the round trip stored the same digests" "$imatrust" ref ls --source roundtrip --kind keylime --json
[ "$(jq '[.[] | select(.path == "/data/bin/bb1")] | length' "$tmp/out")" -ge 1 ] &&
	ok "keylime:roundtrip vouches for /data/bin/bb1" || not_ok "round trip" "$tmp/out"

# what Keylime loads but the verifier cannot use is left out and named,
# the rest imported: a relative path, a Python-only exclude, an ignored
# keyring (issue #36)
jq '.digests["usr/bin/rel"] = ["3d9f2889d6782537624a4e1a10e68a2ddd53e0ee8bac02676f27308f42ec6bf6"]
    | .excludes += ["/tmp/\\d+"] | .ima.ignored_keyrings = [".evm"]' \
	"$tmp/policy.json" >"$tmp/partial.json"
nex=$(jq '.excludes | length - 1' "$tmp/partial.json")
expect 0 "a policy with entries the verifier cannot use imports" \
	"$imatrust" ref import-keylime --name partial "$tmp/partial.json"
contains "$tmp/out" '^3 entries not imported:$' "the import says how many entries it left out"
contains "$tmp/out" '^  digests.usr/bin/rel: not an absolute path' "the relative path is named"
contains "$tmp/out" "^  excludes\\[$nex\\]: \"\\\\d\" means one thing in Python" "the Python-only exclude is named"
contains "$tmp/out" '^  ima.ignored_keyrings\[0\]: ".evm" not ignored' "the ignored keyring is named"
expect 0 "the rest of it is stored" "$imatrust" ref ls --source partial --kind keylime --json
[ "$(jq '[.[] | select(.path == "/data/bin/bb1")] | length' "$tmp/out")" -ge 1 ] &&
	[ "$(jq '[.[] | select(.path == "usr/bin/rel")] | length' "$tmp/out")" = 0 ] &&
	ok "keylime:partial vouches for /data/bin/bb1 and not for the relative path" ||
	not_ok "keylime:partial stored what it could use" "$tmp/out"
expect 0 "ref retire keylime:partial" "$imatrust" ref retire keylime:partial

# a Keylime policy without a required key is refused naming it
jq 'del(.meta)' "$tmp/policy.json" >"$tmp/bad.json"
expect 1 "a policy without meta is refused" "$imatrust" ref import-keylime --name bad "$tmp/bad.json"
contains "$tmp/err" 'meta' "the refusal names the missing key"
jq '.digests["/x"] = ["zz"]' "$tmp/policy.json" >"$tmp/bad.json"
expect 1 "a policy with a malformed digest is refused" "$imatrust" ref import-keylime --name bad "$tmp/bad.json"
contains "$tmp/err" 'digests' "the refusal names the field"
# 20,000 excludes (640 KB that blocked evidence 12 s) are over the cap
jq '.excludes = [range(20000) | "^/opt/x\(.)/[a-z]+\\.log$"]' "$tmp/policy.json" >"$tmp/bad.json"
expect 1 "a policy of 20,000 excludes is refused" "$imatrust" ref import-keylime --name bad "$tmp/bad.json"
contains "$tmp/err" 'answered 413: .*limit KEYLIME_EXCLUDES_MAX reached: 20000 excludes' \
	"the refusal is a 413 naming KEYLIME_EXCLUDES_MAX and the count"
expect 0 "nothing of them was stored" "$imatrust" ref ls --source bad --kind keylime --json
[ "$(jq length "$tmp/out")" = 0 ] && ok "no reference of the refused policies" ||
	not_ok "no reference of the refused policies" "$tmp/out"

# retiring both sources takes back what they vouched for, at once
expect 0 "ref retire golden-list:lab" "$imatrust" ref retire golden-list:lab
contains "$tmp/out" '^golden-list:lab retired: [1-9][0-9]* references withdrawn' "the list was withdrawn"
[ "$(state)" = trusted ] && ok "node-1 stays trusted: the round trip still vouches" ||
	not_ok "node-1 stays trusted" /dev/null
expect 0 "ref retire keylime:roundtrip" "$imatrust" ref retire keylime:roundtrip
contains "$tmp/out" 'now untrusted 1' "retiring the last source made node-1 untrusted"
[ "$(state)" = untrusted ] && ok "node-1 is untrusted" || not_ok "node-1 is untrusted" /dev/null
expect 1 "retiring it again: no such source" "$imatrust" ref retire keylime:roundtrip
expect 2 "retire without KIND:NAME" "$imatrust" ref retire roundtrip

echo "1..$n"

#!/usr/bin/env bash
# test_log.sh - "imatrust log" end to end on the real kernel fixtures (TAP).
set -u

here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../fixtures/ima"
. "$here/lib.sh"

# contains FILE TEXT DESCRIPTION: a fixed string here, not lib.sh's ERE
contains() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else not_ok "$3" "$1"; fi
}

for d in ima-ng-sha256 ima-sig-sha256 ima-sha1; do
	f="$fixtures/$d"
	list="$f/binary_runtime_measurements"
	expect 0 "$d: log check passes with both banks" \
		"$imatrust" log check "$list" --pcrs "sha1:$f/pcrs-sha1" \
		--pcrs "sha256:$f/pcrs-sha256"
	contains "$tmp/out" "boot_aggregate: ok" "$d: boot_aggregate checked"
	contains "$tmp/out" "records $(cat "$f/count") violations $(cat "$f/violations")" \
		"$d: record and violation counts equal the kernel's"

	"$imatrust" log show --ascii "$list" >"$tmp/ascii"
	if cmp -s "$tmp/ascii" "$f/ascii_runtime_measurements"; then
		ok "$d: --ascii equals the kernel's ascii list"
	else not_ok "$d: --ascii equals the kernel's ascii list"; fi

	"$imatrust" log replay "$list" >"$tmp/replay"
	want1=$(awk '$1 == 10 { print tolower($2) }' "$f/pcrs-sha1")
	want256=$(awk '$1 == 10 { print tolower($2) }' "$f/pcrs-sha256")
	if grep -qx "sha1 $want1" "$tmp/replay" &&
	   grep -qx "sha256 $want256" "$tmp/replay"; then
		ok "$d: log replay prints the TPM's PCR 10 for both banks"
	else not_ok "$d: log replay prints the TPM's PCR 10" "$tmp/replay"; fi

	# Cut off the last record: PCR 10 no longer matches, exit 1.
	size=$(stat -c %s "$list")
	last=$("$imatrust" log show --json "$list" | jq '.[-1].offset')
	head -c "$last" "$list" >"$tmp/short"
	expect 1 "$d: a removed record fails the check" \
		"$imatrust" log check "$tmp/short" --pcrs "sha256:$f/pcrs-sha256"
	contains "$tmp/err" "sha256: PCR 10" "$d: the failure names the bank"

	# Cut inside the last record: malformed, exit 2, with index and offset.
	head -c $((size - 5)) "$list" >"$tmp/trunc"
	expect 2 "$d: a truncated list is malformed" \
		"$imatrust" log check "$tmp/trunc" --pcrs "sha1:$f/pcrs-sha1"
	contains "$tmp/err" "record 7 truncated at offset" \
		"$d: the error names the record and offset"
done

f="$fixtures/ima-ng-sha256"
list="$f/binary_runtime_measurements"

# One flipped bit inside a file digest: the listed sha1 no longer matches.
cp "$list" "$tmp/flip"
printf '\x00' | dd of="$tmp/flip" bs=1 seek=151 conv=notrunc 2>/dev/null  # was 0x3d
expect 1 "a changed file digest fails the check" \
	"$imatrust" log check "$tmp/flip" --pcrs "sha256:$f/pcrs-sha256" \
	--pcrs "sha1:$f/pcrs-sha1"
contains "$tmp/err" "record 1: listed template digest does not match" \
	"the failure names the record"

# A wrong PCR value for one bank only.
sed 's/^10 0/10 1/' "$f/pcrs-sha256" >"$tmp/pcrs"
expect 1 "a wrong sha256 PCR 10 fails" \
	"$imatrust" log check "$list" --pcrs "sha1:$f/pcrs-sha1" \
	--pcrs "sha256:$tmp/pcrs"
contains "$tmp/out" "sha1: PCR 10 ok" "the other bank is still reported ok"

# The boot_aggregate record against a changed PCR 0.
sed 's/^0 ./0 0/' "$f/pcrs-sha256" >"$tmp/pcrs0"
expect 1 "a changed PCR 0 fails boot_aggregate" \
	"$imatrust" log check "$list" --pcrs "sha256:$tmp/pcrs0"
contains "$tmp/err" "boot_aggregate" "the failure names boot_aggregate"

"$imatrust" log show --json "$list" >"$tmp/json"
if [ "$(jq length "$tmp/json")" = 8 ] &&
   [ "$(jq -r '.[1].digest' "$tmp/json")" = "sha256:3d9f2889d6782537624a4e1a10e68a2ddd53e0ee8bac02676f27308f42ec6bf6" ] &&
   [ "$(jq '[.[] | select(.violation)] | length' "$tmp/json")" = 2 ]; then
	ok "log show --json gives the records, digests and violations"
else not_ok "log show --json" "$tmp/json"; fi

# Reading from a pipe delivers the list in arbitrary pieces.
"$imatrust" log show "$list" >"$tmp/plain"
# shellcheck disable=SC2002 # a pipe, not the file, on stdin is the test
cat "$list" | "$imatrust" log show /dev/stdin >"$tmp/piped"
if cmp -s "$tmp/plain" "$tmp/piped"; then ok "a list read from a pipe gives the same records"
else not_ok "a list read from a pipe"; fi
contains "$tmp/plain" "5 10 ima-ng sha256:0000000000000000000000000000000000000000000000000000000000000000 /data/app.conf [violation]" \
	"log show marks violations"

expect 2 "a missing list is a usage error" "$imatrust" log show "$tmp/none"
expect 2 "an unknown bank is rejected" "$imatrust" log replay --bank md5 "$list"
expect 2 "malformed PCR text is rejected" \
	"$imatrust" log check "$list" --pcrs "sha256:$f/pcrs-sha1"
contains "$tmp/err" "needs 64 hex digits" "the PCR error says why"
expect 2 "check without --pcrs is a usage error" "$imatrust" log check "$list"
expect 2 "an unknown subcommand is a usage error" "$imatrust" log frob
expect 2 "an unknown field in --template is rejected" \
	"$imatrust" log show --template "x=d-ng|bogus" "$list"
contains "$tmp/err" "unknown template field 'bogus'" "the error names the field"

echo "1..$n"

#!/usr/bin/env bash
# test_ref_efi.sh - EFI applications as references, against a real
# imatrust-verifier on a free loopback port (TAP): import-efi of
# systemd-boot, the EFI stub and (when one is built) our bzImage gives
# the Authenticode digests pesign computes, in sha256 and sha1; a copy
# signed with sbsign (a throwaway key made here) hashes like the unsigned
# file and sbverify accepts it; the same files again add nothing; a file
# that is not a PE image, or a cut one, is refused by name and stores
# nothing, here and on the verifier.
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

skip_without openssl sqlite3 curl jq pesign sbsign sbverify

efi=/usr/lib/systemd/boot/efi
need "$efi/systemd-bootx64.efi" "$efi/linuxx64.efi.stub"

port=$(free_port)
self_cert
write_verifier_conf
token_add alice
printf '%s\n' "$token" >"$tmp/token"
verifier_start
export IMATRUST_URL=$url IMATRUST_CA=$tmp/cert.pem
export IMATRUST_TOKEN_FILE=$tmp/token

pesign_hash() {	# pesign_hash FILE ALGO -> hex
	pesign -h -d "$2" -i "$1" 2>/dev/null | sed -n 's/^hash: //p'
}
digest_of() {	# digest_of NAME ALGO  (from $tmp/out, import-efi --json)
	jq -r --arg n "$1" --arg a "$2" \
		'.files[] | select(.name == $n) | .digests[$a]' "$tmp/out"
}
efi_rows() {
	sqlite3 "$tmp/verifier.db" "SELECT count(*) FROM efi_digests"
}

# refused input first: nothing may be stored
printf 'MZ but nothing else' >"$tmp/junk.efi"
expect 2 "a file that is no PE image is refused" \
	"$imatrust" ref import-efi "$tmp/junk.efi"
contains "$tmp/err" 'junk.efi: .*not an EFI image' "the refusal names the file"
head -c 20000 "$efi/systemd-bootx64.efi" >"$tmp/cut.efi"
expect 2 "a cut image is refused" \
	"$imatrust" ref import-efi "$efi/linuxx64.efi.stub" "$tmp/cut.efi"
contains "$tmp/err" 'cut.efi: not an EFI image: .*beyond the file' \
	"the refusal names the file and the field"
# the verifier checks on its own: a non-PE upload past the CLI's check
jq -n --arg d "$(base64 -w0 "$tmp/junk.efi")" \
	'{v: 1, files: [{name: "junk.efi", data: $d}]}' >"$tmp/body.json"
code=$(curl -s -o "$tmp/resp" -w '%{http_code}' --cacert "$tmp/cert.pem" \
	-H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
	--data-binary @"$tmp/body.json" "$url/v1/references/efi")
[ "$code" = 400 ] && ok "the verifier refuses a non-PE upload (400)" ||
	not_ok "the verifier refuses a non-PE upload (got $code)" "$tmp/resp"
contains "$tmp/resp" 'junk.efi: not an EFI image' "the verifier names the file"
[ "$(efi_rows)" = 0 ] && ok "nothing was stored" || not_ok "nothing was stored"

# the real files, both banks
files=("$efi/systemd-bootx64.efi" "$efi/linuxx64.efi.stub")
for k in /var/cache/imatrust/kernel/*/bzImage; do
	[ -f "$k" ] && { cp "$k" "$tmp/bzImage"; files+=("$tmp/bzImage"); break; }
done
expect 0 "import-efi of ${#files[@]} files in sha256 and sha1" \
	"$imatrust" ref import-efi --bank sha256,sha1 --source boot \
	--version test-1 --json "${files[@]}"
for f in "${files[@]}"; do
	b=$(basename "$f")
	for a in sha256 sha1; do
		want=$(pesign_hash "$f" "$a")
		got=$(digest_of "$b" "$a")
		[ -n "$want" ] && [ "$got" = "$want" ] &&
			ok "$b $a digest is pesign's" ||
			not_ok "$b $a: got '$got', pesign '$want'" "$tmp/out"
	done
done
[ "$(efi_rows)" = $((2 * ${#files[@]})) ] && ok "one row per file and bank" ||
	not_ok "rows: $(efi_rows)"
[ "$(sqlite3 "$tmp/verifier.db" "SELECT kind || ':' || name || ' ' || version FROM sources")" = "efi:boot test-1" ] &&
	ok "stored as the source efi:boot, version test-1" ||
	not_ok "source row" "$tmp/out"

expect 0 "the same files again" "$imatrust" ref import-efi \
	--bank sha256,sha1 --source boot --version test-1 "${files[@]}"
contains "$tmp/out" '0 digests added \(already imported\)' "adds nothing"
[ "$(efi_rows)" = $((2 * ${#files[@]})) ] && ok "no row added" ||
	not_ok "rows after re-import: $(efi_rows)"

# signing does not change the image hash (sbsign pads to 8 bytes first)
cp "$efi/systemd-bootx64.efi" "$tmp/plain.efi"
size=$(stat -c %s "$tmp/plain.efi")
truncate -s $(( (size + 7) / 8 * 8 )) "$tmp/plain.efi"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/db.key" \
	-out "$tmp/db.crt" -days 1 -subj /CN=imatrust-test-db 2>/dev/null
sbsign --key "$tmp/db.key" --cert "$tmp/db.crt" --output "$tmp/signed.efi" \
	"$tmp/plain.efi" 2>/dev/null
sbverify --cert "$tmp/db.crt" "$tmp/signed.efi" >/dev/null 2>&1 &&
	ok "sbverify accepts the signed copy" || not_ok "sbverify"
expect 0 "import-efi of the unsigned and the signed copy" \
	"$imatrust" ref import-efi --json "$tmp/plain.efi" "$tmp/signed.efi"
plain=$(digest_of plain.efi sha256)
signed=$(digest_of signed.efi sha256)
[ -n "$plain" ] && [ "$plain" = "$signed" ] &&
	ok "the signed copy has the unsigned file's digest" ||
	not_ok "signed $signed, unsigned $plain" "$tmp/out"
[ "$signed" = "$(pesign_hash "$tmp/signed.efi" sha256)" ] &&
	ok "pesign agrees on the signed copy" || not_ok "pesign, signed"
[ "$(jq -r '.files[] | select(.name == "signed.efi") | .signed' "$tmp/out")" = true ] &&
	ok "the signed copy is reported signed" || not_ok "signed flag" "$tmp/out"
[ "$(jq -r .source.name "$tmp/out")" = "plain.efi,signed.efi" ] &&
	ok "the source name defaults to the file names" ||
	not_ok "default source name" "$tmp/out"

expect 2 "an unknown bank is a usage error" \
	"$imatrust" ref import-efi --bank md5 "$tmp/plain.efi"
contains "$tmp/err" 'bank "md5"' "the error names the bank"

echo "1..$n"

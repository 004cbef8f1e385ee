#!/usr/bin/env bash
# make-corpus.sh [DIR] - write the seed corpora of the libFuzzer targets
# (default tests/fuzz/corpus/<target>/) from the real fixtures of
# tests/fixtures/ and the harnesses' input layouts; see README.md.
# Deterministic: rerunning it rewrites the same files.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fx=$here/../fixtures
out=${1:-$here/corpus}

# seed TARGET NAME: stdin becomes one seed file
seed() {
	mkdir -p "$out/$1"
	cat >"$out/$1/$2"
}
hex() { od -An -tx1 -v "$1" | tr -d ' \n'; }
b64() { base64 -w0 "$1"; }

# ---- fuzz_conf: the "key = value" parser ----
printf '# c\nname = n1\nmode=bb\r\ncount = 7\n' | seed fuzz_conf basic
printf 'name=x\ncount = 1000\nmode = ccc\n' | seed fuzz_conf bounds

# ---- fuzz_deb, fuzz_apt_index: what tests/fixtures/deb/make-debs.sh builds ----
debs=$(mktemp -d)
"$fx/deb/make-debs.sh" "$debs" >/dev/null
for d in tiny hello-small-xz hello-small-gzip nodata; do
	seed fuzz_deb "$d" <"$debs/$d.deb"
done
for i in Packages Packages.xz Packages.gz; do
	seed fuzz_apt_index "$i" <"$debs/small/$i"
done
# ---- fuzz_deb_wire: byte 0 = banks - 1, then what the package parser
# child (imatrust-verifier --import-deb-child) writes for the fixtures ----
verifier=$here/../../build/bin/imatrust-verifier
if [ -x "$verifier" ]; then
	for d in hello-small-xz tiny escape; do
		{ printf '\001'; "$verifier" --import-deb-child sha256,sha1 0 60 \
			<"$debs/$d.deb"; } | seed fuzz_deb_wire "$d"
	done
	{ printf '\003'; "$verifier" --import-deb-child \
		sha256,sha1,sha512,sha384 0 60 <"$debs/hello-small-gzip.deb"; } |
		seed fuzz_deb_wire hello-small-gzip-4
else
	echo "make-corpus.sh: no $verifier (make first): fuzz_deb_wire not seeded" >&2
fi
rm -rf "$debs"

# ---- fuzz_record_chunk: N, N verdict letters, then a body as
# db_records_store() packs it (db/db_record_chunk.h): an ima-ng record
# without a signature, one with a 4-byte signature, a violation ----
strhex() { printf %s "$1" | od -An -tx1 -v | tr -d ' \n'; }
unhex() { printf '%b' "$(printf %s "$1" | sed 's/../\\x&/g')"; }
# a text field (shorter than 128 bytes): its length, its bytes, a NUL
text() { printf '%02x%s00' "${#1}" "$(strhex "$1")"; }
# PATH DIGEST_HEX SIG_HEX: one PCR 10 ima-ng sha256 record
chunk_rec() {
	printf '0a%s%s%s20%s%02x%s' "$(text ima-ng)" "$(text "$1")" \
		"$(text sha256)" "$2" $((${#3} / 2)) "$3"
}
sha=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
zero=$(printf '%064d' 0)
unhex "03$(strhex ksv)$(chunk_rec /usr/bin/ls "$sha" "")$(chunk_rec /usr/bin/ls "$sha" 04030201)$(chunk_rec "" "$zero" "")" |
	seed fuzz_record_chunk three
unhex 00 | seed fuzz_record_chunk empty

# ---- fuzz_pcr_set: "INDEX HEX" lines of the real kernels ----
seed fuzz_pcr_set ima-ng-sha256 <"$fx/ima/ima-ng-sha256/pcrs-sha256"
seed fuzz_pcr_set tpm-sha256 <"$fx/tpm/pcrs-sha256.txt"

# ---- fuzz_ak_blob: the AK file the agent writes, of swtpm's AKs under
# an RSA (0x0001) and an ECC (0x0023) EK ----
{ printf 'IMAK\000\001\000\043'; cat "$fx/tpm/ak-ecc.pub" "$fx/tpm/ak-ecc.priv"; } |
	seed fuzz_ak_blob ak-ecc
{ printf 'IMAK\000\001\000\001'; cat "$fx/tpm/ak-rsa.pub" "$fx/tpm/ak-rsa.priv"; } |
	seed fuzz_ak_blob ak-rsa

# ---- fuzz_keylime: the Keylime policy fixture, an empty policy, a
# certificate as key, excludes with brackets ----
seed fuzz_keylime policy <"$fx/keylime/policy.json"
printf '{"meta":{"version":1,"generator":1},"release":0,"digests":{},"excludes":[],"keyrings":{},"ima":{"ignored_keyrings":[],"log_hash_alg":"sha1","dm_policy":null},"ima-buf":{},"verification-keys":""}' |
	seed fuzz_keylime empty
printf '{"meta":{"version":1,"generator":3},"release":2,"digests":{"/a":["%s","%s"]},"excludes":["^/x/[^/]+\\\\.log$","[]a](b|c)\\\\1"],"keyrings":{".ima":["%s"]},"ima":{"ignored_keyrings":[".evm"],"log_hash_alg":"sha256","dm_policy":null},"ima-buf":{"kexec-cmdline":["%s"]},"verification-keys":"{\\"keyids\\":[1],\\"pubkeys\\":[\\"%s\\"]}"}' \
	"$(printf a | sha1sum | cut -c1-40)" "$(printf a | sha512sum | cut -c1-128)" \
	"$(printf k | sha256sum | cut -c1-64)" "$(printf b | sha384sum | cut -c1-96)" \
	"$(b64 "$fx/keylime/ima-cert.der")" | seed fuzz_keylime cert

# ---- fuzz_ima_list: the real lists, whole (byte 0 = 0) and in pieces ----
for l in "$fx"/ima/*/binary_runtime_measurements; do
	d=$(basename "$(dirname "$l")")
	{ printf '\0'; cat "$l"; } | seed fuzz_ima_list "$d"
	{ printf '\7'; cat "$l"; } | seed fuzz_ima_list "$d-7"
done

# ---- fuzz_wire: byte 0 picks the message; evidence of a real quote ----
nonce=$(hex "$fx/tpm/nonce.bin")
pcrs=$(awk '{ printf "%s\"%s\":\"%s\"", (NR > 1 ? "," : ""), $1, $2 }' \
	"$fx/tpm/pcrs-sha256.txt")
printf '\003{"v":1,"agent":"node-01","nonce":"%s","bank":"sha256","quote":"%s","signature":"%s","pcrs":{%s},"first_index":0,"records":"%s","more":0}' \
	"$nonce" "$(b64 "$fx/tpm/quote-ak-rsa.msg")" \
	"$(b64 "$fx/tpm/quote-ak-rsa.sig")" "$pcrs" \
	"$(b64 "$fx/ima/ima-ng-sha256/binary_runtime_measurements")" |
	seed fuzz_wire evidence
# protocol v2: the same evidence with a real OVMF event log
printf '\003{"v":2,"agent":"node-01","nonce":"%s","bank":"sha256","quote":"%s","signature":"%s","pcrs":{%s},"first_index":0,"records":"%s","more":0,"boot_log":"%s"}' \
	"$nonce" "$(b64 "$fx/tpm/quote-ak-rsa.msg")" \
	"$(b64 "$fx/tpm/quote-ak-rsa.sig")" "$pcrs" \
	"$(b64 "$fx/ima/ima-ng-sha256/binary_runtime_measurements")" \
	"$(b64 "$fx/eventlog/patched-nosb/binary_bios_measurements")" |
	seed fuzz_wire evidence-v2
# protocol v3: a list that starts past deleted records, with the PCR 10
# before them, and "export" (the verdict then says what is stored)
printf '\003{"v":3,"agent":"node-01","nonce":"%s","bank":"sha256","quote":"%s","signature":"%s","pcrs":{%s},"first_index":3,"records":"%s","more":0,"list_start":3,"list_start_pcr":"%s","export":true}' \
	"$nonce" "$(b64 "$fx/tpm/quote-ak-rsa.msg")" \
	"$(b64 "$fx/tpm/quote-ak-rsa.sig")" "$pcrs" \
	"$(b64 "$fx/ima/ima-ng-sha256/binary_runtime_measurements")" \
	"$(awk '$1 == 10 { print $2 }' "$fx/tpm/pcrs-sha256.txt")" |
	seed fuzz_wire evidence-v3
printf '\000{"v":1,"agent":"node-01","ek_pub":"%s","ak_pub":"%s"}' \
	"$(b64 "$fx/tpm/ek-rsa.pub")" "$(b64 "$fx/tpm/ak-rsa.pub")" |
	seed fuzz_wire enroll
printf '\001{"v":1,"credential":"AAEC","secret":"AAEC"}' | seed fuzz_wire challenge
printf '\002{"v":1,"agent":"node-01","proof":"%s"}' "$nonce" |
	seed fuzz_wire activate
printf '\004{"v":1,"state":"trusted","nonce":"%s","nonce_expires":1,"nonce_ttl":30,"next_index":0}' \
	"$nonce" | seed fuzz_wire verdict
printf '\004{"v":2,"state":"trusted","nonce":"%s","nonce_expires":1,"nonce_ttl":30,"next_index":0,"boot_log":"wanted"}' \
	"$nonce" | seed fuzz_wire verdict-v2
printf '\004{"v":3,"state":"trusted","nonce":"%s","nonce_expires":1,"nonce_ttl":30,"next_index":7,"stored_records":5}' \
	"$nonce" | seed fuzz_wire verdict-v3

# ---- fuzz_quote: byte 0 = mode (fuzz_quote.c); zeros = a valid quote ----
for k in 0 1 2 3; do
	printf '%b' "\\x0$k\\x00\\x00\\x00\\x20" | seed fuzz_quote "soft-$k"
done
# PCRs from the input, sha384 signature hash, another bank (M_* bits)
printf '\x00\x44\x09\x01\x20\x01' | seed fuzz_quote soft-rsassa-values
printf '\x02\x80\x00\x10\x00\x01\x02' | seed fuzz_quote soft-ecc-stored
for k in 4 5 6 7; do
	printf '%b' "\\x0$k\\x00" | seed fuzz_quote "fixture-$k"
done
{ printf '\x08\x00\x00\x91'; cat "$fx/tpm/quote-ak-rsa.msg" \
	"$fx/tpm/quote-ak-rsa.sig"; } | seed fuzz_quote raw-rsa
{ printf '\x08\x02\x00\x91'; cat "$fx/tpm/quote-ak-ecc.msg" \
	"$fx/tpm/quote-ak-ecc.sig"; } | seed fuzz_quote raw-ecc

# ---- fuzz_enroll: byte 0 = mode 0 public, 1 credential, 2 message ----
for s in 0 1 2 5 6 9; do
	printf '%b' "\\x00\\x0$s\\x00\\x00" | seed fuzz_enroll "public-$s"
done
{ printf '\x00\x0a'; cat "$fx/tpm/ek-ecc.pub"; } | seed fuzz_enroll public-raw-ek-ecc
printf '\x01\x00\x00\x00\x00\x20' | seed fuzz_enroll credential-ek-rsa
printf '\x01\x01\x00\x00\x02\x10' | seed fuzz_enroll credential-ek-ecc
for p in 0 3 4; do
	printf '%b' "\\x02\\x0$p\\x00\\x00\\x00\\x00\\x00\\x00" |
		seed fuzz_enroll "message-$p"
done

# ---- fuzz_ima_match: bank, flags, first index, records, k ----
# sha256, 3 ima-ng records of known files, quote after 2 of them
printf '\x00\x00\x00\x03\x00\x00\x00\x80\x00\x00\x00\x01\x80\x00\x00\x00\x02\x80\x00\x02' |
	seed fuzz_ima_match sha256-3
# sha1 bank, running PCR from the input, ima-sig, ima-buf, ima records
printf '\x01\x01\x05\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x11\x03\x01\x00\x00\x80\x10\x41\x02\x00\x01\x80\x04\x42\x43\x44\x45\x04\x00\x02\x01' |
	seed fuzz_ima_match sha1-mixed
# custom templates
printf '\x00\x02\x00\x01\x01\x00\x00\x02\x08\x00\x00\x05\x00\x00\x01' |
	seed fuzz_ima_match custom

# ---- fuzz_evidence: machine, rounds-1, then per round (fuzz_evidence.c) ----
# round: dev u16, time u8, [boot: seed, reset, restart], n, records, q
rec() { printf '%b' "\\x00\\x00\\x0$1\\x80\\x00"; }	# ima-ng, known path $1
for m in 0 1 2 3; do
	{ printf '%b' "\\x0$m\\x01\\x00\\x00\\x00\\x05\\x00\\x00\\x03"
	  rec 0; rec 1; rec 2; printf '\x04'
	  printf '\x00\x00\x03\x02'; rec 3; rec 4; printf '\x02'; } |
		seed fuzz_evidence "two-rounds-$m"
done
# a quote before the last records (they wait), then a reboot
{ printf '\x02\x02\x00\x00\x00\x07\x00\x00\x03'; rec 0; rec 1; rec 2
  printf '\x02\x00\x00\x01\x00\x00\x01\x00\x00\x20\x00\x01\x09\x00\x00\x01'
  rec 1; printf '\x01'; } | seed fuzz_evidence partial-reboot
# "more": the first message of a long list, then the rest
{ printf '\x01\x01\x10\x00\x00\x05\x00\x00\x02'; rec 0; rec 1
  printf '\x00\x00\x00\x00\x00\x02\x05'; } | seed fuzz_evidence more

# ---- fuzz_verify_bundle: bundles of the real swtpm quote of
# tests/fixtures/tpm/ (ak-ecc), a real kernel's list, the AK given or the
# harness's enrolled machine "m", with and without a firmware event log ----
tpm=$fx/tpm
pcrs=$(awk '{ printf "%s\"%s\":\"%s\"", (NR > 1 ? "," : ""), $1, $2 }' \
	"$tpm/pcrs-sha256.txt")
verify_seed() {	# NAME AK_OR_MACHINE [EXTRA]
	{ printf '{"v":1,%s,"nonce":"%s","bank":"sha256","quote":"%s",' \
		"$2" "$(hex "$tpm/nonce.bin")" "$(b64 "$tpm/quote-ak-ecc.msg")"
	  printf '"signature":"%s","pcrs":{%s},"records":"%s"%s}' \
		"$(b64 "$tpm/quote-ak-ecc.sig")" "$pcrs" \
		"$(b64 "$fx/ima/ima-ng-sha256/binary_runtime_measurements")" \
		"${3:-}"; } | seed fuzz_verify_bundle "$1"
}
verify_seed given "\"ak_pub\":\"$(b64 "$tpm/ak-ecc.pub")\""
verify_seed enrolled '"machine":"m","policy":"default"'
verify_seed boot-log '"machine":"m"' \
	",\"boot_log\":\"$(b64 "$fx/eventlog/seabios/binary_bios_measurements")\""

# ---- fuzz_ima_sig: byte 0 = mode (fuzz_ima_sig.c) ----
# raw "sig" field values and certificates of tests/fixtures/ima-sig/
for s in "$fx"/ima-sig/sample.*.sig*; do
	{ printf '\0'; cat "$s"; } | seed fuzz_ima_sig "raw-$(basename "$s")"
done
for c in rsa.der ec.pem rsa-skid.pem rsa-pub.pem; do
	{ printf '\1'; cat "$fx/ima-sig/$c"; } | seed fuzz_ima_sig "cert-$c"
done
# fixture mode: signature, key, algorithm (its signer's: valid), cut,
# pairs, digest change
i=0
for sk in '0 0' '0 1' '1 0' '1 1' '2 0' '0 0' '1 0'; do
	read -r -a words <<<"$sk"
	set -- "${words[@]}"
	printf '%b' "\\x02\\x0$i\\x0$1\\x0$2\\x00\\x00\\x00" |
		seed fuzz_ima_sig "fixture-$i"
	i=$((i + 1))
done
# the key id changed (still parses, no longer names the key), a cut
printf '\x02\x00\x00\x00\x00\x01\x00\x03\x01\x00' | seed fuzz_ima_sig keyid
printf '\x02\x02\x01\x00\x05\x00\x00' | seed fuzz_ima_sig cut

# ---- fuzz_policy: the default policy, one with every field, a regex
# (written by hand: tests/fuzz/corpus/fuzz_policy/{default,full,regex})

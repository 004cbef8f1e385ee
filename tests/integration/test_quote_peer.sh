#!/usr/bin/env bash
# test_quote_peer.sh - tpm_quote_check() and tpm2_checkquote judge the same
# fresh swtpm quotes the same way (TAP).
#
# A new swtpm, new EKs and AKs (RSA PKCS#1 v1.5, RSA-PSS, ECDSA P-256,
# and a second RSA and ECC key to sign nothing but be the wrong AK), random PCR extends and a random nonce: every run checks
# quotes nobody has seen before. Each quote is checked good, with another
# nonce, with another AK's key, with a changed PCR value, with one byte of
# the attest or of the signature flipped. Both checkers must give the same
# verdict, and ours must name the failing check.
#
# One disagreement is expected and allowed: tpm2-tools 5.4's checkquote
# rejects RSA-PSS quotes whose salt is the digest length (what libtpms
# makes); OpenSSL and we accept them.
#
# Needs: swtpm, tpm2-tools, python3; the quote_check tool from
# $IMATRUST_TOOLS (default build/tests/tools), built by make.
set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=swtpm-lib.sh
. "$here/swtpm-lib.sh"

tmp=$(mktemp -d)
cleanup() {
	swtpm_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

require_tools swtpm tpm2_quote tpm2_checkquote python3
qc=$(tool_path quote_check) || exit 1

mkdir "$tmp/state"
swtpm_start "$tmp/state" "$tmp/swtpm.log" || bail "swtpm did not start" \
	"$tmp/swtpm.log"
cd "$tmp" || bail "cannot enter $tmp"

t() {
	"$@" >/dev/null 2>>tools.log
	local rc=$?
	tpm2_flushcontext -t >/dev/null 2>&1
	tpm2_flushcontext -s >/dev/null 2>&1
	return $rc
}

if ! t tpm2_createek -c ek-rsa.ctx -G rsa -u ek-rsa.pub ||
	! t tpm2_createek -c ek-ecc.ctx -G ecc -u ek-ecc.pub; then
	bail "createek failed" tools.log
fi
for spec in ak-rsa:ek-rsa:rsa:rsassa ak-rsa2:ek-rsa:rsa:rsassa \
	ak-rsapss:ek-rsa:rsa:rsapss ak-ecc:ek-ecc:ecc:ecdsa \
	ak-ecc2:ek-ecc:ecc:ecdsa; do
	IFS=: read -r ak ek alg scheme <<<"$spec"
	t tpm2_createak -C "$ek.ctx" -c "$ak.ctx" -G "$alg" -g sha256 \
		-s "$scheme" -u "$ak.pub" || bail "createak $ak failed" tools.log
done
for pcr in 0 7 10 10 10; do
	t tpm2_pcrextend "$pcr:sha256=$(python3 -c \
		'import os; print(os.urandom(32).hex())')" ||
		bail "pcrextend failed" tools.log
done
nonce=$(python3 -c 'import os; print(os.urandom(32).hex())')
# The nonce with its last byte inverted: always another nonce (replacing
# the byte with 00 was the same nonce once in 256 runs).
wrong_nonce=${nonce%??}$(printf %02x $((0x${nonce: -2} ^ 0xff)))
sel=sha256:0,1,2,3,4,5,6,7,8,9,10
t tpm2_pcrread "$sel" -o pcrs.bin || bail "pcrread failed" tools.log

# bad_pcr10 IN OUT: OUT is IN with the bytes of PCR 10's value changed.
# tpm2_checkquote reads tpm2_quote -o files (a host-endian struct dump),
# quote_check raw digests (tpm2_pcrread -o); PCR 10 is random, so its
# value occurs once in either.
bad_pcr10() {
	python3 - pcrs.bin "$1" "$2" <<'PY'
import sys
pcr10 = open(sys.argv[1], "rb").read()[320:352]
b = open(sys.argv[2], "rb").read()
assert b.count(pcr10) == 1
open(sys.argv[3], "wb").write(b.replace(pcr10, bytes(32)))
PY
}
bad_pcr10 pcrs.bin pcrs-bad.bin || bail "cannot change PCR 10"

# flip FILE OFFSET OUT: OUT is FILE with the byte at OFFSET inverted.
flip() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2])] ^= 0xff
open(sys.argv[3], "wb").write(b)
PY
}

# judge DESC KEY MSG SIG NONCE PCRS PEER_PCRS WORD: run both checkers
# (ours on PCRS, tpm2_checkquote on PEER_PCRS) and compare.
judge() {
	local desc=$1 key=$2 msg=$3 sig=$4 q=$5 word=$8 ours peer
	"$qc" "$key" "$msg" "$sig" "$q" "$6" >ours.txt 2>&1
	case $? in 0) ours=ok ;; 1) ours=fail ;; *) ours=error ;; esac
	if tpm2_checkquote -u "$key" -m "$msg" -s "$sig" -g sha256 -q "$q" \
		-f "$7" >peer.txt 2>&1; then
		peer=ok
	else
		peer=fail
	fi
	echo "# $desc: ours $(cat ours.txt); tpm2_checkquote $peer" \
		"$(grep -m1 ERROR peer.txt)"
	if [ "$ours" = error ]; then
		not_ok "$desc: quote_check could not judge" ours.txt
	elif [ "$ours" != "$peer" ] && ! { [ "$desc" = "ak-rsapss good" ] &&
		[ "$ours" = ok ]; }; then
		not_ok "$desc: ours $ours, tpm2_checkquote $peer" peer.txt
	elif [ "$ours" = fail ] && ! grep -q "$word" ours.txt; then
		not_ok "$desc: failure names \"$word\"" ours.txt
	else
		ok "$desc: ours $ours, tpm2_checkquote $peer"
	fi
}

for spec in ak-rsa:rsassa ak-rsa2:rsassa ak-rsapss:rsapss ak-ecc:ecdsa; do
	ak=${spec%%:*}
	t tpm2_quote -c "$ak.ctx" -l "$sel" -q "$nonce" -g sha256 \
		--scheme "${spec#*:}" -m "$ak.msg" -s "$ak.sig" -o "$ak.pcrs" ||
		bail "quote $ak failed" tools.log
	bad_pcr10 "$ak.pcrs" "$ak.pcrs-bad" || bail "cannot change PCR 10"
	case $ak in
	ak-rsa2) other="ak-rsa" ;;
	ak-ecc) other="ak-ecc2" ;;
	*) other="ak-rsa2" ;;
	esac
	good=(pcrs.bin "$ak.pcrs")
	judge "$ak good" "$ak.pub" "$ak.msg" "$ak.sig" "$nonce" "${good[@]}" -
	judge "$ak wrong nonce" "$ak.pub" "$ak.msg" "$ak.sig" "$wrong_nonce" \
		"${good[@]}" "nonce"
	judge "$ak other AK" "$other.pub" "$ak.msg" "$ak.sig" "$nonce" "${good[@]}" \
		"signature"
	judge "$ak changed PCR 10" "$ak.pub" "$ak.msg" "$ak.sig" "$nonce" \
		pcrs-bad.bin "$ak.pcrs-bad" "pcr digest"
	flip "$ak.msg" 60 flipped.msg	# inside extraData
	judge "$ak flipped attest byte" "$ak.pub" flipped.msg "$ak.sig" \
		"$nonce" "${good[@]}" "signature"
	size=$(stat -c %s "$ak.sig")
	flip "$ak.sig" $((size - 1)) flipped.sig
	judge "$ak flipped signature byte" "$ak.pub" "$ak.msg" flipped.sig \
		"$nonce" "${good[@]}" "signature"
done

echo "1..$tap_n"

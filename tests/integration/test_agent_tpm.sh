#!/usr/bin/env bash
# test_agent_tpm.sh - agent/tpm.c against a real swtpm, checked with
# tpm2-tools, OpenSSL and proto/'s verifier code (TAP).
#
# Manufactures a swtpm the way the lab does (swtpm_setup with EK and
# platform certificates, sha1 and sha256 banks), starts it on free
# 127.0.0.1 ports and drives the agent's TPM module through
# tests/tools/agent_tpm_check. Nothing is mocked. swtpm is killed on every
# exit path; logs are shown only for failing tests.
#
#   AGENT_TPM_CHECK  the driver; default $IMATRUST_TOOLS/agent_tpm_check
#   IMATRUST_TOOLS   built test tools (default build/tests/tools); when the
#                    driver is not there it is compiled into a temp dir
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tools=${IMATRUST_TOOLS:-$root/build/tests/tools}
check=${AGENT_TPM_CHECK:-$tools/agent_tpm_check}

# shellcheck source=tests/lib/need.sh
. "$root/tests/lib/need.sh"
need swtpm swtpm_setup tpm2_checkquote tpm2_makecredential tpm2_createek \
	tpm2_pcrread tpm2_pcrextend tpm2_nvread tpm2_getcap python3

# shellcheck source=tests/integration/swtpm-lib.sh
. "$here/swtpm-lib.sh"

tmp=$(mktemp -d)
cleanup() {
	swtpm_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$check" ]; then
	echo "# $check not built: compiling it here"
	check="$tmp/agent_tpm_check"
	# shellcheck disable=SC2046 # pkg-config prints separate words
	if ! (cd "$root" && ${CC:-cc} -std=gnu11 -O2 -Iproto -Iproto/io -Iagent \
		-Wl,--wrap=Esys_Quote \
		-o "$check" tests/tools/agent_tpm_check.c agent/tpm.c \
		proto/io/log.c proto/*.c $(pkg-config --libs tss2-esys \
		tss2-tctildr tss2-mu tss2-rc libcrypto jansson)) \
		>"$tmp/cc.log" 2>&1; then
		echo "not ok 1 - the driver compiles"
		sed 's/^/# /' "$tmp/cc.log"
		echo "1..1"
		exit 1
	fi
fi

state="$tmp/tpmstate"	# swtpm's NV
out="$tmp/out"		# files the driver writes for tpm2-tools
log="$tmp/swtpm.log"
mkdir -p "$state" "$out" "$tmp/ak-rsa"

n=0
failures=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1))
	failures=$((failures + 1))
	echo "not ok $n - $1"
	local f
	for f in "${@:2}"; do
		[ -s "$f" ] && sed "s|^|# $(basename "$f"): |" "$f"
	done
}
# run DESCRIPTION CMD...: the command exits 0; keeps stdout in $tmp/stdout
run() {
	local desc=$1
	shift
	if "$@" >"$tmp/stdout" 2>"$tmp/stderr"; then ok "$desc"; else
		not_ok "$desc" "$tmp/stdout" "$tmp/stderr"; fi
}
# fails DESCRIPTION CMD...: the command exits non-zero (a negative control)
fails() {
	local desc=$1
	shift
	if "$@" >"$tmp/stdout" 2>"$tmp/stderr"; then
		not_ok "$desc" "$tmp/stdout" "$tmp/stderr"; else ok "$desc"; fi
}
# has TEXT DESCRIPTION: the last command's stdout holds TEXT as a line
has() {
	if grep -qxF -- "$1" "$tmp/stdout"; then ok "$2"; else
		not_ok "$2" "$tmp/stdout" "$tmp/stderr"; fi
}
fact() { sed -n "s/^$1: //p" "$tmp/stdout"; }
# The driver closes every handle it opens: nothing may stay loaded.
no_leaks() {
	local h
	h=$(tpm2_getcap handles-transient 2>&1; \
	    tpm2_getcap handles-loaded-session 2>&1; \
	    tpm2_getcap handles-saved-session 2>&1)
	if [ -z "$h" ]; then ok "$1: no object or session left in the TPM"
	else echo "# $h"; not_ok "$1: no object or session left in the TPM"; fi
}
# PCR values of BANK 0-10 as "index hex" lines, read by tpm2_pcrread
pcrread() {
	tpm2_pcrread "$1:0,1,2,3,4,5,6,7,8,9,10" |
		awk '/^ *[0-9]+ *: *0x/ { v = $NF; sub("0x", "", v);
			sub(":", "", $1); print $1, tolower(v) }'
}
rand_hex() { head -c "$1" /dev/urandom | od -An -v -tx1 | tr -d ' \n'; }

# --- manufacture and start ------------------------------------------------
run "swtpm_setup manufactures a TPM with EK and platform certificates" \
	swtpm_setup --tpm2 --create-ek-cert --create-platform-cert \
	--pcr-banks sha1,sha256 --tpmstate "$state"
if swtpm_start "$state" "$log"; then ok "swtpm listens on 127.0.0.1"; else
	not_ok "swtpm listens on 127.0.0.1" "$log"
	echo "1..$n"
	exit 1
fi

# --- EK -------------------------------------------------------------------
run "RSA EK created, certificate read from NV, its key is the EK's" \
	"$check" ek rsa "$out"
has "ek-cert-key: matches" \
	"the EK certificate (d2i_X509) holds the EK public key"
tpm2_nvread 0x01c00002 -o "$tmp/nv.der" >/dev/null 2>&1
if [ -s "$out/ek.der" ] && cmp -s <(head -c "$(stat -c %s "$out/ek.der")" \
	"$tmp/nv.der") "$out/ek.der"; then
	ok "the certificate equals tpm2_nvread's NV 0x01c00002"
else not_ok "the certificate equals tpm2_nvread's NV 0x01c00002"; fi
if openssl x509 -inform DER -in "$out/ek.der" -noout 2>/dev/null; then
	ok "openssl x509 parses the certificate"
else not_ok "openssl x509 parses the certificate"; fi
cp "$out/ek.pub" "$tmp/ek-rsa.pub"
tpm2_createek -G rsa -u "$tmp/tools-ek.pub" -c "$tmp/tools-ek.ctx" \
	>/dev/null 2>&1
tpm2_flushcontext -t >/dev/null 2>&1
if cmp -s "$tmp/tools-ek.pub" "$tmp/ek-rsa.pub"; then
	ok "RSA EK public area equals tpm2_createek -G rsa's (same template)"
else not_ok "RSA EK public area equals tpm2_createek -G rsa's"; fi

run "ECC P-256 EK created; no certificate at 0x01c0000a is not an error" \
	"$check" ek ecc "$out"
has "ek-cert-bytes: 0" "ECC EK certificate absent (swtpm writes P-384 only)"
cp "$out/ek.pub" "$tmp/ek-ecc.pub"
tpm2_createek -G ecc -u "$tmp/tools-ek.pub" -c "$tmp/tools-ek.ctx" \
	>/dev/null 2>&1
tpm2_flushcontext -t >/dev/null 2>&1
if cmp -s "$tmp/tools-ek.pub" "$tmp/ek-ecc.pub"; then
	ok "ECC EK public area equals tpm2_createek -G ecc's"
else not_ok "ECC EK public area equals tpm2_createek -G ecc's"; fi
no_leaks "EK"

# --- AK: create, keep, reload ---------------------------------------------
akdir="$tmp/ak-rsa"
run "RSA AK created under the RSA EK" "$check" ak rsa rsa "$akdir" "$out"
has "ak-created: 1" "the first run creates the AK"
name1=$(fact ak-name)
if [ "$(stat -c %a "$akdir/ak.blob" 2>/dev/null)" = 600 ] &&
   [ -z "$(find "$akdir" -name 'ak.blob.tmp.*')" ]; then
	ok "AK blob kept with mode 0600, no temp file left"
else not_ok "AK blob kept with mode 0600, no temp file left"; fi
run "a new process loads the AK from the state directory" \
	"$check" ak rsa rsa "$akdir" "$out"
has "ak-created: 0" "the second run does not create an AK"
if [ -n "$name1" ] && [ "$(fact ak-name)" = "$name1" ]; then
	ok "the reloaded AK has the same Name"
else not_ok "the reloaded AK has the same Name ($name1 / $(fact ak-name))"; fi
no_leaks "AK"

# --- the kernel's part: extend --------------------------------------------
d1=$(rand_hex 20)
d256=$(rand_hex 32)
run "PCR 10 extended in sha1 and sha256 becomes H(old || digest)" \
	"$check" extend rsa rsa "$akdir" 10 "$d1" "$d256"
want=$(fact sha256)
got=$(pcrread sha256 | awk '$1 == 10 { print $2 }')
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "tpm2_pcrread sees the extended PCR 10"
else not_ok "tpm2_pcrread sees the extended PCR 10 ($got / $want)"; fi

# give PCRs 0-9 values of their own too, so the quotes below cover
# distinct non-zero PCRs as on a booted machine
for i in 0 1 2 3 4 5 6 7 8 9; do
	tpm2_pcrextend "$i:sha1=$(rand_hex 20),sha256=$(rand_hex 32)" \
		>/dev/null 2>&1 || echo "# tpm2_pcrextend $i failed"
done

# --- quotes ---------------------------------------------------------------
nonce=5ca1ab1e0123456789abcdef0123456789abcdef
for bank in sha256 sha1; do
	run "$bank quote over PCRs 0-10: nonce and pcrDigest check (OpenSSL)" \
		"$check" quote rsa rsa "$akdir" "$bank" 7ff "$nonce" "$out"
	has "pcr-digest: matches" \
		"$bank: pcrDigest equals the hash of the returned PCRs"
	has "proto-quote-check: ok" \
		"$bank: proto tpm_quote_check accepts the quote"
	resets=$(fact reset-count)
	run "$bank: tpm2_checkquote verifies signature and nonce (PEM AK)" \
		tpm2_checkquote -u "$out/ak.pem" -m "$out/quote.msg" \
		-s "$out/quote.sig" -q "$nonce" -g sha256
	fails "$bank: tpm2_checkquote refuses another nonce" \
		tpm2_checkquote -u "$out/ak.pem" -m "$out/quote.msg" \
		-s "$out/quote.sig" -q "${nonce%??}00" -g sha256
	if diff <(pcrread "$bank") "$out/pcrs.txt" >"$tmp/diff" 2>&1; then
		ok "$bank: returned PCR values equal tpm2_pcrread's"
	else not_ok "$bank: returned PCR values equal tpm2_pcrread's" \
		"$tmp/diff"; fi
done
run "the kernel extends between PCR reads and quote: retried, consistent" \
	env AGENT_TPM_RACE=3 "$check" quote rsa rsa "$akdir" sha256 7ff \
	"$nonce" "$out"
if [ "$(grep -c '^race: ' "$tmp/stdout")" = 3 ] &&
   grep -qx "pcr-digest: matches" "$tmp/stdout" &&
   grep -qx "proto-quote-check: ok" "$tmp/stdout"; then
	ok "after 3 lost races the 4th quote matches its PCR values"
else not_ok "after 3 lost races the 4th quote matches its PCR values" \
	"$tmp/stdout" "$tmp/stderr"; fi
fails "PCRs that never stop moving fail the quote" \
	env AGENT_TPM_RACE=100 "$check" quote rsa rsa "$akdir" sha256 7ff \
	"$nonce" "$out"
if grep -q "tpm_quote: comm" "$tmp/stderr"; then
	ok "... with TPM_ERR_COMM (retry later)"
else not_ok "... with TPM_ERR_COMM (retry later)" "$tmp/stderr"; fi
run "PCRs that never stop moving: a resolver that knows the extend keeps the quote" \
	env AGENT_TPM_RACE=100 AGENT_TPM_RESOLVE=1 "$check" quote rsa rsa \
	"$akdir" sha256 7ff "$nonce" "$out"
if [ "$(grep -c '^race: extended' "$tmp/stdout")" = 1 ] &&
   grep -qx "race: resolved" "$tmp/stdout" &&
   grep -qx "pcr-digest: matches" "$tmp/stdout" &&
   grep -qx "proto-quote-check: ok" "$tmp/stdout"; then
	ok "... at the first quote, its PCR 10 the one after the extend"
else not_ok "... at the first quote, its PCR 10 the one after the extend" \
	"$tmp/stdout" "$tmp/stderr"; fi
run "PCRs 0-23 (three PCR_Read calls) quote and check" \
	"$check" quote rsa rsa "$akdir" sha256 ffffff "$nonce" "$out"
fails "a bank the TPM has not allocated (sha384) is an error" \
	"$check" quote rsa rsa "$akdir" sha384 7ff "$nonce" "$out"
if grep -q "no sha384 PCR bank" "$tmp/stderr"; then
	ok "the error names the missing bank"
else not_ok "the error names the missing bank" "$tmp/stderr"; fi
no_leaks "quote"

# --- credential activation ------------------------------------------------
head -c 32 /dev/urandom >"$tmp/secret"
tpm2_makecredential -T none -u "$tmp/ek-rsa.pub" -s "$tmp/secret" \
	-n "$name1" -o "$tmp/cred" >/dev/null 2>&1
run "ActivateCredential recovers tpm2_makecredential's secret" \
	"$check" activate rsa rsa "$akdir" "$tmp/cred" "$tmp/secret"
run "ActivateCredential recovers proto tpm_credential_make's secret" \
	"$check" softcred rsa rsa "$akdir"
has "tampered: refused" "a tampered credential blob is refused"
no_leaks "activate"

# --- swtpm restart: same EK, same AK --------------------------------------
swtpm_stop
if swtpm_start "$state" "$log"; then ok "swtpm restarted on its state"; else
	not_ok "swtpm restarted on its state" "$log"; echo "1..$n"; exit 1; fi
run "after a TPM restart the kept AK loads" "$check" ak rsa rsa "$akdir" "$out"
has "ak-created: 0" "the restart creates no new AK"
if [ "$(fact ak-name)" = "$name1" ]; then ok "same AK Name after the restart"
else not_ok "same AK Name after the restart"; fi
run "quote after the restart" \
	"$check" quote rsa rsa "$akdir" sha256 7ff "$nonce" "$out"
has "reset-count: $((resets + 1))" "clockInfo.resetCount counts the restart"

# --- ECC AKs --------------------------------------------------------------
for ekalg in rsa ecc; do
	akalg=ecc
	dir="$tmp/ak-$ekalg-$akalg"
	mkdir -p "$dir"
	run "$ekalg EK, $akalg AK: created" \
		"$check" ak "$ekalg" "$akalg" "$dir" "$out"
	name=$(fact ak-name)
	run "$ekalg EK, $akalg AK: quote checks" \
		"$check" quote "$ekalg" "$akalg" "$dir" sha256 7ff "$nonce" \
		"$out"
	run "$ekalg EK, $akalg AK: tpm2_checkquote verifies the ECDSA quote" \
		tpm2_checkquote -u "$out/ak.pem" -m "$out/quote.msg" \
		-s "$out/quote.sig" -q "$nonce" -g sha256
	tpm2_makecredential -T none -u "$tmp/ek-$ekalg.pub" -s "$tmp/secret" \
		-n "$name" -o "$tmp/cred" >/dev/null 2>&1
	run "$ekalg EK, $akalg AK: activates tpm2_makecredential's credential" \
		"$check" activate "$ekalg" "$akalg" "$dir" "$tmp/cred" \
		"$tmp/secret"
	run "$ekalg EK, $akalg AK: activates proto's credential" \
		"$check" softcred "$ekalg" "$akalg" "$dir"
done
no_leaks "ECC"

# --- errors ---------------------------------------------------------------
cp "$akdir/ak.blob" "$tmp/ak.good"
printf 'IMAK garbage' >"$akdir/ak.blob"
fails "a corrupt AK file is an error, not a silent new identity" \
	"$check" ak rsa rsa "$akdir" "$out"
cp "$tmp/ak.good" "$akdir/ak.blob"
port=$(swtpm_free_ports)
run "a TPM that does not answer is TPM_ERR_COMM" \
	env TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port" \
	"$check" status open comm
run "an unknown TCTI is TPM_ERR_OTHER (configuration, not a retry)" \
	env TPM2TOOLS_TCTI="no-such-tcti:x" "$check" status open other
tpm2_changeauth -c e endorsement-pass >/dev/null 2>&1
run "an endorsement hierarchy password is TPM_ERR_AUTH" \
	"$check" status ek auth rsa
tpm2_changeauth -c e -p endorsement-pass >/dev/null 2>&1
run "the driver's own status check catches a wrong status" \
	bash -c "! '$check' status open comm >/dev/null 2>&1"
tpm2_changeeps >/dev/null 2>&1
run "after a new endorsement seed the kept AK is replaced" \
	"$check" ak rsa rsa "$akdir" "$out"
has "ak-created: 1" "a new AK is created (the old one cannot load)"
if grep -q "does not belong to this TPM" "$tmp/stderr"; then
	ok "the replacement is logged"
else not_ok "the replacement is logged" "$tmp/stderr"; fi
no_leaks "errors"

[ "$failures" -gt 0 ] && [ -s "$log" ] && sed 's/^/# swtpm: /' "$log"
echo "1..$n"
[ "$failures" -eq 0 ]

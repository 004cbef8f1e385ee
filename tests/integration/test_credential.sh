#!/usr/bin/env bash
# test_credential.sh - our software MakeCredential, activated in a live swtpm
# (TAP).
#
# swtpm starts on a copy of the fixture TPM state, so tpm2_createek brings
# back the fixture EKs and the fixture AK blobs load under them. For each
# EK (RSA, ECC) we make a credential with tpm_credential_make() (through
# tests/tools/makecred) and tpm2_activatecredential must recover the
# secret; so must the peer's tpm2_makecredential -T none output. A
# credential for another AK's Name, or with one byte flipped, must fail.
#
# Needs: swtpm, tpm2-tools, python3; the makecred tool from
# $IMATRUST_TOOLS (default build/tests/tools), built by make.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fx="$root/tests/fixtures/tpm"
# shellcheck source=swtpm-lib.sh
. "$here/swtpm-lib.sh"

tmp=$(mktemp -d)
cleanup() {
	swtpm_stop
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

require_tools swtpm tpm2_createek tpm2_activatecredential python3
makecred=$(tool_path makecred) || exit 1

mkdir "$tmp/state"
cp "$fx/swtpm-state.permall" "$tmp/state/tpm2-00.permall"
swtpm_start "$tmp/state" "$tmp/swtpm.log" || bail "swtpm did not start" \
	"$tmp/swtpm.log"
cd "$tmp" || bail "cannot enter $tmp"

# Without a resource manager swtpm keeps every transient object: flush.
flush() { tpm2_flushcontext -t; tpm2_flushcontext -s; } >/dev/null 2>&1

# policy_session: the EK's policy (PolicySecret with the endorsement
# hierarchy) in session.ctx, needed to use the EK as a parent or decryptor.
policy_session() {
	tpm2_startauthsession --policy-session -S session.ctx &&
		tpm2_policysecret -S session.ctx -c e >/dev/null
}

# activate EK AK CRED OUT: tpm2_activatecredential, log in act.log
activate() {
	policy_session 2>act.log &&
		tpm2_activatecredential -c "$2.ctx" -C "$1.ctx" -i "$3" \
			-o "$4" -P session:session.ctx >/dev/null 2>>act.log
	local rc=$?
	flush
	return $rc
}

for pair in ek-rsa:rsa:ak-rsa:ak-rsa2 ek-ecc:ecc:ak-ecc:ak-rsa; do
	IFS=: read -r ek alg ak other <<<"$pair"

	tpm2_createek -c "$ek.ctx" -G "$alg" -u "$ek.pub" >/dev/null 2>log
	flush
	if cmp -s "$ek.pub" "$fx/$ek.pub"; then
		ok "$ek: swtpm recreates the fixture EK"
	else
		not_ok "$ek: swtpm recreates the fixture EK" log
		continue
	fi
	policy_session 2>log &&
		tpm2_load -C "$ek.ctx" -u "$fx/$ak.pub" -r "$fx/$ak.priv" \
			-c "$ak.ctx" -P session:session.ctx >/dev/null 2>>log
	rc=$?
	flush
	if [ $rc -eq 0 ]; then ok "$ek: $ak loads under it"; else
		not_ok "$ek: $ak loads under it" log; continue; fi

	# Ours: the Name we compute must be the TPM's, the secret come back.
	if "$makecred" "$fx/$ek.pub" "$fx/$ak.pub" "$fx/secret.bin" \
		ours.cred >name.txt 2>log &&
		[ "$(cat name.txt)" = "$(xxd -p -c 256 "$fx/$ak.name")" ]; then
		ok "$ek: makecred names $ak as the TPM does"
	else
		not_ok "$ek: makecred names $ak as the TPM does" log
	fi
	if activate "$ek" "$ak" ours.cred recovered &&
		cmp -s recovered "$fx/secret.bin"; then
		ok "$ek: swtpm activates our credential and returns the secret"
	else
		not_ok "$ek: swtpm activates our credential" act.log
	fi

	# A second credential: fresh seed, different bytes, same secret.
	"$makecred" "$fx/$ek.pub" "$fx/$ak.pub" "$fx/secret.bin" \
		ours2.cred >/dev/null 2>&1
	if ! cmp -s ours.cred ours2.cred && activate "$ek" "$ak" ours2.cred \
		recovered2 && cmp -s recovered2 "$fx/secret.bin"; then
		ok "$ek: a second credential has a fresh seed and activates"
	else
		not_ok "$ek: a second credential has a fresh seed" act.log
	fi

	# The peer's software MakeCredential for the same EK and Name.
	if activate "$ek" "$ak" "$fx/cred-$ek.ref" peer &&
		cmp -s peer "$fx/secret.bin"; then
		ok "$ek: swtpm activates the fixture tpm2_makecredential output"
	else
		not_ok "$ek: swtpm activates the tpm2_makecredential output" \
			act.log
	fi

	# Bound to the Name: a credential for another AK does not open.
	"$makecred" "$fx/$ek.pub" "$fx/$other.pub" "$fx/secret.bin" \
		other.cred >/dev/null 2>&1
	if activate "$ek" "$ak" other.cred wrong || ! grep -qi integrity act.log; then
		not_ok "$ek: a credential for $other's Name is refused for $ak (integrity)"
	else
		ok "$ek: a credential for $other's Name is refused for $ak (integrity)"
	fi

	# Integrity: flip one byte of encIdentity (after the 8-byte header,
	# the 2-byte blob size, and the 2 + 32 bytes of the outer HMAC).
	# XOR, not a fixed value: writing 0x5a left the credential whole
	# whenever its random byte already was 0x5a (1 run in 256).
	python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2])] ^= 0xff
open(sys.argv[3], "wb").write(b)' ours.cred $((8 + 2 + 34 + 1)) flipped.cred
	if cmp -s ours.cred flipped.cred; then
		bail "$ek: flipped.cred equals ours.cred"
	fi
	if activate "$ek" "$ak" flipped.cred wrong || ! grep -qi integrity act.log; then
		not_ok "$ek: a credential with a flipped byte is refused (integrity)"
	else
		ok "$ek: a credential with a flipped byte is refused (integrity)"
	fi
done

echo "1..$tap_n"

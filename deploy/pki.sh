#!/bin/bash
# Lab PKI: the fleet CA, the verifier's server certificate, operator tokens.
#
#   deploy/pki.sh [init]              create what is missing; print the dir
#   deploy/pki.sh token CONFIG NAME FILE [ROLE]
#                                     a new operator token NAME from the
#                                     verifier with config CONFIG
#                                     (imatrust-verifier -c CONFIG token add
#                                     NAME --role ROLE, admin by default: the
#                                     lab's one operator does everything;
#                                     IMATRUST_BIN_DIR, default build/bin),
#                                     written to FILE with mode 0600
#   deploy/pki.sh show                subject, SANs and expiry of each cert
#
# Files in ${IMATRUST_PKI:-${IMATRUST_CACHE:-/var/cache/imatrust}/lab/pki}:
#
#   ca.key, ca.pem         fleet CA (EC P-256, 10 years): what agents trust
#                          (/etc/imatrust/ca.pem in the guest image)
#   server.key, server.pem verifier certificate (EC P-256, 825 days) signed
#                          by the CA, SAN IP 10.77.0.1 and 127.0.0.1 and
#                          DNS localhost (IMATRUST_PKI_SAN replaces the list)
#   ima.key, ima.pem       lab IMA signing key (RSA 2048) and its certificate
#                          (10 years) signed by the CA, subject key identifier
#                          the SHA-1 of the public key, so its last 4 bytes
#                          are the key id evmctl puts in signatures: what
#                          deploy/image/build-debian.sh --signed signs the
#                          image with and `imatrust key add` imports
#
# Idempotent: existing keys are kept; the server certificate is issued
# again only when missing, when its SAN list changed or when it expires
# within 30 days. A flock serialises concurrent runs.
set -euo pipefail

readonly CACHE="${IMATRUST_CACHE:-/var/cache/imatrust}"
readonly DIR="${IMATRUST_PKI:-$CACHE/lab/pki}"
readonly SAN="${IMATRUST_PKI_SAN:-IP:10.77.0.1,IP:127.0.0.1,DNS:localhost}"
readonly BIN="${IMATRUST_BIN_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/bin}"

log() { printf '[pki] %s\n' "$*" >&2; }
die() { printf '[pki] error: %s\n' "$*" >&2; exit 1; }

new_key() {
	(umask 077 && openssl genpkey -algorithm EC \
	    -pkeyopt ec_paramgen_curve:P-256 -out "$1.tmp") &&
	    mv "$1.tmp" "$1"
}

make_ca() {
	[ -f "$DIR/ca.key" ] || { new_key "$DIR/ca.key"; rm -f "$DIR/ca.pem"; }
	[ ! -f "$DIR/ca.pem" ] || return 0
	openssl req -x509 -new -key "$DIR/ca.key" -sha256 -days 3650 \
	    -subj "/O=imatrust lab/CN=imatrust lab fleet CA" \
	    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
	    -addext "keyUsage=critical,keyCertSign,cRLSign" \
	    -addext "subjectKeyIdentifier=hash" \
	    -out "$DIR/ca.pem.tmp"
	mv "$DIR/ca.pem.tmp" "$DIR/ca.pem"
	rm -f "$DIR/server.pem"
	log "created fleet CA $DIR/ca.pem"
}

server_ok() {
	[ -f "$DIR/server.pem" ] && [ -f "$DIR/server.key" ] &&
	    [ "$(cat "$DIR/server.san" 2>/dev/null)" = "$SAN" ] &&
	    openssl x509 -in "$DIR/server.pem" -noout -checkend 2592000 \
	        >/dev/null &&
	    openssl verify -CAfile "$DIR/ca.pem" "$DIR/server.pem" >/dev/null 2>&1
}

make_server() {
	local ext

	server_ok && return 0
	[ -f "$DIR/server.key" ] || new_key "$DIR/server.key"
	ext=$(mktemp)
	cat >"$ext" <<-EOF
	basicConstraints=critical,CA:FALSE
	keyUsage=critical,digitalSignature
	extendedKeyUsage=serverAuth
	subjectAltName=$SAN
	subjectKeyIdentifier=hash
	authorityKeyIdentifier=keyid
	EOF
	openssl req -new -key "$DIR/server.key" -sha256 \
	    -subj "/O=imatrust lab/CN=imatrust-verifier" -out "$DIR/server.csr"
	openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.pem" \
	    -CAkey "$DIR/ca.key" -CAcreateserial -sha256 -days 825 \
	    -extfile "$ext" -out "$DIR/server.pem.tmp" 2>/dev/null
	rm -f "$ext" "$DIR/server.csr"
	mv "$DIR/server.pem.tmp" "$DIR/server.pem"
	echo "$SAN" >"$DIR/server.san"
	log "issued verifier certificate ($SAN)"
}

# The IMA signing key: RSA, the scheme every evmctl and kernel knows.
make_ima() {
	local ext

	if [ ! -f "$DIR/ima.key" ]; then
		(umask 077 && openssl genpkey -quiet -algorithm RSA \
		    -pkeyopt rsa_keygen_bits:2048 -out "$DIR/ima.key.tmp") &&
		    mv "$DIR/ima.key.tmp" "$DIR/ima.key"
		rm -f "$DIR/ima.pem"
	fi
	[ ! -f "$DIR/ima.pem" ] || return 0
	ext=$(mktemp)
	cat >"$ext" <<-EOF
	basicConstraints=critical,CA:FALSE
	keyUsage=critical,digitalSignature
	extendedKeyUsage=codeSigning
	subjectKeyIdentifier=hash
	authorityKeyIdentifier=keyid
	EOF
	openssl req -new -key "$DIR/ima.key" -sha256 \
	    -subj "/O=imatrust lab/CN=imatrust lab IMA signing key" \
	    -out "$DIR/ima.csr"
	openssl x509 -req -in "$DIR/ima.csr" -CA "$DIR/ca.pem" \
	    -CAkey "$DIR/ca.key" -CAcreateserial -sha256 -days 3650 \
	    -extfile "$ext" -out "$DIR/ima.pem.tmp" 2>/dev/null
	rm -f "$ext" "$DIR/ima.csr"
	mv "$DIR/ima.pem.tmp" "$DIR/ima.pem"
	log "created IMA signing key $DIR/ima.pem"
}

cmd_init() {
	command -v openssl >/dev/null || die "openssl not installed"
	mkdir -p "$DIR"
	chmod 0755 "$DIR"
	exec 9>"$DIR/lock"
	flock 9
	make_ca
	make_server
	make_ima
	flock -u 9
	echo "$DIR"
}

cmd_token() {
	local conf=${1:-} name=${2:-} file=${3:-} tok

	[ -f "$conf" ] && [ -n "$name" ] && [ -n "$file" ] ||
		die "usage: pki.sh token CONFIG NAME FILE [ROLE]"
	[ -x "$BIN/imatrust-verifier" ] ||
		die "$BIN/imatrust-verifier not built (make all)"
	tok=$("$BIN/imatrust-verifier" -c "$conf" token add "$name" \
		--role "${4:-admin}" | tail -n 1)
	[ -n "$tok" ] || die "imatrust-verifier gave no token"
	(umask 077 && printf '%s\n' "$tok" >"$file.tmp") && mv "$file.tmp" "$file"
	echo "$file"
}

cmd_show() {
	local f

	for f in "$DIR/ca.pem" "$DIR/server.pem" "$DIR/ima.pem"; do
		[ -f "$f" ] || continue
		echo "== $f"
		openssl x509 -in "$f" -noout -subject -issuer -enddate \
		    -ext subjectAltName 2>/dev/null || true
	done
}

case "${1:-init}" in
init) cmd_init ;;
token) shift; cmd_token "$@" ;;
show) cmd_show ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
   exit 2 ;;
esac

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_key.h - the X.509 certificates whose keys check IMA signatures.
 *
 * A signature names its key by a 32-bit id (ima_sig.h); the kernel finds
 * the key in its .ima keyring by the tail of the certificate's
 * subjectKeyIdentifier. Loading a certificate gives its public key, that
 * id, and what a user needs to tell keys apart (fingerprint, subject).
 */
#ifndef IMATRUST_IMA_KEY_H
#define IMATRUST_IMA_KEY_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "result.h"

#define IMA_KEY_CERT_MAX 65536	    /* a larger certificate is refused */
#define IMA_KEY_FINGERPRINT_SIZE 32 /* SHA-256 */

struct ima_key {
	EVP_PKEY *pkey; /* owned */
	/*
	 * The id signatures by this key carry: the last 4 bytes of the
	 * certificate's subjectKeyIdentifier, which is what the kernel
	 * looks a signature's keyid up by ("id:%08x", a match on the tail
	 * of the SKID) and what evmctl writes when it reads a certificate.
	 * A certificate without a SKID (or one under 4 bytes) gets
	 * @keyid_pubkey instead, with @keyid_from_skid 0.
	 */
	uint32_t keyid;
	int keyid_from_skid;
	/*
	 * evmctl's calc_keyid_v2(), what `evmctl ima_sign -k KEY` writes
	 * for a bare private key: the last 4 bytes of SHA-1 over the
	 * subjectPublicKey BIT STRING contents. Equal to @keyid for the
	 * SKID that `openssl req -x509` (RFC 5280 method 1) makes.
	 */
	uint32_t keyid_pubkey;
	uint8_t fingerprint[IMA_KEY_FINGERPRINT_SIZE]; /* of the cert DER */
	char *subject; /* RFC 2253 text; owned */
};

/**
 * ima_key_load() - load the public key of an X.509 certificate.
 * @buf: the certificate, PEM (the first CERTIFICATE block) or DER (the
 *	 whole buffer)
 * @len: number of bytes in @buf
 * @key: receives the key on IMT_OK; free with ima_key_free()
 * @err: filled on any result other than IMT_OK
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED "not an X.509 certificate" for
 * anything else (empty input, a bare public key, garbage, bytes after
 * a DER certificate); IMT_ERR_LIMIT above IMA_KEY_CERT_MAX bytes;
 * IMT_ERR_UNSUPPORTED for a key that is neither RSA nor EC;
 * IMT_ERR_INTERNAL for a crypto library failure. On failure @key is
 * left empty (ima_key_free() on it is harmless).
 */
enum imt_result ima_key_load(const uint8_t *buf, size_t len,
			     struct ima_key *key, struct imt_error *err);

/**
 * ima_key_has_id() - would the kernel pick @key for signatures @keyid?
 * @key: a loaded key
 * @keyid: a signature's key id (host order)
 *
 * Return: non-zero when @keyid is @key->keyid.
 */
int ima_key_has_id(const struct ima_key *key, uint32_t keyid);

/**
 * ima_key_free() - release what @key owns and empty it; NULL is allowed.
 * @key: a key filled by ima_key_load(), or an empty (zeroed) one
 */
void ima_key_free(struct ima_key *key);

#endif /* IMATRUST_IMA_KEY_H */

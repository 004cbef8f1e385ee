/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keylime_key.h - the signature keys of a Keylime runtime policy.
 *
 * Keylime keeps IMA verification keys as SubjectPublicKeyInfo DER, each
 * with a 32-bit keyid (the kernel's keyidv2: the last four bytes of a
 * certificate's subject key identifier, else of SHA-1 over the RSA key
 * in PKCS#1 or the EC point uncompressed). It takes RSA and EC keys only.
 */
#ifndef IMATRUST_KEYLIME_KEY_H
#define IMATRUST_KEYLIME_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

/**
 * keylime_key_der() - check a key and give the DER a sink gets.
 * @der: an X.509 certificate or a SubjectPublicKeyInfo, DER, whole
 * @len: bytes in @der
 * @out: receives a malloc()ed copy: the certificate as it is, or the
 *	 SubjectPublicKeyInfo re-encoded
 * @out_len: receives the bytes in *@out
 * @what: how errors name the key ("verification-keys.pubkeys[0]")
 * @err: filled on failure
 *
 * Return: 0, or -1 (not DER of either, trailing bytes, neither RSA nor EC).
 */
int keylime_key_der(const uint8_t *der, size_t len, uint8_t **out,
		    size_t *out_len, const char *what, struct imt_error *err);

/**
 * keylime_key_spki() - what Keylime stores of a key.
 * @der: an X.509 certificate or a SubjectPublicKeyInfo, DER, whole
 * @len: bytes in @der
 * @spki: receives the malloc()ed SubjectPublicKeyInfo DER
 * @spki_len: receives its length
 * @keyid: receives the keyid Keylime would give it
 * @what: how errors name the key ("keys[0]")
 * @err: filled on failure
 *
 * Return: 0, or -1 as keylime_key_der().
 */
int keylime_key_spki(const uint8_t *der, size_t len, uint8_t **spki,
		     size_t *spki_len, uint32_t *keyid, const char *what,
		     struct imt_error *err);

#endif /* IMATRUST_KEYLIME_KEY_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpm_crypto.h - the TPM 2.0 key derivation functions and the one place
 * that turns OpenSSL failures into an imt_error.
 *
 * Shared by tpm_public.c, tpm_quote.c and tpm_credential.c; the
 * definitions follow TPM 2.0 Part 1, section 11.4.10 (KDFa, KDFe).
 */
#ifndef IMATRUST_TPM_CRYPTO_H
#define IMATRUST_TPM_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "result.h"

#define TPM_KDF_LABEL_MAX 32	/* labels are short fixed strings */
#define TPM_KDF_CONTEXT_MAX 132 /* a Name (2 + 64) or an ECC coordinate */

/**
 * tpm_crypto_md() - the OpenSSL digest for a TPM hash algorithm.
 * @tpm_alg: TPM2_ALG_ID of a hash (sha1, sha256, sha384, sha512)
 *
 * Return: the digest, or NULL when @tpm_alg is not a hash we compute.
 */
const EVP_MD *tpm_crypto_md(uint16_t tpm_alg);

/**
 * tpm_crypto_fail() - report an OpenSSL failure and clear its error queue.
 * @err: error report to fill; may be NULL
 * @status: IMT_ERR_INTERNAL, or IMT_ERR_MALFORMED when OpenSSL rejected
 *          input that came from outside
 * @what: what was being done ("RSA-OAEP encryption", ...)
 *
 * The message is "@what failed: " and OpenSSL's latest queued error.
 *
 * Return: @status.
 */
enum imt_result tpm_crypto_fail(struct imt_error *err, enum imt_result status,
				const char *what);

/**
 * tpm_crypto_kdfa() - KDFa: SP 800-108 counter mode with HMAC.
 * @md: the hash of the HMAC
 * @key: HMAC key (the seed)
 * @key_len: bytes in @key
 * @label: NUL-terminated label; the NUL is part of the input
 * @ctx_u: contextU bytes; may be NULL when @ctx_u_len is 0
 * @ctx_u_len: bytes in @ctx_u
 * @ctx_v: contextV bytes; may be NULL when @ctx_v_len is 0
 * @ctx_v_len: bytes in @ctx_v
 * @out: receives @bits / 8 bytes
 * @bits: output size in bits, a positive multiple of 8
 * @err: filled on failure
 *
 * Return: IMT_OK, IMT_ERR_LIMIT when an input exceeds the stated maxima,
 * or IMT_ERR_INTERNAL.
 */
enum imt_result tpm_crypto_kdfa(const EVP_MD *md, const uint8_t *key,
				size_t key_len, const char *label,
				const uint8_t *ctx_u, size_t ctx_u_len,
				const uint8_t *ctx_v, size_t ctx_v_len,
				uint8_t *out, size_t bits,
				struct imt_error *err);

/**
 * tpm_crypto_kdfe() - KDFe: the SP 800-56A concatenation KDF.
 * @md: the hash
 * @z: the shared secret (x coordinate of the ECDH point)
 * @z_len: bytes in @z
 * @label: NUL-terminated label; the NUL is part of the input
 * @party_u: partyUInfo (the ephemeral public x coordinate)
 * @party_u_len: bytes in @party_u
 * @party_v: partyVInfo (the static public x coordinate)
 * @party_v_len: bytes in @party_v
 * @out: receives @bits / 8 bytes
 * @bits: output size in bits, a positive multiple of 8
 * @err: filled on failure
 *
 * Return: IMT_OK, IMT_ERR_LIMIT when an input exceeds the stated maxima,
 * or IMT_ERR_INTERNAL.
 */
enum imt_result tpm_crypto_kdfe(const EVP_MD *md, const uint8_t *z,
				size_t z_len, const char *label,
				const uint8_t *party_u, size_t party_u_len,
				const uint8_t *party_v, size_t party_v_len,
				uint8_t *out, size_t bits,
				struct imt_error *err);

#endif /* IMATRUST_TPM_CRYPTO_H */

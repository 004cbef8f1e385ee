// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_crypto.c - KDFa, KDFe and OpenSSL error reports for the TPM code.
 */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/hmac.h>

#include "hash_algo.h"
#include "hash_md.h"
#include "tpm_crypto.h"

/* One KDF input block: counter, secret or label, contexts, length. */
#define KDF_BLOCK_MAX \
	(4 + TPM_KDF_CONTEXT_MAX + TPM_KDF_LABEL_MAX + \
	 2 * TPM_KDF_CONTEXT_MAX + 4)

enum kdf_kind { KDF_A, KDF_E };

const EVP_MD *tpm_crypto_md(uint16_t tpm_alg)
{
	return hash_md(hash_algo_by_tpm(tpm_alg));
}

enum imt_result tpm_crypto_fail(struct imt_error *err, enum imt_result status,
				const char *what)
{
	char detail[160] = "no detail";
	/* The latest error: older ones may be left over from other code. */
	unsigned long e = ERR_peek_last_error();

	if (e != 0)
		ERR_error_string_n(e, detail, sizeof(detail));
	ERR_clear_error();
	return imt_error_set(err, status, IMT_NO_POS, IMT_NO_POS,
			     "%s failed: %s", what, detail);
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void append(uint8_t *block, size_t *n, const void *p, size_t len)
{
	if (len > 0)
		memcpy(block + *n, p, len);
	*n += len;
}

/*
 * Both KDFs hash a counter-prefixed block until @bits are out: KDFa with
 * HMAC keyed by @secret, KDFe with a plain hash that has @secret (Z)
 * inside the block.
 */
static enum imt_result kdf(enum kdf_kind kind, const EVP_MD *md,
			   const uint8_t *secret, size_t secret_len,
			   const char *label, const uint8_t *u, size_t u_len,
			   const uint8_t *v, size_t v_len, uint8_t *out,
			   size_t bits, struct imt_error *err)
{
	uint8_t block[KDF_BLOCK_MAX], digest[EVP_MAX_MD_SIZE];
	size_t label_len = strlen(label) + 1, done = 0, n, want = bits / 8;
	size_t md_size = (size_t)EVP_MD_get_size(md), mac_len;
	enum imt_result rc = IMT_OK;
	uint32_t counter;

	if (bits == 0 || bits % 8 != 0 || label_len > TPM_KDF_LABEL_MAX ||
	    u_len > TPM_KDF_CONTEXT_MAX || v_len > TPM_KDF_CONTEXT_MAX ||
	    (kind == KDF_E && secret_len > TPM_KDF_CONTEXT_MAX))
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "KDF input or output size out of range");
	for (counter = 1; done < want; counter++) {
		n = 0;
		put_be32(block, counter);
		n += 4;
		if (kind == KDF_E)
			append(block, &n, secret, secret_len);
		append(block, &n, label, label_len);
		append(block, &n, u, u_len);
		append(block, &n, v, v_len);
		if (kind == KDF_A) {
			put_be32(block + n, (uint32_t)bits);
			n += 4;
			if (EVP_Q_mac(NULL, "HMAC", NULL, EVP_MD_get0_name(md),
				      NULL, secret, secret_len, block, n,
				      digest, sizeof(digest),
				      &mac_len) == NULL) {
				rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
						     "KDFa HMAC");
				goto out;
			}
		} else if (!EVP_Digest(block, n, digest, NULL, md, NULL)) {
			rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
					     "KDFe hash");
			goto out;
		}
		n = want - done < md_size ? want - done : md_size;
		memcpy(out + done, digest, n);
		done += n;
	}
out:
	OPENSSL_cleanse(block, sizeof(block));
	OPENSSL_cleanse(digest, sizeof(digest));
	return rc;
}

enum imt_result tpm_crypto_kdfa(const EVP_MD *md, const uint8_t *key,
				size_t key_len, const char *label,
				const uint8_t *ctx_u, size_t ctx_u_len,
				const uint8_t *ctx_v, size_t ctx_v_len,
				uint8_t *out, size_t bits,
				struct imt_error *err)
{
	return kdf(KDF_A, md, key, key_len, label, ctx_u, ctx_u_len, ctx_v,
		   ctx_v_len, out, bits, err);
}

enum imt_result tpm_crypto_kdfe(const EVP_MD *md, const uint8_t *z,
				size_t z_len, const char *label,
				const uint8_t *party_u, size_t party_u_len,
				const uint8_t *party_v, size_t party_v_len,
				uint8_t *out, size_t bits,
				struct imt_error *err)
{
	return kdf(KDF_E, md, z, z_len, label, party_u, party_u_len, party_v,
		   party_v_len, out, bits, err);
}

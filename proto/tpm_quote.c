// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_quote.c - TPMS_ATTEST decoding, quote signature, PCR digest.
 *
 * TPM 2.0 Part 2 §10.12 (TPMS_ATTEST) and Part 3 §18.4 (TPM2_Quote): the
 * TPM signs the marshalled TPMS_ATTEST; its pcrDigest is the hash, with
 * the signing scheme's hash, of the selected PCR values concatenated.
 */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "tpm_crypto.h"
#include "tpm_quote.h"

/* The signature schemes a quote may use, and the key each needs. */
static const struct {
	TPM2_ALG_ID alg;
	const char *name;
	const char *key_type; /* OpenSSL key type the AK must have */
	int padding;	      /* RSA padding; 0 for ECDSA */
} sig_schemes[] = {
	{ TPM2_ALG_RSASSA, "rsassa", "RSA", RSA_PKCS1_PADDING },
	{ TPM2_ALG_RSAPSS, "rsapss", "RSA", RSA_PKCS1_PSS_PADDING },
	{ TPM2_ALG_ECDSA, "ecdsa", "EC", 0 },
};

#define SIG_SCHEME_COUNT (sizeof(sig_schemes) / sizeof(sig_schemes[0]))

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

enum imt_result tpm_quote_parse(const uint8_t *buf, size_t len,
				struct tpm_quote *quote, struct imt_error *err)
{
	TPMS_ATTEST attest;
	size_t offset = 0;
	uint32_t magic;
	uint16_t type;
	TSS2_RC rc;

	if (len < 6)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "TPMS_ATTEST: %zu bytes, too short for magic and type",
				     len);
	magic = get_be32(buf);
	if (magic != TPM2_GENERATED_VALUE)
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS, 0,
				     "magic 0x%08x is not TPM_GENERATED_VALUE",
				     (unsigned int)magic);
	type = (uint16_t)(buf[4] << 8 | buf[5]);
	if (type != TPM2_ST_ATTEST_QUOTE)
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS, 4,
				     "type 0x%04x is not TPM_ST_ATTEST_QUOTE",
				     (unsigned int)type);
	memset(&attest, 0, sizeof(attest));
	rc = Tss2_MU_TPMS_ATTEST_Unmarshal(buf, len, &offset, &attest);
	if (rc != TSS2_RC_SUCCESS)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, offset,
				     "TPMS_ATTEST: cannot unmarshal (0x%x)",
				     (unsigned int)rc);
	if (offset != len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, offset,
				     "TPMS_ATTEST: %zu trailing bytes",
				     len - offset);
	memset(quote, 0, sizeof(*quote));
	quote->nonce_len = attest.extraData.size;
	memcpy(quote->nonce, attest.extraData.buffer, quote->nonce_len);
	quote->signer_len = attest.qualifiedSigner.size;
	memcpy(quote->signer, attest.qualifiedSigner.name, quote->signer_len);
	quote->clock = attest.clockInfo.clock;
	quote->reset_count = attest.clockInfo.resetCount;
	quote->restart_count = attest.clockInfo.restartCount;
	quote->safe = attest.clockInfo.safe != 0;
	quote->firmware_version = attest.firmwareVersion;
	quote->pcr_select = attest.attested.quote.pcrSelect;
	quote->pcr_digest_len = attest.attested.quote.pcrDigest.size;
	memcpy(quote->pcr_digest, attest.attested.quote.pcrDigest.buffer,
	       quote->pcr_digest_len);
	return IMT_OK;
}

enum imt_result tpm_quote_unwrap(const uint8_t *buf, size_t len,
				 const uint8_t **attest, size_t *attest_len,
				 struct imt_error *err)
{
	size_t size;

	if (len < 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "TPM2B_ATTEST: %zu bytes, need a size field",
				     len);
	size = (size_t)(buf[0] << 8 | buf[1]);
	if (size != len - 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "TPM2B_ATTEST: size field %zu, but %zu bytes follow",
				     size, len - 2);
	*attest = buf + 2;
	*attest_len = size;
	return IMT_OK;
}

/* The DER ECDSA-Sig-Value OpenSSL verifies, from the TPM's (r, s). */
static enum imt_result ecdsa_der(const TPMS_SIGNATURE_ECDSA *ecdsa,
				 uint8_t **der, size_t *der_len,
				 struct imt_error *err)
{
	BIGNUM *r = BN_bin2bn(ecdsa->signatureR.buffer, ecdsa->signatureR.size,
			      NULL);
	BIGNUM *s = BN_bin2bn(ecdsa->signatureS.buffer, ecdsa->signatureS.size,
			      NULL);
	ECDSA_SIG *sig = ECDSA_SIG_new();
	enum imt_result rc = IMT_OK;
	int n;

	if (r == NULL || s == NULL || sig == NULL ||
	    !ECDSA_SIG_set0(sig, r, s)) {
		BN_free(r);
		BN_free(s);
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "ECDSA signature");
		goto out;
	}
	*der = NULL;
	n = i2d_ECDSA_SIG(sig, der);
	if (n <= 0) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				     "ECDSA signature encoding");
		goto out;
	}
	*der_len = (size_t)n;
out:
	ECDSA_SIG_free(sig);
	return rc;
}

/* Verify @sig_bytes over @attest with @md and the padding of @scheme. */
static enum imt_result verify(EVP_PKEY *ak, const EVP_MD *md, int padding,
			      const uint8_t *sig_bytes, size_t sig_len,
			      const uint8_t *attest, size_t attest_len,
			      struct imt_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	enum imt_result rc = IMT_OK;

	if (ctx == NULL ||
	    EVP_DigestVerifyInit(ctx, &pctx, md, NULL, ak) != 1 ||
	    (padding != 0 &&
	     EVP_PKEY_CTX_set_rsa_padding(pctx, padding) != 1) ||
	    (padding == RSA_PKCS1_PSS_PADDING &&
	     EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) !=
		     1)) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				     "signature verification setup");
		goto out;
	}
	if (EVP_DigestVerify(ctx, sig_bytes, sig_len, attest, attest_len) !=
	    1) {
		ERR_clear_error();
		rc = imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				   IMT_NO_POS,
				   "signature does not verify with the AK");
	}
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

enum imt_result tpm_quote_verify_signature(const uint8_t *attest,
					   size_t attest_len,
					   const uint8_t *sig, size_t sig_len,
					   EVP_PKEY *ak, uint16_t *hash_alg,
					   struct imt_error *err)
{
	const struct hash_algo *algo;
	TPMT_SIGNATURE s;
	uint8_t *der = NULL;
	size_t offset = 0, i, der_len = 0;
	enum imt_result rc;
	TPMI_ALG_HASH hash;
	const EVP_MD *md;
	TSS2_RC trc;

	memset(&s, 0, sizeof(s));
	trc = Tss2_MU_TPMT_SIGNATURE_Unmarshal(sig, sig_len, &offset, &s);
	if (trc != TSS2_RC_SUCCESS)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, offset,
				     "TPMT_SIGNATURE: cannot unmarshal (0x%x)",
				     (unsigned int)trc);
	if (offset != sig_len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, offset,
				     "TPMT_SIGNATURE: %zu trailing bytes",
				     sig_len - offset);
	for (i = 0; i < SIG_SCHEME_COUNT; i++) {
		if (sig_schemes[i].alg == s.sigAlg)
			break;
	}
	if (i == SIG_SCHEME_COUNT)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "signature scheme 0x%04x is not rsassa, rsapss or ecdsa",
				     (unsigned int)s.sigAlg);
	if (!EVP_PKEY_is_a(ak, sig_schemes[i].key_type))
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				     IMT_NO_POS,
				     "signature scheme %s does not fit the AK's %s key",
				     sig_schemes[i].name,
				     EVP_PKEY_get0_type_name(ak));
	/* rsassa, rsapss and ecdsa all start with the hash algorithm. */
	hash = s.signature.any.hashAlg;
	algo = hash_algo_by_tpm(hash);
	md = tpm_crypto_md(hash);
	if (algo == NULL || md == NULL || algo->size < 32)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "signature hash 0x%04x is not sha256, sha384 or sha512",
				     (unsigned int)hash);
	if (s.sigAlg == TPM2_ALG_ECDSA) {
		rc = ecdsa_der(&s.signature.ecdsa, &der, &der_len, err);
		if (rc == IMT_OK)
			rc = verify(ak, md, 0, der, der_len, attest, attest_len,
				    err);
		OPENSSL_free(der);
	} else {
		rc = verify(ak, md, sig_schemes[i].padding,
			    s.signature.rsassa.sig.buffer,
			    s.signature.rsassa.sig.size, attest, attest_len,
			    err);
	}
	if (rc == IMT_OK && hash_alg != NULL)
		*hash_alg = hash;
	return rc;
}

uint32_t tpm_selection_mask(const TPML_PCR_SELECTION *sel, uint16_t alg)
{
	const TPMS_PCR_SELECTION *s;
	uint32_t mask = 0;
	size_t i, b;

	for (i = 0; i < sel->count && i < TPM2_NUM_PCR_BANKS; i++) {
		s = &sel->pcrSelections[i];
		if (s->hash != alg)
			continue;
		for (b = 0; b < s->sizeofSelect && b < sizeof(mask); b++)
			mask |= (uint32_t)s->pcrSelect[b] << (8 * b);
	}
	return mask;
}

uint32_t tpm_quote_pcr_mask(const struct tpm_quote *quote,
			    const struct hash_algo *bank)
{
	return tpm_selection_mask(&quote->pcr_select, bank->tpm_alg);
}

enum imt_result tpm_quote_pcr_digest(const struct tpm_quote *quote,
				     const struct pcr_set *pcrs,
				     uint16_t hash_alg, uint8_t *out,
				     size_t *out_len, struct imt_error *err)
{
	const TPMS_PCR_SELECTION *sel = &quote->pcr_select.pcrSelections[0];
	const struct hash_algo *bank;
	const EVP_MD *md = tpm_crypto_md(hash_alg);
	enum imt_result rc = IMT_OK;
	EVP_MD_CTX *ctx = NULL;
	unsigned int n;
	uint32_t mask;
	int i;

	if (quote->pcr_select.count != 1)
		return imt_error_check(err, "pcr digest", IMT_ERR_UNSUPPORTED,
				       IMT_NO_POS, IMT_NO_POS,
				       "pcr digest: quote selects %u banks, one is supported",
				       (unsigned int)quote->pcr_select.count);
	bank = hash_algo_by_tpm(sel->hash);
	if (bank != pcrs->algo)
		return imt_error_check(err, "pcr digest", IMT_ERR_MISMATCH,
				       IMT_NO_POS, IMT_NO_POS,
				       "pcr digest: quote selects bank 0x%04x, PCR values are %s",
				       (unsigned int)sel->hash,
				       pcrs->algo->name);
	if (md == NULL)
		return imt_error_check(err, "pcr digest", IMT_ERR_UNSUPPORTED,
				       IMT_NO_POS, IMT_NO_POS,
				       "pcr digest: hash 0x%04x",
				       (unsigned int)hash_alg);
	mask = tpm_quote_pcr_mask(quote, bank);
	for (i = 0; i < 32; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (i >= PCR_SET_COUNT)
			return imt_error_check(err, "pcr digest",
					       IMT_ERR_UNSUPPORTED, IMT_NO_POS,
					       IMT_NO_POS,
					       "pcr digest: quote selects PCR %d",
					       i);
		if (!(pcrs->present & (1u << i)))
			return imt_error_check(err, "pcr digest",
					       IMT_ERR_MALFORMED, IMT_NO_POS,
					       IMT_NO_POS,
					       "pcr digest: PCR %d is selected but no value was given",
					       i);
	}
	ctx = EVP_MD_CTX_new();
	if (ctx == NULL || !EVP_DigestInit_ex(ctx, md, NULL)) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "pcr digest");
		goto out;
	}
	for (i = 0; i < PCR_SET_COUNT; i++) {
		if ((mask & (1u << i)) &&
		    !EVP_DigestUpdate(ctx, pcrs->value[i], bank->size)) {
			rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
					     "pcr digest");
			goto out;
		}
	}
	if (!EVP_DigestFinal_ex(ctx, out, &n)) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "pcr digest");
		goto out;
	}
	*out_len = n;
out:
	EVP_MD_CTX_free(ctx);
	return rc;
}

enum imt_result tpm_quote_authentic(const uint8_t *attest, size_t attest_len,
				    const uint8_t *sig, size_t sig_len,
				    EVP_PKEY *ak, const uint8_t *nonce,
				    size_t nonce_len, struct tpm_quote *quote,
				    uint16_t *hash_alg, struct imt_error *err)
{
	enum imt_result rc;

	rc = tpm_quote_parse(attest, attest_len, quote, err);
	if (rc != IMT_OK)
		return rc;
	rc = tpm_quote_verify_signature(attest, attest_len, sig, sig_len, ak,
					hash_alg, err);
	if (rc != IMT_OK)
		return rc;
	if (quote->nonce_len != nonce_len)
		return imt_error_check(err, "nonce", IMT_ERR_MISMATCH,
				       IMT_NO_POS, IMT_NO_POS,
				       "nonce: the quote's qualifyingData has %zu bytes, the nonce issued %zu",
				       quote->nonce_len, nonce_len);
	if (CRYPTO_memcmp(quote->nonce, nonce, nonce_len) != 0)
		return imt_error_check(err, "nonce", IMT_ERR_MISMATCH,
				       IMT_NO_POS, IMT_NO_POS,
				       "nonce: the quote's qualifyingData is not the nonce issued");
	return IMT_OK;
}

enum imt_result tpm_quote_check_pcrs(const struct tpm_quote *quote,
				     uint16_t hash_alg,
				     const struct pcr_set *pcrs,
				     struct imt_error *err)
{
	uint8_t want[HASH_ALGO_MAX_SIZE];
	enum imt_result rc;
	size_t want_len;

	rc = tpm_quote_pcr_digest(quote, pcrs, hash_alg, want, &want_len, err);
	if (rc != IMT_OK)
		return rc;
	if (quote->pcr_digest_len != want_len ||
	    memcmp(quote->pcr_digest, want, want_len) != 0)
		return imt_error_check(err, "pcr digest", IMT_ERR_MISMATCH,
				       IMT_NO_POS, IMT_NO_POS,
				       "pcr digest: the quote's digest of %s PCRs 0x%06x differs from the PCR values given",
				       pcrs->algo->name,
				       (unsigned int)
					       tpm_quote_pcr_mask(quote,
								  pcrs->algo));
	return IMT_OK;
}

enum imt_result tpm_quote_check(const uint8_t *attest, size_t attest_len,
				const uint8_t *sig, size_t sig_len,
				EVP_PKEY *ak, const uint8_t *nonce,
				size_t nonce_len, const struct pcr_set *pcrs,
				struct tpm_quote *quote, struct imt_error *err)
{
	struct tpm_quote q;
	enum imt_result rc;
	uint16_t hash_alg;

	rc = tpm_quote_authentic(attest, attest_len, sig, sig_len, ak, nonce,
				 nonce_len, &q, &hash_alg, err);
	if (rc == IMT_OK)
		rc = tpm_quote_check_pcrs(&q, hash_alg, pcrs, err);
	if (rc == IMT_OK && quote != NULL)
		*quote = q;
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_public.c - TPM2B_PUBLIC to OpenSSL key, Name, AK attribute check.
 *
 * Structure decoding is libtss2-mu's; what is checked on top is what the
 * marshalling cannot know: exact lengths, key sizes, points on curves.
 */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <tss2/tss2_mu.h>

#include "tpm_crypto.h"
#include "tpm_public.h"

#define RSA_BITS_MIN 1024 /* smaller RSA keys are rejected */
#define RSA_BITS_MAX 4096 /* TPM2B_PUBLIC_KEY_RSA holds 512 bytes */

static const struct {
	TPM2_ECC_CURVE curve;
	const char *name; /* OpenSSL group name */
	size_t size;	  /* bytes per coordinate */
} ecc_curves[] = {
	{ TPM2_ECC_NIST_P256, "P-256", 32 },
	{ TPM2_ECC_NIST_P384, "P-384", 48 },
};

#define ECC_CURVE_COUNT (sizeof(ecc_curves) / sizeof(ecc_curves[0]))

/* The AK attributes of proto/DESIGN.md §3, each with the value it must have. */
static const struct {
	TPMA_OBJECT bit;
	const char *name;
	int set;
} ak_attributes[] = {
	{ TPMA_OBJECT_RESTRICTED, "restricted", 1 },
	{ TPMA_OBJECT_SIGN_ENCRYPT, "sign", 1 },
	{ TPMA_OBJECT_FIXEDTPM, "fixedTPM", 1 },
	{ TPMA_OBJECT_FIXEDPARENT, "fixedParent", 1 },
	{ TPMA_OBJECT_SENSITIVEDATAORIGIN, "sensitiveDataOrigin", 1 },
	{ TPMA_OBJECT_DECRYPT, "decrypt", 0 },
};

#define AK_ATTRIBUTE_COUNT (sizeof(ak_attributes) / sizeof(ak_attributes[0]))

enum imt_result tpm_public_parse(const uint8_t *buf, size_t len,
				 TPMT_PUBLIC *pub, struct imt_error *err)
{
	TPM2B_PUBLIC tpm2b;
	size_t offset = 0;
	TSS2_RC rc;

	if (len < 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "TPM2B_PUBLIC: %zu bytes, need a size field",
				     len);
	if ((size_t)(buf[0] << 8 | buf[1]) != len - 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "TPM2B_PUBLIC: size field %u, but %zu bytes follow",
				     (unsigned int)(buf[0] << 8 | buf[1]),
				     len - 2);
	/* libtss2-mu takes size 0 for a zeroed area that does not marshal */
	if (len == 2)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "TPM2B_PUBLIC: size field 0, no public area");
	memset(&tpm2b, 0, sizeof(tpm2b));
	rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &offset, &tpm2b);
	if (rc != TSS2_RC_SUCCESS)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, offset,
				     "TPM2B_PUBLIC: cannot unmarshal (0x%x)",
				     (unsigned int)rc);
	if (offset != len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, offset,
				     "TPM2B_PUBLIC: %zu trailing bytes",
				     len - offset);
	*pub = tpm2b.publicArea;
	return IMT_OK;
}

/* Build *@pkey of @type from @bld's parameters. */
static enum imt_result pkey_fromdata(const char *type, OSSL_PARAM_BLD *bld,
				     EVP_PKEY **pkey, struct imt_error *err)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
	enum imt_result rc = IMT_OK;

	if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "key import setup");
		goto out;
	}
	if (EVP_PKEY_fromdata(ctx, pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0) {
		rc = tpm_crypto_fail(err, IMT_ERR_MALFORMED,
				     strcmp(type, "RSA") == 0 ?
					     "RSA key import" :
					     "EC key import");
	}
out:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return rc;
}

static enum imt_result rsa_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **pkey,
				struct imt_error *err)
{
	const TPMS_RSA_PARMS *parms = &pub->parameters.rsaDetail;
	const TPM2B_PUBLIC_KEY_RSA *n = &pub->unique.rsa;
	uint32_t exponent = parms->exponent != 0 ? parms->exponent : 65537;
	OSSL_PARAM_BLD *bld = NULL;
	BIGNUM *bn_n = NULL, *bn_e = NULL;
	enum imt_result rc;

	if (parms->keyBits < RSA_BITS_MIN || parms->keyBits > RSA_BITS_MAX ||
	    parms->keyBits % 8 != 0)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS, "RSA key of %u bits",
				     (unsigned int)parms->keyBits);
	bld = OSSL_PARAM_BLD_new();
	bn_n = BN_bin2bn(n->buffer, n->size, NULL);
	bn_e = BN_new();
	if (bld == NULL || bn_n == NULL || bn_e == NULL ||
	    !BN_set_word(bn_e, exponent) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e)) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				     "RSA key parameters");
		goto out;
	}
	if ((unsigned int)BN_num_bits(bn_n) != parms->keyBits) {
		rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				   IMT_NO_POS,
				   "RSA modulus has %d bits, keyBits says %u",
				   BN_num_bits(bn_n),
				   (unsigned int)parms->keyBits);
		goto out;
	}
	rc = pkey_fromdata("RSA", bld, pkey, err);
out:
	BN_free(bn_n);
	BN_free(bn_e);
	OSSL_PARAM_BLD_free(bld);
	return rc;
}

/*
 * Full public key validation (SP 800-56A 5.6.2.3.3). Decoding the point
 * in EVP_PKEY_fromdata() already tests the curve equation; this makes the
 * requirement explicit rather than an accident of the import path.
 */
static enum imt_result ecc_check_point(EVP_PKEY *pkey, struct imt_error *err)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL);
	enum imt_result rc = IMT_OK;

	if (ctx == NULL)
		return tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				       "EC key check setup");
	if (EVP_PKEY_public_check(ctx) != 1) {
		rc = tpm_crypto_fail(err, IMT_ERR_MALFORMED,
				     "ECC point on the curve check");
	}
	EVP_PKEY_CTX_free(ctx);
	return rc;
}

static enum imt_result ecc_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **pkey,
				struct imt_error *err)
{
	const TPMS_ECC_POINT *q = &pub->unique.ecc;
	uint8_t point[1 + 2 * 48];
	OSSL_PARAM_BLD *bld = NULL;
	enum imt_result rc;
	size_t i, size;

	TPM2_ECC_CURVE curve = pub->parameters.eccDetail.curveID;

	for (i = 0; i < ECC_CURVE_COUNT; i++) {
		if (ecc_curves[i].curve == curve)
			break;
	}
	if (i == ECC_CURVE_COUNT)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS, "ECC curve 0x%04x",
				     (unsigned int)curve);
	size = ecc_curves[i].size;
	if (q->x.size > size || q->y.size > size)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "ECC point coordinates of %u and %u bytes on %s",
				     (unsigned int)q->x.size,
				     (unsigned int)q->y.size,
				     ecc_curves[i].name);
	/* Uncompressed SEC1 point, coordinates left-padded to full size. */
	memset(point, 0, sizeof(point));
	point[0] = 0x04;
	memcpy(point + 1 + size - q->x.size, q->x.buffer, q->x.size);
	memcpy(point + 1 + 2 * size - q->y.size, q->y.buffer, q->y.size);
	bld = OSSL_PARAM_BLD_new();
	if (bld == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME,
					     ecc_curves[i].name, 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
					      point, 1 + 2 * size)) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				     "EC key parameters");
		goto out;
	}
	rc = pkey_fromdata("EC", bld, pkey, err);
	if (rc == IMT_OK)
		rc = ecc_check_point(*pkey, err);
	if (rc != IMT_OK) {
		EVP_PKEY_free(*pkey);
		*pkey = NULL;
	}
out:
	OSSL_PARAM_BLD_free(bld);
	return rc;
}

enum imt_result tpm_public_to_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **pkey,
				   struct imt_error *err)
{
	*pkey = NULL;
	switch (pub->type) {
	case TPM2_ALG_RSA:
		return rsa_pkey(pub, pkey, err);
	case TPM2_ALG_ECC:
		return ecc_pkey(pub, pkey, err);
	default:
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "public area of type 0x%04x is not RSA or ECC",
				     (unsigned int)pub->type);
	}
}

enum imt_result tpm_public_name(const TPMT_PUBLIC *pub, uint8_t *name,
				size_t *name_len, struct imt_error *err)
{
	const EVP_MD *md = tpm_crypto_md(pub->nameAlg);
	uint8_t marshalled[sizeof(TPMT_PUBLIC)];
	unsigned int digest_len;
	size_t offset = 0;
	TSS2_RC rc;

	if (md == NULL)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS, "nameAlg 0x%04x",
				     (unsigned int)pub->nameAlg);
	rc = Tss2_MU_TPMT_PUBLIC_Marshal(pub, marshalled, sizeof(marshalled),
					 &offset);
	if (rc != TSS2_RC_SUCCESS)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "TPMT_PUBLIC: cannot marshal (0x%x)",
				     (unsigned int)rc);
	name[0] = (uint8_t)(pub->nameAlg >> 8);
	name[1] = (uint8_t)pub->nameAlg;
	if (!EVP_Digest(marshalled, offset, name + 2, &digest_len, md, NULL))
		return tpm_crypto_fail(err, IMT_ERR_INTERNAL, "Name hash");
	*name_len = 2 + digest_len;
	return IMT_OK;
}

enum imt_result tpm_public_check_ak(const TPMT_PUBLIC *pub,
				    struct imt_error *err)
{
	size_t i;
	int set;

	if (pub->type != TPM2_ALG_RSA && pub->type != TPM2_ALG_ECC)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "AK of type 0x%04x is not RSA or ECC",
				     (unsigned int)pub->type);
	for (i = 0; i < AK_ATTRIBUTE_COUNT; i++) {
		set = (pub->objectAttributes & ak_attributes[i].bit) != 0;
		if (set != ak_attributes[i].set)
			return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
					     IMT_NO_POS,
					     "AK attribute %s is %s, must be %s",
					     ak_attributes[i].name,
					     set ? "set" : "clear",
					     ak_attributes[i].set ? "set" :
								    "clear");
	}
	return IMT_OK;
}

void tpm_public_ak_template(TPMI_ALG_PUBLIC type, TPM2B_PUBLIC *tmpl)
{
	TPMT_PUBLIC *p = &tmpl->publicArea;

	memset(tmpl, 0, sizeof(*tmpl));
	p->nameAlg = TPM2_ALG_SHA256;
	p->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN |
			      TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT;
	if (type == TPM2_ALG_ECC) {
		p->type = TPM2_ALG_ECC;
		p->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
		p->parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
		p->parameters.eccDetail.scheme.details.ecdsa.hashAlg =
			TPM2_ALG_SHA256;
		p->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
		p->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	} else {
		p->type = TPM2_ALG_RSA;
		p->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_NULL;
		p->parameters.rsaDetail.scheme.scheme = TPM2_ALG_RSASSA;
		p->parameters.rsaDetail.scheme.details.rsassa.hashAlg =
			TPM2_ALG_SHA256;
		p->parameters.rsaDetail.keyBits = 2048;
		p->parameters.rsaDetail.exponent = 0; /* 65537 */
	}
}

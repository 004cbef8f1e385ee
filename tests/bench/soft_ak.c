// SPDX-License-Identifier: GPL-2.0-only
/*
 * soft_ak.c - a software-held ECC or RSA attestation key that quotes like
 * a TPM.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "soft_ak.h"

#define P256_SIZE 32	 /* bytes of a coordinate, and of a SHA-256 */
#define RSA2048_SIZE 256 /* bytes of the modulus and of a signature */

static int fail(const char *what)
{
	fprintf(stderr, "soft_ak: %s\n", what);
	return -1;
}

/* A P-256 key into @ak->key, its point into @t's unique.ecc. */
static int p256_new(struct soft_ak *ak, TPMT_PUBLIC *t)
{
	uint8_t point[1 + 2 * P256_SIZE];
	size_t len = 0;

	ak->key = EVP_EC_gen("P-256");
	if (ak->key == NULL ||
	    !EVP_PKEY_get_octet_string_param(ak->key, OSSL_PKEY_PARAM_PUB_KEY,
					     point, sizeof(point), &len) ||
	    len != sizeof(point) || point[0] != POINT_CONVERSION_UNCOMPRESSED)
		return fail("cannot generate a P-256 key");
	t->unique.ecc.x.size = P256_SIZE;
	memcpy(t->unique.ecc.x.buffer, point + 1, P256_SIZE);
	t->unique.ecc.y.size = P256_SIZE;
	memcpy(t->unique.ecc.y.buffer, point + 1 + P256_SIZE, P256_SIZE);
	return 0;
}

/* An RSA-2048 key (e = 65537) into @ak->key, its modulus into unique.rsa. */
static int rsa2048_new(struct soft_ak *ak, TPMT_PUBLIC *t)
{
	BIGNUM *n = NULL;
	int ok;

	ak->key = EVP_RSA_gen(8 * RSA2048_SIZE);
	ok = ak->key != NULL &&
	     EVP_PKEY_get_bn_param(ak->key, OSSL_PKEY_PARAM_RSA_N, &n) &&
	     BN_bn2binpad(n, t->unique.rsa.buffer, RSA2048_SIZE) ==
		     RSA2048_SIZE;
	BN_free(n);
	if (!ok)
		return fail("cannot generate an RSA-2048 key");
	t->unique.rsa.size = RSA2048_SIZE;
	return 0;
}

/* Check the public area as the verifier will, and take its Name. */
static int verifier_accepts(struct soft_ak *ak)
{
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *pkey = NULL;

	if (tpm_public_parse(ak->pub, ak->pub_len, &pub, &err) != IMT_OK ||
	    tpm_public_check_ak(&pub, &err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &pkey, &err) != IMT_OK ||
	    tpm_public_name(&pub, ak->name, &ak->name_len, &err) != IMT_OK) {
		fprintf(stderr, "soft_ak: the verifier refuses the AK: %s\n",
			err.msg);
		return -1;
	}
	EVP_PKEY_free(pkey);
	return 0;
}

int soft_ak_new_alg(struct soft_ak *ak, enum soft_ak_alg alg)
{
	TPM2B_PUBLIC pub;
	size_t off = 0;

	memset(ak, 0, sizeof(*ak));
	ak->alg = alg;
	tpm_public_ak_template(alg == SOFT_AK_RSA2048 ? TPM2_ALG_RSA :
							TPM2_ALG_ECC,
			       &pub);
	if ((alg == SOFT_AK_RSA2048 ? rsa2048_new(ak, &pub.publicArea) :
				      p256_new(ak, &pub.publicArea)) < 0)
		return -1;
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&pub, ak->pub, sizeof(ak->pub),
					 &off) != TSS2_RC_SUCCESS)
		return fail("cannot marshal the TPM2B_PUBLIC");
	ak->pub_len = off;
	ak->sign = EVP_PKEY_CTX_new(ak->key, NULL);
	if (ak->sign == NULL || EVP_PKEY_sign_init(ak->sign) <= 0 ||
	    (alg == SOFT_AK_RSA2048 &&
	     EVP_PKEY_CTX_set_rsa_padding(ak->sign, RSA_PKCS1_PADDING) <= 0) ||
	    EVP_PKEY_CTX_set_signature_md(ak->sign, EVP_sha256()) <= 0)
		return fail("cannot set up signing");
	return verifier_accepts(ak);
}

int soft_ak_new(struct soft_ak *ak)
{
	return soft_ak_new_alg(ak, SOFT_AK_P256);
}

int soft_ak_alg_parse(const char *name, enum soft_ak_alg *alg)
{
	if (strcmp(name, "p256") == 0)
		*alg = SOFT_AK_P256;
	else if (strcmp(name, "rsa2048") == 0)
		*alg = SOFT_AK_RSA2048;
	else
		return -1;
	return 0;
}

const char *soft_ak_alg_name(enum soft_ak_alg alg)
{
	return alg == SOFT_AK_RSA2048 ? "RSA-2048" : "P-256";
}

const char *soft_ak_sig_name(enum soft_ak_alg alg)
{
	return alg == SOFT_AK_RSA2048 ? "RSASSA-2048" : "ECDSA P-256";
}

void soft_ak_free(struct soft_ak *ak)
{
	if (ak == NULL)
		return;
	EVP_PKEY_CTX_free(ak->sign);
	EVP_PKEY_free(ak->key);
	ak->sign = NULL;
	ak->key = NULL;
}

/* TPMS_ATTEST of a quote over PCRs 0-10 (or @q->select) of @q->pcrs's bank. */
static int make_attest(const struct soft_ak *ak, const struct soft_quote *q,
		       TPMS_ATTEST *a)
{
	TPMS_QUOTE_INFO *qi = &a->attested.quote;
	TPMS_PCR_SELECTION *sel = &qi->pcrSelect.pcrSelections[0];
	uint32_t mask = q->select != 0 ? q->select : (1u << SOFT_AK_PCRS) - 1;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned int i;
	int ok;

	memset(a, 0, sizeof(*a));
	if (q->nonce_len > sizeof(a->extraData.buffer) ||
	    ak->name_len > sizeof(a->qualifiedSigner.name)) {
		EVP_MD_CTX_free(md);
		return fail("nonce or name too large for a quote");
	}
	a->magic = TPM2_GENERATED_VALUE;
	a->type = TPM2_ST_ATTEST_QUOTE;
	a->qualifiedSigner.size = (UINT16)ak->name_len;
	memcpy(a->qualifiedSigner.name, ak->name, ak->name_len);
	a->extraData.size = (UINT16)q->nonce_len;
	memcpy(a->extraData.buffer, q->nonce, q->nonce_len);
	a->clockInfo.clock = q->clock;
	a->clockInfo.resetCount = q->reset_count;
	a->clockInfo.restartCount = q->restart_count;
	a->clockInfo.safe = q->unsafe ? TPM2_NO : TPM2_YES;
	a->firmwareVersion = 0x2019102400000000ULL;
	qi->pcrSelect.count = 1;
	sel->hash = q->pcrs->algo->tpm_alg;
	sel->sizeofSelect = 3;
	sel->pcrSelect[0] = (uint8_t)mask;	   /* PCRs 0-7 */
	sel->pcrSelect[1] = (uint8_t)(mask >> 8);  /* PCRs 8-15 */
	sel->pcrSelect[2] = (uint8_t)(mask >> 16); /* PCRs 16-23 */
	ok = md != NULL && EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	for (i = 0; ok && i < PCR_SET_COUNT; i++) {
		if (mask & (1u << i))
			ok = EVP_DigestUpdate(md, q->pcrs->value[i],
					      q->pcrs->algo->size);
	}
	ok = ok && EVP_DigestFinal_ex(md, qi->pcrDigest.buffer, NULL);
	qi->pcrDigest.size = P256_SIZE;
	EVP_MD_CTX_free(md);
	return ok ? 0 : fail("cannot hash the PCRs");
}

/* RSASSA-PKCS1-v1_5 over @digest (SHA-256) as a TPMT_SIGNATURE. */
static int sign_rsassa(struct soft_ak *ak, const uint8_t *digest,
		       TPMT_SIGNATURE *s)
{
	size_t len = sizeof(s->signature.rsassa.sig.buffer);

	memset(s, 0, sizeof(*s));
	s->sigAlg = TPM2_ALG_RSASSA;
	s->signature.rsassa.hash = TPM2_ALG_SHA256;
	if (EVP_PKEY_sign(ak->sign, s->signature.rsassa.sig.buffer, &len,
			  digest, P256_SIZE) <= 0 ||
	    len != RSA2048_SIZE)
		return fail("RSASSA signing failed");
	s->signature.rsassa.sig.size = (UINT16)len;
	return 0;
}

/* ECDSA over @digest (SHA-256) as a TPMT_SIGNATURE with (r, s). */
static int sign_ecdsa(struct soft_ak *ak, const uint8_t *digest,
		      TPMT_SIGNATURE *s)
{
	uint8_t der[80];
	const uint8_t *p = der;
	const BIGNUM *r, *sv;
	size_t der_len = sizeof(der);
	ECDSA_SIG *es;
	int ok;

	if (EVP_PKEY_sign(ak->sign, der, &der_len, digest, P256_SIZE) <= 0)
		return fail("ECDSA signing failed");
	es = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	if (es == NULL)
		return fail("ECDSA signature does not decode");
	ECDSA_SIG_get0(es, &r, &sv);
	memset(s, 0, sizeof(*s));
	s->sigAlg = TPM2_ALG_ECDSA;
	s->signature.ecdsa.hash = TPM2_ALG_SHA256;
	s->signature.ecdsa.signatureR.size = P256_SIZE;
	s->signature.ecdsa.signatureS.size = P256_SIZE;
	ok = BN_bn2binpad(r, s->signature.ecdsa.signatureR.buffer, P256_SIZE) ==
		     P256_SIZE &&
	     BN_bn2binpad(sv, s->signature.ecdsa.signatureS.buffer,
			  P256_SIZE) == P256_SIZE;
	ECDSA_SIG_free(es);
	return ok ? 0 : fail("ECDSA r or s out of range");
}

/* The AK's signature over SHA-256(@attest), as its scheme says. */
static int sign(struct soft_ak *ak, const uint8_t *attest, size_t len,
		TPMT_SIGNATURE *s)
{
	uint8_t digest[P256_SIZE];

	if (EVP_Digest(attest, len, digest, NULL, EVP_sha256(), NULL) != 1)
		return fail("cannot hash the TPMS_ATTEST");
	return ak->alg == SOFT_AK_RSA2048 ? sign_rsassa(ak, digest, s) :
					    sign_ecdsa(ak, digest, s);
}

int soft_ak_quote(struct soft_ak *ak, const struct soft_quote *q,
		  uint8_t *attest, size_t *attest_len, uint8_t *sig,
		  size_t *sig_len)
{
	TPMS_ATTEST a;
	TPMT_SIGNATURE s;
	size_t off = 0;

	if (make_attest(ak, q, &a) < 0)
		return -1;
	if (Tss2_MU_TPMS_ATTEST_Marshal(&a, attest, SOFT_AK_ATTEST_MAX, &off) !=
	    TSS2_RC_SUCCESS)
		return fail("cannot marshal the TPMS_ATTEST");
	*attest_len = off;
	if (sign(ak, attest, off, &s) < 0)
		return -1;
	off = 0;
	if (Tss2_MU_TPMT_SIGNATURE_Marshal(&s, sig, SOFT_AK_SIG_MAX, &off) !=
	    TSS2_RC_SUCCESS)
		return fail("cannot marshal the TPMT_SIGNATURE");
	*sig_len = off;
	return 0;
}

int soft_ak_write_pem(const struct soft_ak *ak, const char *path)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (f == NULL)
		return fail("cannot write the PEM file");
	ok = PEM_write_PUBKEY(f, ak->key) == 1;
	if (fclose(f) != 0 || !ok)
		return fail("cannot write the PEM file");
	return 0;
}

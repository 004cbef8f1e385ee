// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_keys.c - software AKs of each kind, and TPM-style signatures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "fz_keys.h"
#include "fz_tpm.h"
#include "tpm_crypto.h"

static const struct {
	const char *what; /* "RSA" or an EC curve */
	TPM2_ECC_CURVE curve;
	size_t coord;
	uint16_t scheme;
} kinds[FZ_KEY_COUNT] = {
	[FZ_KEY_RSASSA] = { "RSA", 0, 0, TPM2_ALG_RSASSA },
	[FZ_KEY_RSAPSS] = { "RSA", 0, 0, TPM2_ALG_RSAPSS },
	[FZ_KEY_ECC256] = { "P-256", TPM2_ECC_NIST_P256, 32, TPM2_ALG_ECDSA },
	[FZ_KEY_ECC384] = { "P-384", TPM2_ECC_NIST_P384, 48, TPM2_ALG_ECDSA },
};

static struct fz_key keys[FZ_KEY_COUNT];

static void die(const char *what)
{
	fprintf(stderr, "fuzz: soft key: %s\n", what);
	abort();
}

static void set_bn(EVP_PKEY *k, const char *param, uint8_t *out, uint16_t *size,
		   size_t len)
{
	BIGNUM *bn = NULL;

	if (EVP_PKEY_get_bn_param(k, param, &bn) != 1 ||
	    BN_bn2binpad(bn, out, (int)len) != (int)len)
		die("cannot read the public key");
	*size = (uint16_t)len;
	BN_free(bn);
}

/* The TPMT_PUBLIC of an AK template around @k's public part. */
static void present(struct fz_key *k, enum fz_key_kind kind)
{
	TPMT_PUBLIC *a = &k->tpub;

	memset(a, 0, sizeof(*a));
	a->nameAlg = TPM2_ALG_SHA256;
	a->objectAttributes =
		TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT |
		TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
		TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH;
	if (kinds[kind].curve == 0) {
		a->type = TPM2_ALG_RSA;
		a->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_NULL;
		a->parameters.rsaDetail.scheme.scheme = kinds[kind].scheme;
		a->parameters.rsaDetail.scheme.details.anySig.hashAlg =
			TPM2_ALG_SHA256;
		a->parameters.rsaDetail.keyBits = 2048;
		set_bn(k->priv, OSSL_PKEY_PARAM_RSA_N, a->unique.rsa.buffer,
		       &a->unique.rsa.size, 256);
		return;
	}
	a->type = TPM2_ALG_ECC;
	a->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
	a->parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
	a->parameters.eccDetail.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
	a->parameters.eccDetail.curveID = kinds[kind].curve;
	a->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	set_bn(k->priv, OSSL_PKEY_PARAM_EC_PUB_X, a->unique.ecc.x.buffer,
	       &a->unique.ecc.x.size, kinds[kind].coord);
	set_bn(k->priv, OSSL_PKEY_PARAM_EC_PUB_Y, a->unique.ecc.y.buffer,
	       &a->unique.ecc.y.size, kinds[kind].coord);
}

static void make(struct fz_key *k, enum fz_key_kind kind)
{
	TPM2B_PUBLIC p = { 0 };
	struct imt_error err;
	size_t off = 0;

	k->priv = kinds[kind].curve == 0 ? EVP_RSA_gen(2048) :
					   EVP_EC_gen(kinds[kind].what);
	if (k->priv == NULL)
		die("cannot generate");
	present(k, kind);
	k->scheme = kinds[kind].scheme;
	p.publicArea = k->tpub;
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&p, k->pub2b, sizeof(k->pub2b),
					 &off) != TSS2_RC_SUCCESS)
		die("cannot marshal the TPM2B_PUBLIC");
	k->pub2b_len = off;
	if (tpm_public_to_pkey(&k->tpub, &k->pub, &err) != IMT_OK ||
	    tpm_public_name(&k->tpub, k->name, &k->name_len, &err) != IMT_OK)
		die(err.msg);
}

const struct fz_key *fz_key(enum fz_key_kind kind)
{
	struct fz_key *k = &keys[kind % FZ_KEY_COUNT];

	if (k->priv == NULL)
		make(k, kind % FZ_KEY_COUNT);
	return k;
}

/* Raw signature bytes over @msg into @sig (RSA) or (r, s) (ECDSA). */
static size_t sign_raw(const struct fz_key *k, int pss, const EVP_MD *md,
		       const uint8_t *msg, size_t len, uint8_t *sig)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	size_t sig_len = FZ_SIG_MAX;

	if (ctx == NULL ||
	    EVP_DigestSignInit(ctx, &pctx, md, NULL, k->priv) != 1 ||
	    (pss &&
	     (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
	      EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) !=
		      1)) ||
	    EVP_DigestSign(ctx, sig, &sig_len, msg, len) != 1)
		die("signing failed");
	EVP_MD_CTX_free(ctx);
	return sig_len;
}

size_t fz_key_sign(const struct fz_key *k, uint16_t scheme, uint16_t hash,
		   const uint8_t *msg, size_t len, uint8_t *out)
{
	const EVP_MD *md = tpm_crypto_md(hash);
	uint8_t raw[FZ_SIG_MAX];
	struct fz_buf b = fz_buf_init(out, FZ_SIG_MAX);
	const uint8_t *p = raw;
	const BIGNUM *r, *s;
	size_t raw_len, coord;
	ECDSA_SIG *es;

	if (md == NULL)
		md = EVP_sha256();
	raw_len = sign_raw(k,
			   EVP_PKEY_is_a(k->priv, "RSA") &&
				   scheme == TPM2_ALG_RSAPSS,
			   md, msg, len, raw);
	fz_put_u16(&b, scheme);
	fz_put_u16(&b, hash);
	if (EVP_PKEY_is_a(k->priv, "RSA")) {
		fz_put_2b(&b, raw, raw_len);
		return b.len;
	}
	es = d2i_ECDSA_SIG(NULL, &p, (long)raw_len);
	if (es == NULL)
		die("ECDSA signature does not decode");
	ECDSA_SIG_get0(es, &r, &s);
	coord = ((size_t)EVP_PKEY_get_bits(k->priv) + 7) / 8;
	if (BN_bn2binpad(r, raw, (int)coord) < 0)
		die("ECDSA r");
	fz_put_2b(&b, raw, coord);
	if (BN_bn2binpad(s, raw, (int)coord) < 0)
		die("ECDSA s");
	fz_put_2b(&b, raw, coord);
	ECDSA_SIG_free(es);
	return b.len;
}

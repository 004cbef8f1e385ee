// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_public.c - real public areas, changed field by field or byte by byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_mu.h>

#include "fz_fixture.h"
#include "fz_keys.h"
#include "fz_public.h"
#include "fz_tpm.h"
#include "tpm_public.h"

static const char *const fixtures[] = {
	[FZ_PUB_EK_RSA] = "ek-rsa",	  [FZ_PUB_EK_ECC] = "ek-ecc",
	[FZ_PUB_AK_RSA] = "ak-rsa",	  [FZ_PUB_AK_RSA2] = "ak-rsa2",
	[FZ_PUB_AK_RSAPSS] = "ak-rsapss", [FZ_PUB_AK_ECC] = "ak-ecc",
};

#define FIXTURE_COUNT (sizeof(fixtures) / sizeof(fixtures[0]))

static void die(const char *what, const char *why)
{
	fprintf(stderr, "fuzz: %s: %s\n", what, why);
	abort();
}

void fz_public_get(enum fz_public_src src, TPMT_PUBLIC *pub, uint8_t *name,
		   size_t *name_len)
{
	const struct fz_key *k;
	struct imt_error err;
	struct fz_blob b;
	char file[64];

	src %= FZ_PUB_COUNT;
	if (src >= FIXTURE_COUNT) {
		k = fz_key((enum fz_key_kind)(src - FIXTURE_COUNT));
		*pub = k->tpub;
		memcpy(name, k->name, k->name_len);
		*name_len = k->name_len;
		return;
	}
	snprintf(file, sizeof(file), "tpm/%s.pub", fixtures[src]);
	b = fz_fixture(file);
	if (tpm_public_parse(b.data, b.len, pub, &err) != IMT_OK)
		die(file, err.msg);
	if (src <= FZ_PUB_EK_ECC) {
		if (tpm_public_name(pub, name, name_len, &err) != IMT_OK)
			die(file, err.msg);
		return;
	}
	snprintf(file, sizeof(file), "tpm/%s.name", fixtures[src]);
	b = fz_fixture(file);
	if (b.len > TPM_NAME_MAX)
		die(file, "too long");
	memcpy(name, b.data, b.len);
	*name_len = b.len;
}

static const uint16_t types[] = {
	TPM2_ALG_RSA,	    TPM2_ALG_ECC,  TPM2_ALG_KEYEDHASH,
	TPM2_ALG_SYMCIPHER, TPM2_ALG_NULL,
};
static const uint16_t syms[] = {
	TPM2_ALG_NULL,	   TPM2_ALG_AES, TPM2_ALG_SM4,
	TPM2_ALG_CAMELLIA, TPM2_ALG_XOR, TPM2_ALG_TDES,
};
static const uint16_t modes[] = {
	TPM2_ALG_CFB, TPM2_ALG_CBC, TPM2_ALG_CTR,
	TPM2_ALG_OFB, TPM2_ALG_ECB, TPM2_ALG_NULL,
};
static const uint16_t key_bits[] = { 128, 192, 256, 0, 64, 512 };
static const uint16_t pub_schemes[] = {
	TPM2_ALG_NULL, TPM2_ALG_RSASSA,	   TPM2_ALG_RSAPSS, TPM2_ALG_ECDSA,
	TPM2_ALG_OAEP, TPM2_ALG_RSAES,	   TPM2_ALG_ECDH,   TPM2_ALG_ECDAA,
	TPM2_ALG_SM2,  TPM2_ALG_ECSCHNORR,
};
static const uint16_t rsa_bits[] = { 2048, 1024, 3072, 4096, 1016, 0, 8192 };
static const uint32_t exponents[] = { 0, 65537, 3, 1, 2, 0xffffffffu };
static const uint16_t curves[] = {
	TPM2_ECC_NIST_P256, TPM2_ECC_NIST_P384, TPM2_ECC_NIST_P521,
	TPM2_ECC_BN_P256,   TPM2_ECC_SM2_P256,	TPM2_ECC_NONE,
};
static const uint16_t kdfs[] = {
	TPM2_ALG_NULL,		 TPM2_ALG_KDF1_SP800_56A, TPM2_ALG_KDF2,
	TPM2_ALG_KDF1_SP800_108, TPM2_ALG_MGF1,
};

/* The symmetric definition and scheme sit at the same place in both. */
static TPMT_SYM_DEF_OBJECT *sym_of(TPMT_PUBLIC *pub)
{
	return pub->type == TPM2_ALG_ECC ?
		       &pub->parameters.eccDetail.symmetric :
		       &pub->parameters.rsaDetail.symmetric;
}

/* The ECC point or RSA modulus: its size, or a byte of it. */
static void mutate_unique(struct fz_in *in, TPMT_PUBLIC *pub)
{
	TPM2B_ECC_PARAMETER *c = fz_u8(in) & 1 ? &pub->unique.ecc.x :
						 &pub->unique.ecc.y;
	TPM2B_PUBLIC_KEY_RSA *n = &pub->unique.rsa;

	/* the union's sizes may come from the other type's bytes */
	if (c->size > sizeof(c->buffer))
		c->size = sizeof(c->buffer);
	if (n->size > sizeof(n->buffer))
		n->size = sizeof(n->buffer);
	switch (fz_u8(in) % 4) {
	case 0:
		if (pub->type == TPM2_ALG_ECC)
			c->size = (UINT16)fz_range(in, 0, sizeof(c->buffer));
		else
			n->size = (UINT16)fz_range(in, 0, sizeof(n->buffer));
		break;
	case 1:
		if (pub->type == TPM2_ALG_ECC)
			fz_flip(in, c->buffer, c->size);
		else
			fz_flip(in, n->buffer, n->size);
		break;
	case 2: /* another curve's or key's point */
		pub->unique = fz_key((enum fz_key_kind)fz_u8(in))->tpub.unique;
		break;
	default:
		if (pub->type == TPM2_ALG_ECC)
			fz_bytes(in, c->buffer, c->size);
		else
			fz_bytes(in, n->buffer, n->size);
	}
}

static void mutate_one(struct fz_in *in, TPMT_PUBLIC *pub)
{
	TPMS_RSA_PARMS *rsa = &pub->parameters.rsaDetail;
	TPMS_ECC_PARMS *ecc = &pub->parameters.eccDetail;

	switch (fz_u8(in) % 12) {
	case 0:
		pub->type = FZ_PICK(in, types);
		break;
	case 1:
		pub->nameAlg = fz_hash_ids[fz_u8(in) % fz_hash_id_count];
		break;
	case 2:
		pub->objectAttributes ^= 1u << (fz_u8(in) % 32);
		break;
	case 3:
		pub->authPolicy.size = (UINT16)fz_range(in, 0, 64);
		fz_bytes(in, pub->authPolicy.buffer, pub->authPolicy.size);
		break;
	case 4:
		sym_of(pub)->algorithm = FZ_PICK(in, syms);
		sym_of(pub)->keyBits.sym = FZ_PICK(in, key_bits);
		sym_of(pub)->mode.sym = FZ_PICK(in, modes);
		break;
	case 5: /* rsaDetail.scheme and eccDetail.scheme coincide */
		if (pub->type == TPM2_ALG_ECC) {
			ecc->scheme.scheme = FZ_PICK(in, pub_schemes);
			ecc->scheme.details.anySig.hashAlg =
				fz_hash_ids[fz_u8(in) % fz_hash_id_count];
		} else {
			rsa->scheme.scheme = FZ_PICK(in, pub_schemes);
			rsa->scheme.details.anySig.hashAlg =
				fz_hash_ids[fz_u8(in) % fz_hash_id_count];
		}
		break;
	case 6:
		rsa->keyBits = FZ_PICK(in, rsa_bits);
		break;
	case 7:
		rsa->exponent = FZ_PICK(in, exponents);
		break;
	case 8:
		ecc->curveID = FZ_PICK(in, curves);
		break;
	case 9:
		ecc->kdf.scheme = FZ_PICK(in, kdfs);
		ecc->kdf.details.mgf1.hashAlg =
			fz_hash_ids[fz_u8(in) % fz_hash_id_count];
		break;
	default:
		mutate_unique(in, pub);
	}
}

unsigned int fz_public_mutate(struct fz_in *in, TPMT_PUBLIC *pub)
{
	unsigned int i, n = fz_u8(in) % 5;

	for (i = 0; i < n; i++)
		mutate_one(in, pub);
	return n;
}

size_t fz_public_bytes(struct fz_in *in, const TPMT_PUBLIC *pub, uint8_t *out,
		       int *changed)
{
	TPM2B_PUBLIC p = { .publicArea = *pub };
	uint8_t mode = fz_u8(in);
	size_t len = 0, n, i;

	*changed = 0;
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&p, out, sizeof(TPM2B_PUBLIC), &len) !=
	    TSS2_RC_SUCCESS) {
		struct fz_buf b = fz_buf_init(out + 2, sizeof(TPM2B_PUBLIC));
		uint8_t tail[256];

		fz_put_u16(&b, pub->type);
		fz_put_u16(&b, pub->nameAlg);
		fz_put(&b, tail, fz_bytes(in, tail, fz_range(in, 0, 255)));
		out[0] = (uint8_t)(b.len >> 8);
		out[1] = (uint8_t)b.len;
		*changed = 1;
		return b.len + 2;
	}
	/* bytes changed, and the size field kept right or not */
	n = mode & 3;
	for (i = 0; i < n; i++)
		fz_flip(in, out + 2, len - 2);
	if (mode & 4) {
		n = fz_range(in, 0, 64);
		if (fz_u8(in) & 1)
			len -= n < len - 2 ? n : len - 2;
		else
			len += fz_bytes(in, out + len, n);
	}
	if (!(mode & 8)) {
		out[0] = (uint8_t)((len - 2) >> 8);
		out[1] = (uint8_t)(len - 2);
	}
	*changed = (mode & 7) != 0 || (mode & 8);
	return len;
}

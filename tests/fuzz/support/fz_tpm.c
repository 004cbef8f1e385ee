// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_tpm.c - hand marshalling of TPM structures for the harnesses.
 */
#include <string.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "fz_tpm.h"
#include "tpm_crypto.h"

const uint16_t fz_hash_ids[] = {
	TPM2_ALG_SHA256,  TPM2_ALG_SHA1, TPM2_ALG_SHA384,   TPM2_ALG_SHA512,
	TPM2_ALG_SM3_256, TPM2_ALG_NULL, TPM2_ALG_SHA3_256, 0x7777,
};
const size_t fz_hash_id_count = sizeof(fz_hash_ids) / sizeof(fz_hash_ids[0]);

void fz_put(struct fz_buf *b, const void *data, size_t len)
{
	if (len > b->max - b->len) {
		b->full = 1;
		return;
	}
	if (len > 0)
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

void fz_put_u8(struct fz_buf *b, uint8_t v)
{
	fz_put(b, &v, 1);
}

void fz_put_u16(struct fz_buf *b, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	fz_put(b, x, sizeof(x));
}

void fz_put_u32(struct fz_buf *b, uint32_t v)
{
	fz_put_u16(b, (uint16_t)(v >> 16));
	fz_put_u16(b, (uint16_t)v);
}

void fz_put_u64(struct fz_buf *b, uint64_t v)
{
	fz_put_u32(b, (uint32_t)(v >> 32));
	fz_put_u32(b, (uint32_t)v);
}

void fz_put_2b(struct fz_buf *b, const void *data, size_t len)
{
	fz_put_u16(b, (uint16_t)len);
	fz_put(b, data, len);
}

size_t fz_attest_marshal(const struct fz_attest *a, uint8_t *out, size_t max)
{
	struct fz_buf b = fz_buf_init(out, max);
	size_t i, n;

	fz_put_u32(&b, a->magic);
	fz_put_u16(&b, a->type);
	fz_put_2b(&b, a->signer, a->signer_len);
	fz_put_2b(&b, a->extra, a->extra_len);
	fz_put_u64(&b, a->clock);
	fz_put_u32(&b, a->reset_count);
	fz_put_u32(&b, a->restart_count);
	fz_put_u8(&b, a->safe);
	fz_put_u64(&b, a->firmware);
	fz_put_u32(&b, a->nsel);
	n = a->nsel < FZ_SEL_MAX ? a->nsel : FZ_SEL_MAX;
	for (i = 0; i < n; i++) {
		fz_put_u16(&b, a->sel[i].hash);
		fz_put_u8(&b, a->sel[i].size);
		fz_put(&b, a->sel[i].select,
		       a->sel[i].size < FZ_SEL_BYTES ? a->sel[i].size :
						       FZ_SEL_BYTES);
	}
	fz_put_2b(&b, a->digest, a->digest_len);
	return b.len;
}

size_t fz_pcr_digest(uint16_t hash_alg, const struct pcr_set *pcrs,
		     uint32_t mask, uint8_t *out)
{
	const EVP_MD *md = tpm_crypto_md(hash_alg);
	EVP_MD_CTX *ctx;
	unsigned int n = 0;
	int i, ok;

	if (md == NULL)
		return 0;
	ctx = EVP_MD_CTX_new();
	ok = ctx != NULL && EVP_DigestInit_ex(ctx, md, NULL);
	for (i = 0; ok && i < PCR_SET_COUNT; i++) {
		if (mask & (1u << i))
			ok = EVP_DigestUpdate(ctx, pcrs->value[i],
					      pcrs->algo->size);
	}
	ok = ok && EVP_DigestFinal_ex(ctx, out, &n);
	EVP_MD_CTX_free(ctx);
	return ok ? n : 0;
}

void fz_flip(struct fz_in *in, uint8_t *buf, size_t len)
{
	size_t at;

	if (len == 0)
		return;
	at = fz_u16(in) % len;
	buf[at] ^= (uint8_t)(fz_u8(in) | 1);
}

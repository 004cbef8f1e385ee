/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_tpm.h - TPM structures written by hand, big-endian, so a harness
 * can write what libtss2-mu would refuse to marshal (a selection of 9
 * bytes, 20 banks, a size field that lies) and still sign it.
 */
#ifndef IMATRUST_FZ_TPM_H
#define IMATRUST_FZ_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "fz_input.h"
#include "pcr_set.h"

/* A bounded writer: what does not fit is dropped and @full set. */
struct fz_buf {
	uint8_t *p;
	size_t len, max;
	int full;
};

static inline struct fz_buf fz_buf_init(uint8_t *p, size_t max)
{
	return (struct fz_buf){ p, 0, max, 0 };
}

void fz_put(struct fz_buf *b, const void *data, size_t len);
void fz_put_u8(struct fz_buf *b, uint8_t v);
void fz_put_u16(struct fz_buf *b, uint16_t v);
void fz_put_u32(struct fz_buf *b, uint32_t v);
void fz_put_u64(struct fz_buf *b, uint64_t v);
/* A TPM2B: 16-bit size, then @len bytes. */
void fz_put_2b(struct fz_buf *b, const void *data, size_t len);

#define FZ_SEL_MAX 6   /* banks a fuzzed selection may list */
#define FZ_SEL_BYTES 8 /* bytes of one bank's PCR bitmap */
#define FZ_2B_MAX 96   /* bytes of a fuzzed name, nonce or digest */

/* A quote's TPMS_ATTEST, every field free. */
struct fz_attest {
	uint32_t magic;
	uint16_t type;
	uint8_t signer[FZ_2B_MAX];
	size_t signer_len;
	uint8_t extra[FZ_2B_MAX]; /* extraData: the nonce */
	size_t extra_len;
	uint64_t clock;
	uint32_t reset_count, restart_count;
	uint8_t safe;
	uint64_t firmware;
	uint32_t nsel; /* the count field; at most FZ_SEL_MAX written */
	struct {
		uint16_t hash;
		uint8_t size; /* sizeofSelect; at most FZ_SEL_BYTES written */
		uint8_t select[FZ_SEL_BYTES];
	} sel[FZ_SEL_MAX];
	uint8_t digest[FZ_2B_MAX]; /* pcrDigest */
	size_t digest_len;
};

/** fz_attest_marshal() - write @a; returns the bytes written. */
size_t fz_attest_marshal(const struct fz_attest *a, uint8_t *out, size_t max);

/**
 * fz_pcr_digest() - what TPM2_Quote puts in pcrDigest, computed here
 * without the code under test: @hash_alg over the values of @pcrs whose
 * bit is set in @mask, by ascending index.
 *
 * Return: the digest length, or 0 when @hash_alg is not one OpenSSL has.
 */
size_t fz_pcr_digest(uint16_t hash_alg, const struct pcr_set *pcrs,
		     uint32_t mask, uint8_t *out);

/** fz_flip() - xor one byte of @buf, picked by the input, with non-zero. */
void fz_flip(struct fz_in *in, uint8_t *buf, size_t len);

/* The TPM hash ids a harness picks from: the real ones and a bad one. */
extern const uint16_t fz_hash_ids[];
extern const size_t fz_hash_id_count;

#endif /* IMATRUST_FZ_TPM_H */

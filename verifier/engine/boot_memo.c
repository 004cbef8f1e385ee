// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_memo.c - firmware event log checks that passed (boot_memo.h).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "boot_memo.h"
#include "hash_md.h"

#define BOOT_MEMO_PCRS 0x3ffu /* PCRs 0-9, which every check compares */
#define BOOT_MEMO_IMA_PCR 10  /* IMA's: never in the key */

/* Domain separation: a key of this memo is no other SHA-256 we compute. */
static const char memo_label[] = "imatrust boot check passed v2";

struct boot_memo {
	pthread_mutex_t lock;
	uint8_t used[BOOT_MEMO_SLOTS / 8];
	uint8_t keys[BOOT_MEMO_SLOTS][BOOT_MEMO_KEY_SIZE];
};

struct boot_memo *boot_memo_new(void)
{
	struct boot_memo *m = calloc(1, sizeof(*m));

	if (m != NULL)
		pthread_mutex_init(&m->lock, NULL);
	return m;
}

void boot_memo_free(struct boot_memo *m)
{
	if (m == NULL)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int boot_memo_key(const uint8_t log_sha256[32], const struct pcr_set *quoted,
		  uint8_t key[BOOT_MEMO_KEY_SIZE])
{
	const uint32_t sel = quoted->present & ~(1u << BOOT_MEMO_IMA_PCR);
	uint8_t alg[2], m[4];
	EVP_MD_CTX *ctx;
	int i, ok;

	if (quoted->algo == NULL ||
	    (quoted->present & BOOT_MEMO_PCRS) != BOOT_MEMO_PCRS)
		return -1;
	alg[0] = (uint8_t)(quoted->algo->tpm_alg >> 8);
	alg[1] = (uint8_t)quoted->algo->tpm_alg;
	for (i = 0; i < 4; i++)
		m[i] = (uint8_t)(sel >> (8 * i));
	ctx = EVP_MD_CTX_new();
	ok = ctx != NULL &&
	     EVP_DigestInit_ex(ctx, hash_md(hash_algo_bank("sha256")), NULL) &&
	     EVP_DigestUpdate(ctx, memo_label, sizeof(memo_label)) &&
	     EVP_DigestUpdate(ctx, log_sha256, 32) &&
	     EVP_DigestUpdate(ctx, alg, sizeof(alg)) &&
	     EVP_DigestUpdate(ctx, m, sizeof(m));
	for (i = 0; ok && i < PCR_SET_COUNT; i++)
		ok = !(sel & (1u << i)) ||
		     EVP_DigestUpdate(ctx, quoted->value[i],
				      quoted->algo->size);
	ok = ok && EVP_DigestFinal_ex(ctx, key, NULL);
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

/* The slot of @key: its first bytes, a SHA-256 output, are uniform. */
static size_t slot_of(const uint8_t key[BOOT_MEMO_KEY_SIZE])
{
	return ((size_t)key[0] << 8 | key[1]) % BOOT_MEMO_SLOTS;
}

int boot_memo_passed(struct boot_memo *m, const uint8_t key[BOOT_MEMO_KEY_SIZE])
{
	size_t s = slot_of(key);
	int hit;

	if (m == NULL)
		return 0;
	pthread_mutex_lock(&m->lock);
	hit = (m->used[s / 8] >> (s % 8) & 1) &&
	      memcmp(m->keys[s], key, BOOT_MEMO_KEY_SIZE) == 0;
	pthread_mutex_unlock(&m->lock);
	return hit;
}

void boot_memo_pass(struct boot_memo *m, const uint8_t key[BOOT_MEMO_KEY_SIZE])
{
	size_t s = slot_of(key);

	if (m == NULL)
		return;
	pthread_mutex_lock(&m->lock);
	memcpy(m->keys[s], key, BOOT_MEMO_KEY_SIZE);
	m->used[s / 8] |= (uint8_t)(1u << (s % 8));
	pthread_mutex_unlock(&m->lock);
}

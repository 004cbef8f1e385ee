// SPDX-License-Identifier: GPL-2.0-only
/*
 * hash_md.c - the bank digests, fetched once.
 *
 * EVP_get_digestbyname() walks OpenSSL's name table, and OpenSSL 3 fetches
 * a digest it returned (or EVP_sha256()'s) again inside every
 * EVP_DigestInit_ex() and EVP_DigestVerifyInit(): per evidence that costs
 * more than hashing the few hundred bytes of a quote's PCR digest or a
 * boot memo key (make bench-instructions). A digest fetched explicitly
 * is used as it is.
 */
#include <pthread.h>

#include "hash_md.h"

static const char *const bank_names[] = { "sha1", "sha256", "sha384",
					  "sha512" };

#define BANKS (sizeof(bank_names) / sizeof(bank_names[0]))

static EVP_MD *bank_md[BANKS];
static pthread_once_t fetched = PTHREAD_ONCE_INIT;

static void fetch(void)
{
	size_t i;

	for (i = 0; i < BANKS; i++)
		bank_md[i] = EVP_MD_fetch(NULL, bank_names[i], NULL);
}

const EVP_MD *hash_md(const struct hash_algo *bank)
{
	size_t i;

	if (bank == NULL || !bank->bank)
		return NULL;
	pthread_once(&fetched, fetch);
	for (i = 0; i < BANKS; i++) {
		if (hash_algo_bank(bank_names[i]) == bank)
			return bank_md[i];
	}
	return NULL;
}

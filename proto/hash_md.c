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

/* by kernel id (the table's index): only the banks' are fetched */
static EVP_MD *bank_md[HASH_ALGO_IDS];
static pthread_once_t fetched = PTHREAD_ONCE_INIT;

static void fetch(void)
{
	const struct hash_algo *algo;
	unsigned int id;

	for (id = 0; (algo = hash_algo_by_kernel_id(id)) != NULL; id++) {
		if (algo->bank)
			bank_md[id] = EVP_MD_fetch(NULL, algo->name, NULL);
	}
}

const EVP_MD *hash_md(const struct hash_algo *bank)
{
	if (bank == NULL || !bank->bank)
		return NULL;
	pthread_once(&fetched, fetch);
	return bank_md[hash_algo_kernel_id(bank)];
}

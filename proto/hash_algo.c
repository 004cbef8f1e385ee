// SPDX-License-Identifier: GPL-2.0-only
/*
 * hash_algo.c - table of hash algorithms known to IMA and the TPM.
 *
 * Names follow the kernel's hash_algo_name[] (include/crypto/hash_info.h
 * in 6.1), since that is what "d-ng" fields carry, in the order of its
 * enum hash_algo, since IMA signatures carry that number: an entry's
 * index is its kernel id.
 */
#include <string.h>

#include "hash_algo.h"

static const struct hash_algo hash_algos[] = {
	{ "md4", 0, 16, 0 },
	{ "md5", 0, 16, 0 },
	{ "sha1", 0x0004, 20, 1 },
	{ "rmd160", 0, 20, 0 },
	{ "sha256", 0x000b, 32, 1 },
	{ "sha384", 0x000c, 48, 1 },
	{ "sha512", 0x000d, 64, 1 },
	{ "sha224", 0, 28, 0 },
	{ "rmd128", 0, 16, 0 },
	{ "rmd256", 0, 32, 0 },
	{ "rmd320", 0, 40, 0 },
	{ "wp256", 0, 32, 0 },
	{ "wp384", 0, 48, 0 },
	{ "wp512", 0, 64, 0 },
	{ "tgr128", 0, 16, 0 },
	{ "tgr160", 0, 20, 0 },
	{ "tgr192", 0, 24, 0 },
	{ "sm3", 0x0012, 32, 0 },
	{ "streebog256", 0, 32, 0 },
	{ "streebog512", 0, 64, 0 },
};

#define HASH_ALGO_COUNT (sizeof(hash_algos) / sizeof(hash_algos[0]))

const struct hash_algo *hash_algo_by_name(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < HASH_ALGO_COUNT; i++) {
		if (strlen(hash_algos[i].name) == len &&
		    memcmp(hash_algos[i].name, name, len) == 0)
			return &hash_algos[i];
	}
	return NULL;
}

const struct hash_algo *hash_algo_by_tpm(uint16_t tpm_alg)
{
	size_t i;

	if (tpm_alg == 0)
		return NULL;
	for (i = 0; i < HASH_ALGO_COUNT; i++) {
		if (hash_algos[i].tpm_alg == tpm_alg)
			return &hash_algos[i];
	}
	return NULL;
}

const struct hash_algo *hash_algo_by_kernel_id(unsigned int id)
{
	return id < HASH_ALGO_COUNT ? &hash_algos[id] : NULL;
}

unsigned int hash_algo_kernel_id(const struct hash_algo *algo)
{
	return (unsigned int)(algo - hash_algos);
}

const struct hash_algo *hash_algo_bank(const char *name)
{
	const struct hash_algo *algo = hash_algo_by_name(name, strlen(name));

	return (algo != NULL && algo->bank) ? algo : NULL;
}

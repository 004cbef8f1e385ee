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

#define ALGO(name, tpm_alg, size, bank) \
	{ \
		name, sizeof(name) - 1, tpm_alg, size, bank \
	}

static const struct hash_algo hash_algos[] = {
	ALGO("md4", 0, 16, 0),	       ALGO("md5", 0, 16, 0),
	ALGO("sha1", 0x0004, 20, 1),   ALGO("rmd160", 0, 20, 0),
	ALGO("sha256", 0x000b, 32, 1), ALGO("sha384", 0x000c, 48, 1),
	ALGO("sha512", 0x000d, 64, 1), ALGO("sha224", 0, 28, 0),
	ALGO("rmd128", 0, 16, 0),      ALGO("rmd256", 0, 32, 0),
	ALGO("rmd320", 0, 40, 0),      ALGO("wp256", 0, 32, 0),
	ALGO("wp384", 0, 48, 0),       ALGO("wp512", 0, 64, 0),
	ALGO("tgr128", 0, 16, 0),      ALGO("tgr160", 0, 20, 0),
	ALGO("tgr192", 0, 24, 0),      ALGO("sm3", 0x0012, 32, 0),
	ALGO("streebog256", 0, 32, 0), ALGO("streebog512", 0, 64, 0),
};

#define HASH_ALGO_COUNT (sizeof(hash_algos) / sizeof(hash_algos[0]))
_Static_assert(HASH_ALGO_COUNT == HASH_ALGO_IDS, "one entry per kernel id");

const struct hash_algo *hash_algo_by_name(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < HASH_ALGO_COUNT; i++) {
		/* names are never empty: name[0] exists when lengths match */
		if (hash_algos[i].name_len == len &&
		    hash_algos[i].name[0] == name[0] &&
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

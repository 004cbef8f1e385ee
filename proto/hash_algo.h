/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hash_algo.h - the hash algorithms IMA and the TPM name, in one table.
 *
 * A file digest in an IMA record may use any algorithm the kernel knows
 * (only its size matters to the parser); a PCR bank must be one we can
 * compute (sha1, sha256, sha384, sha512), flagged by @bank.
 */
#ifndef IMATRUST_HASH_ALGO_H
#define IMATRUST_HASH_ALGO_H

#include <stddef.h>
#include <stdint.h>

#define HASH_ALGO_MAX_SIZE 64 /* sha512, the largest digest we handle */
#define HASH_ALGO_IDS 20      /* the kernel's ids: 0 .. HASH_ALGO_IDS - 1 */

struct hash_algo {
	const char *name; /* kernel crypto name, as in "sha256:" */
	size_t name_len;  /* strlen(name): lookups run per record */
	uint16_t tpm_alg; /* TPM2_ALG_ID, 0 when the TPM has none */
	size_t size;	  /* digest size in bytes */
	int bank;	  /* 1 when usable as a PCR bank here */
};

/**
 * hash_algo_by_name() - look up an algorithm by its kernel name.
 * @name: bytes of the name (need not be NUL-terminated)
 * @len: number of bytes in @name
 *
 * Return: the table entry, or NULL for an unknown name.
 */
const struct hash_algo *hash_algo_by_name(const char *name, size_t len);

/**
 * hash_algo_by_tpm() - look up an algorithm by its TPM2_ALG_ID.
 * @tpm_alg: the TPM algorithm identifier
 *
 * Return: the table entry, or NULL when unknown.
 */
const struct hash_algo *hash_algo_by_tpm(uint16_t tpm_alg);

/**
 * hash_algo_by_kernel_id() - look up an algorithm by the kernel's number.
 * @id: a value of the kernel's enum hash_algo (include/uapi/linux/
 *	hash_info.h: 2 is sha1, 4 sha256), as IMA signatures carry it
 *
 * Return: the table entry, or NULL for a number the kernel does not use.
 */
const struct hash_algo *hash_algo_by_kernel_id(unsigned int id);

/**
 * hash_algo_kernel_id() - the kernel's enum hash_algo value of @algo.
 * @algo: an entry of the table (from one of the lookups)
 *
 * Return: its number.
 */
unsigned int hash_algo_kernel_id(const struct hash_algo *algo);

/**
 * hash_algo_bank() - look up a PCR bank algorithm by name.
 * @name: NUL-terminated name ("sha1", "sha256", ...)
 *
 * Return: the entry when it names an algorithm usable as a bank, or NULL.
 */
const struct hash_algo *hash_algo_bank(const char *name);

#endif /* IMATRUST_HASH_ALGO_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_build.h - write binary measurement records as the kernel does.
 *
 * For harnesses that play the kernel (tests, benchmarks, the integration
 * lab): they build a list here and extend a TPM with the same records.
 */
#ifndef IMATRUST_IMA_BUILD_H
#define IMATRUST_IMA_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"

struct ima_build_field {
	const void *data;
	uint32_t len;
};

/**
 * ima_build_record() - write one record of template @name.
 * @out: destination; may be NULL when @outsz is 0 (to learn the size)
 * @outsz: bytes available at @out
 * @pcr: PCR index
 * @name: template name; "ima" selects the 2008 layout and hash
 * @fields: field values in template order, each without its length
 *	    prefix (for "ima": the 20-byte digest, then the name without NUL)
 * @n: number of fields
 * @violation: write an all-zero template digest, as for a violation
 *
 * The SHA-1 template digest is computed from the fields as the kernel
 * does. Nothing is written unless the whole record fits.
 *
 * Return: the record's size in bytes, or 0 when hashing failed.
 */
size_t ima_build_record(uint8_t *out, size_t outsz, uint32_t pcr,
			const char *name, const struct ima_build_field *fields,
			size_t n, int violation);

/**
 * ima_build_digest_ng() - "d-ng" field value: "<algo>:\0<digest>".
 * @out: at least strlen(@algo->name) + 2 + @algo->size bytes
 * @algo: digest algorithm
 * @digest: @algo->size bytes
 *
 * Return: the field length.
 */
uint32_t ima_build_digest_ng(uint8_t *out, const struct hash_algo *algo,
			     const uint8_t *digest);

#endif /* IMATRUST_IMA_BUILD_H */

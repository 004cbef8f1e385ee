/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ak_cache.h - enrolled AKs as ready-to-use OpenSSL keys.
 *
 * Turning an AK's stored public area into an EVP_PKEY (parse, build,
 * check the point) costs as much as verifying the quote's signature, and
 * the AK only changes at enrollment. Entries are keyed by machine id and
 * checked against the AK's Name, so a re-enrolled machine never gets its
 * old key. Thread-safe (its own lock); bounded.
 */
#ifndef IMATRUST_AK_CACHE_H
#define IMATRUST_AK_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define AK_CACHE_MAX 65536 /* keys kept; past it, the cache is emptied */

struct ak_cache;

/** ak_cache_new() - an empty cache; NULL when out of memory. */
struct ak_cache *ak_cache_new(void);

/** ak_cache_free() - free every key; NULL is allowed. */
void ak_cache_free(struct ak_cache *c);

/**
 * ak_cache_get() - the key of machine @id whose AK Name is @name.
 * @c: the cache, or NULL (then always a miss)
 * Return: a new reference (EVP_PKEY_free() it), or NULL on a miss.
 */
EVP_PKEY *ak_cache_get(struct ak_cache *c, const char *id, const uint8_t *name,
		       size_t name_len);

/**
 * ak_cache_put() - remember @key (a reference is taken) for @id, @name.
 * @c: the cache, or NULL (then nothing happens)
 */
void ak_cache_put(struct ak_cache *c, const char *id, const uint8_t *name,
		  size_t name_len, EVP_PKEY *key);

#endif /* IMATRUST_AK_CACHE_H */

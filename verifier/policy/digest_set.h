/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * digest_set.h - in-memory set of reference digests for per-record lookup.
 *
 * Open addressing with linear probing over fixed-size digests. The slot
 * index comes from a keyed mix of the digest, so files chosen to collide
 * in one bucket cannot be prepared without knowing the per-set key.
 */
#ifndef IMATRUST_DIGEST_SET_H
#define IMATRUST_DIGEST_SET_H

#include <stddef.h>
#include <stdint.h>

#define DIGEST_SET_MAX (1u << 28) /* entries; beyond is a bug */

struct digest_set;

/**
 * digest_set_new() - empty set of @digest_size-byte digests.
 * @digest_size: 16 to 64 bytes
 * @hint: expected number of entries (the table grows past it)
 * @key: random per-set key for the slot mix
 *
 * Return: the set (free with digest_set_free()), or NULL.
 */
struct digest_set *digest_set_new(size_t digest_size, size_t hint,
				  uint64_t key);

/**
 * digest_set_free() - release @s; NULL is allowed.
 * @s: the set
 */
void digest_set_free(struct digest_set *s);

/**
 * digest_set_add() - insert @digest (a no-op if present).
 * @s: the set
 * @digest: digest_size bytes
 *
 * Return: 0, or -1 when memory runs out or DIGEST_SET_MAX is reached.
 */
int digest_set_add(struct digest_set *s, const uint8_t *digest);

/**
 * digest_set_contains() - whether @digest is in @s.
 * @s: the set
 * @digest: digest_size bytes
 *
 * Return: 1 if present, else 0.
 */
int digest_set_contains(const struct digest_set *s, const uint8_t *digest);

/**
 * digest_set_prefetch() - start loading the slot of @digest into cache.
 * @s: the set
 * @digest: digest_size bytes
 *
 * A lookup in a large set is one cache miss; a caller that has other
 * work to do first (hashing the record) hides it by prefetching.
 */
void digest_set_prefetch(const struct digest_set *s, const uint8_t *digest);

/**
 * digest_set_count() - number of distinct digests in @s.
 * @s: the set
 */
size_t digest_set_count(const struct digest_set *s);

#endif /* IMATRUST_DIGEST_SET_H */

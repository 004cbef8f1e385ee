// SPDX-License-Identifier: GPL-2.0-only
/*
 * digest_set.c - open-addressing set of digests.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "digest_set.h"

/*
 * A lookup is one random memory access: an empty slot is all-zero bytes
 * (the all-zero digest itself is kept in @has_zero), so there is no
 * separate "used" array to miss in, and the table asks for huge pages so
 * the access rarely misses the TLB as well.
 */
#define HUGE_PAGE (2u << 20)

struct digest_set {
	size_t digest_size;
	size_t mask;  /* slots - 1; slots is a power of two */
	size_t count; /* including the zero digest */
	uint64_t key;
	int has_zero;
	uint8_t *slots; /* (mask + 1) * digest_size bytes */
};

static int is_zero(const uint8_t *d, size_t n)
{
	static const uint8_t zero[64];

	return memcmp(d, zero, n) == 0;
}

/* A strong 64-bit finaliser (splitmix64): every input bit moves all. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static size_t slot_of(const struct digest_set *s, const uint8_t *d)
{
	uint64_t a, b;

	memcpy(&a, d, 8);
	memcpy(&b, d + 8, 8);
	return (size_t)(mix(a ^ s->key) ^ mix(b + s->key)) & s->mask;
}

static int alloc_slots(struct digest_set *s, size_t slots)
{
	size_t bytes = slots * s->digest_size;
	void *p;

	if (posix_memalign(&p, bytes >= HUGE_PAGE ? HUGE_PAGE : 64, bytes))
		return -1;
	if (bytes >= HUGE_PAGE)
		madvise(p, bytes, MADV_HUGEPAGE); /* a hint only */
	memset(p, 0, bytes);
	s->slots = p;
	s->mask = slots - 1;
	s->count = s->has_zero;
	return 0;
}

struct digest_set *digest_set_new(size_t digest_size, size_t hint, uint64_t key)
{
	struct digest_set *s;
	size_t slots = 16;

	if (digest_size < 16 || digest_size > 64 || hint > DIGEST_SET_MAX)
		return NULL;
	while (slots < 2 * hint)
		slots *= 2;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return NULL;
	s->digest_size = digest_size;
	s->key = key;
	if (alloc_slots(s, slots) < 0) {
		free(s);
		return NULL;
	}
	return s;
}

void digest_set_free(struct digest_set *s)
{
	if (s == NULL)
		return;
	free(s->slots);
	free(s);
}

/* Find @d's slot, or the empty slot where it would go (@d non-zero). */
static size_t probe(const struct digest_set *s, const uint8_t *d)
{
	size_t i = slot_of(s, d);
	const uint8_t *slot = s->slots + i * s->digest_size;

	while (memcmp(slot, d, s->digest_size) != 0 &&
	       !is_zero(slot, s->digest_size)) {
		i = (i + 1) & s->mask;
		slot = s->slots + i * s->digest_size;
	}
	return i;
}

/* Double the table; the load factor stays at most one half. */
static int grow(struct digest_set *s)
{
	struct digest_set old = *s;
	size_t i;

	if (alloc_slots(s, 2 * (old.mask + 1)) < 0) {
		*s = old;
		return -1;
	}
	for (i = 0; i <= old.mask; i++) {
		const uint8_t *d = old.slots + i * old.digest_size;

		if (!is_zero(d, old.digest_size))
			digest_set_add(s, d);
	}
	free(old.slots);
	return 0;
}

int digest_set_add(struct digest_set *s, const uint8_t *digest)
{
	size_t i;

	uint8_t *slot;

	if (is_zero(digest, s->digest_size)) {
		s->count += !s->has_zero;
		s->has_zero = 1;
		return 0;
	}
	if (s->count >= DIGEST_SET_MAX)
		return -1;
	if (2 * (s->count + 1) > s->mask + 1 && grow(s) < 0)
		return -1;
	i = probe(s, digest);
	slot = s->slots + i * s->digest_size;
	if (!is_zero(slot, s->digest_size))
		return 0;
	memcpy(slot, digest, s->digest_size);
	s->count++;
	return 0;
}

int digest_set_contains(const struct digest_set *s, const uint8_t *digest)
{
	if (is_zero(digest, s->digest_size))
		return s->has_zero;
	return !is_zero(s->slots + probe(s, digest) * s->digest_size,
			s->digest_size);
}

size_t digest_set_count(const struct digest_set *s)
{
	return s->count;
}

void digest_set_prefetch(const struct digest_set *s, const uint8_t *digest)
{
	__builtin_prefetch(s->slots + slot_of(s, digest) * s->digest_size);
}

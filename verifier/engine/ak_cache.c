// SPDX-License-Identifier: GPL-2.0-only
/*
 * ak_cache.c - a chained hash table of AK keys by machine id.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ak_cache.h"
#include "tpm_public.h"
#include "wire.h"

#define BUCKETS 4096 /* power of two */

struct entry {
	struct entry *next;
	char id[WIRE_ID_MAX + 1];
	uint8_t name[TPM_NAME_MAX];
	size_t name_len;
	EVP_PKEY *key;
};

struct ak_cache {
	pthread_mutex_t lock; /* protects bucket and count */
	struct entry *bucket[BUCKETS];
	size_t count;
};

/* FNV-1a: ids are short and chosen by agents; any spread will do. */
static size_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h & (BUCKETS - 1);
}

struct ak_cache *ak_cache_new(void)
{
	struct ak_cache *c = calloc(1, sizeof(*c));

	if (c != NULL)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void clear(struct ak_cache *c)
{
	struct entry *e, *next;
	size_t i;

	for (i = 0; i < BUCKETS; i++) {
		for (e = c->bucket[i]; e != NULL; e = next) {
			next = e->next;
			EVP_PKEY_free(e->key);
			free(e);
		}
		c->bucket[i] = NULL;
	}
	c->count = 0;
}

void ak_cache_free(struct ak_cache *c)
{
	if (c == NULL)
		return;
	clear(c);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct entry **find(struct ak_cache *c, const char *id)
{
	struct entry **e = &c->bucket[hash(id)];

	while (*e != NULL && strcmp((*e)->id, id) != 0)
		e = &(*e)->next;
	return e;
}

EVP_PKEY *ak_cache_get(struct ak_cache *c, const char *id, const uint8_t *name,
		       size_t name_len)
{
	EVP_PKEY *key = NULL;
	struct entry *e;

	if (c == NULL)
		return NULL;
	pthread_mutex_lock(&c->lock);
	e = *find(c, id);
	if (e != NULL && e->name_len == name_len &&
	    memcmp(e->name, name, name_len) == 0 && EVP_PKEY_up_ref(e->key))
		key = e->key;
	pthread_mutex_unlock(&c->lock);
	return key;
}

void ak_cache_put(struct ak_cache *c, const char *id, const uint8_t *name,
		  size_t name_len, EVP_PKEY *key)
{
	struct entry **slot, *e;

	if (c == NULL || strlen(id) > WIRE_ID_MAX || name_len > TPM_NAME_MAX ||
	    !EVP_PKEY_up_ref(key))
		return;
	pthread_mutex_lock(&c->lock);
	slot = find(c, id);
	if (*slot == NULL && c->count >= AK_CACHE_MAX) {
		clear(c); /* rare: cheaper than tracking age */
		slot = find(c, id);
	}
	e = *slot;
	if (e == NULL) {
		e = calloc(1, sizeof(*e));
		if (e == NULL) {
			EVP_PKEY_free(key);
			goto out;
		}
		strcpy(e->id, id);
		*slot = e;
		c->count++;
	} else {
		EVP_PKEY_free(e->key);
	}
	memcpy(e->name, name, name_len);
	e->name_len = name_len;
	e->key = key;
out:
	pthread_mutex_unlock(&c->lock);
}

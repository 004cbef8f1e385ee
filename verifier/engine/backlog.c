// SPDX-License-Identifier: GPL-2.0-only
/*
 * backlog.c - unproven list pieces, held per machine while it catches up.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "backlog.h"
#include "wire.h"

struct held {
	char id[WIRE_ID_MAX + 1]; /* "" when the slot is free */
	uint32_t reset_count, restart_count;
	struct backlog_piece p;
	uint64_t stamp; /* put order: lowest is oldest */
};

struct backlog {
	pthread_mutex_t lock; /* protects everything below */
	struct held slot[BACKLOG_MACHINES_MAX];
	uint64_t stamp;
	size_t machine_max, total_max;
	size_t total; /* bytes allocated in the slots */
};

struct backlog *backlog_new(size_t machine_max, size_t total_max)
{
	struct backlog *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return NULL;
	pthread_mutex_init(&b->lock, NULL);
	b->machine_max = machine_max;
	b->total_max = total_max;
	return b;
}

static void release(struct backlog *b, struct held *h)
{
	b->total -= h->p.cap;
	free(h->p.bytes);
	memset(h, 0, sizeof(*h));
}

void backlog_free(struct backlog *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < BACKLOG_MACHINES_MAX; i++)
		release(b, &b->slot[i]);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static struct held *find(struct backlog *b, const char *id)
{
	size_t i;

	for (i = 0; i < BACKLOG_MACHINES_MAX; i++) {
		if (b->slot[i].id[0] != '\0' && strcmp(b->slot[i].id, id) == 0)
			return &b->slot[i];
	}
	return NULL;
}

int backlog_take(struct backlog *b, const struct backlog_key *key,
		 uint64_t first_index, struct backlog_piece *out)
{
	struct held *h;
	int taken = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&b->lock);
	h = find(b, key->id);
	if (h != NULL && h->reset_count == key->reset_count &&
	    h->restart_count == key->restart_count && h->p.end == first_index) {
		*out = h->p;
		b->total -= h->p.cap;
		h->p = (struct backlog_piece){ 0 };
		taken = 1;
	}
	if (h != NULL)
		release(b, h);
	pthread_mutex_unlock(&b->lock);
	return taken;
}

/* The oldest occupied slot, or NULL when all are free. */
static struct held *oldest(struct backlog *b)
{
	struct held *o = NULL;
	size_t i;

	for (i = 0; i < BACKLOG_MACHINES_MAX; i++) {
		if (b->slot[i].id[0] != '\0' &&
		    (o == NULL || b->slot[i].stamp < o->stamp))
			o = &b->slot[i];
	}
	return o;
}

/* A slot for @id: its own, a free one, or the oldest (asked again). */
static struct held *slot_for(struct backlog *b, const char *id)
{
	struct held *h = find(b, id);
	size_t i;

	for (i = 0; h == NULL && i < BACKLOG_MACHINES_MAX; i++) {
		if (b->slot[i].id[0] == '\0')
			h = &b->slot[i];
	}
	if (h == NULL)
		h = oldest(b);
	release(b, h);
	return h;
}

int backlog_put(struct backlog *b, const struct backlog_key *key,
		struct backlog_piece *p)
{
	struct held *h, *o;

	if (p->cap > b->machine_max || p->cap > b->total_max ||
	    strlen(key->id) > WIRE_ID_MAX) {
		free(p->bytes);
		p->bytes = NULL;
		return -1;
	}
	pthread_mutex_lock(&b->lock);
	h = slot_for(b, key->id);
	/* make room in the total: the oldest machines are asked again */
	while (b->total + p->cap > b->total_max && (o = oldest(b)) != NULL)
		release(b, o);
	strcpy(h->id, key->id);
	h->reset_count = key->reset_count;
	h->restart_count = key->restart_count;
	h->p = *p;
	h->stamp = ++b->stamp;
	b->total += p->cap;
	pthread_mutex_unlock(&b->lock);
	p->bytes = NULL;
	return 0;
}

size_t backlog_bytes(struct backlog *b)
{
	size_t n;

	pthread_mutex_lock(&b->lock);
	n = b->total;
	pthread_mutex_unlock(&b->lock);
	return n;
}

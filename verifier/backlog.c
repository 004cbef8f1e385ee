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
	char id[WIRE_ID_MAX + 1];	/* "" when the slot is free */
	uint32_t reset_count, restart_count;
	uint64_t start, end;
	uint8_t *bytes;
	size_t len;
	uint64_t stamp;			/* put order: lowest is oldest */
};

struct backlog {
	pthread_mutex_t lock;		/* protects everything below */
	struct held slot[BACKLOG_MACHINES_MAX];
	uint64_t stamp;
};

struct backlog *backlog_new(void)
{
	struct backlog *b = calloc(1, sizeof(*b));

	if (b != NULL)
		pthread_mutex_init(&b->lock, NULL);
	return b;
}

static void release(struct held *h)
{
	free(h->bytes);
	memset(h, 0, sizeof(*h));
}

void backlog_free(struct backlog *b)
{
	size_t i;

	if (b == NULL)
		return;
	for (i = 0; i < BACKLOG_MACHINES_MAX; i++)
		release(&b->slot[i]);
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

void backlog_take(struct backlog *b, const struct backlog_key *key,
		  uint64_t first_index, uint8_t **bytes, size_t *len,
		  uint64_t *start)
{
	struct held *h;

	*bytes = NULL;
	*len = 0;
	pthread_mutex_lock(&b->lock);
	h = find(b, key->id);
	if (h != NULL && h->reset_count == key->reset_count &&
	    h->restart_count == key->restart_count && h->end == first_index) {
		*bytes = h->bytes;
		*len = h->len;
		*start = h->start;
		h->bytes = NULL;
	}
	if (h != NULL)
		release(h);
	pthread_mutex_unlock(&b->lock);
}

int backlog_put(struct backlog *b, const struct backlog_key *key,
		uint64_t start, uint64_t end, uint8_t *bytes, size_t len)
{
	struct held *h, *oldest = &b->slot[0];
	size_t i;

	if (len > BACKLOG_BYTES_MAX || strlen(key->id) > WIRE_ID_MAX) {
		free(bytes);
		return -1;
	}
	pthread_mutex_lock(&b->lock);
	h = find(b, key->id);
	for (i = 0; h == NULL && i < BACKLOG_MACHINES_MAX; i++) {
		if (b->slot[i].id[0] == '\0')
			h = &b->slot[i];
		else if (b->slot[i].stamp < oldest->stamp)
			oldest = &b->slot[i];
	}
	if (h == NULL)
		h = oldest;	/* its machine will be asked again */
	release(h);
	strcpy(h->id, key->id);
	h->reset_count = key->reset_count;
	h->restart_count = key->restart_count;
	h->start = start;
	h->end = end;
	h->bytes = bytes;
	h->len = len;
	h->stamp = ++b->stamp;
	pthread_mutex_unlock(&b->lock);
	return 0;
}

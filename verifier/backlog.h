/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backlog.h - records a quote is ahead of (proto/DESIGN.md §4, catching up).
 *
 * An agent that starts on a machine whose list is larger than one
 * evidence message (WIRE_RECORDS_MAX) sends the list in pieces, but every
 * quote it can take covers the whole list: no prefix of the first piece
 * matches. When the agent says more records follow ("more"), the verifier
 * holds the piece here, unproven and unjudged, and replays it together
 * with the next piece; the first quote that matches proves them all.
 *
 * Memory only: after a verifier restart the agent is simply asked again
 * from the last proven index. Bounded per machine and in total; the
 * oldest entry goes first. Thread-safe (its own lock).
 */
#ifndef IMATRUST_BACKLOG_H
#define IMATRUST_BACKLOG_H

#include <stddef.h>
#include <stdint.h>

#define BACKLOG_MACHINES_MAX 64		/* machines catching up at once */
#define BACKLOG_BYTES_MAX (64u << 20)	/* held list bytes per machine */

struct backlog;

/* Which boot of which machine a held piece belongs to. */
struct backlog_key {
	const char *id;
	uint32_t reset_count;
	uint32_t restart_count;
};

/** backlog_new() - an empty backlog; NULL when out of memory. */
struct backlog *backlog_new(void);

/** backlog_free() - drop everything held; NULL is allowed. */
void backlog_free(struct backlog *b);

/**
 * backlog_take() - remove and return what is held for @key when it ends
 * right where @first_index starts.
 * @b: the backlog
 * @key: machine and boot
 * @first_index: where the new piece starts
 * @bytes: receives the held bytes (caller frees), or NULL when none fit
 * @len: receives their length
 * @start: receives the list index of their first record
 *
 * Anything else held for the machine is dropped: it cannot be continued.
 */
void backlog_take(struct backlog *b, const struct backlog_key *key,
		  uint64_t first_index, uint8_t **bytes, size_t *len,
		  uint64_t *start);

/**
 * backlog_put() - hold @bytes (taken over) for @key.
 * @start: list index of their first record
 * @end: list index after their last record
 *
 * Return: 0, or -1 when @len is above BACKLOG_BYTES_MAX (@bytes freed).
 */
int backlog_put(struct backlog *b, const struct backlog_key *key,
		uint64_t start, uint64_t end, uint8_t *bytes, size_t len);

#endif /* IMATRUST_BACKLOG_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backlog.h - records a quote is ahead of (proto/DESIGN.md §4, the
 * catch-up case).
 *
 * An agent that starts on a machine whose list is larger than one
 * evidence message (WIRE_RECORDS_MAX) sends the list in pieces, but every
 * quote it can take covers the whole list: no prefix of the first piece
 * matches. When the agent says more records follow ("more"), the verifier
 * holds the piece here, unproven and unjudged, with the running PCR 10 of
 * the quoted bank after it; the next piece is replayed from that value
 * alone (a newer quote cannot stop inside what an older one was ahead
 * of), so catching up costs linear time in the list.
 *
 * Only authenticated evidence over the machine's outstanding nonce gets
 * here. Memory only: after a verifier restart the agent is asked again
 * from the last proven index. Bounded per machine (one machine per EK)
 * and in total; past the total the oldest entry goes. Thread-safe.
 */
#ifndef IMATRUST_BACKLOG_H
#define IMATRUST_BACKLOG_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"

#define BACKLOG_MACHINES_MAX 64 /* machines catching up at once */

struct backlog;

/* Which boot of which machine a held piece belongs to. */
struct backlog_key {
	const char *id;
	uint32_t reset_count;
	uint32_t restart_count;
};

/* What is held for one machine: whole records, start to end. */
struct backlog_piece {
	uint8_t *bytes; /* owned; @cap bytes allocated */
	size_t len, cap;
	uint64_t start, end; /* list indexes: first, one past last */
	uint8_t running[HASH_ALGO_MAX_SIZE]; /* quoted bank's PCR 10 at @end */
};

/**
 * backlog_new() - an empty backlog; NULL when out of memory.
 * @machine_max: bytes held for one machine at most
 * @total_max: bytes held for all machines at most
 */
struct backlog *backlog_new(size_t machine_max, size_t total_max);

/** backlog_free() - drop everything held; NULL is allowed. */
void backlog_free(struct backlog *b);

/**
 * backlog_take() - remove what is held for @key when it ends right where
 * @first_index starts.
 * @b: the backlog
 * @key: machine and boot
 * @first_index: where the new piece starts
 * @out: receives the piece (its bytes are the caller's then)
 *
 * Anything else held for the machine is dropped: it cannot be continued.
 *
 * Return: 1 when a piece was taken, else 0 (@out zeroed).
 */
int backlog_take(struct backlog *b, const struct backlog_key *key,
		 uint64_t first_index, struct backlog_piece *out);

/**
 * backlog_put() - hold @p (its bytes taken over) for @key.
 *
 * Return: 0, or -1 when @p is above the per-machine limit or cannot fit
 * in the total even after dropping older entries (@p's bytes freed).
 */
int backlog_put(struct backlog *b, const struct backlog_key *key,
		struct backlog_piece *p);

/** backlog_bytes() - bytes held in total now (for the metrics). */
size_t backlog_bytes(struct backlog *b);

#endif /* IMATRUST_BACKLOG_H */

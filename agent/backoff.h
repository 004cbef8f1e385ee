/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backoff.h - bounded exponential backoff with jitter.
 *
 * The n-th wait after a failure is drawn from [c/2, c] where
 * c = min(BACKOFF_FIRST_MS * 2^n, max): 1 s, 2 s, 4 s, ... up to the
 * configured ceiling. The jitter keeps a fleet of agents that lost the
 * verifier at the same moment from coming back at the same moment.
 * A success resets the schedule. Pure: the random state is the caller's.
 */
#ifndef IMATRUST_AGENT_BACKOFF_H
#define IMATRUST_AGENT_BACKOFF_H

#include <stdint.h>

#define BACKOFF_FIRST_MS 1000u /* the first ceiling */

struct backoff {
	uint32_t max_ms; /* the ceiling, >= BACKOFF_FIRST_MS */
	uint32_t cur_ms; /* the ceiling of the next wait */
	uint64_t rng;	 /* xorshift64 state, never 0 */
};

/**
 * backoff_init() - a schedule with ceiling @max_ms.
 * @b: the schedule
 * @max_ms: longest wait; raised to BACKOFF_FIRST_MS when below
 * @seed: jitter seed (e.g. time and pid); 0 is replaced
 */
void backoff_init(struct backoff *b, uint32_t max_ms, uint64_t seed);

/**
 * backoff_next() - the next wait, and double the ceiling (bounded).
 * @b: the schedule
 *
 * Return: milliseconds to wait, in [cur/2, cur].
 */
uint32_t backoff_next(struct backoff *b);

/**
 * backoff_reset() - start again at BACKOFF_FIRST_MS (after a success).
 * @b: the schedule
 */
void backoff_reset(struct backoff *b);

#endif /* IMATRUST_AGENT_BACKOFF_H */

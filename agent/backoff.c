// SPDX-License-Identifier: GPL-2.0-only
/*
 * backoff.c - bounded exponential backoff with jitter (see backoff.h).
 */
#include "backoff.h"

void backoff_init(struct backoff *b, uint32_t max_ms, uint64_t seed)
{
	b->max_ms = max_ms < BACKOFF_FIRST_MS ? BACKOFF_FIRST_MS : max_ms;
	b->cur_ms = BACKOFF_FIRST_MS;
	b->rng = seed != 0 ? seed : UINT64_C(0x9e3779b97f4a7c15);
}

void backoff_reset(struct backoff *b)
{
	b->cur_ms = BACKOFF_FIRST_MS;
}

/* xorshift64: jitter needs spread, not unpredictability */
static uint64_t backoff_rand(struct backoff *b)
{
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return b->rng;
}

uint32_t backoff_next(struct backoff *b)
{
	uint32_t cur = b->cur_ms;
	uint32_t half = cur / 2;
	uint32_t wait = half + (uint32_t)(backoff_rand(b) % (cur - half + 1));

	b->cur_ms = cur > b->max_ms / 2 ? b->max_ms : cur * 2;
	return wait;
}

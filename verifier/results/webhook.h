/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webhook.h - delivery of the webhook outbox (verifier/README.md
 * "Webhooks"): one thread that posts each due message, signed, with
 * libcurl, and notes the outcome in the database.
 *
 * Messages are queued by the database itself, in the transaction of the
 * state change they describe (schema 0010), as the change's facts
 * (schema 0020); this thread writes each body from them
 * (webhook_body.h) and only reads the outbox, so a restart resumes from
 * it. Delivery is at least once: a
 * message whose answer was lost is sent again, with the same
 * webhook-id.
 */
#ifndef IMATRUST_WEBHOOK_H
#define IMATRUST_WEBHOOK_H

#include <stdint.h>

#include "verifier.h"

#define WEBHOOK_BACKOFF_MAX 300	  /* seconds between attempts, max */
#define WEBHOOK_CONNECT_TIMEOUT 5 /* seconds to connect */
#define WEBHOOK_TIMEOUT 10	  /* seconds for a whole attempt */

/**
 * webhook_backoff() - seconds before attempt @failures + 1 when
 * @failures attempts failed: 1, 2, 4, ... doubling to
 * WEBHOOK_BACKOFF_MAX, less a jitter of up to a quarter taken from @rnd
 * (so receivers coming back are not hit by every sender at once).
 * @failures: failed attempts so far, >= 1
 * @rnd: a random number
 */
unsigned int webhook_backoff(unsigned int failures, uint32_t rnd);

/**
 * webhook_start() - write the config file's endpoints (their secret
 * files read now), the cap and the TNC table into the database, remove
 * endpoints that left the config file, and start the delivery thread.
 * @v: the verifier, database open
 *
 * Return: 0, or -1 (logged) when an endpoint's secret cannot be read or
 * the thread cannot start.
 */
int webhook_start(struct verifier *v);

/**
 * webhook_stop() - stop the delivery thread: an attempt in flight is
 * abandoned (its message stays queued) within a fraction of a second.
 * Safe when never started.
 */
void webhook_stop(struct verifier *v);

#endif /* IMATRUST_WEBHOOK_H */

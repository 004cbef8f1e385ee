/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_outbox.h - the webhook outbox, the engine's side: the endpoints
 * the config file states, what is due, what became of each attempt and
 * the figures, each under v->lock (engine_outbox.c). The delivery thread
 * (results/webhook.c) posts without the lock, between these calls.
 */
#ifndef IMATRUST_ENGINE_OUTBOX_H
#define IMATRUST_ENGINE_OUTBOX_H

#include <stddef.h>
#include <stdint.h>

#include "db_webhook.h"
#include "verifier.h"

/**
 * engine_outbox_sync() - the config file's endpoints into the database,
 * at start.
 * @v: the verifier, database open
 * @eps: every endpoint of the config file, secrets read (borrowed)
 * @n: how many
 *
 * Stores each of @eps (db_webhook_put(): its queue and figures kept),
 * sets every endpoint's cap to the config's webhook_max_pending and
 * removes, with their undelivered messages, the endpoints of the config
 * file that are no longer in @eps. Logs what it did.
 *
 * Return: 0, or -1 (logged).
 */
int engine_outbox_sync(struct verifier *v, const struct db_webhook_new *eps,
		       size_t n);

/**
 * engine_outbox_due() - db_webhook_due() under v->lock: @cb copies what
 * it needs, as the rows are the database's until it returns.
 */
int engine_outbox_due(struct verifier *v, int64_t now, unsigned int limit,
		      db_webhook_message_cb cb, void *arg,
		      struct imt_error *err);

/**
 * engine_outbox_delivered() - db_webhook_delivered() under v->lock.
 */
int engine_outbox_delivered(struct verifier *v, int64_t seq, int64_t now,
			    struct imt_error *err);

/**
 * engine_outbox_failed() - db_webhook_failed() under v->lock.
 */
int engine_outbox_failed(struct verifier *v, int64_t seq, int64_t next_attempt,
			 const char *error, struct imt_error *err);

/**
 * engine_outbox_list() - db_webhook_list() under v->lock: @cb must not
 * call back into the engine.
 */
int engine_outbox_list(struct verifier *v, db_webhook_cb cb, void *arg,
		       struct imt_error *err);

/**
 * engine_outbox_on_queued() - db_webhook_on_queued() under v->lock:
 * @fn(@arg) runs, only to signal, when a commit queued messages; NULL
 * removes it.
 */
void engine_outbox_on_queued(struct verifier *v, void (*fn)(void *arg),
			     void *arg);

#endif /* IMATRUST_ENGINE_OUTBOX_H */

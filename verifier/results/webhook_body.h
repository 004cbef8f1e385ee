/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webhook_body.h - the JSON body of a webhook message, written at
 * delivery from the facts the outbox holds (verifier/README.md
 * "Webhooks"; openapi.json's WebhookMessage).
 */
#ifndef IMATRUST_WEBHOOK_BODY_H
#define IMATRUST_WEBHOOK_BODY_H

#include <stddef.h>

#include "db_webhook.h"

#define WEBHOOK_ID_MAX (DB_WEBHOOK_NAME_MAX + 24) /* "<endpoint>-<seq>" */

/**
 * webhook_id() - the message id of @m: "<endpoint>-<seq>", the body's
 * "id" and the webhook-id header, the same on every attempt.
 * @m: the message
 * @buf: receives it
 * @n: size of @buf, WEBHOOK_ID_MAX
 */
void webhook_id(const struct db_webhook_message *m, char *buf, size_t n);

/**
 * webhook_body() - the body of @m, as signed and sent.
 * @m: the message; when it carries a stored body (queued before schema
 *     0020), that body, byte for byte
 * @why: receives the reason on failure
 * @whylen: size of @why
 *
 * machine.state: {"id","type","machine","from","to","tnc","reason","at",
 * "event"}, tnc the state table's for "to" (transition_tnc_of());
 * machine.removed: the same keys with "to", "event" null, tnc
 * "no_recommendation", reason {"action","operator"}, then "audit". Keys
 * in that order, compact.
 *
 * Return: the JSON text (the caller frees it), or NULL with @why filled
 * (out of memory, a reason that is not JSON, an unknown type).
 */
char *webhook_body(const struct db_webhook_message *m, char *why,
		   size_t whylen);

#endif /* IMATRUST_WEBHOOK_BODY_H */

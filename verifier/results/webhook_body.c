// SPDX-License-Identifier: GPL-2.0-only
/*
 * webhook_body.c - the JSON body of a webhook message, written at
 * delivery from the change's facts the schema's triggers queued (schema
 * 0020). The TNC recommendation is the state table's (transition.h), the
 * one place that decides it; the shape is openapi.json's WebhookMessage,
 * which tests/unit/verifier/results/test_webhook_body.c checks.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db_machine.h"
#include "transition.h"
#include "webhook_body.h"

void webhook_id(const struct db_webhook_message *m, char *buf, size_t n)
{
	snprintf(buf, n, "%s-%" PRId64, m->endpoint, m->seq);
}

static json_t *text_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/* Set @key of @o to @v (taken); -1 when @v is NULL (out of memory, a
 * string not UTF-8) or the set fails, so no key goes missing unsaid. */
static int put(json_t *o, const char *key, json_t *v)
{
	return json_object_set_new(o, key, v) == 0 ? 0 : -1;
}

/* The recommendation for a machine now in @state; null when unknown. */
static json_t *tnc_of(const char *state)
{
	enum db_machine_state st;

	if (state == NULL || db_machine_state_parse(state, &st) < 0)
		return json_null();
	return json_string(transition_tnc_name(transition_tnc_of(st)));
}

/* A state change's tnc, reason and event; -1 when its reason is not JSON. */
static int add_state(json_t *o, const struct db_webhook_message *m)
{
	json_t *reason = json_null();
	int rc = 0;

	if (m->reason != NULL) {
		reason = json_loads(m->reason, JSON_DECODE_ANY, NULL);
		if (reason == NULL)
			return -1;
	}
	/* one statement a key: the order of the keys is the body's */
	rc |= put(o, "tnc", tnc_of(m->to_state));
	rc |= put(o, "reason", reason);
	rc |= put(o, "at", json_integer(m->at));
	rc |= put(o, "event", json_integer(m->event));
	return rc;
}

/* A removal's tnc, reason (its audit row's action and operator), audit. */
static int add_removed(json_t *o, const struct db_webhook_message *m)
{
	json_t *reason = json_object();
	int rc = 0;

	if (reason == NULL)
		return -1;
	rc |= put(reason, "action", text_or_null(m->action));
	rc |= put(reason, "operator", text_or_null(m->op_name));
	rc |= put(o, "tnc", json_string(transition_tnc_name(TNC_NONE)));
	rc |= put(o, "reason", reason);
	rc |= put(o, "at", json_integer(m->at));
	rc |= put(o, "event", json_null());
	rc |= put(o, "audit", json_integer(m->audit));
	return rc;
}

/* The keys both kinds begin with. */
static int add_common(json_t *o, const struct db_webhook_message *m)
{
	char id[WEBHOOK_ID_MAX];
	int rc = 0;

	webhook_id(m, id, sizeof(id));
	rc |= put(o, "id", json_string(id));
	rc |= put(o, "type", json_string(m->type));
	rc |= put(o, "machine", text_or_null(m->machine_id));
	rc |= put(o, "from", text_or_null(m->from_state));
	rc |= put(o, "to", text_or_null(m->to_state));
	return rc;
}

/* The body from @m's facts, keys in their order; NULL with @why. */
static char *build(const struct db_webhook_message *m, char *why, size_t whylen)
{
	json_t *o = json_object();
	char *text = NULL;
	int state = strcmp(m->type, "machine.state") == 0;

	if (!state && strcmp(m->type, "machine.removed") != 0) {
		snprintf(why, whylen, "unknown message type %s", m->type);
		goto out;
	}
	if (o == NULL || add_common(o, m) < 0 ||
	    (state ? add_state(o, m) : add_removed(o, m)) < 0) {
		snprintf(why, whylen,
			 "its facts make no JSON (a reason not JSON, text not UTF-8, or out of memory)");
		goto out;
	}
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (text == NULL)
		snprintf(why, whylen, "out of memory");
out:
	json_decref(o);
	return text;
}

char *webhook_body(const struct db_webhook_message *m, char *why, size_t whylen)
{
	char *text;

	if (m->body != NULL) {
		/* queued before schema 0020: sent as stored */
		text = strdup(m->body);
		if (text == NULL)
			snprintf(why, whylen, "out of memory");
		return text;
	}
	if (m->type == NULL) {
		snprintf(why, whylen, "neither a body nor a type");
		return NULL;
	}
	return build(m, why, whylen);
}

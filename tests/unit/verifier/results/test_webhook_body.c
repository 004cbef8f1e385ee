// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_webhook_body.c - the body a webhook receiver gets, written in C at
 * delivery from the outbox's facts (schema 0020): byte for byte what the
 * triggers of 0010/0011 composed with SQLite's json_object() (run here
 * on the same facts), valid against openapi.json's WebhookMessage, the
 * TNC recommendation the state table's; a body stored before 0020 sent
 * as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>
#include <sqlite3.h>

#include "../../../tools/openapi_schema.h"
#include "transition.h"
#include "webhook_body.h"

#define SPEC FIXTURE_DIR "/../../verifier/api/openapi.json"

/* What 0011's events_webhook and audit_webhook composed, then named. */
static const char sql_state_0011[] =
	"SELECT json_set(json_object('id', NULL, 'type', 'machine.state', "
	"'machine', ?1, 'from', ?2, 'to', ?3, 'tnc', ?4, "
	"'reason', json(?5), 'at', ?6, 'event', ?7), '$.id', ?8)";
static const char sql_removed_0011[] =
	"SELECT json_set(json_object('id', NULL, 'type', 'machine.removed', "
	"'machine', ?1, 'from', ?2, 'to', NULL, "
	"'tnc', 'no_recommendation', 'reason', json_object('action', ?3, "
	"'operator', ?4), 'at', ?5, 'event', NULL, 'audit', ?6), "
	"'$.id', ?7)";

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s != NULL)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

/* The body SQLite's triggers wrote for @m, named @id; the caller frees. */
static char *body_0011(const struct db_webhook_message *m, const char *id)
{
	int state = strcmp(m->type, "machine.state") == 0;
	enum db_machine_state st = DB_STATE_ENROLLING;
	sqlite3_stmt *s;
	sqlite3 *db;
	char *out;

	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    state ? sql_state_0011 :
						    sql_removed_0011,
					    -1, &s, NULL),
			 SQLITE_OK);
	bind_text(s, 1, m->machine_id);
	bind_text(s, 2, m->from_state);
	if (state) {
		assert_int_equal(db_machine_state_parse(m->to_state, &st), 0);
		bind_text(s, 3, m->to_state);
		bind_text(s, 4, transition_tnc_name(transition_tnc_of(st)));
		bind_text(s, 5, m->reason);
		sqlite3_bind_int64(s, 6, m->at);
		sqlite3_bind_int64(s, 7, m->event);
		bind_text(s, 8, id);
	} else {
		bind_text(s, 3, m->action);
		bind_text(s, 4, m->op_name);
		sqlite3_bind_int64(s, 5, m->at);
		sqlite3_bind_int64(s, 6, m->audit);
		bind_text(s, 7, id);
	}
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	out = strdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return out;
}

static json_t *spec(void)
{
	static json_t *doc;
	json_error_t jerr;

	if (doc == NULL)
		doc = json_load_file(SPEC, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL)
		fail_msg("%s:%d: %s", SPEC, jerr.line, jerr.text);
	return doc;
}

/* Is @text a WebhookMessage as openapi.json has it? 0, or -1 with @why. */
static int oas_valid(const char *text, char *why, size_t n)
{
	struct oas_ctx c = { .spec = spec() };
	json_t *schema = oas_ref(&c, "#/components/schemas/WebhookMessage");
	json_t *v = json_loads(text, 0, NULL);
	int rc;

	assert_non_null(schema);
	assert_non_null(v);
	rc = oas_check(&c, schema, v);
	snprintf(why, n, "%s", c.why);
	json_decref(v);
	return rc;
}

static void assert_valid(const char *text)
{
	char why[512];

	if (oas_valid(text, why, sizeof(why)) < 0)
		fail_msg("%s: %s", text, why);
}

/* webhook_body() of @m: the old triggers' bytes, and a valid message. */
static void check(const struct db_webhook_message *m, const char *expect)
{
	char why[256] = "", id[WEBHOOK_ID_MAX];
	char *body = webhook_body(m, why, sizeof(why));
	char *old;

	if (body == NULL)
		fail_msg("no body: %s", why);
	webhook_id(m, id, sizeof(id));
	old = body_0011(m, id);
	assert_string_equal(body, old);
	if (expect != NULL)
		assert_string_equal(body, expect);
	assert_valid(body);
	free(old);
	free(body);
}

static const struct db_webhook_message state_change = {
	.seq = 17,
	.endpoint = "nac",
	.machine_id = "web-3",
	.type = "machine.state",
	.from_state = "trusted",
	.to_state = "untrusted",
	.reason = "{\"check\":\"records\",\"path\":\"/usr/bin/evil\"}",
	.at = 1733350000,
	.event = 412,
};

/* verifier/README.md's example, and every state's recommendation. */
static void test_state(void **state)
{
	static const char *const states[] = {
		"enrolling", "pending", "trusted",
		"untrusted", "failed",	"stale",
	};
	struct db_webhook_message m = state_change;
	size_t i;

	(void)state;
	check(&m, "{\"id\":\"nac-17\",\"type\":\"machine.state\","
		  "\"machine\":\"web-3\",\"from\":\"trusted\","
		  "\"to\":\"untrusted\",\"tnc\":\"isolate\","
		  "\"reason\":{\"check\":\"records\","
		  "\"path\":\"/usr/bin/evil\"},"
		  "\"at\":1733350000,\"event\":412}");
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		m.to_state = states[i];
		check(&m, NULL);
	}
}

/*
 * A reason as the verifier writes one (jansson, compact: judge.c,
 * change.c): UTF-8 as is, jansson's escapes, numbers, nesting; the same
 * bytes as SQLite's json() of it. One written with escapes jansson does
 * not use (\u00e9 for an e acute) arrives as the same JSON value, the
 * character itself.
 */
static void test_reasons(void **state)
{
	struct db_webhook_message m = state_change;
	json_t *r = json_pack("{s:s, s:s, s:[i, i, b, n], s:{s:s}}", "check",
			      "records", "path",
			      "/opt/caf\xc3\xa9 \x01\t\"\\/\xf0\x9f\x94\x91",
			      "n", 1, -2, 1, "detail", "why", "line\nbreak");
	char why[256], *body, *text;
	json_t *a, *b;

	(void)state;
	assert_non_null(r);
	text = json_dumps(r, JSON_COMPACT | JSON_PRESERVE_ORDER);
	m.reason = text;
	check(&m, NULL);
	json_decref(r);
	free(text);
	m.reason = "{ \"path\" : \"caf\\u00e9\" }";
	body = webhook_body(&m, why, sizeof(why));
	assert_non_null(body);
	assert_non_null(strstr(body, "\"reason\":{\"path\":\"caf\xc3\xa9\"}"));
	a = json_loads(body, 0, NULL);
	text = body_0011(&m, "nac-17");
	b = json_loads(text, 0, NULL);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	free(text);
	free(body);
}

/* A new machine: from and reason null. */
static void test_new_machine(void **state)
{
	struct db_webhook_message m = state_change;

	(void)state;
	m.from_state = NULL;
	m.to_state = "pending";
	m.reason = NULL;
	m.seq = 1;
	check(&m, "{\"id\":\"nac-1\",\"type\":\"machine.state\","
		  "\"machine\":\"web-3\",\"from\":null,\"to\":\"pending\","
		  "\"tnc\":\"no_recommendation\",\"reason\":null,"
		  "\"at\":1733350000,\"event\":412}");
}

/* An operator's removal and a pending machine's expiry. */
static void test_removed(void **state)
{
	struct db_webhook_message m = {
		.seq = 3,
		.endpoint = "pager.1",
		.machine_id = "m1",
		.type = "machine.removed",
		.from_state = "trusted",
		.action = "remove",
		.op_name = "ops",
		.at = 1700000005,
		.audit = 9,
	};

	(void)state;
	check(&m, "{\"id\":\"pager.1-3\",\"type\":\"machine.removed\","
		  "\"machine\":\"m1\",\"from\":\"trusted\",\"to\":null,"
		  "\"tnc\":\"no_recommendation\","
		  "\"reason\":{\"action\":\"remove\",\"operator\":\"ops\"},"
		  "\"at\":1700000005,\"event\":null,\"audit\":9}");
	m.from_state = "pending";
	m.action = "pending-expired";
	m.op_name = NULL;
	check(&m, NULL);
}

/* A body stored before schema 0020 goes as it is, whatever its spacing. */
static void test_stored(void **state)
{
	static const char stored[] = "{\"at\": 1, \"id\": \"nac-7\"}";
	struct db_webhook_message m = state_change;
	char why[512];
	char *body;

	(void)state;
	m.body = stored;
	m.type = NULL;
	body = webhook_body(&m, why, sizeof(why));
	assert_string_equal(body, stored);
	free(body);
	/* (and the document's check bites: this one lacks most keys) */
	assert_int_equal(oas_valid(stored, why, sizeof(why)), -1);
}

/* No body can be written: NULL, saying why; the message is not sent. */
static void test_refused(void **state)
{
	struct db_webhook_message m = state_change;
	char why[256] = "";

	(void)state;
	m.reason = "{\"check\":";
	assert_null(webhook_body(&m, why, sizeof(why)));
	assert_non_null(strstr(why, "reason"));
	m = state_change;
	m.type = "machine.moved";
	assert_null(webhook_body(&m, why, sizeof(why)));
	assert_non_null(strstr(why, "machine.moved"));
	m.type = NULL;
	assert_null(webhook_body(&m, why, sizeof(why)));
	m = state_change;
	m.op_name = NULL;
	m.machine_id = "\xff";
	assert_null(webhook_body(&m, why, sizeof(why)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_new_machine),
		cmocka_unit_test(test_removed),
		cmocka_unit_test(test_stored),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

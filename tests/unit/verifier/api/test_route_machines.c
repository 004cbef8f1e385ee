// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_machines.c - the operator's machine routes: token, shapes,
 * 404s, paging and filters (through the real HTTPS front), approval.
 */
#include <errno.h>
#include <pthread.h>

#include "db_boot.h"
#include "db_machine.h"
#include "db_ref.h"
#include "verifier_test.h"
#include "result_key.h"
#include "result_keys.h"

/* test_fpr_of("node-a"), and "node-c" in upper case, as hex */
#define FPR_A "6e6f64652d61f6f7f8f9fafbfcfdfefff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define FPR_C_UPPER \
	"6E6F64652D63F6F7F8F9FAFBFCFDFEFFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"

static int setup(void **state)
{
	struct tv *t = tv_new();

	tv_machine(t, "node-a", DB_STATE_TRUSTED);
	tv_machine(t, "node-b", DB_STATE_UNTRUSTED);
	tv_machine(t, "node-c", DB_STATE_PENDING);
	tv_machine(t, "node-d", DB_STATE_FAILED);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	tv_free(*state);
	return 0;
}

static const struct {
	tv_handler h;
	const char *param;
} operator_routes[] = {
	{ route_machines_list, NULL },
	{ route_machines_get, "node-a" },
	{ route_machines_events, "node-a" },
	{ route_machines_records, "node-a" },
	{ route_machines_approve, "node-c" },
	{ route_machines_add, NULL },
	{ route_machines_remove, "node-a" },
	{ route_audit, NULL },
	{ route_refs_list, NULL },
	{ route_refs_import, NULL },
	{ route_refs_delete, NULL },
};

static void test_token_required(void **state)
{
	static const char *const bad[] = {
		NULL,
		"",
		"Bearer",
		"Bearer ",
		"Basic " TV_TOKEN,
		"Bearer 0123456789abcdef0123456789abcdeX",
		"Bearer short",
		"Bearer" TV_TOKEN,
	};
	struct tv *t = *state;
	unsigned int status;
	size_t i, j;
	json_t *a;

	for (i = 0; i < sizeof(operator_routes) / sizeof(operator_routes[0]);
	     i++) {
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			a = tv_call(t, operator_routes[i].h,
				    operator_routes[i].param, "{\"v\":1}",
				    bad[j], &status);
			assert_int_equal(status, 401);
			assert_non_null(strstr(tv_msg(a), "Bearer"));
			json_decref(a);
		}
	}
	/* nothing was approved by the refused calls */
	assert_int_equal(tv_state(t, "node-c"), DB_STATE_PENDING);
	/* the scheme is case-insensitive (RFC 7235) */
	a = tv_call(t, route_machines_list, NULL, NULL, "bearer " TV_TOKEN,
		    &status);
	assert_int_equal(status, 200);
	json_decref(a);
}

static const struct {
	const char *id, *state, *tnc;
} fleet[] = {
	{ "node-a", "trusted", "allow" },
	{ "node-b", "untrusted", "isolate" },
	{ "node-c", "pending", "no_recommendation" },
	{ "node-d", "failed", "no_access" },
};

static void test_list(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *ms, *m;
	size_t i;

	a = tv_call(t, route_machines_list, NULL, NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(a, "v")), 1);
	ms = json_object_get(a, "machines");
	assert_int_equal(json_array_size(ms), 4);
	assert_true(json_is_null(json_object_get(a, "next")));
	for (i = 0; i < 4; i++) {
		m = json_array_get(ms, i);
		assert_string_equal(json_string_value(json_object_get(m, "id")),
				    fleet[i].id);
		assert_string_equal(json_string_value(
					    json_object_get(m, "state")),
				    fleet[i].state);
		assert_string_equal(json_string_value(
					    json_object_get(m, "tnc")),
				    fleet[i].tnc);
		assert_true(json_is_integer(json_object_get(m, "created_at")));
		assert_true(json_is_boolean(json_object_get(m, "approved")));
		assert_true(json_is_null(json_object_get(m, "last_seen")));
	}
	/* the stored reason comes back as JSON, not as a string */
	m = json_array_get(ms, 0);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(m,
								    "state_reason"),
						    "check")),
			    "test");
	json_decref(a);
}

static void test_get_and_404(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/usr/bin/bash", 2, DB_VERDICT_KNOWN },
	};
	static const uint8_t anchor[32] = { 0x0a };
	struct tv *t = *state;
	struct imt_error err;
	unsigned int status;
	json_t *a, *boot, *history;
	int64_t boot_id;
	size_t i;

	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_true(json_is_null(json_object_get(a, "boot")));
	json_decref(a);

	boot_id = tv_boot(t, "node-a", recs, 2);
	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	boot = json_object_get(a, "boot");
	assert_int_equal(json_integer_value(
				 json_object_get(boot, "next_record_index")),
			 2);
	assert_int_equal(json_integer_value(
				 json_object_get(boot, "reset_count")),
			 1);
	assert_int_equal(strlen(json_string_value(
				 json_object_get(json_object_get(boot, "pcr10"),
						 "sha256"))),
			 64);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(a,
								    "machine"),
						    "id")),
			    "node-a");
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(a, "machine"),
						 "last_seen")),
			 TV_NOW + 1);
	assert_true(json_is_null(json_object_get(boot, "history")));
	json_decref(a);

	/* records 2..4 deleted before they were stored: the boot says so */
	assert_int_equal(db_boot_history_gap(t->v.db, boot_id, 2, 5, anchor, 32,
					     &err),
			 0);
	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	history = json_object_get(json_object_get(a, "boot"), "history");
	assert_int_equal(json_integer_value(
				 json_object_get(history, "deleted_from")),
			 2);
	assert_int_equal(json_integer_value(
				 json_object_get(history, "deleted_to")),
			 5);
	assert_true(json_is_true(json_object_get(history, "after_stored")));
	json_decref(a);

	for (i = 1; i < 4; i++) {
		a = tv_call(t, operator_routes[i].h, "nobody", NULL, TV_AUTH,
			    &status);
		assert_int_equal(status, 404);
		assert_non_null(strstr(tv_msg(a), "nobody"));
		json_decref(a);
	}
}

static void test_events(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *ev, *e;

	a = tv_call(t, route_machines_events, "node-b", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	ev = json_object_get(a, "events");
	assert_int_equal(json_array_size(ev), 2); /* enrolled, state */
	e = json_array_get(ev, 1);
	assert_string_equal(json_string_value(json_object_get(e, "kind")),
			    "state");
	assert_string_equal(json_string_value(json_object_get(e, "from")),
			    "enrolling");
	assert_string_equal(json_string_value(json_object_get(e, "to")),
			    "untrusted");
	assert_true(json_is_object(json_object_get(e, "reason")));
	assert_true(
		json_is_null(json_object_get(json_array_get(ev, 0), "from")));
	json_decref(a);
}

static void test_approve(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *ev;

	/* the EK fingerprint is required, and must be node-c's */
	a = tv_call(t, route_machines_approve, "node-c", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 400);
	assert_non_null(strstr(tv_msg(a), "fingerprint"));
	json_decref(a);
	a = tv_call(t, route_machines_approve, "node-c",
		    "{\"v\":1,\"ek\":\"" FPR_A "\"}", TV_AUTH, &status);
	assert_int_equal(status, 409);
	assert_non_null(strstr(tv_msg(a), "another fingerprint"));
	json_decref(a);
	assert_int_equal(tv_state(t, "node-c"), DB_STATE_PENDING);
	a = tv_call(t, route_machines_approve, "node-c",
		    "{\"v\":1,\"ek\":\"sha256:" FPR_C_UPPER "\"}", TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(a,
								    "machine"),
						    "state")),
			    "enrolling");
	assert_true(json_is_true(
		json_object_get(json_object_get(a, "machine"), "approved")));
	assert_string_equal(json_string_value(
				    json_object_get(a, "approved_by")),
			    "alice");
	json_decref(a);

	a = tv_call(t, route_machines_events, "node-c", NULL, TV_AUTH, &status);
	ev = json_object_get(a, "events");
	assert_string_equal(json_string_value(
				    json_object_get(json_array_get(ev, 1),
						    "kind")),
			    "approved");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(json_array_get(ev,
										   1),
								    "reason"),
						    "operator")),
			    "alice");
	json_decref(a);
}

static void test_remove_and_audit(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/usr/bin/a", 2, DB_VERDICT_KNOWN },
	};
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *r, *e;

	tv_boot(t, "node-b", recs, 2);
	a = tv_call(t, route_machines_remove, "node-b", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	r = json_object_get(a, "removed");
	assert_true(json_is_true(json_object_get(r, "machine")));
	assert_int_equal(json_integer_value(json_object_get(r, "records")), 2);
	json_decref(a);
	a = tv_call(t, route_machines_get, "node-b", NULL, TV_AUTH, &status);
	assert_int_equal(status, 404);
	json_decref(a);
	a = tv_call(t, route_machines_events, "node-b", NULL, TV_AUTH, &status);
	assert_int_equal(status, 404);
	json_decref(a);
	/* the audit trail keeps it, with the operator's name */
	a = tv_call(t, route_audit, NULL, NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	e = json_array_get(json_object_get(a, "audit"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "action")),
			    "remove");
	assert_string_equal(json_string_value(json_object_get(e, "machine")),
			    "node-b");
	assert_string_equal(json_string_value(json_object_get(e, "operator")),
			    "alice");
	assert_int_equal(json_integer_value(
				 json_object_get(json_object_get(e, "detail"),
						 "boots")),
			 1);
	json_decref(a);
	a = tv_call(t, route_machines_remove, "node-b", NULL, TV_AUTH, &status);
	assert_int_equal(status, 404);
	json_decref(a);
}

/* Paging and filters need query arguments: through the real server. */
static void test_paging_over_https(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/usr/bin/a", 2, DB_VERDICT_KNOWN },
		{ "/usr/bin/b", 3, DB_VERDICT_UNKNOWN },
		{ "/usr/bin/c", 4, DB_VERDICT_KNOWN },
		{ "/usr/bin/d", 5, DB_VERDICT_MISMATCH },
		{ "/usr/bin/e", 6, DB_VERDICT_UNKNOWN },
	};
	struct tv *t = *state;
	json_t *a, *r;
	long status;

	tv_serve(t);
	tv_boot(t, "node-b", recs, 6);
	a = tv_get(t, "GET", "/v1/machines?limit=3", NULL, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "machines")), 3);
	assert_string_equal(json_string_value(json_object_get(a, "next")),
			    "node-c");
	json_decref(a);
	a = tv_get(t, "GET", "/v1/machines?limit=3&after=node-c", NULL,
		   &status);
	assert_int_equal(json_array_size(json_object_get(a, "machines")), 1);
	assert_true(json_is_null(json_object_get(a, "next")));
	json_decref(a);

	a = tv_get(t, "GET", "/v1/machines/node-b/records?limit=4", NULL,
		   &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "records")), 4);
	assert_int_equal(json_integer_value(json_object_get(a, "next")), 4);
	r = json_array_get(json_object_get(a, "records"), 2);
	assert_string_equal(json_string_value(json_object_get(r, "path")),
			    "/usr/bin/b");
	assert_string_equal(json_string_value(json_object_get(r, "digest")),
			    "0303030303030303030303030303030303030303030303030303030303030303");
	json_decref(a);
	a = tv_get(t, "GET", "/v1/machines/node-b/records?from=4", NULL,
		   &status);
	assert_int_equal(json_array_size(json_object_get(a, "records")), 2);
	assert_true(json_is_null(json_object_get(a, "next")));
	json_decref(a);

	a = tv_get(t, "GET", "/v1/machines/node-b/records?verdict=unknown",
		   NULL, &status);
	assert_int_equal(json_array_size(json_object_get(a, "records")), 2);
	json_decref(a);
	a = tv_get(t, "GET",
		   "/v1/machines/node-b/records?verdict=known&limit=1", NULL,
		   &status);
	assert_int_equal(json_array_size(json_object_get(a, "records")), 1);
	assert_int_equal(json_integer_value(json_object_get(a, "next")), 2);
	json_decref(a);

	a = tv_get(t, "GET", "/v1/machines/node-b/events?after=1&limit=1", NULL,
		   &status);
	assert_int_equal(json_array_size(json_object_get(a, "events")), 1);
	json_decref(a);
}

/* GET .../records?limit=&from=: @n records, next (-1: null), truncated. */
static void assert_records_page(struct tv *t, const char *query, size_t n,
				json_int_t next, int truncated)
{
	char path[128];
	json_t *a, *r;
	long status;

	snprintf(path, sizeof(path), "/v1/machines/node-a/records?%s", query);
	a = tv_get(t, "GET", path, NULL, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "records")), n);
	if (next < 0)
		assert_true(json_is_null(json_object_get(a, "next")));
	else
		assert_int_equal(json_integer_value(json_object_get(a, "next")),
				 next);
	assert_int_equal(json_is_true(json_object_get(a, "truncated")),
			 truncated);
	/* every record of the page is explained, the last one too */
	r = json_array_get(json_object_get(a, "records"), n - 1);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(r,
								    "accepted_by"),
						    "source")),
			    "dir-tree:t");
	json_decref(a);
}

/*
 * A page explains at most RECORDS_EXPLAIN_MAX (200) records (issue #33):
 * a larger ?limit= gets 200, "next" and "truncated"; paging on from
 * there lists the rest.
 */
static void test_records_explain_cap(void **state)
{
	static char paths[450][32];
	static struct tv_record recs[450];
	const struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
					   .name = "t" };
	struct tv *t = *state;
	struct imt_error err;
	uint8_t d[32];
	size_t i;

	for (i = 0; i < 450; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/usr/bin/p%zu", i);
		recs[i] = (struct tv_record){ paths[i], (uint8_t)i,
					      DB_VERDICT_KNOWN };
		tv_digest((uint8_t)i, d);
		assert_int_equal(db_ref_add(t->v.db, &src, paths[i], "sha256",
					    d, 32, TV_NOW, &err),
				 0);
	}
	tv_serve(t);
	tv_boot(t, "node-a", recs, 450);
	assert_records_page(t, "limit=1000", 200, 200, 1);
	assert_records_page(t, "limit=1000&from=200", 200, 400, 1);
	assert_records_page(t, "limit=1000&from=400", 50, -1, 0);
	/* the cap itself, or less, truncates nothing */
	assert_records_page(t, "limit=200", 200, 200, 0);
	assert_records_page(t, "limit=10&from=5", 10, 15, 0);
}

/*
 * One route called on a thread of its own, as the server calls it for
 * @method (test_reads_beside_writer, test_writes_beside_reader).
 */
struct read_call {
	struct tv *t;
	tv_handler h;
	const char *param;
	unsigned int status;
	pthread_mutex_t m;
	pthread_cond_t c;
	int done;
	const char *method; /* NULL: GET */
	const char *body;
};

static void *read_thread(void *arg)
{
	struct read_call *rc = arg;
	struct http_request req = { 0 };
	struct http_response res = { .status = 200 };

	req.method = rc->method != NULL ? rc->method : "GET";
	req.body = rc->body != NULL ? rc->body : "";
	req.body_len = strlen(req.body);
	req.authorization = TV_AUTH;
	if (rc->param != NULL) {
		snprintf(req.params[0], sizeof(req.params[0]), "%s", rc->param);
		req.nparams = 1;
	}
	rc->h(&rc->t->v, &req, &res);
	free(res.body);
	pthread_mutex_lock(&rc->m);
	rc->status = res.status;
	rc->done = 1;
	pthread_cond_signal(&rc->c);
	pthread_mutex_unlock(&rc->m);
	return NULL;
}

/* 1 when @rc's route answered within @secs, v->lock held by the caller. */
static int answers_within(struct read_call *rc, int secs)
{
	struct timespec until;
	int rc_wait = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += secs;
	pthread_mutex_lock(&rc->m);
	while (!rc->done && rc_wait != ETIMEDOUT)
		rc_wait = pthread_cond_timedwait(&rc->c, &rc->m, &until);
	pthread_mutex_unlock(&rc->m);
	return rc->done;
}

/*
 * Issue #33: with v->lock held (the evidence path judging and writing),
 * every read route still answers, from its own connection and lock.
 */
static void test_reads_beside_writer(void **state)
{
	static const struct {
		tv_handler h;
		const char *param;
		const char *name;
		unsigned int want; /* the answer's status */
	} reads[] = {
		{ route_machines_list, NULL, "machines", 200 },
		{ route_machines_get, "node-a", "machine", 200 },
		{ route_machines_events, "node-a", "events", 200 },
		{ route_machines_records, "node-a", "records", 200 },
		/* no log was sent: its answer, not the lock's */
		{ route_machines_boot_log, "node-a", "boot-log", 404 },
		{ route_audit, NULL, "audit", 200 },
		{ route_refs_list, NULL, "references", 200 },
		{ route_sources_list, NULL, "sources", 200 },
		{ route_policies_list, NULL, "policies", 200 },
		{ route_policies_get, "default", "policy", 200 },
		{ route_export_keylime, "default", "keylime export", 200 },
		{ route_machines_result, "node-a", "result", 200 },
		{ route_keys_list, NULL, "keys", 200 },
		{ route_webhooks_list, NULL, "webhooks", 200 },
		{ route_metrics, NULL, "metrics", 200 },
	};
	static const struct tv_record recs[] = {
		{ "/usr/bin/a", 1, DB_VERDICT_KNOWN },
		{ "/usr/bin/b", 2, DB_VERDICT_UNKNOWN },
	};
	const struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
					   .name = "t" };
	struct tv *t = *state;
	struct imt_error err;
	pthread_t th;
	uint8_t d[32];
	size_t i;

	tv_digest(1, d);
	assert_int_equal(db_ref_add(t->v.db, &src, "/usr/bin/a", "sha256", d,
				    32, TV_NOW, &err),
			 0);
	tv_boot(t, "node-a", recs, 2);
	t->v.result_keys = result_keys_of(result_key_from_pkey(
		EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256")));
	assert_non_null(t->v.result_keys);
	for (i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		struct read_call rc = { t,
					reads[i].h,
					reads[i].param,
					0,
					PTHREAD_MUTEX_INITIALIZER,
					PTHREAD_COND_INITIALIZER,
					0,
					NULL,
					NULL };
		int answered;

		pthread_mutex_lock(&t->v.lock); /* the writer, busy */
		assert_int_equal(pthread_create(&th, NULL, read_thread, &rc),
				 0);
		answered = answers_within(&rc, 5);
		pthread_mutex_unlock(&t->v.lock);
		pthread_join(th, NULL);
		if (!answered)
			fail_msg("%s waited for the writer's lock",
				 reads[i].name);
		if (rc.status != reads[i].want)
			fail_msg("%s: status %u", reads[i].name, rc.status);
	}
	result_keys_close(t->v.result_keys);
	t->v.result_keys = NULL;
}

/*
 * Issue #33, the other way: with the read view's lock held (a long read),
 * a write (its token checked too) goes on, on the writer's connection.
 */
static void test_writes_beside_reader(void **state)
{
	struct tv *t = *state;
	struct read_call rc = {
		t,
		route_policies_put,
		"lab",
		0,
		PTHREAD_MUTEX_INITIALIZER,
		PTHREAD_COND_INITIALIZER,
		0,
		"PUT",
		"{\"machines\":[\"node-a\"],\"sources\":[\"*\"]}"
	};
	pthread_t th;
	int answered;

	assert_non_null(t->v.reader);
	pthread_mutex_lock(&t->v.reader->lock); /* a reader, busy */
	assert_int_equal(pthread_create(&th, NULL, read_thread, &rc), 0);
	answered = answers_within(&rc, 5);
	pthread_mutex_unlock(&t->v.reader->lock);
	pthread_join(th, NULL);
	if (!answered)
		fail_msg("PUT /v1/policies/lab waited for a read");
	assert_int_equal(rc.status, 201);
}

/* The "policy" GET /v1/machines/node-a names. */
static char *policy_of_a(struct tv *t)
{
	unsigned int status;
	json_t *a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH,
			    &status);
	char *name;

	assert_int_equal(status, 200);
	name = strdup(json_string_value(json_object_get(a, "policy")));
	json_decref(a);
	return name;
}

/*
 * The read view's policies are its own: a policy the writer stores is
 * the one the next read names, not the view's copy from before.
 */
static void test_reads_see_policy_change(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	char *name = policy_of_a(t);
	json_t *a;

	assert_string_equal(name, "default");
	free(name);
	a = tv_call(t, route_policies_put, "lab",
		    "{\"machines\":"
		    "[\"node-a\"],\"sources\":[\"*\"]}",
		    TV_AUTH, &status);
	json_decref(a);
	assert_int_equal(status, 201);
	name = policy_of_a(t);
	assert_string_equal(name, "lab");
	free(name);
}

static void test_bad_queries(void **state)
{
	static const char *const bad[] = {
		"/v1/machines?limit=0",
		"/v1/machines?limit=1001",
		"/v1/machines?limit=x",
		"/v1/machines?limit=-1",
		"/v1/machines/node-a/events?after=1x",
		"/v1/machines/node-a/records?verdict=good",
		"/v1/machines/node-a/records?from=99999999999999999999",
	};
	struct tv *t = *state;
	long status;
	size_t i;
	json_t *a;

	tv_serve(t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = tv_get(t, "GET", bad[i], NULL, &status);
		assert_int_equal(status, 400);
		assert_non_null(json_object_get(a, "error"));
		json_decref(a);
	}
	/* no token through the server either */
	{
		char *text;

		status = tv_http(t, "GET", "/v1/machines", NULL, NULL, &text,
				 NULL, 0);
		assert_int_equal(status, 401);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_token_required, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_and_404, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_approve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_and_audit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_paging_over_https, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_records_explain_cap, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_queries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reads_beside_writer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reads_see_policy_change,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_writes_beside_reader,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_refs.c - reference import, listing and deletion: counts,
 * replace, bad input that stores nothing, limits, the token; evidence
 * answered while a big import is stored chunk by chunk.
 */
#include <errno.h>
#include <pthread.h>

#include "db_boot.h"
#include "db_machine.h"
#include "db_ref.h"
#include "judge.h"
#include "rejudge.h"
#include "verifier_test.h"

#define D2 "0202020202020202020202020202020202020202020202020202020202020202"
#define D3 "0303030303030303030303030303030303030303030303030303030303030303"
#define SHA1 "0101010101010101010101010101010101010101"
#define SRC "\"source\":{\"kind\":\"deb\",\"name\":\"bash_5.2.deb\"}"

static int setup(void **state)
{
	*state = tv_new();
	return 0;
}

static int teardown(void **state)
{
	tv_free(*state);
	return 0;
}

/* How many references the database holds. */
static size_t nrefs(struct tv *t)
{
	unsigned int status;
	json_t *a = tv_call(t, route_refs_list, NULL, NULL, TV_AUTH, &status);
	size_t n;

	assert_int_equal(status, 200);
	n = json_array_size(json_object_get(a, "refs"));
	json_decref(a);
	return n;
}

static json_t *import(struct tv *t, const char *body, unsigned int *status)
{
	return tv_call(t, route_refs_import, NULL, body, TV_AUTH, status);
}

static void test_import_and_list(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *r;

	a = import(t,
		   "{\"v\":1," SRC ",\"refs\":["
		   "{\"path\":\"/usr/bin/bash\",\"algo\":\"sha256\","
		   "\"digest\":\"" D2 "\"},"
		   "{\"path\":\"/usr/bin/sh\",\"algo\":\"sha1\","
		   "\"digest\":\"" SHA1 "\"}]}",
		   &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(a, "added")), 2);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_trusted")),
			 0);
	json_decref(a);
	assert_int_equal(nrefs(t), 2);

	a = tv_call(t, route_refs_list, NULL, NULL, TV_AUTH, &status);
	r = json_array_get(json_object_get(a, "refs"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "path")),
			    "/usr/bin/bash");
	assert_string_equal(json_string_value(json_object_get(r, "digest")),
			    D2);
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(r, "source"),
						    "kind")),
			    "deb");
	assert_true(json_is_null(json_object_get(a, "next")));
	json_decref(a);
}

static void test_replace(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	a = import(t,
		   "{\"v\":1," SRC ",\"refs\":["
		   "{\"path\":\"/a\",\"algo\":\"sha256\",\"digest\":\"" D2
		   "\"},{\"path\":\"/b\",\"algo\":\"sha256\",\"digest\":\"" D2
		   "\"}]}",
		   &status);
	json_decref(a);
	a = import(t,
		   "{\"v\":1," SRC ",\"replace\":true,\"refs\":["
		   "{\"path\":\"/c\",\"algo\":\"sha256\",\"digest\":\"" D3
		   "\"}]}",
		   &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(a, "withdrawn")),
			 2);
	json_decref(a);
	assert_int_equal(nrefs(t), 1);
}

/* Each of these is refused with 4xx and leaves the one stored ref. */
static const struct {
	const char *body;
	unsigned int status;
	const char *msg;
} bad_imports[] = {
	{ "not json", 400, "not a JSON object" },
	{ "[1]", 400, "not a JSON object" },
	{ "{\"v\":2," SRC ",\"refs\":[]}", 400, "\"v\"" },
	{ "{\"v\":1,\"refs\":[]}", 400, "needs \"source\"" },
	{ "{\"v\":1," SRC "}", 400, "needs \"source\" and \"refs\"" },
	{ "{\"v\":1," SRC ",\"refs\":[],\"x\":1}", 400, "unknown field" },
	{ "{\"v\":1,\"source\":{\"kind\":\"rpm\",\"name\":\"x\"},"
	  "\"refs\":[]}",
	  400, "kind" },
	{ "{\"v\":1,\"source\":{\"kind\":\"deb\",\"name\":\"\"},"
	  "\"refs\":[]}",
	  400, "name" },
	{ "{\"v\":1," SRC ",\"replace\":1,\"refs\":[]}", 400, "replace" },
	{ "{\"v\":1," SRC ",\"refs\":{}}", 400, "array" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/x\",\"algo\":\"sha256\","
	  "\"digest\":\"" D2 "\"},{\"path\":\"/y\",\"algo\":\"sha256\","
	  "\"digest\":\"02\"}]}",
	  400, "refs[1]: \"digest\"" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/x\",\"algo\":\"sha256\","
	  "\"digest\":\"" D2 "\"},{\"path\":\"/y\",\"algo\":\"md6\","
	  "\"digest\":\"" D2 "\"}]}",
	  400, "refs[1]: \"algo\"" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"x\",\"algo\":\"sha256\","
	  "\"digest\":\"" D2 "\"}]}",
	  400, "refs[0]: \"path\"" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/x\\u0000y\",\"algo\":"
	  "\"sha256\",\"digest\":\"" D2 "\"}]}",
	  400, "\\u0000 is not allowed" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/x\",\"algo\":\"sha256\","
	  "\"digest\":\"" D2 "\",\"size\":3}]}",
	  400, "refs[0]" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/x\",\"algo\":\"sha256\","
	  "\"digest\":\"" D3 "\"}],\"replace\":true,\"v\":1}",
	  400, "not a JSON object" },
	{ "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/x\",\"algo\":\"sha256\","
	  "\"digest\":\"" D2 "\"},{\"path\":\"/keep\",\"algo\":\"sha256\","
	  "\"digest\":\"zz" D3 "\"}]}",
	  400, "refs[1]" },
	/* a replace with a bad entry withdraws nothing */
	{ "{\"v\":1," SRC ",\"replace\":true,\"refs\":[{\"path\":\"/x\","
	  "\"algo\":\"sha256\",\"digest\":\"" D3 "\"},7]}",
	  400, "refs[1]" },
};

static void test_bad_input_changes_nothing(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	size_t i;
	json_t *a;

	a = import(t,
		   "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/keep\","
		   "\"algo\":\"sha256\",\"digest\":\"" D2 "\"}]}",
		   &status);
	assert_int_equal(status, 200);
	json_decref(a);
	for (i = 0; i < sizeof(bad_imports) / sizeof(bad_imports[0]); i++) {
		a = import(t, bad_imports[i].body, &status);
		if (status != bad_imports[i].status ||
		    strstr(tv_msg(a), bad_imports[i].msg) == NULL)
			fail_msg("case %zu: %u \"%s\"", i, status, tv_msg(a));
		json_decref(a);
		assert_int_equal(nrefs(t), 1);
		/* bad entries in a delete delete nothing either */
		if (strstr(bad_imports[i].msg, "refs[") == NULL)
			continue;
		a = tv_call(t, route_refs_delete, NULL, bad_imports[i].body,
			    TV_AUTH, &status);
		assert_int_equal(status, 400);
		json_decref(a);
		assert_int_equal(nrefs(t), 1);
	}
}

static void test_too_many(void **state)
{
	struct tv *t = *state;
	const char *entry = "{\"path\":\"/x\",\"algo\":\"sha256\","
			    "\"digest\":\"" D2 "\"},";
	size_t n = 100001, len = strlen(entry), i;
	char *body = malloc(64 + strlen(SRC) + n * len);
	unsigned int status;
	char *p;
	json_t *a;

	p = body + sprintf(body, "{\"v\":1," SRC ",\"refs\":[");
	for (i = 0; i < n; i++, p += len)
		memcpy(p, entry, len);
	strcpy(p - 1, "]}");
	a = import(t, body, &status);
	assert_int_equal(status, 413);
	assert_non_null(strstr(tv_msg(a), "at most 100000"));
	json_decref(a);
	assert_int_equal(nrefs(t), 0);
	free(body);
}

static void test_delete(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	a = import(t,
		   "{\"v\":1," SRC ",\"refs\":["
		   "{\"path\":\"/a\",\"algo\":\"sha256\",\"digest\":\"" D2
		   "\"},{\"path\":\"/b\",\"algo\":\"sha256\",\"digest\":\"" D2
		   "\"},{\"path\":\"/c\",\"algo\":\"sha256\",\"digest\":\"" D3
		   "\"}]}",
		   &status);
	json_decref(a);
	a = import(t,
		   "{\"v\":1,\"source\":{\"kind\":\"dir-tree\",\"name\":"
		   "\"img\"},\"refs\":[{\"path\":\"/a\",\"algo\":\"sha256\","
		   "\"digest\":\"" D2 "\"}]}",
		   &status);
	json_decref(a);
	assert_int_equal(nrefs(t), 4);

	/* /a from the deb only: the dir-tree's word for it stays */
	a = tv_call(t, route_refs_delete, NULL,
		    "{\"v\":1," SRC ",\"refs\":["
		    "{\"path\":\"/a\",\"algo\":\"sha256\",\"digest\":\"" D2
		    "\"}]}",
		    TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(a, "deleted")), 1);
	json_decref(a);
	assert_int_equal(nrefs(t), 3);

	/* a reference that is not there: fine, deleted 0 */
	a = tv_call(t, route_refs_delete, NULL,
		    "{\"v\":1,\"refs\":["
		    "{\"path\":\"/zz\",\"algo\":\"sha256\",\"digest\":\"" D2
		    "\"}]}",
		    TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(a, "deleted")), 0);
	json_decref(a);

	/* the whole deb */
	a = tv_call(t, route_refs_delete, NULL, "{\"v\":1," SRC "}", TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(json_object_get(a, "deleted")), 2);
	json_decref(a);
	assert_int_equal(nrefs(t), 1);

	a = tv_call(t, route_refs_delete, NULL, "{\"v\":1}", TV_AUTH, &status);
	assert_int_equal(status, 400);
	json_decref(a);
}

static void test_list_filters_over_https(void **state)
{
	struct tv *t = *state;
	unsigned int ustatus;
	long status;
	json_t *a;

	a = import(t,
		   "{\"v\":1," SRC ",\"refs\":["
		   "{\"path\":\"/a\",\"algo\":\"sha256\",\"digest\":\"" D2
		   "\"},{\"path\":\"/b\",\"algo\":\"sha256\",\"digest\":\"" D2
		   "\"},{\"path\":\"/a\",\"algo\":\"sha256\",\"digest\":\"" D3
		   "\"}]}",
		   &ustatus);
	json_decref(a);
	tv_serve(t);
	a = tv_get(t, "GET", "/v1/references?path=/a", NULL, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "refs")), 2);
	json_decref(a);
	a = tv_get(t, "GET", "/v1/references?limit=2", NULL, &status);
	assert_int_equal(json_array_size(json_object_get(a, "refs")), 2);
	assert_true(json_is_integer(json_object_get(a, "next")));
	json_decref(a);
	a = tv_get(t, "GET", "/v1/references?source=deb:bash_5.2.deb&after=2",
		   NULL, &status);
	assert_int_equal(json_array_size(json_object_get(a, "refs")), 1);
	json_decref(a);
	a = tv_get(t, "GET", "/v1/references?source=rpm:x", NULL, &status);
	assert_int_equal(status, 400);
	json_decref(a);

	/* the front refuses a wrong content type before the handler */
	{
		char *text;

		status = tv_http(t, "POST", "/v1/references", "{}", NULL, &text,
				 NULL, 0);
		assert_int_equal(status, 401);
		free(text);
	}
}

#define BIG_IMPORT 10000	/* references: five chunks */
#define LATE_PATH "/late/f9999" /* in the import's last chunk */

/* An agent's evidence, stored from another thread during the import. */
struct agent_sim {
	struct tv *t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go, done, chunks, answered;
	pthread_t th;
};

/*
 * What the evidence path does under the lock (attest.c's commit): judge
 * the new record against the references as they are, store it, set the
 * state. LATE_PATH's chunk is not stored yet: unknown, untrusted.
 */
static void *agent_thread(void *arg)
{
	static const uint8_t s1[DB_PCR_SHA1_SIZE], s256[DB_PCR_SHA256_SIZE];
	struct agent_sim *a = arg;
	struct verifier *v = &a->t->v;
	char reason[JUDGE_REASON_MAX];
	struct judge_input in = { .path = LATE_PATH, .algo = "sha256" };
	struct db_record rec = { .pcr = 10,
				 .template = "ima-ng",
				 .path = LATE_PATH,
				 .digest_algo = "sha256",
				 .digest_len = 32 };
	uint8_t d[32];
	struct db_boot boot;
	struct imt_error err;
	int found, rc;

	tv_digest(0x0d, d);
	in.digest = rec.digest = d;
	in.digest_len = 32;
	pthread_mutex_lock(&a->mu);
	while (!a->go)
		pthread_cond_wait(&a->cv, &a->mu);
	pthread_mutex_unlock(&a->mu);

	pthread_mutex_lock(&v->lock);
	rc = db_boot_current(v->db, "late", &boot, &found, &err);
	rec.index = boot.next_record_index;
	if (rc == 0)
		rc = judge_record(v, policies_for(v, "late"), &in, &rec.verdict,
				  &err);
	struct db_boot_advance adv = {
		.boot_id = boot.id,
		.from_index = rec.index,
		.to_index = rec.index + 1,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = &rec,
		.nrecords = 1,
	};
	if (rc == 0)
		rc = db_boot_advance(v->db, &adv, TV_NOW + 2, &err);
	judge_reason(v, policies_for(v, "late"), rec.index, &in, rec.verdict,
		     reason);
	if (rc == 0 && rec.verdict != DB_VERDICT_KNOWN)
		rc = db_machine_set_state(v->db, "late", DB_STATE_UNTRUSTED,
					  reason, TV_NOW + 2, &err);
	pthread_mutex_unlock(&v->lock);

	pthread_mutex_lock(&a->mu);
	a->done = rc == 0 && rec.verdict == DB_VERDICT_UNKNOWN ? 1 : -1;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/*
 * Between the first and the second chunk, with the import still going:
 * let the agent in and wait until it was answered. Were the lock held
 * through the import, the agent would block and the wait time out (a
 * safety net against hanging, not a measurement).
 */
static void chunk_hook(const char *point, void *arg)
{
	struct agent_sim *a = arg;
	struct timespec until;

	if (strcmp(point, "import:chunk") != 0 || a->chunks++ != 0)
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 30;
	pthread_mutex_lock(&a->mu);
	a->go = 1;
	pthread_cond_signal(&a->cv);
	while (a->done == 0 &&
	       pthread_cond_timedwait(&a->cv, &a->mu, &until) != ETIMEDOUT)
		;
	a->answered = a->done;
	pthread_mutex_unlock(&a->mu);
}

static void test_evidence_during_import(void **state)
{
	static const struct tv_record first[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
	};
	struct agent_sim a = { .t = *state };
	const size_t len = 160; /* bytes per entry, at most */
	char *body = malloc(64 + strlen(SRC) + BIG_IMPORT * len), *p;
	unsigned int status;
	size_t i;
	json_t *ans;

	assert_non_null(body);
	tv_machine(a.t, "late", DB_STATE_ENROLLING);
	tv_boot(a.t, "late", first, 1);
	db_machine_set_state(a.t->v.db, "late", DB_STATE_TRUSTED, NULL, TV_NOW,
			     NULL);
	p = body + sprintf(body, "{\"v\":1," SRC ",\"refs\":[");
	for (i = 0; i < BIG_IMPORT; i++)
		p += sprintf(p,
			     "%s{\"path\":\"/late/f%04zu\",\"algo\":"
			     "\"sha256\",\"digest\":\"%s\"}",
			     i ? "," : "", i,
			     "0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d"
			     "0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d");
	strcpy(p, "]}");
	pthread_mutex_init(&a.mu, NULL);
	pthread_cond_init(&a.cv, NULL);
	assert_int_equal(pthread_create(&a.th, NULL, agent_thread, &a), 0);
	rejudge_set_hook(chunk_hook, &a);
	ans = import(a.t, body, &status);
	rejudge_set_hook(NULL, NULL);
	pthread_join(a.th, NULL);
	assert_int_equal(status, 200);
	/* stored in chunks, the agent answered in between */
	assert_int_equal(a.chunks, BIG_IMPORT / 2000);
	assert_int_equal(a.answered, 1);
	/* its record, judged mid-import, was judged again after it */
	assert_int_equal(json_integer_value(
				 json_object_get(ans, "machines_now_trusted")),
			 1);
	assert_int_equal(tv_state(a.t, "late"), DB_STATE_TRUSTED);
	json_decref(ans);
	assert_int_equal(nrefs(a.t), 100); /* one page */
	pthread_cond_destroy(&a.cv);
	pthread_mutex_destroy(&a.mu);
	free(body);
}

/* A second change while one is running is refused, not queued. */
static void busy_hook(const char *point, void *arg)
{
	struct tv *t = arg;
	unsigned int status;
	json_t *a;

	if (strcmp(point, "import:chunk") != 0)
		return;
	a = tv_call(t, route_refs_delete, NULL, "{\"v\":1," SRC "}", TV_AUTH,
		    &status);
	assert_int_equal(status, 409);
	assert_non_null(strstr(tv_msg(a), "in progress"));
	json_decref(a);
}

static void test_one_change_at_a_time(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	rejudge_set_hook(busy_hook, t);
	a = import(t,
		   "{\"v\":1," SRC ",\"refs\":[{\"path\":\"/a\","
		   "\"algo\":\"sha256\",\"digest\":\"" D2 "\"}]}",
		   &status);
	rejudge_set_hook(NULL, NULL);
	assert_int_equal(status, 200);
	json_decref(a);
	assert_int_equal(nrefs(t), 1);
}

/*
 * Issue 33: after each chunk but the last, nothing of the import is
 * judged or listed (the first chunk's /late/f0000 included); after the
 * last, all of it is.
 */
struct unseen {
	struct tv *t;
	size_t chunks, seen;
};

static void unseen_hook(const char *point, void *arg)
{
	static const uint8_t d[32] = { [0 ... 31] = 0x0d };
	struct unseen *u = arg;
	enum db_ref_class cls;
	struct imt_error err;

	if (strcmp(point, "import:chunk") != 0)
		return;
	u->chunks++;
	pthread_mutex_lock(&u->t->v.lock);
	assert_int_equal(db_ref_lookup(u->t->v.db, "/late/f0000", "sha256", d,
				       32, &cls, &err),
			 0);
	pthread_mutex_unlock(&u->t->v.lock);
	if (cls == DB_REF_KNOWN || nrefs(u->t) > 0)
		u->seen++;
}

static void test_import_unseen_until_whole(void **state)
{
	struct unseen u = { .t = *state };
	char *body = malloc(64 + strlen(SRC) + BIG_IMPORT * 160), *p;
	unsigned int status;
	size_t i;
	json_t *ans;

	assert_non_null(body);
	p = body + sprintf(body, "{\"v\":1," SRC ",\"refs\":[");
	for (i = 0; i < BIG_IMPORT; i++)
		p += sprintf(p,
			     "%s{\"path\":\"/late/f%04zu\",\"algo\":"
			     "\"sha256\",\"digest\":\"%s\"}",
			     i ? "," : "", i,
			     "0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d"
			     "0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d0d");
	strcpy(p, "]}");
	rejudge_set_hook(unseen_hook, &u);
	ans = import(u.t, body, &status);
	rejudge_set_hook(NULL, NULL);
	assert_int_equal(status, 200);
	json_decref(ans);
	assert_int_equal(u.chunks, BIG_IMPORT / 2000);
	/* the hook after the last chunk is the only one that sees it */
	assert_int_equal(u.seen, 1);
	assert_int_equal(nrefs(u.t), 100); /* one page */
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_import_and_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input_changes_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_filters_over_https,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_evidence_during_import,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_change_at_a_time,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_unseen_until_whole,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

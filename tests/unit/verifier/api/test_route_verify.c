// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_verify.c - POST /v1/verify, the one-shot check, with
 * software AKs (soft_machine.h): a clean bundle is trusted, an unknown
 * binary untrusted naming it, another AK's quote, a wrong nonce, an
 * altered list and a list longer than the quote proves are failed; bad
 * requests are 4xx naming what is wrong; every answer validates against
 * verifier/api/openapi.json; and the database is the same, row for row,
 * before and after all of them.
 */
#include "soft_machine.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>

#include "engine.h"
#include "../../../tools/openapi_schema.h"

#define SPEC FIXTURE_DIR "/../../verifier/api/openapi.json"

struct fx {
	struct tv *t;
	json_t *spec;
	struct sm m;
	uint8_t nonce[32];
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	json_error_t jerr;

	assert_non_null(f);
	f->spec = json_load_file(SPEC, JSON_REJECT_DUPLICATES, &jerr);
	if (f->spec == NULL)
		fail_msg("%s:%d: %s", SPEC, jerr.line, jerr.text);
	f->t = tv_new();
	sm_new(f->t, &f->m, "web-1");
	sm_ref(f->t, "/usr/bin/ok", "fine");
	sm_measure(&f->m, "/usr/bin/ok", "fine");
	memset(f->nonce, 0x4e, sizeof(f->nonce));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	soft_ak_free(&f->m.ak);
	tv_free(f->t);
	json_decref(f->spec);
	free(f);
	return 0;
}

/* How a bundle is bent for a case. */
struct bend {
	struct soft_ak *signer;	    /* another AK signs the quote */
	const uint8_t *quote_nonce; /* the quote answers another nonce */
	int alter;		    /* flip a bit in the last record */
	const char *machine;	    /* "machine" instead of "ak_pub" */
	const char *policy;
	const uint8_t *ak_pub; /* another "ak_pub" */
	size_t ak_pub_len;
};

/* The bundle JSON of @m's quote over @f->nonce and its whole list. */
static char *bundle(struct fx *f, const struct bend *b)
{
	struct sm *m = &f->m;
	struct soft_quote q = {
		.nonce = b->quote_nonce != NULL ? b->quote_nonce : f->nonce,
		.nonce_len = sizeof(f->nonce),
		.clock = ++m->clock,
		.reset_count = m->reset,
		.pcrs = &m->pcrs,
	};
	static uint8_t list[LIST_MAX];
	struct wire_bundle w = { 0 };
	struct imt_error err;
	size_t alen, slen;
	char *json;

	assert_int_equal(soft_ak_quote(b->signer != NULL ? b->signer : &m->ak,
				       &q, m->attest, &alen, m->sig, &slen),
			 0);
	memcpy(list, m->list, m->len);
	if (b->alter)
		list[m->len - 2] ^= 0x01; /* in the last record's path */
	snprintf(w.policy, sizeof(w.policy), "%s",
		 b->policy != NULL ? b->policy : "");
	if (b->machine != NULL)
		snprintf(w.machine, sizeof(w.machine), "%s", b->machine);
	else
		w.ak_pub = (struct wire_blob){
			(uint8_t *)(b->ak_pub != NULL ? b->ak_pub : m->ak.pub),
			b->ak_pub != NULL ? b->ak_pub_len : m->ak.pub_len
		};
	memcpy(w.ev.nonce, f->nonce, sizeof(f->nonce));
	w.ev.nonce_len = sizeof(f->nonce);
	w.ev.bank = m->pcrs.algo;
	w.ev.quote = (struct wire_blob){ m->attest, alen };
	w.ev.signature = (struct wire_blob){ m->sig, slen };
	w.ev.pcrs = m->pcrs;
	w.ev.records = (struct wire_blob){ list, m->len };
	json = wire_encode(WIRE_BUNDLE, &w, &err);
	if (json == NULL)
		fail_msg("wire_encode: %s", err.msg);
	return json;
}

/* POST it; a 200 answer must validate against openapi.json. */
static json_t *post(struct fx *f, const char *body, unsigned int *status)
{
	json_t *j = tv_call(f->t, route_verify, NULL, body, TV_AUTH, status);
	struct oas_ctx c = { .spec = f->spec };
	json_t *schema = oas_response_schema(f->spec, "POST", "/v1/verify",
					     (int)*status, "application/json");

	assert_non_null(j);
	if (schema == NULL)
		fail_msg("status %u is not documented", *status);
	if (oas_check(&c, schema, j) < 0)
		fail_msg("%u: %s", *status, c.why);
	return j;
}

/* POST the bundle @b bends. */
static json_t *post_bent(struct fx *f, const struct bend *b,
			 unsigned int *status)
{
	char *body = bundle(f, b);
	json_t *j = post(f, body, status);

	free(body);
	return j;
}

static json_t *verify(struct fx *f, const struct bend *b, const char *want)
{
	unsigned int status;
	json_t *j = post_bent(f, b, &status);

	if (status != 200)
		fail_msg("%u: %s", status, tv_msg(j));
	assert_string_equal(json_string_value(json_object_get(j, "verdict")),
			    want);
	assert_true(json_is_false(json_object_get(j, "stored")));
	return j;
}

static const char *at(json_t *j, const char *obj, const char *key)
{
	return json_string_value(json_object_get(json_object_get(j, obj), key));
}

static const char *reason(json_t *j, const char *key)
{
	return json_string_value(
		json_object_get(json_array_get(json_object_get(j, "reasons"),
					       0),
				key));
}

static json_int_t records(json_t *j, const char *key)
{
	return json_integer_value(
		json_object_get(json_object_get(j, "records"), key));
}

/* One column of a row as text: a BLOB in hex, every byte of it. */
static char *column_text(sqlite3_stmt *rows, int i)
{
	const unsigned char *b;
	char *s;
	int n, k;

	if (sqlite3_column_type(rows, i) == SQLITE_NULL)
		return strdup("NULL");
	if (sqlite3_column_type(rows, i) != SQLITE_BLOB)
		return strdup((const char *)sqlite3_column_text(rows, i));
	b = sqlite3_column_blob(rows, i);
	n = sqlite3_column_bytes(rows, i);
	s = malloc(2 * (size_t)n + 3);
	assert_non_null(s);
	strcpy(s, "x'");
	for (k = 0; k < n; k++)
		sprintf(s + 2 + 2 * k, "%02x", b[k]);
	return s;
}

/* Every table's rows, in one text, to compare before and after. */
static char *dump(struct tv *t)
{
	sqlite3 *db;
	sqlite3_stmt *tables, *rows;
	size_t cap = 1 << 16, len = 0;
	char *out = malloc(cap), sql[256];
	int i;

	assert_non_null(out);
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT name FROM sqlite_master "
					    "WHERE type = 'table' ORDER BY name",
					    -1, &tables, NULL),
			 SQLITE_OK);
	while (sqlite3_step(tables) == SQLITE_ROW) {
		snprintf(sql, sizeof(sql), "SELECT * FROM \"%s\"",
			 sqlite3_column_text(tables, 0));
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &rows, NULL),
				 SQLITE_OK);
		len += (size_t)snprintf(out + len, cap - len, "%s:\n", sql);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			for (i = 0; i < sqlite3_column_count(rows); i++) {
				char *v = column_text(rows, i);
				size_t n = strlen(v);

				while (len + n + 8 > cap) {
					cap *= 2;
					out = realloc(out, cap);
					assert_non_null(out);
				}
				len += (size_t)snprintf(out + len, cap - len,
							"%s|", v);
				free(v);
			}
			out[len++] = '\n';
			out[len] = '\0';
		}
		sqlite3_finalize(rows);
	}
	sqlite3_finalize(tables);
	sqlite3_close(db);
	return out;
}

static void test_trusted(void **state)
{
	struct fx *f = *state;
	struct bend given = { 0 }, enrolled = { .machine = "web-1" };
	json_t *j = verify(f, &given, "trusted");

	assert_string_equal(json_string_value(json_object_get(j, "tnc")),
			    "allow");
	assert_string_equal(json_string_value(json_object_get(j, "ak")),
			    "given");
	assert_non_null(json_object_get(j, "ak_note"));
	assert_string_equal(json_string_value(json_object_get(j, "policy")),
			    "default");
	assert_int_equal(json_array_size(json_object_get(j, "reasons")), 0);
	assert_int_equal(records(j, "total"), 2);
	assert_int_equal(records(j, "known"), 1);
	assert_int_equal(records(j, "excluded"), 1);
	assert_string_equal(at(j, "checks", "replay"), "pass");
	assert_string_equal(at(j, "checks", "boot_log"), "skipped");
	json_decref(j);
	j = verify(f, &enrolled, "trusted");
	assert_string_equal(json_string_value(json_object_get(j, "ak")),
			    "enrolled:web-1");
	assert_null(json_object_get(j, "ak_note"));
	json_decref(j);
	assert_int_equal(atomic_load(&f->t->v.metrics.verifications), 2);
}

static void test_unknown_binary(void **state)
{
	struct fx *f = *state;
	struct bend b = { 0 };
	json_t *j;

	sm_measure(&f->m, "/tmp/evil", "payload");
	j = verify(f, &b, "untrusted");
	assert_string_equal(json_string_value(json_object_get(j, "tnc")),
			    "isolate");
	assert_string_equal(reason(j, "check"), "record");
	assert_string_equal(reason(j, "path"), "/tmp/evil");
	assert_string_equal(reason(j, "verdict"), "unknown");
	assert_string_equal(reason(j, "digest"),
			    "sha256:239f59ed55e737c77147cf55ad0c1b030b6d7ee748a7426952f9b852d5a935e5");
	assert_int_equal(records(j, "unknown"), 1);
	assert_int_equal(records(j, "unacceptable"), 1);
	assert_string_equal(at(j, "checks", "records"), "fail");
	json_decref(j);
}

/* The attacker with a TPM of her own, and a bundle bent in transit. */
static void test_failed(void **state)
{
	struct fx *f = *state;
	uint8_t other_nonce[32];
	struct soft_ak mallory;
	struct bend other_ak = { .signer = &mallory };
	struct bend other_enrolled = { .signer = &mallory, .machine = "web-1" };
	struct bend wrong_nonce = { .quote_nonce = other_nonce };
	struct bend altered = { .alter = 1 };
	json_t *j;

	assert_int_equal(soft_ak_new(&mallory), 0);
	memset(other_nonce, 0x11, sizeof(other_nonce));
	j = verify(f, &other_ak, "failed");
	assert_string_equal(json_string_value(json_object_get(j, "tnc")),
			    "no_access");
	assert_string_equal(at(j, "checks", "ak"), "pass");
	assert_string_equal(at(j, "checks", "quote"), "fail");
	assert_string_equal(at(j, "checks", "records"), "not run");
	/* the check is named, not the first words of the message */
	assert_string_equal(reason(j, "check"), "quote");
	json_decref(j);
	j = verify(f, &other_enrolled, "failed");
	assert_string_equal(at(j, "checks", "quote"), "fail");
	assert_string_equal(reason(j, "check"), "quote");
	json_decref(j);
	j = verify(f, &wrong_nonce, "failed");
	assert_string_equal(reason(j, "check"), "nonce");
	json_decref(j);
	j = verify(f, &altered, "failed");
	assert_string_equal(reason(j, "check"), "replay");
	assert_string_equal(at(j, "checks", "pcrs"), "pass");
	assert_string_equal(at(j, "checks", "replay"), "fail");
	json_decref(j);
	soft_ak_free(&mallory);
}

/* The quote covers 2 records, the list has 3: record 2 is named. */
static void test_longer_than_quoted(void **state)
{
	struct fx *f = *state;
	struct pcr_set quoted = f->m.pcrs;
	struct bend plain = { 0 };
	json_t *j;
	struct sm *m = &f->m;

	sm_measure(m, "/usr/bin/ok", "fine");
	m->pcrs = quoted; /* the quote was taken before the third */
	j = verify(f, &plain, "failed");
	assert_non_null(
		strstr(json_string_value(
			       json_object_get(json_array_get(json_object_get(j,
									      "reasons"),
							      0),
					       "message")),
		       "record 2 and the 0 after it are not proven"));
	json_decref(j);
}

static void test_bad_requests(void **state)
{
	struct fx *f = *state;
	uint8_t weak[SOFT_AK_PUB_MAX], junk[8] = { 0, 6, 1, 2, 3, 4, 5, 6 };
	struct bend unknown_policy = { .policy = "nosuch" };
	struct bend unknown_machine = { .machine = "nosuch" };
	struct bend bad_ak = { .ak_pub = junk, .ak_pub_len = sizeof(junk) };
	struct bend unrestricted = { .ak_pub = weak,
				     .ak_pub_len = f->m.ak.pub_len };
	struct bend empty = { 0 };
	unsigned int status;
	json_t *j;

	j = post_bent(f, &unknown_policy, &status);
	assert_int_equal(status, 404);
	assert_non_null(strstr(tv_msg(j), "nosuch"));
	json_decref(j);
	j = post_bent(f, &unknown_machine, &status);
	assert_int_equal(status, 404);
	json_decref(j);
	j = post_bent(f, &bad_ak, &status);
	assert_int_equal(status, 400);
	assert_non_null(strstr(tv_msg(j), "ak_pub"));
	json_decref(j);
	j = post(f, "{\"v\":1,\"nonce\":\"00\"}", &status);
	assert_int_equal(status, 400);
	assert_non_null(strstr(tv_msg(j), "\"nonce\""));
	json_decref(j);
	/* an empty list proves no kernel: failed, as record 0 is missing */
	f->m.len = 0;
	memset(f->m.pcrs.value[10], 0, 32); /* an empty list's PCR 10 */
	j = verify(f, &empty, "failed");
	assert_string_equal(reason(j, "check"), "replay");
	assert_non_null(strstr(reason(j, "message"), "the list is empty"));
	json_decref(j);
	/* restricted cleared: not an AK enrollment would take */
	memcpy(weak, f->m.ak.pub, f->m.ak.pub_len);
	weak[7] &= (uint8_t)~0x01;
	j = verify(f, &unrestricted, "failed");
	assert_string_equal(at(j, "checks", "ak"), "fail");
	assert_string_equal(reason(j, "check"), "ak");
	json_decref(j);
}

/* Nothing of any of it is stored: every table as it was. */
/*
 * A list longer than a page of the judging (VERIFY_PAGE, 256: the lock
 * is let go between pages): every page judged, the unknown records on
 * the second and third pages named, the counts those of the whole list.
 */
static void test_paged(void **state)
{
	struct fx *f = *state;
	struct bend given = { 0 };
	char path[32], content[32], want[2][32];
	json_t *j, *r;
	size_t i;

	for (i = 0; i < 600; i++) {
		snprintf(path, sizeof(path), "/usr/bin/p%zu", i);
		snprintf(content, sizeof(content), "c%zu", i);
		sm_measure(&f->m, path, content);
		if (i != 300 && i != 590)
			sm_ref(f->t, path, content);
	}
	j = verify(f, &given, "untrusted");
	assert_int_equal(records(j, "total"), 602);
	assert_int_equal(records(j, "known"), 599);
	assert_int_equal(records(j, "unknown"), 2);
	r = json_object_get(j, "reasons");
	assert_int_equal(json_array_size(r), 2);
	snprintf(want[0], sizeof(want[0]), "/usr/bin/p300");
	snprintf(want[1], sizeof(want[1]), "/usr/bin/p590");
	for (i = 0; i < 2; i++)
		assert_string_equal(json_string_value(
					    json_object_get(json_array_get(r, i),
							    "path")),
				    want[i]);
	json_decref(j);
}

/* The writer, busy for up to HOLD_SECS or until the test is done. */
#define HOLD_SECS 10
struct holder {
	struct verifier *v;
	pthread_mutex_t m;
	pthread_cond_t c;
	int held, done;
};

static void *hold_writer(void *arg)
{
	struct holder *h = arg;
	struct timespec until;
	int rc = 0;

	pthread_mutex_lock(&h->v->lock);
	pthread_mutex_lock(&h->m);
	h->held = 1;
	pthread_cond_broadcast(&h->c);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += HOLD_SECS;
	while (!h->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&h->c, &h->m, &until);
	pthread_mutex_unlock(&h->m);
	pthread_mutex_unlock(&h->v->lock);
	return NULL;
}

/*
 * Issue #33: a one-shot verification judges against the references on
 * the read side: it answers while the evidence path holds v->lock.
 */
static void test_beside_writer(void **state)
{
	struct fx *f = *state;
	struct holder h = { &f->t->v, PTHREAD_MUTEX_INITIALIZER,
			    PTHREAD_COND_INITIALIZER, 0, 0 };
	struct timespec t0, t1;
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, hold_writer, &h), 0);
	pthread_mutex_lock(&h.m);
	while (!h.held)
		pthread_cond_wait(&h.c, &h.m);
	pthread_mutex_unlock(&h.m);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	test_trusted(state);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_mutex_lock(&h.m);
	h.done = 1;
	pthread_cond_broadcast(&h.c);
	pthread_mutex_unlock(&h.m);
	pthread_join(th, NULL);
	if (t1.tv_sec - t0.tv_sec >= HOLD_SECS - 1)
		fail_msg("POST /v1/verify waited %ld s for the writer's lock",
			 (long)(t1.tv_sec - t0.tv_sec));
}

static void test_stores_nothing(void **state)
{
	struct fx *f = *state;
	char *before = dump(f->t), *after;

	test_trusted(state);
	test_unknown_binary(state);
	test_failed(state);
	test_bad_requests(state);
	after = dump(f->t);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_binary, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_longer_than_quoted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_paged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stores_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_beside_writer, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

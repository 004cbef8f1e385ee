// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_rejudge.c - a change of references re-judges the stored records
 * at once, both ways: an untrusted machine whose records all become
 * acceptable is trusted; a trusted machine running a file whose reference
 * was withdrawn or replaced is untrusted, the reason naming the record;
 * other states stay, but their verdicts move.
 */
#include "db_boot.h"
#include "db_machine.h"
#include "db_ref.h"
#include "judge.h"
#include "policy.h"
#include "rejudge.h"
#include "verifier_test.h"

#define D(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
#define HEX7 D("07")
#define HEX8 D("08")
#define HEX9 D("09")

static const struct tv_record boot_records[] = {
	{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
	{ "/usr/bin/a", 2, DB_VERDICT_KNOWN },
	{ "/usr/bin/new", 7, DB_VERDICT_UNKNOWN },
	{ "/usr/bin/x", 8, DB_VERDICT_MISMATCH },
};

static int setup(void **state)
{
	struct tv *t = tv_new();
	static const char *const ids[] = { "u1", "f1", "s1", "p1" };
	static const enum db_machine_state states[] = {
		DB_STATE_UNTRUSTED,
		DB_STATE_FAILED,
		DB_STATE_STALE,
		DB_STATE_PENDING,
	};
	static const struct db_ref_source base = { .kind = DB_SOURCE_DEB,
						   .name = "base.deb" };
	uint8_t d2[32];
	size_t i;

	/* what vouches for the known record /usr/bin/a */
	tv_digest(2, d2);
	if (db_ref_add(t->v.db, &base, "/usr/bin/a", "sha256", d2, 32, TV_NOW,
		       NULL) < 0)
		fail_msg("db_ref_add");
	for (i = 0; i < 4; i++) {
		tv_machine(t, ids[i], DB_STATE_ENROLLING);
		tv_boot(t, ids[i], boot_records, 4);
		if (db_machine_set_state(t->v.db, ids[i], states[i],
					 "{\"check\":\"record\"}", TV_NOW,
					 NULL) < 0)
			fail_msg("set state");
	}
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	tv_free(*state);
	return 0;
}

static json_t *import(struct tv *t, const char *refs)
{
	char body[2048];
	unsigned int status;
	json_t *a;

	snprintf(body, sizeof(body),
		 "{\"v\":1,\"source\":{\"kind\":"
		 "\"golden-list\",\"name\":\"golden\"},\"refs\":[%s]}",
		 refs);
	a = tv_call(t, route_refs_import, NULL, body, TV_AUTH, &status);
	if (status != 200)
		fail_msg("import: %u %s", status, tv_msg(a));
	return a;
}

/* The verdict of record @index of @id's current boot. */
static const char *verdict(struct tv *t, const char *id, size_t index)
{
	static char buf[16];
	unsigned int status;
	json_t *a =
		tv_call(t, route_machines_records, id, NULL, TV_AUTH, &status);

	snprintf(buf, sizeof(buf), "%s",
		 json_string_value(
			 json_object_get(json_array_get(json_object_get(a,
									"records"),
							index),
					 "verdict")));
	json_decref(a);
	return buf;
}

static int64_t stat_of(json_t *a, const char *key)
{
	return json_integer_value(json_object_get(a, key));
}

static void test_untrusted_becomes_trusted(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *ev, *last;

	a = import(t, "{\"path\":\"/usr/bin/new\",\"algo\":\"sha256\","
		      "\"digest\":\"" HEX7 "\"},{\"path\":\"/usr/bin/x\","
		      "\"algo\":\"sha256\",\"digest\":\"" HEX8 "\"}");
	assert_int_equal(stat_of(a, "machines_now_trusted"), 1);
	assert_int_equal(stat_of(a, "machines_rejudged"), 4);
	assert_int_equal(stat_of(a, "records_changed"), 8);
	json_decref(a);

	assert_int_equal(tv_state(t, "u1"), DB_STATE_TRUSTED);
	assert_string_equal(verdict(t, "u1", 2), "known");
	assert_string_equal(verdict(t, "u1", 3), "known");
	/* the transition is an event that names the import */
	a = tv_call(t, route_machines_events, "u1", NULL, TV_AUTH, &status);
	ev = json_object_get(a, "events");
	last = json_array_get(ev, json_array_size(ev) - 1);
	assert_string_equal(json_string_value(json_object_get(last, "to")),
			    "trusted");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(last,
								    "reason"),
						    "check")),
			    "rejudge");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(json_object_get(last,
										    "reason"),
								    "source"),
						    "name")),
			    "golden");
	json_decref(a);

	/* other states stay, but their records were judged again */
	assert_int_equal(tv_state(t, "f1"), DB_STATE_FAILED);
	assert_int_equal(tv_state(t, "s1"), DB_STATE_STALE);
	assert_int_equal(tv_state(t, "p1"), DB_STATE_PENDING);
	assert_string_equal(verdict(t, "f1", 2), "known");
	assert_string_equal(verdict(t, "s1", 3), "known");
}

static void test_partial_import_stays_untrusted(void **state)
{
	struct tv *t = *state;
	json_t *a;

	a = import(t, "{\"path\":\"/usr/bin/new\",\"algo\":\"sha256\","
		      "\"digest\":\"" HEX7 "\"}");
	assert_int_equal(stat_of(a, "machines_now_trusted"), 0);
	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "u1", 2), "known");
	/* stored as mismatch, but no reference names /usr/bin/x now */
	assert_string_equal(verdict(t, "u1", 3), "unknown");
}

/* A reference for the path, but another digest: unknown -> mismatch. */
static void test_unknown_becomes_mismatch(void **state)
{
	struct tv *t = *state;
	json_t *a;

	a = import(t, "{\"path\":\"/usr/bin/new\",\"algo\":\"sha256\","
		      "\"digest\":\"" HEX9 "\"},{\"path\":\"/usr/bin/x\","
		      "\"algo\":\"sha256\",\"digest\":\"" HEX8 "\"}");
	assert_int_equal(stat_of(a, "machines_now_trusted"), 0);
	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "u1", 2), "mismatch");
	assert_string_equal(verdict(t, "u1", 3), "known");
}

static json_t *del(struct tv *t, const char *body)
{
	unsigned int status;
	json_t *a = tv_call(t, route_refs_delete, NULL, body, TV_AUTH, &status);

	if (status != 200)
		fail_msg("delete: %u %s", status, tv_msg(a));
	return a;
}

/* @id's stored state reason, parsed. */
static json_t *reason_of(struct tv *t, const char *id)
{
	struct db_machine m;
	struct imt_error err;
	json_t *j;
	int found = 0;

	if (db_machine_get(t->v.db, id, &m, &found, &err) < 0 || !found)
		fail_msg("db_machine_get %s", id);
	j = m.state_reason != NULL ? json_loads(m.state_reason, 0, NULL) : NULL;
	db_machine_release(&m);
	assert_non_null(j);
	return j;
}

static const char *str_at(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s != NULL ? s : "";
}

/* u1 trusted by the import of both missing references. */
static void make_u1_trusted(struct tv *t)
{
	json_t *a = import(t, "{\"path\":\"/usr/bin/new\",\"algo\":"
			      "\"sha256\",\"digest\":\"" HEX7 "\"},{\"path\":"
			      "\"/usr/bin/x\",\"algo\":\"sha256\",\"digest\":"
			      "\"" HEX8 "\"}");

	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_TRUSTED);
}

/*
 * Withdrawing the reference of a record that made a machine trusted makes
 * it untrusted at once, the reason naming the record (replaces the test
 * that locked in "deleting does not re-judge").
 */
static void test_withdraw_makes_untrusted(void **state)
{
	struct tv *t = *state;
	json_t *a, *r;

	make_u1_trusted(t);
	a = del(t, "{\"v\":1,\"refs\":[{\"path\":\"/usr/bin/new\","
		   "\"algo\":\"sha256\",\"digest\":\"" HEX7 "\"}]}");
	assert_int_equal(stat_of(a, "deleted"), 1);
	assert_int_equal(stat_of(a, "machines_now_untrusted"), 1);
	assert_int_equal(stat_of(a, "machines_now_trusted"), 0);
	json_decref(a);

	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "u1", 2), "unknown");
	assert_string_equal(verdict(t, "u1", 3), "known");
	r = reason_of(t, "u1");
	assert_string_equal(str_at(r, "check"), "record");
	assert_int_equal(json_integer_value(json_object_get(r, "index")), 2);
	assert_string_equal(str_at(r, "path"), "/usr/bin/new");
	assert_string_equal(str_at(r, "digest"), "sha256:" HEX7);
	assert_string_equal(str_at(r, "verdict"), "unknown");
	assert_string_equal(str_at(json_object_get(r, "cause"), "change"),
			    "delete");
	assert_string_equal(str_at(json_object_get(r, "cause"), "operator"),
			    "alice");
	json_decref(r);
	/* failed stays failed, but its verdict moved too */
	assert_int_equal(tv_state(t, "f1"), DB_STATE_FAILED);
	assert_string_equal(verdict(t, "f1", 2), "unknown");
}

/* A new digest for the path, the old one deleted: mismatch, untrusted. */
static void test_replaced_digest_makes_untrusted(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *r;

	make_u1_trusted(t);
	a = tv_call(t, route_refs_import, NULL,
		    "{\"v\":1,\"source\":"
		    "{\"kind\":\"deb\",\"name\":\"x_2.deb\"},\"refs\":"
		    "[{\"path\":\"/usr/bin/x\",\"algo\":\"sha256\","
		    "\"digest\":\"" HEX9 "\"}]}",
		    TV_AUTH, &status);
	assert_int_equal(status, 200);
	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_TRUSTED);
	a = del(t, "{\"v\":1,\"refs\":[{\"path\":\"/usr/bin/x\","
		   "\"algo\":\"sha256\",\"digest\":\"" HEX8 "\"}]}");
	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "u1", 3), "mismatch");
	r = reason_of(t, "u1");
	assert_string_equal(str_at(r, "path"), "/usr/bin/x");
	assert_string_equal(str_at(r, "verdict"), "mismatch");
	json_decref(r);
}

/* The same through an import with replace: the old digest is withdrawn. */
static void test_replace_import_makes_untrusted(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	make_u1_trusted(t);
	a = tv_call(t, route_refs_import, NULL,
		    "{\"v\":1,\"source\":"
		    "{\"kind\":\"golden-list\",\"name\":\"golden\"},"
		    "\"replace\":true,\"refs\":[{\"path\":\"/usr/bin/new\","
		    "\"algo\":\"sha256\",\"digest\":\"" HEX7 "\"},"
		    "{\"path\":\"/usr/bin/x\",\"algo\":\"sha256\","
		    "\"digest\":\"" HEX9 "\"}]}",
		    TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(stat_of(a, "added"), 2);
	assert_int_equal(stat_of(a, "withdrawn"), 1);
	assert_int_equal(stat_of(a, "machines_now_untrusted"), 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "u1", 2), "known");
	assert_string_equal(verdict(t, "u1", 3), "mismatch");
}

/*
 * Withdrawing a whole source: more digests queued than the boot has
 * records, so the boot is read instead of the queue; same outcome.
 */
static void test_withdraw_source(void **state)
{
	struct tv *t = *state;
	char refs[4096], *p = refs;
	size_t i, n;
	json_t *a;

	make_u1_trusted(t);
	for (i = 0; i < 10; i++)
		p += sprintf(p,
			     "%s{\"path\":\"/opt/o%zu\",\"algo\":"
			     "\"sha256\",\"digest\":\"%064zx\"}",
			     i ? "," : "", i, i + 100);
	a = import(t, refs);
	json_decref(a);
	a = del(t, "{\"v\":1,\"source\":{\"kind\":\"golden-list\","
		   "\"name\":\"golden\"}}");
	assert_int_equal(stat_of(a, "deleted"), 12);
	json_decref(a);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "u1", 2), "unknown");
	assert_string_equal(verdict(t, "u1", 3), "unknown");
	/* every current boot was judged: the queue is empty again */
	assert_int_equal(db_ref_withdrawn_count(t->v.db, &n, NULL), 0);
	assert_int_equal(n, 0);
}

/*
 * A withdrawal whose re-judge never ran (the verifier died after the
 * commit) is still queued: the next re-judge, whatever it was for,
 * catches up.
 */
static void test_queued_withdrawal_survives(void **state)
{
	static const uint8_t d7[32] = { [0 ... 31] = 7 };
	struct tv *t = *state;
	struct rejudge_stats st;
	struct imt_error err;
	size_t deleted, n;

	make_u1_trusted(t);
	assert_int_equal(db_ref_delete(t->v.db, NULL, "/usr/bin/new", "sha256",
				       d7, 32, &deleted, &err),
			 0);
	assert_int_equal(deleted, 1);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_TRUSTED);
	assert_int_equal(db_ref_withdrawn_count(t->v.db, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(rejudge_all(&t->v, 0, "{\"check\":\"rejudge\"}",
				     TV_NOW, &st, &err),
			 0);
	assert_int_equal(st.now_untrusted, 1);
	assert_int_equal(tv_state(t, "u1"), DB_STATE_UNTRUSTED);
	assert_int_equal(db_ref_withdrawn_count(t->v.db, &n, &err), 0);
	assert_int_equal(n, 0);
}

/*
 * any_path = allow: a record known by its digest alone (listed for
 * another path) turns mismatch when its own path gets a reference, and
 * unknown when the other path's reference goes.
 */
static void test_any_path_both_ways(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/opt/p", 7, DB_VERDICT_UNKNOWN },
	};
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	snprintf(t->v.cfg.any_path, sizeof(t->v.cfg.any_path), "allow");
	tv_machine(t, "a1", DB_STATE_UNTRUSTED);
	tv_boot(t, "a1", recs, 2);
	a = import(t, "{\"path\":\"/opt/q\",\"algo\":\"sha256\","
		      "\"digest\":\"" HEX7 "\"}");
	json_decref(a);
	assert_int_equal(tv_state(t, "a1"), DB_STATE_TRUSTED);
	assert_string_equal(verdict(t, "a1", 1), "known");

	/* /opt/p gets a digest of its own: 07 no longer does for it */
	a = tv_call(t, route_refs_import, NULL,
		    "{\"v\":1,\"source\":"
		    "{\"kind\":\"deb\",\"name\":\"p.deb\"},\"refs\":"
		    "[{\"path\":\"/opt/p\",\"algo\":\"sha256\","
		    "\"digest\":\"" HEX9 "\"}]}",
		    TV_AUTH, &status);
	assert_int_equal(stat_of(a, "machines_now_untrusted"), 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "a1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "a1", 1), "mismatch");

	/* withdrawn again: known by the digest again */
	a = del(t, "{\"v\":1,\"source\":{\"kind\":\"deb\",\"name\":"
		   "\"p.deb\"}}");
	json_decref(a);
	assert_int_equal(tv_state(t, "a1"), DB_STATE_TRUSTED);
	assert_string_equal(verdict(t, "a1", 1), "known");

	/* the other path's reference goes: unknown */
	a = del(t, "{\"v\":1,\"refs\":[{\"path\":\"/opt/q\",\"algo\":"
		   "\"sha256\",\"digest\":\"" HEX7 "\"}]}");
	json_decref(a);
	assert_int_equal(tv_state(t, "a1"), DB_STATE_UNTRUSTED);
	assert_string_equal(verdict(t, "a1", 1), "unknown");
}

/* With violations = untrusted, a violation keeps the machine untrusted. */
static void test_violation_policy(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/tmp/busy", 0, DB_VERDICT_VIOLATION },
		{ "/usr/bin/new", 7, DB_VERDICT_UNKNOWN },
	};
	struct tv *t = *state;
	struct rejudge_stats st;
	struct imt_error err;
	json_t *a;

	snprintf(t->v.cfg.violations, sizeof(t->v.cfg.violations), "untrusted");
	tv_machine(t, "v1", DB_STATE_ENROLLING);
	tv_boot(t, "v1", recs, 3);
	assert_int_equal(db_machine_set_state(t->v.db, "v1", DB_STATE_UNTRUSTED,
					      NULL, TV_NOW, &err),
			 0);
	a = import(t, "{\"path\":\"/usr/bin/new\",\"algo\":\"sha256\","
		      "\"digest\":\"" HEX7 "\"}");
	json_decref(a);
	assert_int_equal(tv_state(t, "v1"), DB_STATE_UNTRUSTED);

	/* the default policy allows them: the same boot is then trusted */
	snprintf(t->v.cfg.violations, sizeof(t->v.cfg.violations), "allow");
	assert_int_equal(rejudge_all(&t->v, REJUDGE_ADDED,
				     "{\"check\":\"rejudge\"}", TV_NOW, &st,
				     &err),
			 0);
	assert_int_equal(st.now_trusted, 1);
	assert_int_equal(tv_state(t, "v1"), DB_STATE_TRUSTED);
}

/*
 * Judged again whole (a policy changed), the boot_aggregate record stays
 * excluded (it is checked against the PCRs, not the references) and a
 * violation stays a violation: neither becomes an unknown file.
 */
static void test_policy_keeps_aggregate_and_violation(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/tmp/busy", 0, DB_VERDICT_VIOLATION },
		{ "/usr/bin/a", 2, DB_VERDICT_KNOWN },
	};
	struct tv *t = *state;
	struct rejudge_stats st;
	struct imt_error err;

	tv_machine(t, "k1", DB_STATE_ENROLLING);
	tv_boot(t, "k1", recs, 3);
	assert_int_equal(db_machine_set_state(t->v.db, "k1", DB_STATE_TRUSTED,
					      NULL, TV_NOW, &err),
			 0);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_POLICY,
				     "{\"check\":\"rejudge\"}", TV_NOW, &st,
				     &err),
			 0);
	assert_string_equal(verdict(t, "k1", 0), "excluded");
	assert_string_equal(verdict(t, "k1", 1), "violation");
	assert_string_equal(verdict(t, "k1", 2), "known");
	assert_int_equal(tv_state(t, "k1"), DB_STATE_TRUSTED);
}

/* More records than one round, and more machines than one listing. */
static void test_many(void **state)
{
	struct tv *t = *state;
	size_t n = REJUDGE_RECORDS_PAGE * 2 + 5, i;
	struct tv_record *recs = calloc(n, sizeof(*recs));
	char(*paths)[32] = calloc(n, 32), id[32];
	struct rejudge_stats st;
	struct imt_error err;
	json_t *a;

	for (i = 0; i < n; i++) {
		snprintf(paths[i], 32, "/opt/f%zu", i);
		recs[i] = (struct tv_record){ paths[i], 7, DB_VERDICT_UNKNOWN };
	}
	tv_machine(t, "big", DB_STATE_ENROLLING);
	tv_boot(t, "big", recs, n);
	db_machine_set_state(t->v.db, "big", DB_STATE_UNTRUSTED, NULL, TV_NOW,
			     &err);
	for (i = 0; i < REJUDGE_MACHINES_PAGE + 3; i++) {
		snprintf(id, sizeof(id), "m%04zu", i);
		tv_machine(t, id, DB_STATE_ENROLLING);
	}
	/* any_path = allow: digest 07 is known for /usr/bin/new */
	snprintf(t->v.cfg.any_path, sizeof(t->v.cfg.any_path), "allow");
	a = import(t, "{\"path\":\"/usr/bin/new\",\"algo\":\"sha256\","
		      "\"digest\":\"" HEX7 "\"},{\"path\":\"/usr/bin/x\","
		      "\"algo\":\"sha256\",\"digest\":\"" HEX8 "\"}");
	assert_int_equal(stat_of(a, "records_changed"), 8 + n);
	json_decref(a);
	assert_int_equal(tv_state(t, "big"), DB_STATE_TRUSTED);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_ADDED, "{}", TV_NOW, &st,
				     &err),
			 0);
	assert_int_equal(st.records, 0);
	free(recs);
	free(paths);
}

/*
 * A policy of many regexes judges fewer records per lock hold: the
 * evidence waiting for the lock waits one page of REJUDGE_REGEX_WORK
 * matches, not 1,000 records x 20,000 regexes (12 s). Prefix rules cost
 * no regex.
 */
static void test_page_by_regexes(void **state)
{
	static const char body[] = "{\"sources\":[\"*\"]}";
	struct policy *p = policy_parse("many", body, sizeof(body) - 1, NULL);
	struct imt_error err;
	char re[32];
	size_t i;

	(void)state;
	assert_non_null(p);
	assert_int_equal(rejudge_page(NULL), REJUDGE_RECORDS_PAGE);
	for (i = 0; i < 1000; i++) {
		snprintf(re, sizeof(re), "/opt/p%zu/", i);
		assert_int_equal(policy_add_rule(p, IMPORT_RULE_PREFIX, re,
						 "keylime:k", &err),
				 0);
	}
	assert_int_equal(rejudge_page(p), REJUDGE_RECORDS_PAGE);
	for (i = 0; i < 1000; i++) {
		snprintf(re, sizeof(re), "(a|b)%zu", i);
		assert_int_equal(policy_add_rule(p, IMPORT_RULE_REGEX, re,
						 "keylime:k", &err),
				 0);
	}
	assert_int_equal(rejudge_page(p), REJUDGE_REGEX_WORK / 1001);
	while (p->nrules < POLICY_RULES_MAX) {
		snprintf(re, sizeof(re), "(c|d)%zu", p->nrules);
		assert_int_equal(policy_add_rule(p, IMPORT_RULE_REGEX, re,
						 "keylime:k", &err),
				 0);
	}
	/* the policy's own limit, then the page */
	assert_int_equal(policy_add_rule(p, IMPORT_RULE_PREFIX, "/x",
					 "keylime:k", &err),
			 -1);
	assert_non_null(strstr(err.msg, "limit POLICY_RULES_MAX reached"));
	assert_true(rejudge_page(p) >= REJUDGE_RECORDS_PAGE_MIN);
	assert_true(rejudge_page(p) * (POLICY_RULES_MAX - 1000) <=
		    REJUDGE_REGEX_WORK);
	policy_free(p);
}

static void count_round(const char *point, void *arg)
{
	if (strcmp(point, "rejudge:round") == 0)
		(*(size_t *)arg)++;
}

/* The lock is left free between the rounds of one machine too. */
static void test_rounds_paused(void **state)
{
	struct tv *t = *state;
	size_t n = REJUDGE_RECORDS_PAGE * 2 + 5, i, rounds = 0;
	struct tv_record *recs = calloc(n, sizeof(*recs));
	char(*paths)[32] = calloc(n, 32);
	struct rejudge_stats st;
	struct imt_error err;

	for (i = 0; i < n; i++) {
		snprintf(paths[i], 32, "/opt/f%zu", i);
		recs[i] = (struct tv_record){ paths[i], 7, DB_VERDICT_UNKNOWN };
	}
	tv_machine(t, "big", DB_STATE_ENROLLING);
	tv_boot(t, "big", recs, n);
	db_machine_set_state(t->v.db, "big", DB_STATE_UNTRUSTED, NULL, TV_NOW,
			     &err);
	rejudge_set_hook(count_round, &rounds);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_POLICY, "{}", TV_NOW, &st,
				     &err),
			 0);
	rejudge_set_hook(NULL, NULL);
	assert_true(rounds >= 2);
	free(recs);
	free(paths);
}

/* A machine without a boot, listed first: nothing to judge, no loop. */
static void test_no_boot_first(void **state)
{
	struct tv *t = tv_new();
	struct rejudge_stats st;
	struct imt_error err;

	(void)state;
	tv_machine(t, "a-bootless", DB_STATE_ENROLLING);
	tv_machine(t, "b", DB_STATE_ENROLLING);
	tv_boot(t, "b", boot_records, 4);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_POLICY, "{}", TV_NOW, &st,
				     &err),
			 0);
	assert_int_equal(st.machines, 1);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_untrusted_becomes_trusted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_partial_import_stays_untrusted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_becomes_mismatch,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_withdraw_makes_untrusted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaced_digest_makes_untrusted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_replace_import_makes_untrusted,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_withdraw_source, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_queued_withdrawal_survives,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_any_path_both_ways, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_policy_keeps_aggregate_and_violation,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_violation_policy, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_many, setup, teardown),
		cmocka_unit_test(test_page_by_regexes),
		cmocka_unit_test(test_no_boot_first),
		cmocka_unit_test_setup_teardown(test_rounds_paused, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

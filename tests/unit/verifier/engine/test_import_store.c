// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_store.c - an import stored in one transaction, and the
 * upgrade window: an older package version retired by the housekeeping
 * clock re-judges the machines that still run it.
 */
#include "db_boot.h"
#include "db_machine.h"
#include "db_policy.h"
#include "db_ref.h"
#include "db_source.h"
#include "verifier_test.h"
#include "import_store.h"
#include "policies.h"

static void add(struct import_sink *s, const char *path, uint8_t fill)
{
	struct imt_error err;
	uint8_t d[32];
	struct import_ref r = { .kind = IMPORT_REF_FILE,
				.path = path,
				.algo = "sha256",
				.digest = d,
				.digest_len = 32 };

	tv_digest(fill, d);
	assert_int_equal(s->ref(s->arg, &r, &err), 0);
}

static void import_version(struct tv *t, const char *name, const char *ver,
			   uint8_t fill)
{
	struct db_source_meta meta = { .package = "tool",
				       .version = ver,
				       .arch = "amd64" };
	struct db_ref_source src = { .kind = DB_SOURCE_DEB,
				     .name = name,
				     .meta = &meta };
	struct import_batch b;
	struct import_sink s;
	struct imt_error err;

	import_batch_sink(&b, &s);
	add(&s, "/usr/bin/tool", fill);
	add(&s, "/usr/share/tool/data", (uint8_t)(fill + 100));
	assert_int_equal(import_batch_store(&t->v, &src, &b, 0, TV_NOW, NULL,
					    &err),
			 0);
	import_batch_free(&b);
}

static int count_one(const struct db_source_info *si, void *arg)
{
	(void)si;
	(*(size_t *)arg)++;
	return 0;
}

static size_t sources(struct tv *t)
{
	struct imt_error err;
	size_t n = 0;

	assert_int_equal(db_source_list(t->v.db, -1, count_one, &n, &err), 0);
	return n;
}

static void test_upgrade_window_retires_and_rejudges(void **state)
{
	const struct tv_record runs_old[] = {
		{ "/usr/bin/tool", 1, DB_VERDICT_KNOWN },
	};
	struct imt_error err;
	struct tv *t = tv_new();
	size_t n = 0;

	(void)state;
	tv_machine(t, "m1", DB_STATE_TRUSTED);
	tv_boot(t, "m1", runs_old, 1);
	import_version(t, "tool_1.0_amd64", "1.0", 1);
	import_version(t, "tool_1.1_amd64", "1.1", 2);
	assert_int_equal(db_source_schedule_retire(t->v.db, "tool", "amd64",
						   "tool_1.1_amd64",
						   TV_NOW + 60, &n, &err),
			 0);
	assert_int_equal(n, 1);
	/* before the window ends nothing happens */
	import_retire_due(&t->v, TV_NOW + 59);
	assert_int_equal(sources(t), 2);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_TRUSTED);
	/* then 1.0 is withdrawn and m1, still running it, is re-judged */
	import_retire_due(&t->v, TV_NOW + 60);
	assert_int_equal(sources(t), 1);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_UNTRUSTED);
	/* the newer version was never scheduled */
	assert_int_equal(db_source_schedule_retire(t->v.db, "tool", "amd64",
						   "tool_1.1_amd64",
						   TV_NOW + 60, &n, &err),
			 0);
	assert_int_equal(n, 0);
	tv_free(t);
}

/* A failure half way stores nothing of the import. */
static void test_one_transaction(void **state)
{
	struct db_ref_source src = { .kind = DB_SOURCE_KEYLIME, .name = "p" };
	struct import_batch b;
	struct import_sink s;
	struct imt_error err;
	struct tv *t = tv_new();
	char longpath[5000];

	(void)state;
	import_batch_sink(&b, &s);
	add(&s, "/usr/bin/a", 1);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	add(&s, longpath, 2); /* longer than DB_PATH_MAX: refused */
	assert_int_equal(import_batch_store(&t->v, &src, &b, 0, TV_NOW, NULL,
					    &err),
			 -1);
	assert_int_equal(sources(t), 0);
	import_batch_free(&b);
	tv_free(t);
}

/* A path given once per bank is kept once; each algorithm name once. */
static void test_one_path_copy(void **state)
{
	static const char *const algos[] = { "sha256", "sha1", "sha256" };
	struct import_batch b;
	struct import_sink s;
	struct imt_error err;
	uint8_t d[32] = { 0 };
	char path[64];
	size_t i;

	(void)state;
	import_batch_sink(&b, &s);
	for (i = 0; i < 6; i++) {
		struct import_ref r = { .kind = IMPORT_REF_FILE,
					.path = path,
					.algo = algos[i % 3],
					.digest = d,
					.digest_len = 32 };

		/* a new buffer each time: the batch must compare, not
		 * trust the pointer */
		snprintf(path, sizeof(path), "/usr/bin/%s", i < 3 ? "a" : "b");
		assert_int_equal(s.ref(s.arg, &r, &err), 0);
	}
	assert_ptr_equal(b.refs[0].path, b.refs[1].path);
	assert_ptr_equal(b.refs[1].path, b.refs[2].path);
	assert_ptr_not_equal(b.refs[2].path, b.refs[3].path);
	assert_ptr_equal(b.refs[3].path, b.refs[5].path);
	assert_string_equal(b.refs[3].path, "/usr/bin/b");
	assert_ptr_equal(b.refs[0].algo, b.refs[5].algo);
	assert_ptr_equal(b.refs[1].algo, b.refs[4].algo);
	assert_string_equal(b.refs[4].algo, "sha1");
	import_batch_free(&b);
}

static void put_policy(struct tv *t, const char *name, const char *body)
{
	struct policy *p;
	struct imt_error err;

	p = policy_parse(name, body, strlen(body), &err);
	if (p == NULL)
		fail_msg("policy_parse: %s", err.msg);
	if (db_policy_put(t->v.db, name, body, p->is_default,
			  (const char *const *)p->sources, p->nsources, TV_NOW,
			  &err) < 0)
		fail_msg("db_policy_put: %s", err.msg);
	policy_free(p);
	policies_invalidate(&t->v);
}

/*
 * POLICY_RULES_MAX over a policy's sources: keylime:a holds 4,000
 * rules; keylime:b may bring 96 more, not 97; keylime:a again may bring
 * the whole limit (its own rules are replaced).
 */
static void test_rules_fit(void **state)
{
	struct db_ref_source src = { .kind = DB_SOURCE_KEYLIME, .name = "a" };
	struct tv *t = tv_new();
	struct import_batch b;
	struct import_sink s;
	struct imt_error err;
	char rule[32];
	size_t i;

	(void)state;
	put_policy(t, "k", "{\"sources\":[\"keylime:*\"]}");
	import_batch_sink(&b, &s);
	for (i = 0; i < 4000; i++) {
		snprintf(rule, sizeof(rule), "/opt/%zu/", i);
		assert_int_equal(s.exclude(s.arg, IMPORT_RULE_PREFIX, rule,
					   &err),
				 0);
	}
	assert_int_equal(import_batch_store(&t->v, &src, &b, 1, TV_NOW, NULL,
					    &err),
			 0);
	import_batch_free(&b);
	assert_int_equal(policies_rules_fit(&t->v, "keylime:b",
					    POLICY_RULES_MAX - 4000, &err),
			 0);
	assert_int_equal(policies_rules_fit(&t->v, "keylime:b",
					    POLICY_RULES_MAX - 3999, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	/* the migration's default selects every source: named first */
	if (!strstr(err.msg, "limit POLICY_RULES_MAX reached: policy default "
			     "would hold 4097"))
		fail_msg("%s", err.msg);
	assert_int_equal(policies_rules_fit(&t->v, "keylime:a",
					    POLICY_RULES_MAX, &err),
			 0);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upgrade_window_retires_and_rejudges),
		cmocka_unit_test(test_one_transaction),
		cmocka_unit_test(test_one_path_copy),
		cmocka_unit_test(test_rules_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

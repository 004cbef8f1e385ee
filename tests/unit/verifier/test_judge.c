// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_judge.c - a record's verdict under the references and the policy.
 */
#include "verifier_test.h"
#include "judge.h"

static void ref(struct tv *t, const char *path, uint8_t fill)
{
	struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE, .name = "test" };
	struct imt_error err;
	uint8_t d[32];

	tv_digest(fill, d);
	if (db_ref_add(t->v.db, &src, path, "sha256", d, 32, TV_NOW, &err) < 0)
		fail_msg("db_ref_add: %s", err.msg);
}

static enum db_verdict judge(struct tv *t, const char *path, uint8_t fill,
			     int violation)
{
	struct judge_input in = { .path = path, .algo = "sha256",
				  .digest_len = 32, .violation = violation };
	enum db_verdict v;
	struct imt_error err;
	uint8_t d[32];

	tv_digest(fill, d);
	in.digest = d;
	assert_int_equal(judge_record(&t->v, &in, &v, &err), 0);
	return v;
}

static void test_verdicts_and_policy(void **state)
{
	struct tv *t = tv_new();

	(void)state;
	ref(t, "/usr/bin/a", 1);
	assert_int_equal(judge(t, "/usr/bin/a", 1, 0), DB_VERDICT_KNOWN);
	assert_int_equal(judge(t, "/usr/bin/a", 2, 0), DB_VERDICT_MISMATCH);
	assert_int_equal(judge(t, "/usr/bin/b", 9, 0), DB_VERDICT_UNKNOWN);
	/* a's digest under another name: unknown unless any_path = allow */
	assert_int_equal(judge(t, "/tmp/a-copy", 1, 0), DB_VERDICT_UNKNOWN);
	strcpy(t->v.cfg.any_path, "allow");
	assert_int_equal(judge(t, "/tmp/a-copy", 1, 0), DB_VERDICT_KNOWN);
	/* but a path with references of its own is pinned to them */
	assert_int_equal(judge(t, "/usr/bin/a", 2, 0), DB_VERDICT_MISMATCH);
	/* violations: acceptable by default, not with violations = untrusted */
	assert_int_equal(judge(t, "/var/log/x", 0, 1), DB_VERDICT_VIOLATION);
	assert_true(judge_acceptable(&t->v, DB_VERDICT_VIOLATION));
	strcpy(t->v.cfg.violations, "untrusted");
	assert_false(judge_acceptable(&t->v, DB_VERDICT_VIOLATION));
	assert_true(judge_acceptable(&t->v, DB_VERDICT_EXCLUDED));
	assert_false(judge_acceptable(&t->v, DB_VERDICT_UNKNOWN));
	assert_false(judge_acceptable(&t->v, DB_VERDICT_MISMATCH));
	tv_free(t);
}

/* An empty event name is a record no reference names, not a 503. */
static void test_empty_name_is_unknown(void **state)
{
	struct tv *t = tv_new();

	(void)state;
	strcpy(t->v.cfg.any_path, "allow");
	assert_int_equal(judge(t, "", 1, 0), DB_VERDICT_UNKNOWN);
	tv_free(t);
}

static void test_reason_is_json_whatever_the_path(void **state)
{
	static const char bad_utf8[] = "/tmp/\xff\xfe evil\"\\";
	struct judge_input in = { .path = bad_utf8, .algo = "sha256",
				  .digest_len = 32 };
	char reason[JUDGE_REASON_MAX], longpath[5000];
	uint8_t d[32];
	json_error_t je;
	json_t *j;

	(void)state;
	tv_digest(0xab, d);
	in.digest = d;
	judge_reason(7, &in, DB_VERDICT_UNKNOWN, reason);
	j = json_loads(reason, 0, &je);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "index")), 7);
	assert_string_equal(json_string_value(json_object_get(j, "verdict")),
			    "unknown");
	assert_non_null(strstr(json_string_value(json_object_get(j, "digest")),
			       "sha256:abab"));
	/* bytes that are not printable ASCII are spelled out, not lost */
	assert_string_equal(json_string_value(json_object_get(j, "path")),
			    "/tmp/\\xff\\xfe evil\"\\x5c");
	json_decref(j);
	/* a path longer than the reason can hold is cut, the JSON is not */
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	in.path = longpath;
	judge_reason(1, &in, DB_VERDICT_UNKNOWN, reason);
	j = json_loads(reason, 0, &je);
	assert_non_null(j);
	json_decref(j);
}

static void test_boot(void **state)
{
	const struct tv_record good[] = {
		{ "/usr/bin/a", 1, DB_VERDICT_KNOWN },
		{ "/var/log/x", 0, DB_VERDICT_VIOLATION },
	};
	const struct tv_record bad[] = {
		{ "/usr/bin/a", 1, DB_VERDICT_KNOWN },
		{ "/usr/bin/evil", 5, DB_VERDICT_UNKNOWN },
	};
	char reason[JUDGE_REASON_MAX];
	struct imt_error err;
	struct tv *t = tv_new();
	int64_t b1, b2;
	int ok;

	(void)state;
	tv_machine(t, "m1", DB_STATE_TRUSTED);
	tv_machine(t, "m2", DB_STATE_TRUSTED);
	b1 = tv_boot(t, "m1", good, 2);
	b2 = tv_boot(t, "m2", bad, 2);
	assert_int_equal(judge_boot(&t->v, b1, 2, &ok, reason, &err), 0);
	assert_int_equal(ok, 1);
	assert_int_equal(judge_boot(&t->v, b2, 2, &ok, reason, &err), 0);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(reason, "/usr/bin/evil"));
	/* the violation counts once the policy says so */
	strcpy(t->v.cfg.violations, "untrusted");
	assert_int_equal(judge_boot(&t->v, b1, 2, &ok, reason, &err), 0);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(reason, "\"violation\""));
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts_and_policy),
		cmocka_unit_test(test_empty_name_is_unknown),
		cmocka_unit_test(test_reason_is_json_whatever_the_path),
		cmocka_unit_test(test_boot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

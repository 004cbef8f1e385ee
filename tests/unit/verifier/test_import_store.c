// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_store.c - an import stored in one transaction, and the
 * upgrade window: an older package version retired by the housekeeping
 * clock re-judges the machines that still run it.
 */
#include "verifier_test.h"
#include "import_store.h"

static void add(struct import_sink *s, const char *path, uint8_t fill)
{
	struct imt_error err;
	uint8_t d[32];
	struct import_ref r = { .kind = IMPORT_REF_FILE, .path = path,
				.algo = "sha256", .digest = d,
				.digest_len = 32 };

	tv_digest(fill, d);
	assert_int_equal(s->ref(s->arg, &r, &err), 0);
}

static void import_version(struct tv *t, const char *name, const char *ver,
			   uint8_t fill)
{
	struct db_source_meta meta = { .package = "tool", .version = ver,
				       .arch = "amd64" };
	struct db_ref_source src = { .kind = DB_SOURCE_DEB, .name = name,
				     .meta = &meta };
	struct import_batch b;
	struct import_sink s;
	struct imt_error err;

	import_batch_sink(&b, &s);
	add(&s, "/usr/bin/tool", fill);
	add(&s, "/usr/share/tool/data", (uint8_t)(fill + 100));
	assert_int_equal(import_batch_store(&t->v, &src, &b, 0, TV_NOW, NULL,
					    &err), 0);
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
			 "tool_1.1_amd64", TV_NOW + 60, &n, &err), 0);
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
			 "tool_1.1_amd64", TV_NOW + 60, &n, &err), 0);
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
	add(&s, longpath, 2);	/* longer than DB_PATH_MAX: refused */
	assert_int_equal(import_batch_store(&t->v, &src, &b, 0, TV_NOW, NULL,
					    &err), -1);
	assert_int_equal(sources(t), 0);
	import_batch_free(&b);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upgrade_window_retires_and_rejudges),
		cmocka_unit_test(test_one_transaction),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

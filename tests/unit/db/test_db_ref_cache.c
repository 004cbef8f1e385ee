// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_ref_cache.c - reference lookups answered from memory stay
 * right: whatever changes the references (this connection, another
 * verifier or the command line on another connection, inside a batch,
 * rolled back) is seen by the next lookup of the next transaction.
 * The references in memory (db_ref_index.c) are turned off here: the
 * cache answers what they would, test_db_ref_index.c tests them.
 */
#include "db_policy.h"
#include "db_ref.h"
#include "db_test.h"

static const struct db_ref_source deb = { .kind = DB_SOURCE_DEB,
					  .name = "bash.deb" };
static const struct db_ref_source tree = { .kind = DB_SOURCE_DIR_TREE,
					   .name = "/srv" };

static uint8_t d_ok[32] = { 1, 2, 3 }, d_evil[32] = { 6, 6, 6 };

/* The class of @path with @d under @policy, in a transaction of its own. */
static enum db_ref_class judged(struct db *db, const char *policy,
				const char *path, const uint8_t *d)
{
	enum db_ref_class cls;
	struct imt_error err;

	if (db_batch_begin(db, &err) < 0 ||
	    db_ref_lookup_policy(db, policy, path, "sha256", d, 32, &cls,
				 &err) < 0 ||
	    db_batch_commit(db, &err) < 0)
		fail_msg("lookup %s: %s", path, err.msg);
	return cls;
}

static void add(struct db *db, const struct db_ref_source *src,
		const char *path, const uint8_t *d)
{
	struct imt_error err;

	if (db_ref_add(db, src, path, "sha256", d, 32, T_NOW, &err) < 0)
		fail_msg("add %s: %s", path, err.msg);
}

static struct db_ref_cache_stats stats(struct db *db)
{
	struct db_ref_cache_stats s;

	db_ref_cache_stats(db, &s);
	return s;
}

/* A repeated lookup is answered from memory, with the same class. */
static void test_repeat_hits(void **state)
{
	enum db_ref_class cls;
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	t.db->ref_index_off = 1; /* the cache alone */
	add(t.db, &deb, "/bin/bash", d_ok);
	assert_int_equal(judged(t.db, NULL, "/bin/bash", d_ok), DB_REF_KNOWN);
	assert_int_equal(stats(t.db).misses, 1);
	assert_int_equal(stats(t.db).hits, 0);
	/* the next transaction, and twice in one */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(db_ref_lookup_policy(t.db, NULL, "/bin/bash",
						      "sha256", d_ok, 32, &cls,
						      &err),
				 0);
		assert_int_equal(cls, DB_REF_KNOWN);
	}
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(stats(t.db).hits, 2);
	/* another digest, another policy: other keys */
	assert_int_equal(judged(t.db, NULL, "/bin/bash", d_evil),
			 DB_REF_MISMATCH);
	assert_int_equal(judged(t.db, "default", "/bin/bash", d_ok),
			 DB_REF_KNOWN);
	assert_int_equal(stats(t.db).misses, 3);
	assert_int_equal(stats(t.db).flushes, 0);
	tdb_remove(&t);
}

/*
 * The attack: an operator withdraws a reference on verifier B (a package
 * found bad); verifier A had judged it known a moment before and must not
 * keep saying so.
 */
static void test_other_instance_withdraws(void **state)
{
	struct imt_error err;
	size_t deleted = 0;
	struct tdb t;
	struct db *b;

	(void)state;
	tdb_new(&t);
	t.db->ref_index_off = 1; /* the cache alone */
	add(t.db, &deb, "/bin/bash", d_ok);
	assert_int_equal(judged(t.db, NULL, "/bin/bash", d_ok), DB_REF_KNOWN);
	b = tdb_other(&t);
	b->ref_index_off = 1;
	assert_int_equal(db_ref_delete(b, &deb, "/bin/bash", "sha256", d_ok, 32,
				       &deleted, &err),
			 0);
	assert_int_equal(deleted, 1);
	assert_int_equal(judged(t.db, NULL, "/bin/bash", d_ok),
			 DB_REF_UNKNOWN_PATH);
	assert_int_equal(stats(t.db).flushes, 1);
	/* and an import there is seen here */
	assert_int_equal(judged(t.db, NULL, "/bin/evil", d_evil),
			 DB_REF_UNKNOWN_PATH);
	add(b, &deb, "/bin/evil", d_evil);
	assert_int_equal(judged(t.db, NULL, "/bin/evil", d_evil), DB_REF_KNOWN);
	db_close(b);
	tdb_remove(&t);
}

/* A policy that stops selecting a source, changed elsewhere. */
static void test_other_instance_policy(void **state)
{
	static const char *const all[] = { "*" };
	static const char *const debs[] = { "deb:*" };
	struct imt_error err;
	struct tdb t;
	struct db *b;

	(void)state;
	tdb_new(&t);
	t.db->ref_index_off = 1; /* the cache alone */
	add(t.db, &tree, "/srv/app", d_ok);
	assert_int_equal(db_policy_put(t.db, "web", "{}", 0, all, 1, T_NOW,
				       &err),
			 0);
	assert_int_equal(judged(t.db, "web", "/srv/app", d_ok), DB_REF_KNOWN);
	b = tdb_other(&t);
	b->ref_index_off = 1;
	assert_int_equal(db_policy_put(b, "web", "{}", 0, debs, 1, T_NOW, &err),
			 0);
	assert_int_equal(judged(t.db, "web", "/srv/app", d_ok),
			 DB_REF_UNKNOWN_PATH);
	db_close(b);
	tdb_remove(&t);
}

/* A write in a batch is seen by the batch's next lookup; undone, not. */
static void test_batch_write_and_rollback(void **state)
{
	enum db_ref_class cls;
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	t.db->ref_index_off = 1; /* the cache alone */
	add(t.db, &deb, "/bin/ls", d_ok);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(db_ref_lookup_policy(t.db, NULL, "/bin/evil", "sha256",
					      d_evil, 32, &cls, &err),
			 0);
	assert_int_equal(cls, DB_REF_UNKNOWN_PATH);
	add(t.db, &deb, "/bin/evil", d_evil);
	assert_int_equal(db_ref_lookup_policy(t.db, NULL, "/bin/evil", "sha256",
					      d_evil, 32, &cls, &err),
			 0);
	assert_int_equal(cls, DB_REF_KNOWN);
	db_batch_abort(t.db);
	/* what the rolled-back batch cached is not believed */
	assert_int_equal(judged(t.db, NULL, "/bin/evil", d_evil),
			 DB_REF_UNKNOWN_PATH);
	assert_int_equal(judged(t.db, NULL, "/bin/ls", d_ok), DB_REF_KNOWN);
	tdb_remove(&t);
}

/*
 * An import's references are not seen before it publishes, even inside
 * it (migration 0019), and gone when it aborts.
 */
static void test_import_bypasses(void **state)
{
	enum db_ref_class cls;
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	t.db->ref_index_off = 1; /* the cache alone */
	assert_int_equal(judged(t.db, NULL, "/bin/evil", d_evil),
			 DB_REF_UNKNOWN_PATH);
	assert_int_equal(db_ref_import_begin(t.db, &deb, T_NOW, &err), 0);
	assert_int_equal(db_ref_lookup(t.db, "/bin/evil", "sha256", d_evil, 32,
				       &cls, &err),
			 0);
	assert_int_equal(cls, DB_REF_UNKNOWN_PATH);
	add(t.db, &deb, "/bin/evil", d_evil);
	assert_int_equal(db_ref_lookup(t.db, "/bin/evil", "sha256", d_evil, 32,
				       &cls, &err),
			 0);
	assert_int_equal(cls, DB_REF_UNKNOWN_PATH);
	db_ref_import_abort(t.db);
	assert_int_equal(judged(t.db, NULL, "/bin/evil", d_evil),
			 DB_REF_UNKNOWN_PATH);
	tdb_remove(&t);
}

/* A path too long to keep is still judged right, every time. */
static void test_long_path_not_kept(void **state)
{
	char path[600];
	struct tdb t;

	(void)state;
	memset(path, 'a', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	tdb_new(&t);
	t.db->ref_index_off = 1; /* the cache alone */
	add(t.db, &deb, path, d_ok);
	assert_int_equal(judged(t.db, NULL, path, d_ok), DB_REF_KNOWN);
	assert_int_equal(judged(t.db, NULL, path, d_ok), DB_REF_KNOWN);
	assert_int_equal(stats(t.db).hits, 0);
	assert_int_equal(stats(t.db).misses, 2);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repeat_hits),
		cmocka_unit_test(test_other_instance_withdraws),
		cmocka_unit_test(test_other_instance_policy),
		cmocka_unit_test(test_batch_write_and_rollback),
		cmocka_unit_test(test_import_bypasses),
		cmocka_unit_test(test_long_path_not_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

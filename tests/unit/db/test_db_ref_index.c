// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_ref_index.c - the references in memory (db/db_ref_index.c)
 * give the SQL's class for every lookup: random imports (published or
 * left half done), withdrawals, deletions and policy changes, written by
 * one of three connections (three verifiers on one database), and after
 * each step every (path, digest) of a small world, under every policy
 * and none, on every connection, through the index and through the SQL.
 * IMATRUST_TEST_SEED picks another world.
 */
#include "db_policy.h"
#include "db_ref.h"
#include "db_test.h"

#define NPATH 18
#define NDIG 18
#define NSRC 5
#define NDB 3
#define STEPS 40
#define STEPS_PG 12 /* a round trip a lookup */

static const struct db_ref_source srcs[NSRC] = {
	{ .kind = DB_SOURCE_DEB, .name = "bash.deb" },
	{ .kind = DB_SOURCE_DEB, .name = "coreutils.deb" },
	{ .kind = DB_SOURCE_GOLDEN_LIST, .name = "g1" },
	{ .kind = DB_SOURCE_GOLDEN_LIST, .name = "g2" },
	{ .kind = DB_SOURCE_DIR_TREE, .name = "/srv" },
};
/* "Zeta" sorts before "debs" bytewise, after it in most locales */
static const char *const policies[] = { NULL,	"default", "debs", "gold",
					"none", "nosuch",  "Zeta" };
#define NPOL (sizeof(policies) / sizeof(policies[0]))

static char paths[NPATH][32];
static uint8_t digs[NDIG][32];

static unsigned int rnd(unsigned int n)
{
	return (unsigned int)random() % n;
}

static void world(void)
{
	size_t i;

	for (i = 0; i < NPATH; i++)
		snprintf(paths[i], sizeof(paths[i]), "/usr/bin/p%zu", i);
	for (i = 0; i < NDIG; i++) {
		memset(digs[i], 0, 32);
		digs[i][0] = (uint8_t)(i * 37 + 11); /* buckets: top bits */
		digs[i][1] = (uint8_t)i;
		digs[i][31] = (uint8_t)random();
	}
}

static void put_policies(struct db *db)
{
	static const char *const debs[] = { "deb:*" };
	static const char *const gold[] = { "golden-list:g1", "dir-tree:/s*" };
	static const char *const none[] = { "efi:*" };
	struct imt_error err;

	if (db_policy_put(db, "debs", "{}", 0, debs, 1, T_NOW, &err) < 0 ||
	    db_policy_put(db, "gold", "{}", 0, gold, 2, T_NOW, &err) < 0 ||
	    db_policy_put(db, "none", "{}", 0, none, 1, T_NOW, &err) < 0 ||
	    db_policy_put(db, "Zeta", "{}", 0, debs, 1, T_NOW, &err) < 0)
		fail_msg("policies: %s", err.msg);
}

static struct db_ref_entry entry(size_t p, size_t d)
{
	return (struct db_ref_entry){ .path = paths[p],
				      .algo = "sha256",
				      .digest = digs[d],
				      .digest_len = 32,
				      .conffile = rnd(5) == 0 };
}

/* A few references of one source: an import, maybe left unpublished. */
static void step_import(struct db *db, int *half_open)
{
	const struct db_ref_source *s = &srcs[rnd(NSRC)];
	struct imt_error err;
	struct db_ref_entry e;
	int n = 1 + (int)rnd(8), i;

	if (db_ref_import_begin(db, s, T_NOW, &err) < 0)
		fail_msg("import: %s", err.msg);
	if (rnd(3) == 0 && db_ref_import_replace(db, &err) < 0)
		fail_msg("replace: %s", err.msg);
	for (i = 0; i < n; i++) {
		/* shared digests and paths: a small world */
		e = entry(rnd(NPATH - 2), rnd(NDIG - 2));
		if (db_ref_add_entry(db, s, &e, T_NOW, &err) < 0)
			fail_msg("add: %s", err.msg);
	}
	/* a chunk that does not publish: none of it may vouch */
	if (!*half_open && rnd(4) == 0) {
		if (db_ref_import_commit_chunk(db, &err) < 0)
			fail_msg("chunk: %s", err.msg);
		*half_open = 1;
		return;
	}
	if (db_ref_import_commit(db, &err) < 0)
		fail_msg("commit: %s", err.msg);
}

static void step_remove(struct db *db)
{
	const struct db_ref_source *s = &srcs[rnd(NSRC)];
	struct imt_error err;
	size_t n;
	int more, rc;

	switch (rnd(3)) {
	case 0: /* a withdrawal's first call hides the whole source */
		rc = db_ref_withdraw(db, s, rnd(2), 1, &n, &more, &err);
		break;
	case 1:
		rc = db_ref_delete_source(db, s, &n, &err);
		break;
	default:
		rc = db_ref_delete(db, rnd(2) ? s : NULL, paths[rnd(NPATH)],
				   "sha256", digs[rnd(NDIG)], 32, &n, &err);
		break;
	}
	if (rc < 0)
		fail_msg("remove: %s", err.msg);
}

static void step_add(struct db *db)
{
	struct db_ref_entry e = entry(rnd(NPATH - 2), rnd(NDIG - 2));
	struct imt_error err;

	if (db_ref_add_entry(db, &srcs[rnd(NSRC)], &e, T_NOW, &err) < 0)
		fail_msg("add: %s", err.msg);
}

/* Every path x digest under every policy: the index agrees with SQL. */
static void compare(struct db *db)
{
	enum db_ref_class a, b;
	struct db_ref_index_stats st0, st1;
	struct imt_error err;
	size_t p, d, k, n = 0;

	if (db_batch_begin(db, &err) < 0 || db_ref_index_refresh(db, &err) < 0)
		fail_msg("refresh: %s", err.msg);
	db_ref_index_stats(db, &st0);
	for (k = 0; k < NPOL; k++) {
		for (p = 0; p < NPATH; p++) {
			for (d = 0; d < NDIG; d++) {
				db->ref_index_off = 0;
				if (db_ref_lookup_policy(db, policies[k],
							 paths[p], "sha256",
							 digs[d], 32, &a,
							 &err) < 0)
					fail_msg("lookup: %s", err.msg);
				db->ref_index_off = 1;
				if (db_ref_lookup_policy(db, policies[k],
							 paths[p], "sha256",
							 digs[d], 32, &b,
							 &err) < 0)
					fail_msg("sql: %s", err.msg);
				if (a != b)
					fail_msg("%s %s d%zu: index %d, SQL %d",
						 policies[k] ? policies[k] :
							       "(none)",
						 paths[p], d, a, b);
				n++;
			}
		}
	}
	db->ref_index_off = 0;
	db_ref_index_stats(db, &st1);
	/* every first lookup came from the index */
	assert_int_equal(st1.hits - st0.hits, n);
	if (db_batch_commit(db, &err) < 0)
		fail_msg("commit: %s", err.msg);
}

static void test_random_agreement(void **state)
{
	const char *seed = getenv("IMATRUST_TEST_SEED");
	struct db *db[NDB];
	struct imt_error err;
	int half_open = 0, i, w;
	struct tdb t;

	(void)state;
	srandom(seed != NULL ? (unsigned int)atoi(seed) : 37);
	world();
	tdb_new(&t);
	db[0] = t.db;
	db[1] = tdb_other(&t);
	db[2] = tdb_other(&t);
	put_policies(db[0]);
	for (i = 0; i < (tdb_pg_uri() != NULL ? STEPS_PG : STEPS); i++) {
		w = (int)rnd(NDB);
		if (half_open && rnd(3) == 0) {
			/* the import's last chunk, on the same connection */
			half_open = 0;
			w = 0;
		}
		if (half_open && w == 0)
			w = 1; /* connection 0 holds the open import */
		switch (rnd(6)) {
		case 0:
		case 1:
			if (w == 0 || !half_open)
				step_import(db[w], &half_open);
			else
				step_add(db[w]);
			break;
		case 2:
			step_add(db[w]);
			break;
		case 3:
		case 4:
			step_remove(db[w]);
			break;
		default:
			put_policies(db[w]);
			break;
		}
		for (w = 0; w < NDB; w++)
			compare(db[w]);
	}
	(void)err;
	db_close(db[1]);
	db_close(db[2]);
	tdb_remove(&t);
}

static enum db_ref_class lookup(struct db *db, size_t p, size_t d)
{
	enum db_ref_class cls;
	struct imt_error err;

	if (db_batch_begin(db, &err) < 0 ||
	    db_ref_lookup_policy(db, NULL, paths[p], "sha256", digs[d], 32,
				 &cls, &err) < 0 ||
	    db_batch_commit(db, &err) < 0)
		fail_msg("lookup: %s", err.msg);
	return cls;
}

static uint64_t hits(struct db *db)
{
	struct db_ref_index_stats s;

	db_ref_index_stats(db, &s);
	return s.hits;
}

/*
 * Another instance writes: this one's index no longer holds the
 * transaction's epoch, so the SQL answers (the new class, not the
 * index's), until the lookups make a rebuild due.
 */
static void test_stale_falls_back(void **state)
{
	struct db_ref_entry e;
	struct imt_error err;
	struct db *other;
	struct tdb t;
	uint64_t h;
	int i;

	(void)state;
	world();
	tdb_new(&t);
	other = tdb_other(&t);
	e = (struct db_ref_entry){ paths[0], "sha256", digs[0], 32, 0 };
	if (db_ref_add_entry(t.db, &srcs[0], &e, T_NOW, &err) < 0)
		fail_msg("add: %s", err.msg);
	for (i = 1; i < 100; i++) {
		e = (struct db_ref_entry){ paths[i % NPATH], "sha256",
					   digs[(i / NPATH) % NDIG], 32, 0 };
		if (db_ref_add_entry(t.db, &srcs[1], &e, T_NOW, &err) < 0)
			fail_msg("add: %s", err.msg);
	}
	/* about 100 references: a lookup does not build it, a start does */
	assert_int_equal(lookup(other, 0, NDIG - 1), DB_REF_MISMATCH);
	assert_int_equal(hits(other), 0);
	assert_int_equal(db_ref_index_refresh(other, &err), 0);
	assert_int_equal(lookup(other, 0, NDIG - 1), DB_REF_MISMATCH);
	h = hits(other);
	assert_int_equal(h, 1);
	e = (struct db_ref_entry){ paths[0], "sha256", digs[NDIG - 1], 32, 0 };
	if (db_ref_add_entry(t.db, &srcs[2], &e, T_NOW, &err) < 0)
		fail_msg("add: %s", err.msg);
	assert_int_equal(lookup(other, 0, NDIG - 1), DB_REF_KNOWN);
	assert_int_equal(hits(other), h);
	/* withdrawn elsewhere: not known any more, wherever it is asked */
	if (db_ref_delete_source(t.db, &srcs[0], NULL, &err) < 0)
		fail_msg("delete: %s", err.msg);
	assert_int_equal(lookup(other, 0, 0), DB_REF_MISMATCH);
	assert_int_equal(hits(other), h);
	/* about 100 references: a rebuild comes due at the 4th (4 x 32) */
	assert_int_equal(lookup(other, 0, 0), DB_REF_MISMATCH);
	assert_int_equal(hits(other), h);
	assert_int_equal(lookup(other, 0, NDIG - 1), DB_REF_KNOWN);
	assert_int_equal(hits(other), h + 1);
	db_close(other);
	tdb_remove(&t);
}

/* An import's open transaction: the index does not answer in it. */
static void test_import_open_bypasses(void **state)
{
	struct db_ref_entry e;
	struct imt_error err;
	enum db_ref_class cls;
	struct tdb t;

	(void)state;
	world();
	tdb_new(&t);
	assert_int_equal(lookup(t.db, 0, 0), DB_REF_UNKNOWN_PATH);
	assert_int_equal(db_ref_import_begin(t.db, &srcs[0], T_NOW, &err), 0);
	e = (struct db_ref_entry){ paths[0], "sha256", digs[0], 32, 0 };
	assert_int_equal(db_ref_add_entry(t.db, &srcs[0], &e, T_NOW, &err), 0);
	assert_int_equal(db_ref_lookup_policy(t.db, NULL, paths[0], "sha256",
					      digs[0], 32, &cls, &err),
			 0);
	assert_int_equal(hits(t.db), 1);
	assert_int_equal(db_ref_import_commit(t.db, &err), 0);
	assert_int_equal(lookup(t.db, 0, 0), DB_REF_KNOWN);
	tdb_remove(&t);
}

/*
 * Rebuilt on a connection of its own: meanwhile the SQL answers, then
 * the finished index does, with the classes the SQL gives.
 */
static void test_background_rebuild(void **state)
{
	struct db_ref_entry e;
	struct imt_error err;
	struct db *other;
	struct tdb t;
	uint64_t h;
	int i;

	(void)state;
	world();
	tdb_new(&t);
	other = tdb_other(&t);
	assert_int_equal(db_ref_index_background(t.db, t.path, &err), 0);
	assert_int_equal(db_ref_index_refresh(t.db, &err), 0);
	assert_int_equal(lookup(t.db, 0, 0), DB_REF_UNKNOWN_PATH);
	h = hits(t.db);
	assert_int_equal(h, 1);
	e = (struct db_ref_entry){ paths[0], "sha256", digs[0], 32, 1 };
	if (db_ref_add_entry(other, &srcs[0], &e, T_NOW, &err) < 0)
		fail_msg("add: %s", err.msg);
	/* stale: the SQL answers; the rebuild runs beside the lookups */
	assert_int_equal(lookup(t.db, 0, 0), DB_REF_KNOWN);
	assert_int_equal(hits(t.db), h);
	for (i = 0; i < 500 && hits(t.db) == h; i++) {
		assert_int_equal(lookup(t.db, 0, 1), DB_REF_MISMATCH_CONFFILE);
		usleep(10000);
	}
	assert_true(hits(t.db) > h);
	assert_int_equal(lookup(t.db, 0, 0), DB_REF_KNOWN);
	assert_int_equal(lookup(t.db, 1, 0), DB_REF_KNOWN_ANY_PATH);
	compare(t.db);
	db_close(other);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_agreement),
		cmocka_unit_test(test_stale_falls_back),
		cmocka_unit_test(test_import_open_bypasses),
		cmocka_unit_test(test_background_rebuild),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

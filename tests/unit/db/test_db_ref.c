// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_ref.c - reference digests: add, lookup classes, bulk import,
 * delete, list.
 */
#include <time.h>

#include "db_boot.h"
#include "db_machine.h"
#include "db_ref.h"
#include "db_source.h"
#include "db_test.h"

static const struct db_ref_source src_deb = { .kind = DB_SOURCE_DEB,
					      .name = "bash.deb" };
static const struct db_ref_source src_dir = { .kind = DB_SOURCE_DIR_TREE,
					      .name = "/srv" };

static void digest(uint8_t *d, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = (uint8_t)(seed * 131 + i * 7 + (seed >> 8));
	memcpy(d, &seed, sizeof(seed));
}

static enum db_ref_class lookup(struct tdb *t, const char *path,
				const char *algo, const uint8_t *d, size_t len)
{
	enum db_ref_class cls;
	struct imt_error err;

	if (db_ref_lookup(t->db, path, algo, d, len, &cls, &err) < 0)
		fail_msg("lookup %s: %s", path, err.msg);
	return cls;
}

static void add(struct tdb *t, const struct db_ref_source *src,
		const char *path, const char *algo, const uint8_t *d,
		size_t len)
{
	struct imt_error err;

	if (db_ref_add(t->db, src, path, algo, d, len, T_NOW, &err) < 0)
		fail_msg("add %s: %s", path, err.msg);
}

static void test_lookup_classes(void **state)
{
	uint8_t a[32], b[32], c[32], s1[20];
	struct tdb t;

	(void)state;
	digest(a, 32, 1);
	digest(b, 32, 2);
	digest(c, 32, 3);
	digest(s1, 20, 1);
	tdb_new(&t);
	add(&t, &src_deb, "/bin/a", "sha256", a, 32);
	add(&t, &src_deb, "/bin/b", "sha256", b, 32);
	add(&t, &src_deb, "/bin/a", "sha256", a, 32); /* again: no error */

	assert_int_equal(lookup(&t, "/bin/a", "sha256", a, 32), DB_REF_KNOWN);
	/* /bin/a has its own digest: b, listed for /bin/b, does not do. */
	assert_int_equal(lookup(&t, "/bin/a", "sha256", b, 32),
			 DB_REF_MISMATCH);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", c, 32),
			 DB_REF_MISMATCH);
	assert_int_equal(lookup(&t, "/bin/c", "sha256", a, 32),
			 DB_REF_KNOWN_ANY_PATH);
	assert_int_equal(lookup(&t, "/bin/c", "sha256", c, 32),
			 DB_REF_UNKNOWN_PATH);
	/* sha256 references say nothing about a sha1 measurement. */
	assert_int_equal(lookup(&t, "/bin/a", "sha1", s1, 20),
			 DB_REF_UNKNOWN_PATH);
	/* A second digest for a path (an upgrade) is known too. */
	add(&t, &src_dir, "/bin/a", "sha256", c, 32);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", c, 32), DB_REF_KNOWN);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", a, 32), DB_REF_KNOWN);
	tdb_remove(&t);
}

static void test_bad_input(void **state)
{
	static char long_path[DB_PATH_MAX + 2];
	struct db_ref_source bad_kind = { .kind = (enum db_source_kind)9,
					  .name = "x" };
	enum db_ref_class cls;
	struct imt_error err;
	uint8_t d[32] = { 0 };
	struct tdb t;

	(void)state;
	memset(long_path, 'a', sizeof(long_path) - 1);
	tdb_new(&t);
	assert_int_equal(db_ref_add(t.db, &src_deb, "/x", "sha999", d, 32,
				    T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_ref_add(t.db, &src_deb, "/x", "sha256", d, 20,
				    T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_ref_add(t.db, &src_deb, NULL, "sha256", d, 32,
				    T_NOW, &err),
			 -1);
	assert_int_equal(db_ref_add(t.db, &src_deb, "/x", "sha256", NULL, 32,
				    T_NOW, &err),
			 -1);
	assert_int_equal(db_ref_add(t.db, &bad_kind, "/x", "sha256", d, 32,
				    T_NOW, &err),
			 -1);
	assert_int_equal(db_ref_add(t.db, NULL, "/x", "sha256", d, 32, T_NOW,
				    &err),
			 -1);
	assert_int_equal(db_ref_add(t.db, &src_deb, long_path, "sha256", d, 32,
				    T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_int_equal(db_ref_lookup(t.db, "/x", "sha256", d, 32, NULL, &err),
			 -1);
	assert_int_equal(db_ref_lookup(NULL, "/x", "sha256", d, 32, &cls, NULL),
			 -1);
	assert_int_equal(db_ref_import_commit(t.db, &err), -1);
	db_ref_import_abort(t.db); /* none open: harmless */
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM files"), 0);
	tdb_remove(&t);
}

#define BULK 100000

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_bulk_import(void **state)
{
	struct db_ref_source golden = { .kind = DB_SOURCE_GOLDEN_LIST,
					.name = "golden-1" };
	struct imt_error err;
	char path[64];
	uint8_t d[32];
	double t0, t1;
	struct tdb t;
	uint32_t i;

	(void)state;
	tdb_new(&t);
	t0 = seconds();
	assert_int_equal(db_ref_import_begin(t.db, &golden, T_NOW, &err), 0);
	for (i = 0; i < BULK; i++) {
		snprintf(path, sizeof(path), "/usr/lib/x86_64/lib%u.so", i);
		digest(d, 32, i);
		if (db_ref_add(t.db, &golden, path, "sha256", d, 32, T_NOW,
			       &err) < 0)
			fail_msg("add %u: %s", i, err.msg);
	}
	assert_int_equal(db_ref_import_commit(t.db, &err), 0);
	t1 = seconds();
	print_message("imported %d references in one transaction: %.3f s "
		      "(%.0f/s)\n",
		      BULK, t1 - t0, BULK / (t1 - t0));
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), BULK);
	digest(d, 32, BULK - 1);
	snprintf(path, sizeof(path), "/usr/lib/x86_64/lib%u.so", BULK - 1);
	assert_int_equal(lookup(&t, path, "sha256", d, 32), DB_REF_KNOWN);

	/* Lookups against 100k references: what evidence judging costs. */
	t0 = seconds();
	for (i = 0; i < 10000; i++) {
		snprintf(path, sizeof(path), "/usr/lib/x86_64/lib%u.so",
			 i * 7 % BULK);
		digest(d, 32, i * 7 % BULK);
		assert_int_equal(lookup(&t, path, "sha256", d, 32),
				 DB_REF_KNOWN);
	}
	t1 = seconds();
	print_message("10000 lookups: %.3f s (%.1f us each)\n", t1 - t0,
		      (t1 - t0) * 100);
	tdb_remove(&t);
}

static void test_import_abort_and_exclusion(void **state)
{
	struct imt_error err;
	uint8_t d[32];
	struct tdb t;

	(void)state;
	digest(d, 32, 9);
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_ref_import_begin(t.db, &src_deb, T_NOW, &err), 0);
	add(&t, &src_deb, "/bin/x", "sha256", d, 32);
	/* Inside the import, another source's reference is refused ... */
	assert_int_equal(db_ref_add(t.db, &src_dir, "/bin/y", "sha256", d, 32,
				    T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	/* ... and so is any other write, rather than joining the import. */
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_TRUSTED,
					      NULL, T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_ref_import_begin(t.db, &src_deb, T_NOW, &err), -1);
	db_ref_import_abort(t.db);
	assert_int_equal(lookup(&t, "/bin/x", "sha256", d, 32),
			 DB_REF_UNKNOWN_PATH);
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_TRUSTED,
					      NULL, T_NOW, &err),
			 0);
	/* Closing with an import open rolls it back. */
	assert_int_equal(db_ref_import_begin(t.db, &src_deb, T_NOW, &err), 0);
	add(&t, &src_deb, "/bin/x", "sha256", d, 32);
	tdb_close(&t);
	tdb_open(&t);
	assert_int_equal(lookup(&t, "/bin/x", "sha256", d, 32),
			 DB_REF_UNKNOWN_PATH);
	tdb_remove(&t);
}

struct collect {
	int n;
	int64_t last;
	char path[DB_PATH_MAX + 1];
	enum db_source_kind kind;
	int stop_after;
};

static int collect_cb(const struct db_ref *ref, void *arg)
{
	struct collect *c = arg;

	c->n++;
	c->last = ref->id;
	snprintf(c->path, sizeof(c->path), "%s", ref->path);
	c->kind = ref->source_kind;
	assert_int_equal(ref->digest_len, 32);
	assert_string_equal(ref->algo, "sha256");
	return c->stop_after != 0 && c->n >= c->stop_after;
}

static void test_sql_injection_stored_literally(void **state)
{
	static const char evil[] = "x'); DROP TABLE files;--";
	struct db_ref_filter f = { .path = evil };
	struct collect c = { 0 };
	uint8_t d[32];
	struct tdb t;

	(void)state;
	digest(d, 32, 5);
	tdb_new(&t);
	add(&t, &src_deb, evil, "sha256", d, 32);
	assert_int_equal(lookup(&t, evil, "sha256", d, 32), DB_REF_KNOWN);
	assert_int_equal(db_ref_list(t.db, &f, 0, 10, collect_cb, &c, NULL,
				     NULL),
			 0);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.path, evil);
	assert_int_equal(tdb_int2(&t,
				  "SELECT count(*) FROM sqlite_master "
				  "WHERE name = 'files'",
				  "SELECT count(*) FROM pg_tables "
				  "WHERE tablename = 'files'"),
			 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM files"), 1);
	tdb_remove(&t);
}

static void test_delete(void **state)
{
	struct imt_error err;
	uint8_t a[32], b[32];
	size_t n;
	struct tdb t;

	(void)state;
	digest(a, 32, 1);
	digest(b, 32, 2);
	tdb_new(&t);
	add(&t, &src_deb, "/bin/a", "sha256", a, 32);
	add(&t, &src_dir, "/bin/a", "sha256", a, 32);
	add(&t, &src_dir, "/bin/b", "sha256", b, 32);
	/* One import withdraws; the other still vouches. */
	assert_int_equal(db_ref_delete(t.db, &src_deb, "/bin/a", "sha256", a,
				       32, &n, &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", a, 32), DB_REF_KNOWN);
	assert_int_equal(db_ref_delete(t.db, NULL, "/bin/a", "sha256", a, 32,
				       &n, &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", a, 32),
			 DB_REF_UNKNOWN_PATH);
	/* Not there: fine, nothing deleted. */
	assert_int_equal(db_ref_delete(t.db, NULL, "/bin/zz", "sha256", a, 32,
				       &n, &err),
			 0);
	assert_int_equal(n, 0);
	/* The path and digest rows went with their last reference. */
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM files"), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM digests"), 1);
	assert_int_equal(lookup(&t, "/bin/b", "sha256", b, 32), DB_REF_KNOWN);
	tdb_remove(&t);
}

static void test_delete_source(void **state)
{
	struct imt_error err;
	uint8_t a[32], b[32];
	size_t n;
	struct tdb t;

	(void)state;
	digest(a, 32, 1);
	digest(b, 32, 2);
	tdb_new(&t);
	add(&t, &src_deb, "/bin/a", "sha256", a, 32);
	add(&t, &src_deb, "/bin/b", "sha256", b, 32);
	add(&t, &src_dir, "/bin/b", "sha256", b, 32);
	assert_int_equal(db_ref_delete_source(t.db, &src_deb, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", a, 32),
			 DB_REF_UNKNOWN_PATH);
	assert_int_equal(lookup(&t, "/bin/b", "sha256", b, 32), DB_REF_KNOWN);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM files"), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM digests"), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 1);
	assert_int_equal(db_ref_delete_source(t.db, &src_deb, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_int_equal(db_ref_delete_source(t.db, NULL, &n, &err), -1);
	tdb_remove(&t);
}

static void test_list_pages(void **state)
{
	struct db_ref_filter by_src = { .source = &src_dir };
	struct collect c = { 0 };
	struct imt_error err;
	int64_t next = 0;
	char path[32];
	uint8_t d[32];
	int i, pages = 0, total = 0;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	for (i = 0; i < 25; i++) {
		snprintf(path, sizeof(path), "/p/%d", i);
		digest(d, 32, (uint32_t)i);
		add(&t, i % 5 ? &src_deb : &src_dir, path, "sha256", d, 32);
	}
	do {
		memset(&c, 0, sizeof(c));
		assert_int_equal(db_ref_list(t.db, NULL, next, 10, collect_cb,
					     &c, &next, &err),
				 0);
		total += c.n;
		pages++;
	} while (next != 0);
	assert_int_equal(total, 25);
	assert_int_equal(pages, 3);

	memset(&c, 0, sizeof(c));
	assert_int_equal(db_ref_list(t.db, &by_src, 0, 100, collect_cb, &c,
				     &next, &err),
			 0);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.kind, DB_SOURCE_DIR_TREE);
	assert_int_equal(next, 0);

	/* The callback stops early; next resumes after what it saw. */
	memset(&c, 0, sizeof(c));
	c.stop_after = 3;
	assert_int_equal(db_ref_list(t.db, NULL, 0, 100, collect_cb, &c, &next,
				     &err),
			 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(next, c.last);

	assert_int_equal(db_ref_list(t.db, NULL, 0, 0, collect_cb, &c, &next,
				     &err),
			 -1);
	assert_int_equal(db_ref_list(t.db, NULL, 0, DB_LIST_MAX + 1, collect_cb,
				     &c, &next, &err),
			 -1);
	tdb_remove(&t);
}

static size_t queued(struct tdb *t)
{
	size_t n = 99;

	if (db_ref_withdrawn_count(t->db, &n, NULL) < 0)
		fail_msg("withdrawn count");
	return n;
}

static void chunk(struct tdb *t, int first, const char *p1, const uint8_t *d1,
		  const char *p2, const uint8_t *d2)
{
	struct imt_error err;

	assert_int_equal(first ? db_ref_import_begin(t->db, &src_deb, T_NOW,
						     &err) :
				 db_ref_import_continue(t->db, &src_deb, T_NOW,
							&err),
			 0);
	add(t, &src_deb, p1, "sha256", d1, 32);
	if (p2 != NULL)
		add(t, &src_deb, p2, "sha256", d2, 32);
	assert_int_equal(db_ref_import_commit(t->db, &err), 0);
}

/*
 * An import in two chunks is one generation: a replace withdraws only
 * what neither chunk stated, in bounded transactions, and every
 * withdrawal queues its digest (kept across a reopen, a crash).
 */
static void test_generations_and_withdrawal_queue(void **state)
{
	uint8_t a[32], b[32], c[32];
	struct imt_error err;
	size_t n;
	struct tdb t;
	int more;

	(void)state;
	digest(a, 32, 1);
	digest(b, 32, 2);
	digest(c, 32, 3);
	tdb_new(&t);
	chunk(&t, 1, "/bin/a", a, "/bin/b", b);
	assert_int_equal(queued(&t), 0);
	/* the next import: /bin/a again, then (next chunk) /bin/c */
	chunk(&t, 1, "/bin/a", a, NULL, NULL);
	chunk(&t, 0, "/bin/c", c, NULL, NULL);
	assert_int_equal(tdb_int(&t, "SELECT count(DISTINCT generation) "
				     "FROM refs"),
			 2); /* b's is older */
	assert_int_equal(db_ref_withdraw(t.db, &src_deb, 1, 1, &n, &more, &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(more, 1);
	assert_int_equal(db_ref_withdraw(t.db, &src_deb, 1, 1, &n, &more, &err),
			 0);
	assert_int_equal(n, 0);
	assert_int_equal(more, 0);
	assert_int_equal(lookup(&t, "/bin/b", "sha256", b, 32),
			 DB_REF_UNKNOWN_PATH);
	assert_int_equal(lookup(&t, "/bin/a", "sha256", a, 32), DB_REF_KNOWN);
	assert_int_equal(lookup(&t, "/bin/c", "sha256", c, 32), DB_REF_KNOWN);
	/* the trigger: b queued, its path and digest rows collected */
	assert_int_equal(queued(&t), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM files"), 2);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM digests"), 2);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 1);

	/* the queue is in the file, with the withdrawal */
	tdb_close(&t);
	tdb_open(&t);
	assert_int_equal(queued(&t), 1);

	/* everything, and the source with its last reference */
	assert_int_equal(db_ref_withdraw(t.db, &src_deb, 0, 10, &n, &more,
					 &err),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(more, 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM files"), 0);
	assert_int_equal(queued(&t), 3);
	assert_int_equal(db_ref_withdrawn_clear(t.db, 2, &more, &err), 0);
	assert_int_equal(more, 1);
	assert_int_equal(db_ref_withdrawn_clear(t.db, 2, &more, &err), 0);
	assert_int_equal(more, 0);
	assert_int_equal(queued(&t), 0);
	assert_int_equal(db_ref_withdraw(t.db, &src_deb, 0, 0, &n, &more, &err),
			 -1);
	tdb_remove(&t);
}

static int source_refs_cb(const struct db_source_info *si, void *arg)
{
	*(int64_t *)arg = si->refs;
	return 0;
}
/*
 * Issue 33: an import in chunks vouches whole or not at all, and so does
 * a withdrawal. ichunk(): one chunk of src_deb with @n references
 * /g/<seed>, published only when @last.
 */
static void ichunk(struct tdb *t, int first, int last, uint32_t seed, size_t n)
{
	struct imt_error err;
	char path[32];
	uint8_t d[32];
	size_t i;

	assert_int_equal(first ? db_ref_import_begin(t->db, &src_deb, T_NOW,
						     &err) :
				 db_ref_import_continue(t->db, &src_deb, T_NOW,
							&err),
			 0);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/g/%u", (unsigned)(seed + i));
		digest(d, 32, seed + (uint32_t)i);
		add(t, &src_deb, path, "sha256", d, 32);
	}
	assert_int_equal(last ? db_ref_import_commit(t->db, &err) :
				db_ref_import_commit_chunk(t->db, &err),
			 0);
}

static enum db_ref_class glookup(struct tdb *t, uint32_t seed)
{
	char path[32];
	uint8_t d[32];

	snprintf(path, sizeof(path), "/g/%u", (unsigned)seed);
	digest(d, 32, seed);
	return lookup(t, path, "sha256", d, 32);
}

static int count_cb(const struct db_ref *r, void *arg)
{
	(void)r;
	++*(size_t *)arg;
	return 0;
}

/* What db_ref_list() shows of src_deb, and its count as a source. */
static size_t listed(struct tdb *t, int64_t *source_refs)
{
	struct db_ref_filter f = { .source = &src_deb };
	struct imt_error err;
	size_t n = 0;
	int found = 0;

	assert_int_equal(db_ref_list(t->db, &f, 0, DB_LIST_MAX, count_cb, &n,
				     NULL, &err),
			 0);
	*source_refs = -1;
	assert_int_equal(db_source_get(t->db, &src_deb, source_refs_cb,
				       source_refs, &found, &err),
			 0);
	return n;
}

static size_t recover_all(struct tdb *t)
{
	struct imt_error err;
	size_t n, total = 0;
	int more = 1, rounds = 0;

	while (more) {
		assert_int_equal(db_ref_recover(t->db, 2, &n, &more, &err), 0);
		total += n;
		assert_true(++rounds < 100);
	}
	return total;
}

static void test_import_seen_whole(void **state)
{
	int64_t refs;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	ichunk(&t, 1, 0, 100, 3);
	ichunk(&t, 0, 0, 200, 3);
	/* two chunks committed: nothing of them vouches, lists or counts */
	assert_int_equal(glookup(&t, 100), DB_REF_UNKNOWN_PATH);
	assert_int_equal(glookup(&t, 201), DB_REF_UNKNOWN_PATH);
	assert_int_equal(listed(&t, &refs), 0);
	assert_int_equal(refs, -1); /* the source is not shown */
	ichunk(&t, 0, 1, 300, 3);
	assert_int_equal(glookup(&t, 100), DB_REF_KNOWN);
	assert_int_equal(glookup(&t, 302), DB_REF_KNOWN);
	assert_int_equal(listed(&t, &refs), 9);
	assert_int_equal(refs, 9);
	assert_int_equal(recover_all(&t), 0); /* nothing to recover */
	tdb_remove(&t);
}

static void test_crash_drops_unfinished(void **state)
{
	struct imt_error err;
	int64_t refs;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	ichunk(&t, 1, 1, 100, 2); /* published: 100, 101 */
	ichunk(&t, 1, 0, 101, 4); /* 101 again, 102..104 new */
	tdb_close(&t);		  /* the crash */
	tdb_open(&t);
	assert_int_equal(glookup(&t, 100), DB_REF_KNOWN);
	assert_int_equal(glookup(&t, 101), DB_REF_KNOWN); /* stated before */
	assert_int_equal(glookup(&t, 103), DB_REF_UNKNOWN_PATH);
	assert_int_equal(listed(&t, &refs), 2);
	assert_int_equal(refs, 2);
	assert_int_equal(recover_all(&t), 3);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), 2);
	assert_int_equal(glookup(&t, 101), DB_REF_KNOWN);
	/* a new source whose first import never finished goes whole */
	assert_int_equal(db_ref_import_begin(t.db, &src_dir, T_NOW, &err), 0);
	add(&t, &src_dir, "/srv/x", "sha256",
	    (const uint8_t *)"0123456789abcdef0123456789abcdef", 32);
	assert_int_equal(db_ref_import_commit_chunk(t.db, &err), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 2);
	assert_int_equal(recover_all(&t), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 1);
	/* without a recovery, the next import drops the unfinished one */
	ichunk(&t, 1, 0, 500, 2);
	ichunk(&t, 1, 1, 600, 1);
	assert_int_equal(glookup(&t, 500), DB_REF_UNKNOWN_PATH);
	assert_int_equal(glookup(&t, 600), DB_REF_KNOWN);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), 3);
	tdb_remove(&t);
}

static void test_withdrawal_seen_whole(void **state)
{
	struct imt_error err;
	int64_t refs;
	size_t n;
	struct tdb t;
	int more;

	(void)state;
	tdb_new(&t);
	ichunk(&t, 1, 1, 100, 5);
	/* a replace: 100 and 101 stated again, published with the marker */
	assert_int_equal(db_ref_import_begin(t.db, &src_deb, T_NOW, &err), 0);
	assert_int_equal(db_ref_import_replace(t.db, &err), 0);
	assert_int_equal(db_ref_import_commit_chunk(t.db, &err), 0);
	ichunk(&t, 0, 0, 100, 2);
	assert_int_equal(glookup(&t, 104), DB_REF_KNOWN); /* not yet */
	assert_int_equal(db_ref_import_continue(t.db, &src_deb, T_NOW, &err),
			 0);
	assert_int_equal(db_ref_import_replace(t.db, &err), 0);
	assert_int_equal(db_ref_import_commit(t.db, &err), 0);
	/* the older generation stops vouching with that commit, undeleted */
	assert_int_equal(glookup(&t, 104), DB_REF_UNKNOWN_PATH);
	assert_int_equal(glookup(&t, 101), DB_REF_KNOWN);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), 5);
	assert_int_equal(listed(&t, &refs), 2);
	assert_int_equal(refs, 2);
	assert_int_equal(recover_all(&t), 3); /* the crash's leftovers */
	assert_int_equal(queued(&t), 3);

	/* a whole source: its first chunk hides all of it */
	assert_int_equal(db_ref_withdraw(t.db, &src_deb, 0, 1, &n, &more, &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(more, 1);
	assert_int_equal(glookup(&t, 100) == DB_REF_KNOWN ||
				 glookup(&t, 101) == DB_REF_KNOWN,
			 0);
	assert_int_equal(listed(&t, &refs), 0);
	assert_int_equal(refs, -1);
	tdb_close(&t); /* the crash */
	tdb_open(&t);
	assert_int_equal(glookup(&t, 100) == DB_REF_KNOWN ||
				 glookup(&t, 101) == DB_REF_KNOWN,
			 0);
	assert_int_equal(recover_all(&t), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), 0);
	tdb_remove(&t);
}

/* The known records a withdrawal may have made wrong, both plans. */
struct seen {
	uint64_t idx[8];
	size_t n;
};

static int seen_cb(int64_t boot_id, const struct db_record *r, void *arg)
{
	struct seen *s = arg;

	(void)boot_id;
	if (s->n < 8)
		s->idx[s->n++] = r->index;
	return 0;
}

static void test_known_records_of_withdrawn_digests(void **state)
{
	static const uint8_t pcr1[DB_PCR_SHA1_SIZE], pcr2[DB_PCR_SHA256_SIZE];
	static const enum db_known_set sets[] = {
		DB_KNOWN_WITHDRAWN_SCAN,
	};
	static const uint8_t ek[] = { 1 }, name[] = { 0, 11, 1 };
	static const uint8_t fpr[DB_FPR_SIZE] = { 7 };
	struct db_machine_new m = { .id = "m",
				    .ek_pub = ek,
				    .ek_pub_len = 1,
				    .ek_fpr = fpr,
				    .ak_pub = ek,
				    .ak_pub_len = 1,
				    .ak_name = name,
				    .ak_name_len = 3,
				    .state = DB_STATE_ENROLLING };
	uint8_t a[32], b[32];
	struct db_record r[3];
	struct db_boot boot;
	struct imt_error err;
	struct seen s;
	size_t i, n;
	struct tdb t;

	(void)state;
	digest(a, 32, 1);
	digest(b, 32, 2);
	tdb_new(&t);
	add(&t, &src_deb, "/bin/a", "sha256", a, 32);
	add(&t, &src_dir, "/bin/b", "sha256", b, 32);
	assert_int_equal(db_machine_create(t.db, &m, T_NOW, &err), 0);
	assert_int_equal(db_boot_start(t.db, "m", 1, 0, T_NOW, &boot, &err), 0);
	for (i = 0; i < 3; i++)
		r[i] = (struct db_record){ .index = i,
					   .pcr = 10,
					   .template = "ima-ng",
					   .path = i == 1 ? "/bin/b" : "/bin/a",
					   .digest_algo = "sha256",
					   .digest = i == 1 ? b : a,
					   .digest_len = 32,
					   .verdict = DB_VERDICT_KNOWN };
	struct db_boot_advance adv = { .boot_id = boot.id,
				       .to_index = 3,
				       .pcr10_sha1 = pcr1,
				       .pcr10_sha256 = pcr2,
				       .records = r,
				       .nrecords = 3 };
	assert_int_equal(db_boot_advance(t.db, &adv, T_NOW, &err), 0);
	assert_int_equal(db_ref_delete_source(t.db, &src_deb, &n, &err), 0);
	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		memset(&s, 0, sizeof(s));
		assert_int_equal(db_record_list_known(t.db, boot.id, sets[i], 1,
						      10, seen_cb, &s, &err),
				 0);
		assert_int_equal(s.n, 1); /* from 1: index 2 only */
		assert_int_equal(s.idx[0], 2);
	}
	/* no reference names /bin/a with a any more: unpinned */
	memset(&s, 0, sizeof(s));
	assert_int_equal(db_record_list_known(t.db, boot.id, DB_KNOWN_UNPINNED,
					      0, 10, seen_cb, &s, &err),
			 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.idx[1], 2);
	assert_int_equal(db_record_list_known(t.db, boot.id, 7, 0, 10, seen_cb,
					      &s, &err),
			 -1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_classes),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_bulk_import),
		cmocka_unit_test(test_import_abort_and_exclusion),
		cmocka_unit_test(test_sql_injection_stored_literally),
		cmocka_unit_test(test_delete),
		cmocka_unit_test(test_delete_source),
		cmocka_unit_test(test_list_pages),
		cmocka_unit_test(test_generations_and_withdrawal_queue),
		cmocka_unit_test(test_known_records_of_withdrawn_digests),
		cmocka_unit_test(test_import_seen_whole),
		cmocka_unit_test(test_crash_drops_unfinished),
		cmocka_unit_test(test_withdrawal_seen_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

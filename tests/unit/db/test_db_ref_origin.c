// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_ref_origin.c - db_ref_origin(), which source vouches for a
 * record (issue #33): the answers of the one statement it ran before,
 * kept here as the oracle, on every path, digest, policy and flag of a
 * set of references made to reach each reason; and the plans of the
 * statements it runs now, which must find references by key among many,
 * on both engines.
 */
#include "db_plan.h"
#include "db_policy.h"
#include "db_ref.h"
#include "db_test.h"

/*
 * The statement db_ref_origin() ran until issue #33: its WHERE ORs the
 * three reasons, which no index serves (SQLite read every digest of the
 * algorithm). Kept as the definition of the answers.
 */
#define OLD_SELECTED(match) \
	"(CAST(?4 AS TEXT) IS NULL OR EXISTS " \
	"(SELECT 1 FROM policy_selectors p " \
	"WHERE p.policy = ?4 AND " match("s.kind || ':' || s.name") "))"
#define OLD_GLOB_SQLITE(str) str " GLOB p.selector"
#define OLD_GLOB_PG(str) "imatrust_glob(" str ", p.selector)"
#define OLD_ORIGIN(match) \
	"SELECT s.kind, s.name, s.package, s.version, s.arch, r.conffile, " \
	"f.path <> ?1 FROM files f JOIN refs r ON r.file_id = f.id " \
	"JOIN digests d ON d.id = r.digest_id " \
	"JOIN sources s ON s.id = r.source_id " \
	"WHERE d.algo = ?2 AND " OLD_SELECTED( \
		match) " AND (" \
		       "(f.path = ?1 AND d.value = ?3) " \
		       "OR (?5 AND d.value = ?3) " \
		       "OR (?6 AND f.path = ?1 AND r.conffile = 1)) " \
		       "ORDER BY (f.path = ?1 AND d.value = ?3) DESC, s.id DESC LIMIT 1"

static const struct db_sql old_origin = {
	.sqlite = OLD_ORIGIN(OLD_GLOB_SQLITE),
	.pg = OLD_ORIGIN(OLD_GLOB_PG),
};

/* A lookup: a record's path and digest, under a policy, with flags. */
struct probe {
	const char *policy, *path, *algo;
	const uint8_t *digest;
	size_t len;
	int any_path, conffile;
};

static void old_answer(struct tdb *t, const struct probe *q,
		       struct db_ref_origin *o, int *found)
{
	struct imt_error err;
	struct db_stmt *st = db_stmt_sql(t->db, &old_origin, &err);
	const char *s;
	int step;

	if (st == NULL)
		fail_msg("old statement: %s", err.msg);
	db_bind_text(st, 1, q->path);
	db_bind_text(st, 2, q->algo);
	db_bind_blob(st, 3, q->digest, q->len);
	if (q->policy != NULL)
		db_bind_text(st, 4, q->policy);
	db_bind_int(st, 5, q->any_path);
	db_bind_int(st, 6, q->conffile);
	step = db_step(st);
	if (step != DB_ROW && step != DB_DONE)
		fail_msg("old statement failed");
	memset(o, 0, sizeof(*o));
	*found = step == DB_ROW;
	if (*found) {
		assert_int_equal(db_source_kind_parse(db_col_text(st, 0),
						      &o->kind),
				 0);
		s = db_col_text(st, 1);
		snprintf(o->name, sizeof(o->name), "%s", s ? s : "");
		s = db_col_text(st, 2);
		snprintf(o->package, sizeof(o->package), "%s", s ? s : "");
		s = db_col_text(st, 3);
		snprintf(o->version, sizeof(o->version), "%s", s ? s : "");
		s = db_col_text(st, 4);
		snprintf(o->arch, sizeof(o->arch), "%s", s ? s : "");
		o->conffile = db_col_int(st, 5);
		o->other_path = db_col_int(st, 6);
	}
	db_reset(st);
}

static void new_answer(struct tdb *t, const struct probe *q,
		       struct db_ref_origin *o, int *found)
{
	struct imt_error err;

	memset(o, 0, sizeof(*o));
	if (db_ref_origin(t->db, q->policy, q->path, q->algo, q->digest, q->len,
			  q->any_path, q->conffile, o, found, &err) < 0)
		fail_msg("db_ref_origin: %s", err.msg);
}

static void add(struct tdb *t, enum db_source_kind kind, const char *name,
		const char *package, const char *path, const char *algo,
		const uint8_t *digest, size_t len, int conffile)
{
	const struct db_source_meta meta = {
		.package = package,
		.version = "1.0",
		.arch = "amd64",
	};
	const struct db_ref_source src = {
		.kind = kind,
		.name = name,
		.meta = package != NULL ? &meta : NULL,
	};
	const struct db_ref_entry e = {
		.path = path,
		.algo = algo,
		.digest = digest,
		.digest_len = len,
		.conffile = conffile,
	};
	struct imt_error err;

	if (db_ref_add_entry(t->db, &src, &e, T_NOW, &err) < 0)
		fail_msg("db_ref_add_entry %s %s: %s", name, path, err.msg);
}

static uint8_t dig[10][32]; /* dig[n]: 32 bytes of n; dig[9] unlisted */

/*
 * References that reach every reason, sources in the order they are
 * made (the newer, the higher its id). No source names one digest for
 * two paths and a source with a conffile names that file alone: the
 * statement of before ranked rows of one source in no stated order.
 */
static void make_refs(struct tdb *t)
{
	static const char *const sel_dirs[] = { "dir-tree:*" };
	static const char *const sel_debs[] = { "deb:*" };
	static const char *const sel_some[] = { "keylime:c", "golden-*" };
	struct imt_error err;
	size_t i;

	for (i = 0; i < 10; i++)
		memset(dig[i], (int)i, sizeof(dig[i]));
	add(t, DB_SOURCE_DIR_TREE, "a", NULL, "/bin/x", "sha256", dig[1], 32,
	    0);
	add(t, DB_SOURCE_DIR_TREE, "a", NULL, "/bin/y", "sha256", dig[2], 32,
	    0);
	add(t, DB_SOURCE_DEB, "b", "b", "/bin/x", "sha256", dig[1], 32, 0);
	add(t, DB_SOURCE_DEB, "b", "b", "/usr/lib/z", "sha256", dig[3], 32, 0);
	add(t, DB_SOURCE_KEYLIME, "c", NULL, "/bin/q", "sha256", dig[2], 32, 0);
	add(t, DB_SOURCE_DEB, "e", "e", "/etc/conf", "sha256", dig[4], 32, 1);
	add(t, DB_SOURCE_GOLDEN_LIST, "f", NULL, "/bin/w", "sha256", dig[1], 32,
	    0);
	add(t, DB_SOURCE_DEB, "g", "g", "/etc/conf", "sha256", dig[5], 32, 1);
	add(t, DB_SOURCE_DIR_TREE, "h", NULL, "/etc/conf2", "sha256", dig[3],
	    32, 1);
	add(t, DB_SOURCE_DIR_TREE, "i", NULL, "/bin/x", "sha1", dig[1], 20, 0);
	add(t, DB_SOURCE_DIR_TREE, "j", NULL, "/etc/conf", "sha256", dig[6], 32,
	    0);
	assert_int_equal(db_policy_put(t->db, "dirs", "{}", 0, sel_dirs, 1,
				       T_NOW, &err),
			 0);
	assert_int_equal(db_policy_put(t->db, "debs", "{}", 0, sel_debs, 1,
				       T_NOW, &err),
			 0);
	assert_int_equal(db_policy_put(t->db, "some", "{}", 0, sel_some, 2,
				       T_NOW, &err),
			 0);
	assert_int_equal(db_policy_put(t->db, "none", "{}", 0, NULL, 0, T_NOW,
				       &err),
			 0);
}

static void assert_same(const struct probe *q, const struct db_ref_origin *a,
			int afound, const struct db_ref_origin *b, int bfound)
{
	if (afound == bfound &&
	    (!afound ||
	     (a->kind == b->kind && strcmp(a->name, b->name) == 0 &&
	      strcmp(a->package, b->package) == 0 &&
	      strcmp(a->version, b->version) == 0 &&
	      strcmp(a->arch, b->arch) == 0 && a->conffile == b->conffile &&
	      a->other_path == b->other_path)))
		return;
	fail_msg("%s %s:%02x policy %s any_path %d conffile %d: before "
		 "%d %s other %d conf %d, now %d %s other %d conf %d",
		 q->path, q->algo, q->digest[0],
		 q->policy ? q->policy : "(none)", q->any_path, q->conffile,
		 afound, a->name, a->other_path, a->conffile, bfound, b->name,
		 b->other_path, b->conffile);
}

/* 0: the pair, 1: the digest for another path, 2: the path a conffile. */
static size_t reason_of(struct tdb *t, const struct probe *q,
			const struct db_ref_origin *o)
{
	struct probe pair = *q;
	struct db_ref_origin po;
	int found;

	if (o->other_path)
		return 1;
	pair.any_path = 0;
	pair.conffile = 0;
	new_answer(t, &pair, &po, &found);
	return found ? 0 : 2;
}

/* @q under every policy and pair of flags: the same answers as before. */
static size_t same_under_all(struct tdb *t, struct probe *q, size_t reasons[3])
{
	static const char *const policies[] = {
		NULL, "default", "dirs", "debs", "some", "none",
	};
	struct db_ref_origin a, b;
	int afound, bfound;
	size_t k, f, n = 0;

	for (k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
		for (f = 0; f < 4; f++) {
			q->policy = policies[k];
			q->any_path = (int)(f & 1);
			q->conffile = (int)(f >> 1);
			old_answer(t, q, &a, &afound);
			new_answer(t, q, &b, &bfound);
			assert_same(q, &a, afound, &b, bfound);
			if (bfound)
				reasons[reason_of(t, q, &b)]++;
			n++;
		}
	}
	return n;
}

/*
 * Every path, digest, policy and pair of flags: the same answer as the
 * statement of before, and each reason the answer of some lookup.
 */
static void test_origin_same_answers(void **state)
{
	static const char *const paths[] = {
		"/bin/x",     "/bin/y",	   "/bin/q",	 "/bin/w",
		"/usr/lib/z", "/etc/conf", "/etc/conf2", "/nope",
	};
	/* sha256 digests by their byte (9: unlisted), then sha1's */
	static const int digests[] = { 1, 2, 3, 4, 5, 6, 9, -1 };
	size_t p, d, reasons[3] = { 0 }, n = 0;
	struct probe q;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	make_refs(&t);
	for (p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
		for (d = 0; d < sizeof(digests) / sizeof(digests[0]); d++) {
			int sha1 = digests[d] < 0;

			q = (struct probe){
				.path = paths[p],
				.algo = sha1 ? "sha1" : "sha256",
				.digest = dig[sha1 ? 1 : digests[d]],
				.len = sha1 ? 20 : 32,
			};
			n += same_under_all(&t, &q, reasons);
		}
	}
	print_message("%zu lookups: %zu the pair, %zu another path, "
		      "%zu a conffile\n",
		      n, reasons[0], reasons[1], reasons[2]);
	assert_true(reasons[0] > 0 && reasons[1] > 0 && reasons[2] > 0);
	tdb_remove(&t);
}

/* The reasons one by one, with what each answer says. */
static void test_origin_reasons(void **state)
{
	struct db_ref_origin o;
	struct probe q = { .algo = "sha256", .len = 32 };
	int found;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	make_refs(&t);
	/* the pair: its newest source, even when a newer one lists the
	 * digest elsewhere (f) */
	q.path = "/bin/x";
	q.digest = dig[1];
	q.any_path = 1;
	q.conffile = 1;
	new_answer(&t, &q, &o, &found);
	assert_int_equal(found, 1);
	assert_string_equal(o.name, "b");
	assert_string_equal(o.package, "b");
	assert_string_equal(o.version, "1.0");
	assert_string_equal(o.arch, "amd64");
	assert_int_equal(o.other_path, 0);
	/* ... among those the policy selects */
	q.policy = "dirs";
	new_answer(&t, &q, &o, &found);
	assert_string_equal(o.name, "a");
	/* another path: the newest (f) */
	q.policy = NULL;
	q.path = "/bin/y";
	new_answer(&t, &q, &o, &found);
	assert_int_equal(found, 1);
	assert_string_equal(o.name, "f");
	assert_int_equal(o.other_path, 1);
	q.any_path = 0;
	new_answer(&t, &q, &o, &found);
	assert_int_equal(found, 0);
	/* a conffile with other digests: the newest (g, not e) */
	q.path = "/etc/conf";
	q.digest = dig[9];
	q.conffile = 1;
	new_answer(&t, &q, &o, &found);
	assert_int_equal(found, 1);
	assert_string_equal(o.name, "g");
	assert_int_equal(o.conffile, 1);
	assert_int_equal(o.other_path, 0);
	/* both: the newer of the conffile (g) and the digest elsewhere (f) */
	q.digest = dig[1];
	q.any_path = 1;
	new_answer(&t, &q, &o, &found);
	assert_string_equal(o.name, "g");
	/* ... h, a conffile elsewhere, is newer than b's /usr/lib/z */
	q.path = "/bin/x";
	q.digest = dig[3];
	new_answer(&t, &q, &o, &found);
	assert_string_equal(o.name, "h");
	assert_int_equal(o.conffile, 1);
	assert_int_equal(o.other_path, 1);
	/* another algorithm is another digest */
	q.algo = "sha1";
	q.digest = dig[1];
	q.len = 20;
	q.path = "/bin/y";
	new_answer(&t, &q, &o, &found);
	assert_string_equal(o.name, "i");
	assert_int_equal(o.other_path, 1);
	tdb_remove(&t);
}

#define BULK_REFS 20000 /* references beside the test's, for the plans */
#define BULK_SOURCES 500

/*
 * BULK_REFS references, each its own path and digest, over BULK_SOURCES
 * sources, with ids far above those db_ref_add() gives.
 */
static void make_bulk(struct tdb *t)
{
	static const char *const sqlite_sql[] = {
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
		"FROM n WHERE i < 500) INSERT INTO sources (id, kind, name, "
		"imported_at) SELECT 100000 + i, 'deb', 'bulk' || i, 0 FROM n",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
		"FROM n WHERE i < 20000) INSERT INTO files (id, path) "
		"SELECT 100000 + i, '/bulk/' || i FROM n",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
		"FROM n WHERE i < 20000) INSERT INTO digests (id, algo, value) "
		"SELECT 100000 + i, 'sha256', randomblob(32) FROM n",
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 "
		"FROM n WHERE i < 20000) INSERT INTO refs (file_id, digest_id, "
		"source_id) SELECT 100000 + i, 100000 + i, 100001 + i % 500 "
		"FROM n",
	};
	static const char *const pg_sql[] = {
		"INSERT INTO sources (id, kind, name, imported_at) "
		"SELECT 100000 + i, 'deb', 'bulk' || i, 0 "
		"FROM generate_series(1, 500) i",
		"INSERT INTO files (id, path) SELECT 100000 + i, "
		"convert_to('/bulk/' || i, 'UTF8') "
		"FROM generate_series(1, 20000) i",
		"INSERT INTO digests (id, algo, value) SELECT 100000 + i, "
		"'sha256', sha256(convert_to(i::text, 'UTF8')) "
		"FROM generate_series(1, 20000) i",
		"INSERT INTO refs (file_id, digest_id, source_id) "
		"SELECT 100000 + i, 100000 + i, 100001 + i % 500 "
		"FROM generate_series(1, 20000) i",
		"ANALYZE refs, files, digests, sources",
	};
	const char *const *sql = tdb_pg_uri() != NULL ? pg_sql : sqlite_sql;
	size_t i, n = tdb_pg_uri() != NULL ?
			      sizeof(pg_sql) / sizeof(pg_sql[0]) :
			      sizeof(sqlite_sql) / sizeof(sqlite_sql[0]);

	for (i = 0; i < n; i++)
		tdb_exec(t, sql[i]);
	assert_int_equal(tdb_int(t, "SELECT count(*) FROM refs"),
			 BULK_REFS + 11);
}

/* Every reason's statement, under a policy and under none. */
static void run_origins(struct db *db)
{
	static const char *const policies[] = { NULL, "dirs" };
	static const char *const paths[] = { "/bin/x", "/etc/conf", "/nope" };
	struct db_ref_origin o;
	struct imt_error err;
	size_t i, j;
	int found;

	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			if (db_ref_origin(db, policies[i], paths[j], "sha256",
					  dig[j == 0 ? 1 : 9], 32, 1, 1, &o,
					  &found, &err) < 0)
				fail_msg("db_ref_origin: %s", err.msg);
}

/*
 * How the tables of references may be searched: by a key that names a
 * row (or, for refs, the rows of one path or one digest). SQLite calls
 * them by their names or the statements' aliases.
 */
static const struct {
	const char *table;
	const char *keys[2];
} keyed[] = {
	{ "refs", { "(file_id=?", "(digest_id=?" } },
	{ "files", { "(path=?)", "(rowid=?)" } },
	{ "digests", { "(algo=? AND value=?)", "(rowid=?)" } },
	{ "sources", { "(rowid=?)", "(rowid=?)" } },
};

/* Fail unless SQLite's plan line @one reads @table by one of its keys. */
static void sqlite_keyed(const char *one, const char *text, size_t t)
{
	const char *table = keyed[t].table;
	char scan[32], search[32], alias[32];

	snprintf(scan, sizeof(scan), "| SCAN %s ", table);
	snprintf(alias, sizeof(alias), "| SCAN %c ", table[0]);
	if (strstr(one, scan) != NULL || strstr(one, alias) != NULL)
		fail_msg("plan: %s\n(all plans:\n%s)", one, text);
	snprintf(search, sizeof(search), "| SEARCH %s ", table);
	snprintf(alias, sizeof(alias), "| SEARCH %c ", table[0]);
	if (strstr(one, search) == NULL && strstr(one, alias) == NULL)
		return;
	if (strstr(one, keyed[t].keys[0]) == NULL &&
	    strstr(one, keyed[t].keys[1]) == NULL)
		fail_msg("plan: %s\n(all plans:\n%s)", one, text);
}

/*
 * No plan line reads a table of references whole: SQLite's SCAN of one,
 * or a SEARCH by less than a key (digests by algorithm alone is every
 * digest); PostgreSQL's Seq Scan of one. The policy's selectors are a
 * handful of rows, read per candidate row.
 */
static void assert_keyed(const char *text)
{
	const char *line = text, *end;
	char one[512], bad[64];
	size_t i;

	for (; *line != '\0'; line = *end != '\0' ? end + 1 : end) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		snprintf(one, sizeof(one), "%.*s ", (int)(end - line), line);
		for (i = 0; i < sizeof(keyed) / sizeof(keyed[0]); i++) {
			sqlite_keyed(one, text, i);
			snprintf(bad, sizeof(bad), "Seq Scan on %s ",
				 keyed[i].table);
			if (strstr(one, bad) != NULL)
				fail_msg("plan: %s\n(all plans:\n%s)", one,
					 text);
		}
		if (strstr(one, "| SEARCH ") != NULL &&
		    strstr(one, " USING ") == NULL)
			fail_msg("plan: %s\n(all plans:\n%s)", one, text);
	}
}

/*
 * Among 20,000 references, what explaining a record runs finds them by
 * key: SQLite's plans with no statistics (the verifier runs no ANALYZE)
 * and with them, PostgreSQL's generic plans on the tables' statistics.
 * The statement of before failed here: every digest of the algorithm for
 * each record (SQLite "SEARCH d ... (algo=?)", "SCAN d" with statistics;
 * PostgreSQL "Seq Scan on digests d").
 */
static void test_origin_plans(void **state)
{
	static struct plans p;
	char before[4096];
	struct db *db;
	struct tdb t;

	(void)state;
	memset(&p, 0, sizeof(p));
	tdb_new(&t);
	make_refs(&t);
	make_bulk(&t);
	if (tdb_pg_uri() != NULL) {
		/* a fresh connection prepares only what the lookups run */
		db = tdb_other(&t);
		pg_prepared_names(db_pg_handle(db), before, sizeof(before));
		run_origins(db);
		pg_explain(db_pg_handle(db), before, 0, &p);
		db_close(db);
	} else {
		sqlite3_trace_v2(db_sqlite_handle(t.db), SQLITE_TRACE_STMT,
				 trace_sql, &p);
		run_origins(t.db);
		sqlite3_trace_v2(db_sqlite_handle(t.db), 0, NULL, NULL);
		sqlite_explain(&t, &p);
		/* and as it plans on statistics, should it ever gather them */
		tdb_exec(&t, "ANALYZE");
		sqlite_explain(&t, &p);
	}
	assert_true(p.nplans >= 3);
	assert_keyed(p.text);
	tdb_remove(&t);
}

/* Every class's branch of db_ref_lookup_policy(), under a policy and none. */
static void run_lookups(struct db *db)
{
	static const char *const policies[] = { NULL, "dirs" };
	static const char *const paths[] = { "/bin/x", "/etc/conf", "/nope" };
	enum db_ref_class cls;
	struct imt_error err;
	size_t i, j;

	db->ref_index_off = 1; /* the SQL's plans, not the index's build */
	for (i = 0; i < 2; i++)
		for (j = 0; j < 3; j++)
			if (db_ref_lookup_policy(db, policies[i], paths[j],
						 "sha256", dig[j == 0 ? 1 : 9],
						 32, &cls, &err) < 0)
				fail_msg("db_ref_lookup_policy: %s", err.msg);
}

/*
 * Issue 33: the judge's lookup counts only published, unwithdrawn
 * references (migration 0019) and still finds its rows by key: the
 * filter is on the refs row and its source, read by rowid.
 */
static void test_lookup_plans(void **state)
{
	static struct plans p;
	char before[4096];
	struct db *db;
	struct tdb t;

	(void)state;
	memset(&p, 0, sizeof(p));
	tdb_new(&t);
	make_refs(&t);
	make_bulk(&t);
	if (tdb_pg_uri() != NULL) {
		db = tdb_other(&t);
		pg_prepared_names(db_pg_handle(db), before, sizeof(before));
		run_lookups(db);
		pg_explain(db_pg_handle(db), before, 0, &p);
		db_close(db);
	} else {
		sqlite3_trace_v2(db_sqlite_handle(t.db), SQLITE_TRACE_STMT,
				 trace_sql, &p);
		run_lookups(t.db);
		sqlite3_trace_v2(db_sqlite_handle(t.db), 0, NULL, NULL);
		sqlite_explain(&t, &p);
		tdb_exec(&t, "ANALYZE");
		sqlite_explain(&t, &p);
	}
	assert_true(p.nplans >= 1);
	assert_keyed(p.text);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_origin_same_answers),
		cmocka_unit_test(test_origin_reasons),
		cmocka_unit_test(test_origin_plans),
		cmocka_unit_test(test_lookup_plans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

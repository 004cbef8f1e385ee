// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_ref.c - reference digests: files x digests x sources.
 *
 * A reference is one row of refs naming a file (path), a digest
 * (algorithm, value) and the source (import) that vouches for the pair.
 * Paths and digests are stored once however many imports name them.
 *
 * Withdrawing a reference (0005_rejudge.sql, trigger refs_withdrawn)
 * queues its digest in rejudge_digests for the re-judge and takes the
 * path and digest rows with it when nothing else names them.
 */
#include <stdio.h>
#include <string.h>

#include "db_internal.h"
#include "db_ref.h"

static const char *const source_kinds[] = {
	[DB_SOURCE_DIR_TREE] = "dir-tree",
	[DB_SOURCE_DEB] = "deb",
	[DB_SOURCE_GOLDEN_LIST] = "golden-list",
	[DB_SOURCE_KEYLIME] = "keylime",
	[DB_SOURCE_EFI] = "efi",
};

#define SOURCE_KIND_COUNT (sizeof(source_kinds) / sizeof(source_kinds[0]))

const char *db_source_kind_name(enum db_source_kind kind)
{
	if ((size_t)kind >= SOURCE_KIND_COUNT)
		return NULL;
	return source_kinds[kind];
}

int db_source_kind_parse(const char *name, enum db_source_kind *kind)
{
	size_t i;

	for (i = 0; name != NULL && i < SOURCE_KIND_COUNT; i++) {
		if (strcmp(source_kinds[i], name) == 0) {
			*kind = (enum db_source_kind)i;
			return 0;
		}
	}
	return -1;
}

static int check_source(const struct db_ref_source *src, struct imt_error *err)
{
	if (src == NULL)
		return db_bad(err, "reference source missing");
	if (db_source_kind_name(src->kind) == NULL)
		return db_bad(err, "unknown source kind %d", (int)src->kind);
	return db_check_str(src->name, DB_NAME_MAX, "source name", err);
}

static int check_ref(const char *path, const char *algo, const uint8_t *digest,
		     size_t len, struct imt_error *err)
{
	if (db_check_str(path, DB_PATH_MAX, "path", err) < 0)
		return -1;
	return db_check_digest(algo, digest, len, err);
}

/*
 * Insert-or-update the source row and return its id, generation and
 * published generation; ?4 = 1 starts a new generation of its references
 * (an import's first chunk), unpublished until its last chunk commits. A
 * source that a lone db_ref_add() makes is published at once.
 */
static const char sql_source_upsert[] =
	"INSERT INTO sources (kind, name, imported_at, generation, published) "
	"VALUES (?1, ?2, ?3, 1, 1 - ?4) "
	"ON CONFLICT (kind, name) DO UPDATE SET imported_at = ?3, "
	"generation = sources.generation + ?4 "
	"RETURNING id, generation, published, withdrawn_below";
static const char sql_source_meta[] =
	"UPDATE sources SET package = ?2, version = ?3, arch = ?4, "
	"content_sha256 = ?5 WHERE id = ?1";

static int source_meta(struct db *db, int64_t id,
		       const struct db_source_meta *m, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_source_meta, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, id);
	db_bind_text(st, 2, m->package);
	db_bind_text(st, 3, m->version);
	db_bind_text(st, 4, m->arch);
	if (m->content_sha256 != NULL)
		db_bind_blob(st, 5, m->content_sha256, 32);
	return db_step_done(db, st, err, "source");
}

/* A source row as source_id() leaves it. */
struct source_gen {
	int64_t id;
	int64_t generation;
	int64_t published;
	int64_t withdrawn_below;
};

static int source_id(struct db *db, const struct db_ref_source *src,
		     int64_t now, int new_generation, struct source_gen *g,
		     struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_source_upsert, err);
	int rc = -1;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, db_source_kind_name(src->kind));
	db_bind_text(st, 2, src->name);
	db_bind_int64(st, 3, now);
	db_bind_int(st, 4, new_generation);
	if (db_step(st) != DB_ROW) {
		db_fail(db, err, "source");
		goto out;
	}
	g->id = db_col_int64(st, 0);
	g->generation = db_col_int64(st, 1);
	g->published = db_col_int64(st, 2);
	g->withdrawn_below = db_col_int64(st, 3);
	rc = 0;
out:
	db_reset(st);
	if (rc == 0 && src->meta != NULL)
		rc = source_meta(db, g->id, src->meta, err);
	return rc;
}

/*
 * Insert the row if new and return its id either way. Most imported paths
 * are new, so try the insert first and look up only on a conflict.
 *
 * Not "RETURNING id": with SQLite 3.40 that made a 100 000-reference
 * import ten times slower (test_db_ref: 0.9 s against 11 s, the profile
 * spent growing the heap).
 */
static int intern_row(struct db *db, struct db_stmt *ins, struct db_stmt *sel,
		      int64_t *id, struct imt_error *err)
{
	int rc = -1;

	if (db_step_done(db, ins, err, "insert") < 0)
		return -1;
	if (db_changes(db) == 1) {
		*id = db_last_insert_id(db);
		return 0;
	}
	if (db_step(sel) != DB_ROW) {
		db_fail(db, err, "lookup");
		goto out;
	}
	*id = db_col_int64(sel, 0);
	rc = 0;
out:
	db_reset(sel);
	return rc;
}

/*
 * PostgreSQL: RETURNING id, which db_last_insert_id() reads there, saves
 * the round trip of a SELECT lastval() per new row.
 */
#define SQL_FILE_INSERT \
	"INSERT INTO files (path) VALUES (?1) ON CONFLICT DO NOTHING"
static const struct db_sql sql_file_insert = {
	.sqlite = SQL_FILE_INSERT,
	.pg = SQL_FILE_INSERT " RETURNING id",
};
static const char sql_file_select[] = "SELECT id FROM files WHERE path = ?1";
#define SQL_DIGEST_INSERT \
	"INSERT INTO digests (algo, value) VALUES (?1, ?2) " \
	"ON CONFLICT DO NOTHING"
static const struct db_sql sql_digest_insert = {
	.sqlite = SQL_DIGEST_INSERT,
	.pg = SQL_DIGEST_INSERT " RETURNING id",
};
static const char sql_digest_select[] =
	"SELECT id FROM digests WHERE algo = ?1 AND value = ?2";
/*
 * A reference stated again moves to its source's current generation; its
 * since (?5: the import's generation, 0 outside an import) only ever
 * goes down, so a row that vouches already goes on vouching.
 */
static const char sql_ref_insert[] =
	"INSERT INTO refs (file_id, digest_id, source_id, generation, "
	"conffile, since) "
	"VALUES (?1, ?2, ?3, (SELECT generation FROM sources WHERE id = ?3), "
	"?4, ?5) "
	"ON CONFLICT (file_id, digest_id, source_id) DO UPDATE "
	"SET generation = excluded.generation, conffile = excluded.conffile, "
	"since = CASE WHEN excluded.since < refs.since THEN excluded.since "
	"ELSE refs.since END "
	"WHERE refs.generation <> excluded.generation "
	"OR refs.conffile <> excluded.conffile OR excluded.since < refs.since";

/* The three inserts of one reference, inside the caller's transaction. */
static int ref_insert(struct db *db, int64_t source, int64_t since,
		      const struct db_ref_entry *e, struct imt_error *err)
{
	const char *path = e->path, *algo = e->algo;
	const uint8_t *digest = e->digest;
	size_t len = e->digest_len;
	struct db_stmt *ins, *sel;
	int64_t file, dig;

	ins = db_stmt_sql(db, &sql_file_insert, err);
	sel = ins ? db_stmt(db, sql_file_select, err) : NULL;
	if (sel == NULL)
		return -1;
	db_bind_text(ins, 1, path);
	db_bind_text(sel, 1, path);
	if (intern_row(db, ins, sel, &file, err) < 0)
		return -1;

	ins = db_stmt_sql(db, &sql_digest_insert, err);
	sel = ins ? db_stmt(db, sql_digest_select, err) : NULL;
	if (sel == NULL)
		return -1;
	db_bind_text(ins, 1, algo);
	db_bind_blob(ins, 2, digest, len);
	db_bind_text(sel, 1, algo);
	db_bind_blob(sel, 2, digest, len);
	if (intern_row(db, ins, sel, &dig, err) < 0)
		return -1;

	ins = db_stmt(db, sql_ref_insert, err);
	if (ins == NULL)
		return -1;
	db_bind_int64(ins, 1, file);
	db_bind_int64(ins, 2, dig);
	db_bind_int64(ins, 3, source);
	db_bind_int(ins, 4, e->conffile ? 1 : 0);
	db_bind_int64(ins, 5, since);
	return db_step_done(db, ins, err, "reference");
}

static int same_source(const struct db *db, const struct db_ref_source *src)
{
	return src->kind == db->import_kind &&
	       strcmp(src->name, db->import_name) == 0;
}

/*
 * Some errors (disk full, I/O, out of memory) make SQLite roll back the
 * whole transaction, not just the statement. Carrying on would commit the
 * rest of the import row by row, so the import is over.
 */
static int import_alive(struct db *db, struct imt_error *err)
{
	if (db_in_transaction(db))
		return 0;
	db->import_open = 0;
	return db_err(err, IMT_ERR_INTERNAL,
		      "the import's transaction was "
		      "rolled back by an earlier error");
}

int db_ref_add(struct db *db, const struct db_ref_source *source,
	       const char *path, const char *algo, const uint8_t *digest,
	       size_t digest_len, int64_t now, struct imt_error *err)
{
	struct db_ref_entry e = {
		.path = path,
		.algo = algo,
		.digest = digest,
		.digest_len = digest_len,
	};

	return db_ref_add_entry(db, source, &e, now, err);
}

int db_ref_add_entry(struct db *db, const struct db_ref_source *source,
		     const struct db_ref_entry *e, int64_t now,
		     struct imt_error *err)
{
	struct source_gen src;

	if (db == NULL || e == NULL)
		return db_bad(err, "no database or reference");
	if (check_source(source, err) < 0 ||
	    check_ref(e->path, e->algo, e->digest, e->digest_len, err) < 0)
		return -1;
	if (db->import_open) {
		if (!same_source(db, source))
			return db_bad(err,
				      "reference for %s:%s inside the "
				      "import of %s:%s",
				      db_source_kind_name(source->kind),
				      source->name,
				      db_source_kind_name(db->import_kind),
				      db->import_name);
		if (import_alive(db, err) < 0 ||
		    ref_insert(db, db->import_source, db->import_generation, e,
			       err) < 0)
			return -1;
		return import_alive(db, err);
	}
	if (db_begin(db, err) < 0)
		return -1;
	if (source_id(db, source, now, 0, &src, err) < 0 ||
	    ref_insert(db, src.id, 0, e, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

/*
 * What an earlier import of the source left unpublished (since >
 * published: it did not finish) and what a withdrawal left (generation <
 * withdrawn_below) goes before a new generation starts, so that publishing
 * it cannot publish them too. Two statements, so that the second is a
 * range of refs_source_generation; the first runs only after an import
 * that did not finish.
 */
static const char sql_drop_unpublished[] =
	"DELETE FROM refs WHERE source_id = ?1 AND since > ?2";
static const char sql_drop_withdrawn[] =
	"DELETE FROM refs WHERE source_id = ?1 AND generation < ?2";

static int drop_where(struct db *db, const char *sql, int64_t id, int64_t bound,
		      struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, id);
	db_bind_int64(st, 2, bound);
	return db_step_done(db, st, err, "drop unfinished references");
}

static int drop_leftovers(struct db *db, const struct source_gen *g,
			  struct imt_error *err)
{
	/* the new generation is g->generation: was the one before done? */
	if (g->published < g->generation - 1 &&
	    drop_where(db, sql_drop_unpublished, g->id, g->published, err) < 0)
		return -1;
	if (g->withdrawn_below > 0 && drop_where(db, sql_drop_withdrawn, g->id,
						 g->withdrawn_below, err) < 0)
		return -1;
	return 0;
}

static int import_open(struct db *db, const struct db_ref_source *source,
		       int64_t now, int new_generation, struct imt_error *err)
{
	struct source_gen g;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db->batch_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "an import cannot run inside a batch");
	if (check_source(source, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (source_id(db, source, now, new_generation, &g, err) < 0 ||
	    (new_generation && drop_leftovers(db, &g, err) < 0)) {
		db_rollback(db);
		return -1;
	}
	db->import_open = 1;
	db->import_source = g.id;
	db->import_generation = g.generation;
	db->import_replace = 0;
	db->import_kind = source->kind;
	/* check_source() bounded the length. */
	strcpy(db->import_name, source->name);
	return 0;
}

int db_ref_import_begin(struct db *db, const struct db_ref_source *source,
			int64_t now, struct imt_error *err)
{
	return import_open(db, source, now, 1, err);
}

int db_ref_import_continue(struct db *db, const struct db_ref_source *source,
			   int64_t now, struct imt_error *err)
{
	return import_open(db, source, now, 0, err);
}

int db_ref_import_replace(struct db *db, struct imt_error *err)
{
	if (db == NULL || !db->import_open)
		return db_bad(err, "no reference import open");
	db->import_replace = 1;
	return 0;
}

/*
 * The import's generation vouches from this commit on; with a replace,
 * the older generations stop vouching in the same commit (deleted after,
 * db_ref_withdraw() with stale_only).
 */
static const char sql_publish[] =
	"UPDATE sources SET published = generation, withdrawn_below = "
	"CASE WHEN ?2 = 1 THEN generation ELSE withdrawn_below END "
	"WHERE id = ?1";

static int import_close(struct db *db, int publish, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || !db->import_open)
		return db_bad(err, "no reference import open");
	if (import_alive(db, err) < 0)
		return -1;
	if (publish) {
		st = db_stmt(db, sql_publish, err);
		if (st == NULL) {
			db_ref_import_abort(db);
			return -1;
		}
		db_bind_int64(st, 1, db->import_source);
		db_bind_int(st, 2, db->import_replace);
		if (db_step_done(db, st, err, "publish import") < 0) {
			db_ref_import_abort(db);
			return -1;
		}
	}
	db->import_open = 0;
	return db_commit(db, err);
}

int db_ref_import_commit(struct db *db, struct imt_error *err)
{
	return import_close(db, 1, err);
}

int db_ref_import_commit_chunk(struct db *db, struct imt_error *err)
{
	return import_close(db, 0, err);
}

void db_ref_import_abort(struct db *db)
{
	if (db == NULL || !db->import_open)
		return;
	db->import_open = 0;
	db_rollback(db);
}

/*
 * A reference counts when its source is one policy ?4 selects (a
 * KIND:NAME glob in policy_selectors), or for every source when ?4 is
 * NULL. The first matching class wins (CASE stops there): (path,
 * digest) listed; path listed as a conffile with other digests; path
 * listed with other digests; digest listed for another path.
 */
#define SQL_SELECTED_BY(s, match, policy) \
	"(CAST(" policy " AS TEXT) IS NULL OR EXISTS " \
	"(SELECT 1 FROM policy_selectors p " \
	"WHERE p.policy = " policy \
	" AND " match(s ".kind || ':' || " s ".name") "))"
#define SQL_SELECTED(s, match) SQL_SELECTED_BY(s, match, "?4")
/* SQLite's GLOB; PostgreSQL's stand-in for it (0012_baseline.sql). */
#define SQL_GLOB_SQLITE(str) str " GLOB p.selector"
#define SQL_GLOB_PG(str) "imatrust_glob(" str ", p.selector)"
/*
 * A reference vouches (and is listed and counted) once the import that
 * first stated it has published its generation, and until a withdrawal
 * hid its generation: both are columns of the row and of its source, so
 * the lookups still find their rows by key (migration 0019).
 */
#define SQL_VISIBLE(r, s) \
	"(" r ".since <= " s ".published AND " r ".generation >= " s \
	".withdrawn_below)"
#define SQL_REF_JOIN \
	"FROM files f JOIN refs r ON r.file_id = f.id " \
	"JOIN digests d ON d.id = r.digest_id " \
	"JOIN sources s ON s.id = r.source_id "

#define SQL_LOOKUP_SEEN SQL_VISIBLE("r", "s") " AND "
#define SQL_LOOKUP(match) \
	"SELECT CASE " \
	"WHEN EXISTS (SELECT 1 " SQL_REF_JOIN \
	"  WHERE f.path = ?1 AND d.algo = ?2 AND d.value = ?3 AND " SQL_LOOKUP_SEEN SQL_SELECTED( \
		"s", \
		match) ") THEN 0 " \
		       "WHEN EXISTS (SELECT 1 " SQL_REF_JOIN \
		       "  WHERE f.path = ?1 AND d.algo = ?2 AND r.conffile = 1 AND " SQL_LOOKUP_SEEN SQL_SELECTED( \
			       "s", \
			       match) ") THEN 4 " \
				      "WHEN EXISTS (SELECT 1 " SQL_REF_JOIN \
				      "  WHERE f.path = ?1 AND d.algo = ?2 AND " SQL_LOOKUP_SEEN \
					      SQL_SELECTED("s", \
							   match) ") THEN 1 " \
								  "WHEN EXISTS (SELECT 1 FROM digests d " \
								  "  JOIN refs r ON r.digest_id = d.id " \
								  "  JOIN sources s ON s.id = r.source_id " \
								  "  WHERE d.algo = ?2 AND d.value = ?3 AND " SQL_LOOKUP_SEEN \
									  SQL_SELECTED("s", \
										       match) ") THEN 2 ELSE 3 END"

static const struct db_sql sql_lookup = {
	.sqlite = SQL_LOOKUP(SQL_GLOB_SQLITE),
	.pg = SQL_LOOKUP(SQL_GLOB_PG),
};

static const enum db_ref_class lookup_classes[] = {
	DB_REF_KNOWN,	     DB_REF_MISMATCH,	       DB_REF_KNOWN_ANY_PATH,
	DB_REF_UNKNOWN_PATH, DB_REF_MISMATCH_CONFFILE,
};

int db_ref_lookup_policy(struct db *db, const char *policy, const char *path,
			 const char *algo, const uint8_t *digest,
			 size_t digest_len, enum db_ref_class *cls,
			 struct imt_error *err)
{
	struct db_ref_key key;
	struct db_stmt *st;
	int rc = -1, c;

	if (db == NULL || cls == NULL)
		return db_bad(err, "no database or result");
	if (check_ref(path, algo, digest, digest_len, err) < 0)
		return -1;
	c = db_ref_index_get(db, policy, path, algo, digest, cls, err);
	if (c != 0)
		return c < 0 ? -1 : 0;
	c = db_ref_cache_get(db, policy, path, algo, digest, digest_len, &key,
			     cls, err);
	if (c != 0)
		return c < 0 ? -1 : 0;
	st = db_stmt_sql(db, &sql_lookup, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, path);
	db_bind_text(st, 2, algo);
	db_bind_blob(st, 3, digest, digest_len);
	if (policy != NULL)
		db_bind_text(st, 4, policy);
	if (db_step(st) != DB_ROW) {
		db_fail(db, err, "lookup");
		goto out;
	}
	c = db_col_int(st, 0);
	*cls = c >= 0 && c < 5 ? lookup_classes[c] : DB_REF_UNKNOWN_PATH;
	db_ref_cache_put(db, &key, *cls);
	rc = 0;
out:
	db_reset(st);
	return rc;
}

int db_ref_lookup(struct db *db, const char *path, const char *algo,
		  const uint8_t *digest, size_t digest_len,
		  enum db_ref_class *cls, struct imt_error *err)
{
	enum db_ref_class c;

	if (cls == NULL)
		return db_bad(err, "no result");
	if (db_ref_lookup_policy(db, NULL, path, algo, digest, digest_len, &c,
				 err) < 0)
		return -1;
	*cls = c == DB_REF_MISMATCH_CONFFILE ? DB_REF_MISMATCH : c;
	return 0;
}

/*
 * Which selected source vouches for a record: one statement per reason,
 * chosen in db_ref_origin(), each finding its rows by key. Until issue
 * #33 this was one statement whose WHERE ORed the three reasons: no
 * index serves an OR of a path and a digest, so it read every digest of
 * the algorithm (SQLite "SCAN d"), 0.4-0.7 s a record with 254,037
 * references, under the verifier's lock.
 *
 * The files and digests rows are found first by their unique keys
 * (scalar subqueries, run once: an absent path or digest finds no row),
 * then refs through its unique (file_id, digest_id, source_id) or
 * refs_digest: the rows of one path or one digest, sorted (the policy's
 * test on each row keeps SQLite from walking the index in order). Each
 * statement answers its newest source, then its newest reference row
 * (the one statement left rows of one source in no stated order), and
 * returns both ids so that two answers rank as one ORDER BY of both
 * would (origin_pick()). test_db_ref_origin holds the statement of
 * before and compares.
 */
#define SQL_ORIGIN_COLUMNS \
	"SELECT r.source_id, r.id, s.kind, s.name, s.package, s.version, " \
	"s.arch, r.conffile FROM refs r JOIN sources s ON s.id = r.source_id "
#define SQL_ORIGIN_ORDER \
	" AND " SQL_VISIBLE("r", \
			    "s") " ORDER BY r.source_id DESC, r.id DESC LIMIT 1"

/*
 * The pair itself, (path, digest) listed: ?1 path, ?2 algorithm,
 * ?3 digest, ?4 policy. PostgreSQL must type every parameter up to the
 * last, so each statement numbers only those it uses.
 */
#define SQL_ORIGIN_PAIR(match) \
	SQL_ORIGIN_COLUMNS \
	"WHERE r.file_id = (SELECT id FROM files WHERE path = ?1) " \
	"AND r.digest_id = (SELECT id FROM digests " \
	"WHERE algo = ?2 AND value = ?3) " \
	"AND " SQL_SELECTED_BY("s", match, "?4") SQL_ORIGIN_ORDER
/* The digest, listed for any path: ?1 algorithm, ?2 digest, ?3 policy. */
#define SQL_ORIGIN_DIGEST(match) \
	SQL_ORIGIN_COLUMNS \
	"WHERE r.digest_id = (SELECT id FROM digests " \
	"WHERE algo = ?1 AND value = ?2) " \
	"AND " SQL_SELECTED_BY("s", match, "?3") SQL_ORIGIN_ORDER
/* The path, listed as a conffile with a digest of this algorithm: ?1
 * path, ?2 algorithm, ?3 policy. */
#define SQL_ORIGIN_CONFFILE(match) \
	SQL_ORIGIN_COLUMNS \
	"JOIN digests d ON d.id = r.digest_id " \
	"WHERE r.file_id = (SELECT id FROM files WHERE path = ?1) " \
	"AND r.conffile = 1 AND d.algo = ?2 " \
	"AND " SQL_SELECTED_BY("s", match, "?3") SQL_ORIGIN_ORDER

/* An origin statement and where it takes what it is given (0: not). */
struct origin_query {
	struct db_sql sql;
	int path, algo, digest, policy;
	int other_path; /* its answer names another path */
};

enum { ORIGIN_PAIR, ORIGIN_DIGEST, ORIGIN_CONFFILE };

static const struct origin_query origin_queries[] = {
	[ORIGIN_PAIR] = {
		{ SQL_ORIGIN_PAIR(SQL_GLOB_SQLITE),
		  SQL_ORIGIN_PAIR(SQL_GLOB_PG) }, 1, 2, 3, 4, 0,
	},
	[ORIGIN_DIGEST] = {
		{ SQL_ORIGIN_DIGEST(SQL_GLOB_SQLITE),
		  SQL_ORIGIN_DIGEST(SQL_GLOB_PG) }, 0, 1, 2, 3, 1,
	},
	[ORIGIN_CONFFILE] = {
		{ SQL_ORIGIN_CONFFILE(SQL_GLOB_SQLITE),
		  SQL_ORIGIN_CONFFILE(SQL_GLOB_PG) }, 1, 2, 0, 3, 0,
	},
};

/* One statement's answer, and where it ranks. */
struct origin_row {
	int found;
	int64_t source_id;
	int64_t ref_id;
	struct db_ref_origin o;
};

static void copy_col(struct db_stmt *st, int col, char *out, size_t max)
{
	const char *t = db_col_text(st, col);

	snprintf(out, max, "%s", t != NULL ? t : "");
}

/* What a record is, for the origin statements. */
struct origin_key {
	const char *policy, *path, *algo;
	const uint8_t *digest;
	size_t digest_len;
};

/* Run origin_queries[@which] for @k into @row. */
static int origin_run(struct db *db, int which, const struct origin_key *k,
		      struct origin_row *row, struct imt_error *err)
{
	const struct origin_query *q = &origin_queries[which];
	struct db_stmt *st = db_stmt_sql(db, &q->sql, err);
	struct db_ref_origin *o = &row->o;
	int step;

	if (st == NULL)
		return -1;
	if (q->path > 0)
		db_bind_text(st, q->path, k->path);
	db_bind_text(st, q->algo, k->algo);
	if (q->digest > 0)
		db_bind_blob(st, q->digest, k->digest, k->digest_len);
	if (k->policy != NULL)
		db_bind_text(st, q->policy, k->policy);
	step = db_step(st);
	memset(row, 0, sizeof(*row));
	row->found = step == DB_ROW;
	if (row->found) {
		row->source_id = db_col_int64(st, 0);
		row->ref_id = db_col_int64(st, 1);
		if (db_source_kind_parse(db_col_text(st, 2), &o->kind) < 0)
			o->kind = DB_SOURCE_DIR_TREE;
		copy_col(st, 3, o->name, sizeof(o->name));
		copy_col(st, 4, o->package, sizeof(o->package));
		copy_col(st, 5, o->version, sizeof(o->version));
		copy_col(st, 6, o->arch, sizeof(o->arch));
		o->conffile = db_col_int(st, 7);
		o->other_path = q->other_path;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "origin");
	return 0;
}

/* The newer of two answers: source first, then reference row. */
static const struct origin_row *origin_pick(const struct origin_row *a,
					    const struct origin_row *b)
{
	if (!a->found)
		return b;
	if (!b->found)
		return a;
	if (a->source_id != b->source_id)
		return a->source_id > b->source_id ? a : b;
	return a->ref_id >= b->ref_id ? a : b;
}

/*
 * The pair wins when a selected source names it. Otherwise the digest
 * elsewhere (@any_path) and the path as a conffile (@conffile) rank
 * together by source, as they did inside the one ORDER BY of before;
 * neither can be the pair any more, so only the digest's answer is
 * for another path.
 */
int db_ref_origin(struct db *db, const char *policy, const char *path,
		  const char *algo, const uint8_t *digest, size_t digest_len,
		  int any_path, int conffile, struct db_ref_origin *o,
		  int *found, struct imt_error *err)
{
	const struct origin_key k = { policy, path, algo, digest, digest_len };
	struct origin_row pair, other = { 0 }, conf = { 0 };
	const struct origin_row *best = &pair;

	if (db == NULL || o == NULL || found == NULL)
		return db_bad(err, "no database or result");
	if (check_ref(path, algo, digest, digest_len, err) < 0)
		return -1;
	if (origin_run(db, ORIGIN_PAIR, &k, &pair, err) < 0)
		return -1;
	if (!pair.found) {
		if (any_path &&
		    origin_run(db, ORIGIN_DIGEST, &k, &other, err) < 0)
			return -1;
		if (conffile &&
		    origin_run(db, ORIGIN_CONFFILE, &k, &conf, err) < 0)
			return -1;
		best = origin_pick(&other, &conf);
	}
	*found = best->found;
	if (best->found)
		*o = best->o;
	return 0;
}

static const char sql_ref_delete[] =
	"DELETE FROM refs "
	"WHERE file_id = (SELECT id FROM files WHERE path = ?1) "
	"AND digest_id = (SELECT id FROM digests "
	"                 WHERE algo = ?2 AND value = ?3) "
	"AND (CAST(?4 AS TEXT) IS NULL OR source_id = (SELECT id FROM sources "
	"                 WHERE kind = ?4 AND name = ?5))";
/* The trigger refs_withdrawn queues the digest and collects orphans. */
static int ref_delete(struct db *db, const struct db_ref_source *source,
		      const char *path, const char *algo, const uint8_t *digest,
		      size_t len, size_t *deleted, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_ref_delete, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, path);
	db_bind_text(st, 2, algo);
	db_bind_blob(st, 3, digest, len);
	if (source != NULL) {
		db_bind_text(st, 4, db_source_kind_name(source->kind));
		db_bind_text(st, 5, source->name);
	}
	if (db_step_done(db, st, err, "delete reference") < 0)
		return -1;
	/* rows the trigger deleted are not counted here */
	*deleted = (size_t)db_changes(db);
	return 0;
}

int db_ref_delete(struct db *db, const struct db_ref_source *source,
		  const char *path, const char *algo, const uint8_t *digest,
		  size_t digest_len, size_t *deleted, struct imt_error *err)
{
	size_t n = 0;

	if (db == NULL)
		return db_bad(err, "no database");
	if (check_ref(path, algo, digest, digest_len, err) < 0)
		return -1;
	if (source != NULL && check_source(source, err) < 0)
		return -1;
	if (db_begin(db, err) < 0)
		return -1;
	if (ref_delete(db, source, path, algo, digest, digest_len, &n, err) <
	    0) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	if (deleted != NULL)
		*deleted = n;
	return 0;
}

#define SQL_REF_COLUMNS \
	"SELECT r.id, f.path, d.algo, d.value, s.kind, s.name, " \
	"s.imported_at FROM refs r " \
	"JOIN files f ON f.id = r.file_id " \
	"JOIN digests d ON d.id = r.digest_id " \
	"JOIN sources s ON s.id = r.source_id "

/* One statement per filter shape, so each can use its index. */
#define SQL_LIST_SEEN " AND " SQL_VISIBLE("r", "s")
static const char sql_list_all[] = SQL_REF_COLUMNS
	"WHERE r.id > ?1" SQL_LIST_SEEN " ORDER BY r.id LIMIT ?2";
static const char sql_list_path[] = SQL_REF_COLUMNS
	"WHERE r.id > ?1 AND f.path = ?3 "
	"AND (CAST(?4 AS TEXT) IS NULL OR (s.kind = ?4 AND s.name = ?5))" SQL_LIST_SEEN
	" ORDER BY r.id LIMIT ?2";
static const char sql_list_source[] = SQL_REF_COLUMNS
	"WHERE r.id > ?1 AND s.kind = ?4 AND s.name = ?5" SQL_LIST_SEEN
	" ORDER BY r.id LIMIT ?2";

static struct db_stmt *ref_list_stmt(struct db *db,
				     const struct db_ref_filter *f,
				     struct imt_error *err)
{
	struct db_stmt *st;
	const char *sql = sql_list_all;

	if (f != NULL && f->path != NULL)
		sql = sql_list_path;
	else if (f != NULL && f->source != NULL)
		sql = sql_list_source;
	st = db_stmt(db, sql, err);
	if (st == NULL || f == NULL)
		return st;
	if (f->path != NULL)
		db_bind_text(st, 3, f->path);
	if (f->source != NULL) {
		db_bind_text(st, 4, db_source_kind_name(f->source->kind));
		db_bind_text(st, 5, f->source->name);
	}
	return st;
}

/* Fill @ref from the current row; -1 when a stored kind is unknown. */
static int ref_from_row(struct db_stmt *st, struct db_ref *ref)
{
	ref->id = db_col_int64(st, 0);
	ref->path = db_col_text(st, 1);
	ref->algo = db_col_text(st, 2);
	ref->digest = db_col_blob(st, 3);
	ref->digest_len = (size_t)db_col_bytes(st, 3);
	ref->source_name = db_col_text(st, 5);
	ref->imported_at = db_col_int64(st, 6);
	return db_source_kind_parse(db_col_text(st, 4), &ref->source_kind);
}

int db_ref_list(struct db *db, const struct db_ref_filter *filter,
		int64_t after, unsigned int limit, db_ref_cb cb, void *arg,
		int64_t *next, struct imt_error *err)
{
	struct db_ref ref;
	struct db_stmt *st;
	unsigned int n = 0;
	int rc = -1, step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	if (db_check_limit(limit, err) < 0)
		return -1;
	if (filter != NULL && filter->source != NULL &&
	    check_source(filter->source, err) < 0)
		return -1;
	st = ref_list_stmt(db, filter, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, after);
	db_bind_int(st, 2, (int)limit);
	if (next != NULL)
		*next = 0;
	while ((step = db_step(st)) == DB_ROW) {
		if (ref_from_row(st, &ref) < 0) {
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "stored source kind unknown");
			goto out;
		}
		n++;
		if (next != NULL && n == limit)
			*next = ref.id;
		if (cb(&ref, arg) != 0) {
			if (next != NULL)
				*next = ref.id;
			break;
		}
	}
	if (step != DB_ROW && step != DB_DONE) {
		db_fail(db, err, "list references");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	return rc;
}

static const char sql_source_refs_delete[] =
	"DELETE FROM refs WHERE source_id = (SELECT id FROM sources "
	"WHERE kind = ?1 AND name = ?2)";
static const char sql_source_delete[] =
	"DELETE FROM sources WHERE kind = ?1 AND name = ?2";

/* Run @sql bound to the source (kind, name); return the changes. */
static int source_exec(struct db *db, const char *sql,
		       const struct db_ref_source *src, size_t *changes,
		       struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, db_source_kind_name(src->kind));
	db_bind_text(st, 2, src->name);
	if (db_step_done(db, st, err, "delete source") < 0)
		return -1;
	if (changes != NULL)
		*changes = (size_t)db_changes(db);
	return 0;
}

int db_ref_delete_source(struct db *db, const struct db_ref_source *source,
			 size_t *deleted, struct imt_error *err)
{
	size_t n = 0;

	if (db == NULL)
		return db_bad(err, "no database");
	if (check_source(source, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (source_exec(db, sql_source_refs_delete, source, &n, err) < 0 ||
	    source_exec(db, sql_source_delete, source, NULL, err) < 0) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	if (deleted != NULL)
		*deleted = n;
	return 0;
}

/* At most ?3 of the source's references, all or those of older
 * generations (?4 = 1) than the source's current one. */
static const char sql_withdraw[] =
	"DELETE FROM refs WHERE id IN (SELECT r.id FROM refs r "
	"JOIN sources s ON s.id = r.source_id "
	"WHERE s.kind = ?1 AND s.name = ?2 "
	"AND (?4 = 0 OR r.generation < s.generation) LIMIT ?3)";
/* The source goes with its last reference (not after a replace). */
static const char sql_source_gc[] =
	"DELETE FROM sources WHERE kind = ?1 AND name = ?2 "
	"AND NOT EXISTS (SELECT 1 FROM refs WHERE source_id = sources.id)";

/*
 * Withdrawing the whole source hides all of it at once, in the first
 * chunk's transaction: what a crash leaves of it vouches no more, and
 * db_ref_recover() deletes it.
 */
static const char sql_withdraw_mark[] =
	"UPDATE sources SET withdrawn_below = generation + 1 "
	"WHERE kind = ?1 AND name = ?2 AND withdrawn_below <= generation";

static int withdraw(struct db *db, const struct db_ref_source *src,
		    int stale_only, unsigned int limit, size_t *n,
		    struct imt_error *err)
{
	struct db_stmt *st;

	if (!stale_only &&
	    source_exec(db, sql_withdraw_mark, src, NULL, err) < 0)
		return -1;
	st = db_stmt(db, sql_withdraw, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, db_source_kind_name(src->kind));
	db_bind_text(st, 2, src->name);
	db_bind_int(st, 3, (int)limit);
	db_bind_int(st, 4, stale_only);
	if (db_step_done(db, st, err, "withdraw references") < 0)
		return -1;
	*n = (size_t)db_changes(db);
	if (stale_only || *n == limit)
		return 0;
	return source_exec(db, sql_source_gc, src, NULL, err);
}

int db_ref_withdraw(struct db *db, const struct db_ref_source *source,
		    int stale_only, unsigned int limit, size_t *deleted,
		    int *more, struct imt_error *err)
{
	size_t n = 0;

	if (db == NULL || deleted == NULL || more == NULL)
		return db_bad(err, "no database or result");
	if (check_source(source, err) < 0 || db_check_limit(limit, err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (withdraw(db, source, stale_only != 0, limit, &n, err) < 0) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	*deleted = n;
	*more = n == limit;
	return 0;
}

/*
 * A source with something to recover: an import that did not publish
 * its generation, a withdrawal of the whole source, or rows of
 * generations a replace withdrew (a range of refs_source_generation).
 */
static const char sql_recover_next[] =
	"SELECT s.id, s.published, s.generation, s.withdrawn_below "
	"FROM sources s WHERE s.published < s.generation "
	"OR s.withdrawn_below > s.generation "
	"OR EXISTS (SELECT 1 FROM refs r WHERE r.source_id = s.id "
	"AND r.generation < s.withdrawn_below) ORDER BY s.id LIMIT 1";
static const char sql_recover_rows[] =
	"DELETE FROM refs WHERE id IN (SELECT id FROM refs "
	"WHERE source_id = ?1 AND (since > ?2 OR generation < ?3) LIMIT ?4)";
/* then the source is gone (never published, or withdrawn), or done */
static const char sql_recover_source[] =
	"DELETE FROM sources WHERE id = ?1 "
	"AND (published = 0 OR withdrawn_below > generation) "
	"AND NOT EXISTS (SELECT 1 FROM refs WHERE source_id = ?1)";
static const char sql_recover_close[] =
	"UPDATE sources SET published = generation WHERE id = ?1";

static int recover_pick(struct db *db, struct source_gen *g, int *found,
			struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_recover_next, err);
	int step;

	if (st == NULL)
		return -1;
	step = db_step(st);
	*found = step == DB_ROW;
	if (*found) {
		g->id = db_col_int64(st, 0);
		g->published = db_col_int64(st, 1);
		g->generation = db_col_int64(st, 2);
		g->withdrawn_below = db_col_int64(st, 3);
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "recover references");
	return 0;
}

static int source_id_exec(struct db *db, const char *sql, int64_t id,
			  struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, id);
	return db_step_done(db, st, err, "recover references");
}

/* Up to @limit rows of source @g; when fewer, close the source. */
static int recover_source(struct db *db, const struct source_gen *g,
			  unsigned int limit, size_t *n, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_recover_rows, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, g->id);
	db_bind_int64(st, 2,
		      g->published < g->generation ? g->published :
						     g->generation);
	db_bind_int64(st, 3, g->withdrawn_below);
	db_bind_int(st, 4, (int)limit);
	if (db_step_done(db, st, err, "recover references") < 0)
		return -1;
	*n = (size_t)db_changes(db);
	if (*n == limit)
		return 0;
	if (source_id_exec(db, sql_recover_source, g->id, err) < 0)
		return -1;
	return source_id_exec(db, sql_recover_close, g->id, err);
}

int db_ref_recover(struct db *db, unsigned int limit, size_t *deleted,
		   int *more, struct imt_error *err)
{
	struct source_gen g;
	size_t n = 0;
	int found;

	if (db == NULL || deleted == NULL || more == NULL)
		return db_bad(err, "no database or result");
	if (db_check_limit(limit, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (recover_pick(db, &g, &found, err) < 0 ||
	    (found && recover_source(db, &g, limit, &n, err) < 0)) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	*deleted = n;
	*more = found;
	return 0;
}

static const char sql_withdrawn_count[] =
	"SELECT count(*) FROM rejudge_digests";

int db_ref_withdrawn_count(struct db *db, size_t *n, struct imt_error *err)
{
	struct db_stmt *st;
	int rc = -1;

	if (db == NULL || n == NULL)
		return db_bad(err, "no database or result");
	st = db_stmt(db, sql_withdrawn_count, err);
	if (st == NULL)
		return -1;
	if (db_step(st) != DB_ROW) {
		db_fail(db, err, "withdrawn digests");
		goto out;
	}
	*n = (size_t)db_col_int64(st, 0);
	rc = 0;
out:
	db_reset(st);
	return rc;
}

static const char sql_withdrawn_clear[] =
	"DELETE FROM rejudge_digests WHERE (algo, value) IN "
	"(SELECT algo, value FROM rejudge_digests LIMIT ?1)";

int db_ref_withdrawn_clear(struct db *db, unsigned int limit, int *more,
			   struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || more == NULL)
		return db_bad(err, "no database or result");
	if (db_check_limit(limit, err) < 0 || db_begin(db, err) < 0)
		return -1;
	st = db_stmt(db, sql_withdrawn_clear, err);
	if (st == NULL) {
		db_rollback(db);
		return -1;
	}
	db_bind_int(st, 1, (int)limit);
	if (db_step_done(db, st, err, "clear withdrawn digests") < 0) {
		db_rollback(db);
		return -1;
	}
	*more = db_changes(db) == (int)limit;
	return db_commit(db, err);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_records.c - a boot's measurement records, stored in chunks of up to
 * DB_CHUNK_MAX consecutive records a row (0017_record_chunks.sql): a
 * batch written, the records listed (all, the unaccepted, or a known set
 * re-judging reads), verdicts changed, and 0016's rows moved into chunks.
 *
 * A listing reads chunks in index order, a page of rows a query, and
 * hands out records that point into the row: valid during the callback.
 */
#include <stdlib.h>
#include <string.h>

#include "db_boot.h"
#include "db_internal.h"
#include "db_record_chunk.h"

static const char sql_chunk_insert[] =
	"INSERT INTO record_chunks (boot_id, first_idx, verdicts, body) "
	"VALUES (?1, ?2, ?3, ?4)";

/* A chunk being filled: its records' letters and packed body. */
struct chunk {
	int64_t boot;
	uint64_t first; /* the index of its first record */
	size_t n;
	char verdicts[DB_CHUNK_MAX + 1];
	uint8_t *body;
	size_t len, cap;
};

static int chunk_add(struct chunk *c, const struct db_record *r,
		     struct imt_error *err)
{
	size_t need = db_chunk_record_size(r);

	if (c->cap - c->len < need) {
		size_t cap = c->cap > 0 ? c->cap * 2 : 8192;
		uint8_t *body;

		while (cap - c->len < need)
			cap *= 2;
		body = realloc(c->body, cap);
		if (body == NULL)
			return db_err(err, IMT_ERR_INTERNAL, "out of memory");
		c->body = body;
		c->cap = cap;
	}
	c->len += db_chunk_pack(r, c->body + c->len);
	c->verdicts[c->n++] = db_verdict_letter(r->verdict);
	c->verdicts[c->n] = '\0';
	return 0;
}

/* Empty @c, for boot @boot's records from index @first. */
static void chunk_start(struct chunk *c, int64_t boot, uint64_t first)
{
	c->boot = boot;
	c->first = first;
	c->n = 0;
	c->len = 0;
	c->verdicts[0] = '\0';
}

/* Store the chunk's records, if any; the next chunk starts after them. */
static int chunk_flush(struct db *db, struct chunk *c, struct imt_error *err)
{
	struct db_stmt *st;

	if (c->n == 0)
		return 0;
	st = db_stmt(db, sql_chunk_insert, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, c->boot);
	db_bind_int64(st, 2, (int64_t)c->first);
	db_bind_text(st, 3, c->verdicts);
	db_bind_blob(st, 4, c->body, c->len);
	if (db_step_done(db, st, err, "records") < 0)
		return -1;
	chunk_start(c, c->boot, c->first + c->n);
	return 0;
}

int db_records_store(struct db *db, int64_t boot, const struct db_record *r,
		     size_t n, struct imt_error *err)
{
	struct chunk c = { 0 };
	size_t i;
	int rc = -1;

	if (n == 0)
		return 0;
	chunk_start(&c, boot, r[0].index);
	for (i = 0; i < n; i++) {
		if (i == n / 2)
			db_hook(db, "advance:half");
		if (chunk_add(&c, &r[i], err) < 0 ||
		    (c.n == DB_CHUNK_MAX && chunk_flush(db, &c, err) < 0))
			goto out;
	}
	rc = chunk_flush(db, &c, err);
out:
	free(c.body);
	return rc;
}

/*
 * The chunks of boot ?1 that hold an index >= ?3, in order, at most ?4;
 * ?2 is ?3 - (DB_CHUNK_MAX - 1), where the first of them may start, so
 * the primary key bounds the scan.
 */
#define SQL_CHUNKS \
	"SELECT first_idx, verdicts, body FROM record_chunks " \
	"WHERE boot_id = ?1 AND first_idx >= ?2 " \
	"AND first_idx + length(verdicts) > ?3 "
#define SQL_CHUNKS_ORDER "ORDER BY first_idx LIMIT ?4"

static const char sql_chunk_list[] = SQL_CHUNKS SQL_CHUNKS_ORDER;
/* The condition of the partial index record_chunks_rejudge, so it is used */
static const struct db_sql sql_chunk_rejudge = {
	.sqlite = SQL_CHUNKS "AND verdicts GLOB '*[umb]*' " SQL_CHUNKS_ORDER,
	.pg = SQL_CHUNKS "AND verdicts ~ '[umb]' " SQL_CHUNKS_ORDER,
};

/* Rows a listing query reads at most: a page of chunks. */
#define CHUNK_PAGE 16

/* Which of a chunk's records a listing hands out. */
enum record_filter {
	FILTER_ALL,
	FILTER_UNACCEPTED, /* unknown, mismatch, bad-signature */
	FILTER_WITHDRAWN,  /* known, by a digest queued to re-judge */
	FILTER_UNPINNED,   /* known, by no reference for its path */
};

struct listing {
	struct db *db;
	int64_t boot;
	uint64_t from;	   /* the next index to hand out */
	unsigned int left; /* records still wanted */
	enum record_filter filter;
	db_record_cb cb;
	void *arg;
	int stop; /* the callback or the limit ended it */
};

static const char sql_withdrawn[] =
	"SELECT 1 FROM rejudge_digests WHERE algo = ?1 AND value = ?2";
static const char sql_pinned[] =
	"SELECT 1 FROM files f JOIN refs x ON x.file_id = f.id "
	"JOIN digests d ON d.id = x.digest_id "
	"JOIN sources s ON s.id = x.source_id WHERE f.path = ?1 "
	"AND d.algo = ?2 AND d.value = ?3 AND x.since <= s.published "
	"AND x.generation >= s.withdrawn_below LIMIT 1";

/*
 * Does @sql find a row for @r's digest (and its path, when @path is set:
 * ?1)? 1, 0, -1.
 */
static int lookup(struct db *db, const char *sql, int path,
		  const struct db_record *r, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);
	int at = 1;

	if (st == NULL)
		return -1;
	if (path)
		db_bind_text(st, at++, r->path);
	db_bind_text(st, at, r->digest_algo);
	db_bind_blob(st, at + 1, r->digest, r->digest_len);
	return db_step_exists(db, st, err, "records");
}

/* Is @r one listing @l hands out? 1, 0, -1. */
static int wanted(const struct listing *l, const struct db_record *r,
		  struct imt_error *err)
{
	int found;

	switch (l->filter) {
	case FILTER_ALL:
		return 1;
	case FILTER_UNACCEPTED:
		return r->verdict == DB_VERDICT_UNKNOWN ||
		       r->verdict == DB_VERDICT_MISMATCH ||
		       r->verdict == DB_VERDICT_BAD_SIGNATURE;
	case FILTER_WITHDRAWN:
		if (r->verdict != DB_VERDICT_KNOWN)
			return 0;
		return lookup(l->db, sql_withdrawn, 0, r, err);
	case FILTER_UNPINNED:
		if (r->verdict != DB_VERDICT_KNOWN)
			return 0;
		found = lookup(l->db, sql_pinned, 1, r, err);
		return found < 0 ? -1 : !found;
	}
	return db_bad(err, "unknown record filter %d", (int)l->filter);
}

static int corrupt(struct imt_error *err, int64_t boot, uint64_t first)
{
	return db_err(err, IMT_ERR_INTERNAL,
		      "corrupt record chunk: boot "
		      "%lld from %llu",
		      (long long)boot, (unsigned long long)first);
}

/* Hand out the wanted records of the chunk at @st's row. */
static int chunk_scan(struct listing *l, struct db_stmt *st,
		      struct imt_error *err)
{
	uint64_t first = (uint64_t)db_col_int64(st, 0);
	struct db_chunk_reader rd;
	struct db_record r;
	int rc, want;

	db_chunk_reader_init(&rd, first, db_col_text(st, 1), db_col_blob(st, 2),
			     (size_t)db_col_bytes(st, 2));
	while ((rc = db_chunk_next(&rd, &r)) == 1) {
		if (r.index < l->from)
			continue;
		l->from = r.index + 1;
		want = wanted(l, &r, err);
		if (want < 0)
			return -1;
		if (!want)
			continue;
		if (l->cb(l->boot, &r, l->arg) != 0 || --l->left == 0) {
			l->stop = 1;
			return 0;
		}
	}
	if (rc < 0)
		return corrupt(err, l->boot, first);
	l->from = rd.index;
	return 0;
}

/* One page of chunks from l->from: how many rows it read, or -1. */
static int list_page(struct listing *l, struct db_stmt *st,
		     struct imt_error *err)
{
	int rows = 0, step;

	db_bind_int64(st, 1, l->boot);
	db_bind_int64(st, 2, (int64_t)l->from - (DB_CHUNK_MAX - 1));
	db_bind_int64(st, 3, (int64_t)l->from);
	db_bind_int(st, 4, CHUNK_PAGE);
	while (!l->stop && (step = db_step(st)) == DB_ROW) {
		rows++;
		if (chunk_scan(l, st, err) < 0) {
			rows = -1;
			break;
		}
	}
	if (rows >= 0 && !l->stop && step != DB_DONE) {
		db_fail(l->db, err, "list records");
		rows = -1;
	}
	db_reset(st);
	return rows;
}

static int list_run(struct listing *l, struct imt_error *err)
{
	struct db_stmt *st;
	int rows;

	if (db_check_limit(l->left, err) < 0)
		return -1;
	if (l->from > INT64_MAX)
		return db_bad(err, "record index out of range");
	do {
		st = l->filter == FILTER_UNACCEPTED ?
			     db_stmt_sql(l->db, &sql_chunk_rejudge, err) :
			     db_stmt(l->db, sql_chunk_list, err);
		if (st == NULL)
			return -1;
		rows = list_page(l, st, err);
		if (rows < 0)
			return -1;
	} while (!l->stop && rows == CHUNK_PAGE);
	return 0;
}

int db_record_list(struct db *db, int64_t boot_id, uint64_t from,
		   unsigned int limit, int rejudge_only, db_record_cb cb,
		   void *arg, struct imt_error *err)
{
	struct listing l = {
		.db = db,
		.boot = boot_id,
		.from = from,
		.left = limit,
		.filter = rejudge_only ? FILTER_UNACCEPTED : FILTER_ALL,
		.cb = cb,
		.arg = arg,
	};

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	return list_run(&l, err);
}

int db_record_list_known(struct db *db, int64_t boot_id, enum db_known_set set,
			 uint64_t from, unsigned int limit, db_record_cb cb,
			 void *arg, struct imt_error *err)
{
	struct listing l = {
		.db = db,
		.boot = boot_id,
		.from = from,
		.left = limit,
		.cb = cb,
		.arg = arg,
	};

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	switch (set) {
	case DB_KNOWN_WITHDRAWN_SCAN:
		l.filter = FILTER_WITHDRAWN;
		break;
	case DB_KNOWN_UNPINNED:
		l.filter = FILTER_UNPINNED;
		break;
	default:
		return db_bad(err, "unknown record set %d", (int)set);
	}
	return list_run(&l, err);
}

/*
 * Record ?2's letter becomes ?3 in the chunk that holds it; ?4 is
 * ?2 - (DB_CHUNK_MAX - 1), as for SQL_CHUNKS.
 */
static const struct db_sql sql_verdict_update = {
	.sqlite = "UPDATE record_chunks SET verdicts = "
		  "substr(verdicts, 1, ?2 - first_idx) || ?3 || "
		  "substr(verdicts, ?2 - first_idx + 2) "
		  "WHERE boot_id = ?1 AND first_idx BETWEEN ?4 AND ?2 "
		  "AND first_idx + length(verdicts) > ?2",
	.pg = "UPDATE record_chunks SET verdicts = overlay(verdicts "
	      "PLACING ?3::text FROM (?2::bigint - first_idx + 1)::int FOR 1) "
	      "WHERE boot_id = ?1 AND first_idx BETWEEN ?4::bigint "
	      "AND ?2::bigint AND first_idx + length(verdicts) > ?2::bigint",
};

static int set_verdicts(struct db *db, int64_t boot,
			const struct db_verdict_update *u, size_t n,
			struct imt_error *err)
{
	struct db_stmt *st;
	char letter[2] = { 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		st = db_stmt_sql(db, &sql_verdict_update, err);
		if (st == NULL)
			return -1;
		letter[0] = db_verdict_letter(u[i].verdict);
		db_bind_int64(st, 1, boot);
		db_bind_int64(st, 2, (int64_t)u[i].index);
		db_bind_text(st, 3, letter);
		db_bind_int64(st, 4, (int64_t)u[i].index - (DB_CHUNK_MAX - 1));
		if (db_step_done(db, st, err, "verdict") < 0)
			return -1;
		if (db_changes(db) != 1)
			return db_err(err, IMT_ERR_MISMATCH,
				      "boot %lld has no "
				      "record %llu",
				      (long long)boot,
				      (unsigned long long)u[i].index);
	}
	return 0;
}

int db_record_set_verdicts(struct db *db, int64_t boot_id,
			   const struct db_verdict_update *u, size_t n,
			   struct imt_error *err)
{
	size_t i;

	if (db == NULL || (n > 0 && u == NULL))
		return db_bad(err, "no database or updates");
	if (n > DB_BATCH_MAX)
		return db_err(err, IMT_ERR_LIMIT, "%zu verdicts, at most %d", n,
			      DB_BATCH_MAX);
	for (i = 0; i < n; i++) {
		if (db_verdict_letter(u[i].verdict) == 0 ||
		    u[i].index > INT64_MAX)
			return db_bad(err, "update %zu invalid", i);
	}
	if (db_begin(db, err) < 0)
		return -1;
	if (set_verdicts(db, boot_id, u, n, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

/*
 * 0016's rows after (?1, ?2), in order: a page of the move to chunks.
 * Only those of a boot that exists: no foreign key kept others out (a
 * boot deleted with foreign keys off, as the sqlite3 shell has them,
 * left its records), and their chunks would be the records of the next
 * boot given that id (SQLite hands out the highest rowid + 1 again).
 */
static const char sql_rows_after[] =
	"SELECT boot_id, idx, pcr, template, path, digest_algo, digest, "
	"verdict, sig FROM records WHERE (boot_id, idx) > (?1, ?2) "
	"AND EXISTS (SELECT 1 FROM boots b WHERE b.id = records.boot_id) "
	"ORDER BY boot_id, idx LIMIT ?3";
#define ROWS_PAGE 4096

/* Add the record at @st's row to @c, after storing @c when it ends. */
static int row_to_chunk(struct db *db, struct db_stmt *st, struct chunk *c,
			struct imt_error *err)
{
	int64_t boot = db_col_int64(st, 0), pcr = db_col_int64(st, 2);
	struct db_record r = {
		.index = (uint64_t)db_col_int64(st, 1),
		.pcr = (uint32_t)pcr,
		.template = db_col_text(st, 3),
		.path = db_col_text(st, 4),
		.digest_algo = db_col_text(st, 5),
		.digest = db_col_blob(st, 6),
		.digest_len = (size_t)db_col_bytes(st, 6),
		.sig = db_col_blob(st, 8),
		.sig_len = (size_t)db_col_bytes(st, 8),
	};

	if (r.path == NULL) /* an empty bytea on PostgreSQL */
		r.path = "";
	/* a PCR no TPM has would be packed as another (a chunk's is
	 * 32 bits): refused, as a row out of shape is */
	if (r.template == NULL || r.digest_algo == NULL || pcr < 0 ||
	    pcr > UINT32_MAX ||
	    db_verdict_parse(db_col_text(st, 7), &r.verdict) < 0)
		return db_err(err, IMT_ERR_INTERNAL,
			      "corrupt record row: "
			      "boot %lld index %llu (pcr %lld)",
			      (long long)boot, (unsigned long long)r.index,
			      (long long)pcr);
	if (boot != c->boot || r.index != c->first + c->n ||
	    c->n == DB_CHUNK_MAX) {
		if (chunk_flush(db, c, err) < 0)
			return -1;
		chunk_start(c, boot, r.index);
	}
	return chunk_add(c, &r, err);
}

int db_records_to_chunks(struct db *db, struct imt_error *err)
{
	struct chunk c = { .boot = -1 };
	struct db_stmt *st;
	int64_t boot = 0, idx = -1;
	int rows, step, rc = -1;

	do {
		st = db_stmt(db, sql_rows_after, err);
		if (st == NULL)
			goto out;
		db_bind_int64(st, 1, boot);
		db_bind_int64(st, 2, idx);
		db_bind_int(st, 3, ROWS_PAGE);
		rows = 0;
		while ((step = db_step(st)) == DB_ROW) {
			rows++;
			boot = db_col_int64(st, 0);
			idx = db_col_int64(st, 1);
			if (row_to_chunk(db, st, &c, err) < 0) {
				db_reset(st);
				goto out;
			}
		}
		if (step != DB_DONE) {
			db_fail(db, err, "records to chunks");
			db_reset(st);
			goto out;
		}
		db_reset(st);
	} while (rows == ROWS_PAGE);
	rc = chunk_flush(db, &c, err);
out:
	free(c.body);
	return rc;
}

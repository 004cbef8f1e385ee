// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_boot.c - boots, and the batch that moves a boot and stores its
 * records (db_records.c keeps them).
 *
 * A boot is identified by the TPM's resetCount/restartCount; its
 * next_record_index and running PCR 10 values always describe exactly the
 * records stored for it, because db_boot_advance() changes them together
 * in one transaction.
 */
#include <string.h>

#include "db_boot.h"
#include "db_internal.h"
#include "db_record_chunk.h"

static int check_verdict(enum db_verdict v, struct imt_error *err)
{
	if (db_verdict_letter(v) == 0)
		return db_bad(err, "unknown verdict %d", (int)v);
	return 0;
}

#define SQL_BOOT_COLUMNS "SELECT " DB_BOOT_SELECT " FROM boots b "

static const char sql_boot_current[] = SQL_BOOT_COLUMNS
	"WHERE b.machine_id = ?1 ORDER BY b.id DESC LIMIT 1";
static const char sql_boot_get[] = SQL_BOOT_COLUMNS "WHERE b.id = ?1";

/* A wide bank's running PCR 10 at column @col: 1, 0 when NULL, -1. */
static int wide_pcr(struct db_stmt *st, int col, uint8_t *out, int size)
{
	if (db_col_is_null(st, col))
		return 0;
	if (db_col_bytes(st, col) != size)
		return -1;
	memcpy(out, db_col_blob(st, col), (size_t)size);
	return 1;
}

int db_boot_from_row(struct db_stmt *st, int c, struct db_boot *b)
{
	int agg = db_col_bytes(st, c + 7);

	memset(b, 0, sizeof(*b));
	if (db_col_bytes(st, c + 5) != DB_PCR_SHA1_SIZE ||
	    db_col_bytes(st, c + 6) != DB_PCR_SHA256_SIZE ||
	    agg > DB_DIGEST_MAX || db_col_int64(st, c + 1) > UINT32_MAX ||
	    db_col_int64(st, c + 2) > UINT32_MAX)
		return -1;
	b->have_sha384 =
		wide_pcr(st, c + 11, b->pcr10_sha384, DB_PCR_SHA384_SIZE);
	b->have_sha512 =
		wide_pcr(st, c + 12, b->pcr10_sha512, DB_PCR_SHA512_SIZE);
	if (b->have_sha384 < 0 || b->have_sha512 < 0)
		return -1;
	b->id = db_col_int64(st, c + 0);
	b->reset_count = (uint32_t)db_col_int64(st, c + 1);
	b->restart_count = (uint32_t)db_col_int64(st, c + 2);
	b->started_at = db_col_int64(st, c + 3);
	b->next_record_index = (uint64_t)db_col_int64(st, c + 4);
	memcpy(b->pcr10_sha1, db_col_blob(st, c + 5), DB_PCR_SHA1_SIZE);
	memcpy(b->pcr10_sha256, db_col_blob(st, c + 6), DB_PCR_SHA256_SIZE);
	if (agg > 0)
		memcpy(b->boot_aggregate, db_col_blob(st, c + 7), (size_t)agg);
	b->boot_aggregate_len = (size_t)agg;
	b->history_from = (uint64_t)db_col_int64(st, c + 8);
	b->history_to = (uint64_t)db_col_int64(st, c + 9);
	b->history_followed = db_col_int(st, c + 10) != 0;
	return 0;
}

/* Step @st (bound) for at most one boot row. */
static int boot_row(struct db *db, struct db_stmt *st, struct db_boot *out,
		    int *found, struct imt_error *err)
{
	int rc = -1, step;

	*found = 0;
	step = db_step(st);
	if (step == DB_ROW) {
		if (db_boot_from_row(st, 0, out) < 0) {
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "corrupt boot row");
			goto out;
		}
		*found = 1;
	} else if (step != DB_DONE) {
		db_fail(db, err, "current boot");
		goto out;
	}
	rc = 0;
out:
	db_reset(st);
	return rc;
}

static int boot_current(struct db *db, const char *machine_id,
			struct db_boot *out, int *found, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_boot_current, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, machine_id);
	return boot_row(db, st, out, found, err);
}

int db_boot_get(struct db *db, int64_t boot_id, struct db_boot *out, int *found,
		struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	st = db_stmt(db, sql_boot_get, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, boot_id);
	return boot_row(db, st, out, found, err);
}

int db_boot_current(struct db *db, const char *machine_id, struct db_boot *out,
		    int *found, struct imt_error *err)
{
	if (db == NULL || out == NULL || found == NULL)
		return db_bad(err, "no database or result");
	if (db_check_id(machine_id, err) < 0)
		return -1;
	return boot_current(db, machine_id, out, found, err);
}

/* PostgreSQL: RETURNING id is what db_last_insert_id() reads there. */
static const struct db_sql sql_boot_insert = {
	.sqlite = "INSERT INTO boots (machine_id, reset_count, restart_count, "
		  "started_at, pcr10_sha1, pcr10_sha256) "
		  "VALUES (?1, ?2, ?3, ?4, zeroblob(20), zeroblob(32))",
	.pg = "INSERT INTO boots (machine_id, reset_count, restart_count, "
	      "started_at, pcr10_sha1, pcr10_sha256) "
	      "VALUES (?1, ?2, ?3, ?4, decode(repeat('00', 20), 'hex'), "
	      "decode(repeat('00', 32), 'hex')) RETURNING id",
};
/* 'reboot': db_event_kind_name(DB_EVENT_REBOOT), written in the SQL */
static const struct db_sql sql_reboot_event = {
	.sqlite = "INSERT INTO events (machine_id, boot_id, time, kind, "
		  "reason) VALUES (?1, ?2, ?4, 'reboot', "
		  "json_object('reset_count', ?3, 'restart_count', ?5))",
	.pg = "INSERT INTO events (machine_id, boot_id, time, kind, reason) "
	      "VALUES (?1, ?2, ?4, 'reboot', "
	      "json_build_object('reset_count', ?3::bigint, "
	      "'restart_count', ?5::bigint))",
};

/* The TPM counters order boots: resetCount first, then restartCount. */
static int counters_forward(const struct db_boot *cur, uint32_t reset,
			    uint32_t restart)
{
	return reset > cur->reset_count ||
	       (reset == cur->reset_count && restart > cur->restart_count);
}

static int boot_start(struct db *db, const char *machine_id, uint32_t reset,
		      uint32_t restart, int64_t now, struct db_boot *out,
		      struct imt_error *err)
{
	struct db_boot cur;
	struct db_stmt *st;
	int found;

	if (boot_current(db, machine_id, &cur, &found, err) < 0)
		return -1;
	if (found && !counters_forward(&cur, reset, restart))
		return db_err(err, IMT_ERR_MISMATCH,
			      "boot counters (%u, %u) not after (%u, %u)",
			      reset, restart, cur.reset_count,
			      cur.restart_count);
	st = db_stmt_sql(db, &sql_boot_insert, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, machine_id);
	db_bind_int64(st, 2, reset);
	db_bind_int64(st, 3, restart);
	db_bind_int64(st, 4, now);
	if (db_step_done(db, st, err, "boot") < 0) {
		if (err != NULL && err->status == IMT_ERR_MISMATCH)
			imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				      IMT_NO_POS, "no machine %s", machine_id);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	out->id = db_last_insert_id(db);
	out->reset_count = reset;
	out->restart_count = restart;
	out->started_at = now;

	st = db_stmt_sql(db, &sql_reboot_event, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, machine_id);
	db_bind_int64(st, 2, out->id);
	db_bind_int64(st, 3, reset);
	db_bind_int64(st, 4, now);
	db_bind_int64(st, 5, restart);
	return db_step_done(db, st, err, "reboot event");
}

int db_boot_start(struct db *db, const char *machine_id, uint32_t reset_count,
		  uint32_t restart_count, int64_t now, struct db_boot *out,
		  struct imt_error *err)
{
	struct db_boot b;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_id(machine_id, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (boot_start(db, machine_id, reset_count, restart_count, now, &b,
		       err) < 0) {
		db_rollback(db);
		return -1;
	}
	if (db_commit(db, err) < 0)
		return -1;
	if (out != NULL)
		*out = b;
	return 0;
}

static int check_record(const struct db_record *r, uint64_t index,
			struct imt_error *err)
{
	if (r->index != index)
		return db_bad(err, "record %llu where %llu was expected",
			      (unsigned long long)r->index,
			      (unsigned long long)index);
	if (db_check_str(r->template, DB_TEMPLATE_MAX, "template", err) < 0)
		return -1;
	/* A record's name may be empty (ima-buf events), never absent. */
	if (r->path == NULL)
		return db_bad(err, "record %llu: path missing",
			      (unsigned long long)index);
	if (strnlen(r->path, DB_PATH_MAX + 1) > DB_PATH_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "record %llu: path longer than %d bytes",
			      (unsigned long long)index, DB_PATH_MAX);
	if (db_check_digest(r->digest_algo, r->digest, r->digest_len, err) < 0)
		return -1;
	if (r->sig_len > DB_SIG_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "record %llu: signature longer than %d bytes",
			      (unsigned long long)index, DB_SIG_MAX);
	return check_verdict(r->verdict, err);
}

/* Check the whole batch before touching the database. */
static int check_advance(const struct db_boot_advance *a, struct imt_error *err)
{
	size_t i;

	if (a == NULL || a->pcr10_sha1 == NULL || a->pcr10_sha256 == NULL)
		return db_bad(err, "advance without running PCR values");
	if (a->nrecords > DB_BATCH_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "batch of %zu records, at most %d", a->nrecords,
			      DB_BATCH_MAX);
	if (a->nrecords > 0 && a->records == NULL)
		return db_bad(err, "records missing");
	if (a->from_index > INT64_MAX - DB_BATCH_MAX ||
	    a->to_index != a->from_index + a->nrecords)
		return db_bad(err, "index %llu + %zu records != %llu",
			      (unsigned long long)a->from_index, a->nrecords,
			      (unsigned long long)a->to_index);
	if (a->boot_aggregate != NULL &&
	    db_check_blob(a->boot_aggregate, a->boot_aggregate_len, 1,
			  DB_DIGEST_MAX, "boot_aggregate", err) < 0)
		return -1;
	for (i = 0; i < a->nrecords; i++) {
		if (check_record(&a->records[i], a->from_index + i, err) < 0)
			return -1;
	}
	return 0;
}

static const char sql_boot_advance[] =
	"UPDATE boots SET next_record_index = ?2, pcr10_sha1 = ?3, "
	"pcr10_sha256 = ?4, boot_aggregate = coalesce(?5, boot_aggregate), "
	"pcr10_sha384 = ?7, pcr10_sha512 = ?8 "
	"WHERE id = ?1 AND next_record_index = ?6";
/* Not when it holds @now already: a row rewritten unchanged is written. */
static const struct db_sql sql_last_seen = {
	.sqlite = "UPDATE machines SET last_seen = ?2 "
		  "WHERE id = (SELECT machine_id FROM boots WHERE id = ?1) "
		  "AND last_seen IS NOT ?2",
	.pg = "UPDATE machines SET last_seen = ?2 "
	      "WHERE id = (SELECT machine_id FROM boots WHERE id = ?1) "
	      "AND last_seen IS DISTINCT FROM ?2",
};
/*
 * A batch of no records and no boot_aggregate moves nothing when the boot
 * holds its PCR values already (a heartbeat): 1 then, 0 when they differ,
 * no row when the boot is not at the index.
 */
static const struct db_sql sql_boot_unmoved = {
	.sqlite = "SELECT pcr10_sha1 = ?2 AND pcr10_sha256 = ?3 AND "
		  "pcr10_sha384 IS ?5 AND pcr10_sha512 IS ?6 FROM boots "
		  "WHERE id = ?1 AND next_record_index = ?4",
	.pg = "SELECT pcr10_sha1 = ?2 AND pcr10_sha256 = ?3 AND "
	      "pcr10_sha384 IS NOT DISTINCT FROM ?5 AND "
	      "pcr10_sha512 IS NOT DISTINCT FROM ?6 FROM boots "
	      "WHERE id = ?1 AND next_record_index = ?4",
};

/* Bind the wide bank value @v (NULL: not carried) at @i. */
static void bind_wide(struct db_stmt *st, int i, const uint8_t *v, size_t n)
{
	if (v != NULL)
		db_bind_blob(st, i, v, n);
	else
		db_bind_null(st, i);
}

/* Is the stored wide value (@have, @stored) @v (NULL: not carried)? */
static int wide_same(int have, const uint8_t *stored, const uint8_t *v,
		     size_t n)
{
	return v == NULL ? !have : have && memcmp(stored, v, n) == 0;
}

static int boot_mismatch(const struct db_boot_advance *a, struct imt_error *err)
{
	return db_err(err, IMT_ERR_MISMATCH, "boot %lld is not at index %llu",
		      (long long)a->boot_id, (unsigned long long)a->from_index);
}

/* Does the empty batch @a leave the boot's row as it is? 1, 0, -1. */
static int boot_unmoved(struct db *db, const struct db_boot_advance *a,
			struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_boot_unmoved, err);
	int step, rc = -1;

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, a->boot_id);
	db_bind_blob(st, 2, a->pcr10_sha1, DB_PCR_SHA1_SIZE);
	db_bind_blob(st, 3, a->pcr10_sha256, DB_PCR_SHA256_SIZE);
	db_bind_int64(st, 4, (int64_t)a->from_index);
	bind_wide(st, 5, a->pcr10_sha384, DB_PCR_SHA384_SIZE);
	bind_wide(st, 6, a->pcr10_sha512, DB_PCR_SHA512_SIZE);
	step = db_step(st);
	if (step == DB_ROW)
		rc = db_col_int(st, 0) != 0;
	else if (step == DB_DONE)
		boot_mismatch(a, err);
	else
		db_fail(db, err, "advance boot");
	db_reset(st);
	return rc;
}

/* boot_unmoved() from the row @a->row, read under the write lock. */
static int boot_row_unmoved(const struct db_boot_advance *a,
			    struct imt_error *err)
{
	const struct db_boot *row = a->row;

	if (row->id != a->boot_id || row->next_record_index != a->from_index)
		return boot_mismatch(a, err);
	return memcmp(row->pcr10_sha1, a->pcr10_sha1, DB_PCR_SHA1_SIZE) == 0 &&
	       memcmp(row->pcr10_sha256, a->pcr10_sha256, DB_PCR_SHA256_SIZE) ==
		       0 &&
	       wide_same(row->have_sha384, row->pcr10_sha384, a->pcr10_sha384,
			 DB_PCR_SHA384_SIZE) &&
	       wide_same(row->have_sha512, row->pcr10_sha512, a->pcr10_sha512,
			 DB_PCR_SHA512_SIZE);
}

static int boot_move(struct db *db, const struct db_boot_advance *a,
		     struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_boot_advance, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, a->boot_id);
	db_bind_int64(st, 2, (int64_t)a->to_index);
	db_bind_blob(st, 3, a->pcr10_sha1, DB_PCR_SHA1_SIZE);
	db_bind_blob(st, 4, a->pcr10_sha256, DB_PCR_SHA256_SIZE);
	if (a->boot_aggregate != NULL)
		db_bind_blob(st, 5, a->boot_aggregate, a->boot_aggregate_len);
	db_bind_int64(st, 6, (int64_t)a->from_index);
	bind_wide(st, 7, a->pcr10_sha384, DB_PCR_SHA384_SIZE);
	bind_wide(st, 8, a->pcr10_sha512, DB_PCR_SHA512_SIZE);
	if (db_step_done(db, st, err, "advance boot") < 0)
		return -1;
	if (db_changes(db) != 1)
		return boot_mismatch(a, err);
	return 0;
}

static int last_seen(struct db *db, const struct db_boot_advance *a,
		     int64_t now, struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_last_seen, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, a->boot_id);
	db_bind_int64(st, 2, now);
	return db_step_done(db, st, err, "last seen");
}

static int boot_advance(struct db *db, const struct db_boot_advance *a,
			int64_t now, struct imt_error *err)
{
	if (boot_move(db, a, err) < 0 ||
	    db_records_store(db, a->boot_id, a->records, a->nrecords, err) < 0)
		return -1;
	if (!a->seen_in_nonce && last_seen(db, a, now, err) < 0)
		return -1;
	db_hook(db, "advance:commit");
	return 0;
}

int db_boot_advance(struct db *db, const struct db_boot_advance *a, int64_t now,
		    struct imt_error *err)
{
	int rc;

	if (db == NULL)
		return db_bad(err, "no database");
	if (check_advance(a, err) < 0)
		return -1;
	/*
	 * A heartbeat whose boot holds its values already writes last_seen
	 * alone, or nothing when the nonce's row holds it: one statement,
	 * atomic without a transaction or savepoint (two statements fewer,
	 * two round trips on PostgreSQL).
	 */
	if (a->nrecords == 0 && a->boot_aggregate == NULL) {
		rc = a->row != NULL ? boot_row_unmoved(a, err) :
				      boot_unmoved(db, a, err);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return a->seen_in_nonce ? 0 :
						  last_seen(db, a, now, err);
	}
	if (db_begin(db, err) < 0)
		return -1;
	if (boot_advance(db, a, now, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

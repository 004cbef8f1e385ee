// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_boot_history.c - a boot whose oldest records were deleted from the
 * machine before the verifier stored them (0012_history_gap.sql).
 *
 * The gap moves the boot's next_record_index from S to L in the
 * transaction that stores the records from L (the engine's batch), so a
 * boot row never says "gap" without the records that justify it, nor
 * stores records past a gap it does not name.
 */
#include "db_boot.h"
#include "db_internal.h"

/* history_followed is an integer flag: CASE, not OR (PostgreSQL). */
static const char sql_boot_gap[] =
	"UPDATE boots SET next_record_index = ?3, history_from = ?2, "
	"history_to = ?3, history_followed = CASE WHEN history_followed <> 0 "
	"OR ?2 > 0 THEN 1 ELSE 0 END, "
	"history_anchor = ?4 WHERE id = ?1 AND next_record_index = ?2";

static int boot_gap(struct db *db, int64_t boot_id, uint64_t from, uint64_t to,
		    const uint8_t *anchor, size_t anchor_len,
		    struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_boot_gap, err);

	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, boot_id);
	db_bind_int64(st, 2, (int64_t)from);
	db_bind_int64(st, 3, (int64_t)to);
	db_bind_blob(st, 4, anchor, anchor_len);
	if (db_step_done(db, st, err, "history gap") < 0)
		return -1;
	if (db_changes(db) != 1)
		return db_err(err, IMT_ERR_MISMATCH,
			      "boot %lld is not at index %llu",
			      (long long)boot_id, (unsigned long long)from);
	return 0;
}

int db_boot_history_gap(struct db *db, int64_t boot_id, uint64_t from,
			uint64_t to, const uint8_t *anchor, size_t anchor_len,
			struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (to <= from || to > INT64_MAX)
		return db_bad(err, "history gap %llu..%llu is empty or too far",
			      (unsigned long long)from, (unsigned long long)to);
	if (db_check_blob(anchor, anchor_len, 1, DB_DIGEST_MAX, "anchor", err) <
		    0 ||
	    db_begin(db, err) < 0)
		return -1;
	if (boot_gap(db, boot_id, from, to, anchor, anchor_len, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

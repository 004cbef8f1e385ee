// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_attest.c - the machine columns only attestation writes: the pinned
 * quote bank and the rate limit of "rejected" events (0003_evidence.sql).
 */
#include <string.h>

#include "db_attest.h"
#include "db_internal.h"
#include "db_machine.h"

static const char sql_pin_bank[] =
	"UPDATE machines SET bank = ?2 WHERE id = ?1";
/* rejected_at + ?3, not ?2 - ?3: PostgreSQL cannot type two bare ones */
static const char sql_note_rejected[] =
	"UPDATE machines SET rejected_at = ?2 WHERE id = ?1 "
	"AND rejected_at + ?3 <= ?2";

int db_machine_pin_bank(struct db *db, const char *id, const char *bank,
			struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || bank == NULL)
		return db_bad(err, "no database or bank");
	if (db_check_id(id, err) < 0)
		return -1;
	st = db_stmt(db, sql_pin_bank, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_text(st, 2, bank);
	return db_step_done(db, st, err, "pin bank");
}

int db_machine_note_rejected(struct db *db, const char *id, int64_t now,
			     int64_t interval, const char *reason, int *written,
			     struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || written == NULL)
		return db_bad(err, "no database or result");
	*written = 0;
	if (db_check_id(id, err) < 0 || db_begin(db, err) < 0)
		return -1;
	st = db_stmt(db, sql_note_rejected, err);
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, id);
	db_bind_int64(st, 2, now);
	db_bind_int64(st, 3, interval);
	if (db_step_done(db, st, err, "rejected") < 0)
		goto fail;
	if (db_changes(db) == 1) {
		if (db_event_insert(db, id, now,
				    db_event_kind_name(DB_EVENT_REJECTED), NULL,
				    NULL, reason, err) < 0)
			goto fail;
		*written = 1;
	}
	return db_commit(db, err);
fail:
	db_rollback(db);
	return -1;
}

static const char sql_transition[] =
	"UPDATE machines SET state = ?2, state_reason = ?3 WHERE id = ?1";

int db_machine_transition(struct db *db, const char *id, const char *from,
			  const char *to, const char *reason, const char *kind,
			  int64_t now, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || from == NULL || to == NULL)
		return db_bad(err, "no database or state");
	if (db_check_id(id, err) < 0 || db_begin(db, err) < 0)
		return -1;
	st = db_stmt(db, sql_transition, err);
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, id);
	db_bind_text(st, 2, to);
	db_bind_text(st, 3, reason);
	if (db_step_done(db, st, err, "machine state") < 0)
		goto fail;
	if (db_changes(db) != 1) {
		db_err(err, IMT_ERR_MISMATCH, "no machine %s", id);
		goto fail;
	}
	if (kind != NULL &&
	    db_event_insert(db, id, now, kind,
			    strcmp(from, to) != 0 ? from : NULL,
			    strcmp(from, to) != 0 ? to : NULL, reason, err) < 0)
		goto fail;
	return db_commit(db, err);
fail:
	db_rollback(db);
	return -1;
}

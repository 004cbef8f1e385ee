// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_evidence.c - what the evidence path reads of a machine, in one
 * statement (db_evidence.h, struct db_evidence_view).
 *
 * Evidence reads its machine twice: before the signature check (the AK,
 * the boot, the log's digest, the nonce) and again under the write lock
 * (has anyone moved it meanwhile?). As four statements that was four
 * statement runs and, on SQLite, a read transaction around them; on
 * PostgreSQL four round trips. One statement is one snapshot by itself.
 */
#include <string.h>

#include "db_boot.h"
#include "db_evidence.h"
#include "db_internal.h"
#include "db_machine.h"

/*
 * The columns: the machine (DB_MACHINE_COLS from 0), the boot
 * (DB_BOOT_COLS), the log's digest and length, the outstanding nonce and
 * its expiry. The current boot is the machine's latest (boots_machine
 * index); the nonce row is the one DB_MACHINE_FROM joins for last_seen.
 * The latest boot is found by ?1, not by m.id: uncorrelated, PostgreSQL
 * runs it once and looks the boot up by its key (correlated, it ran it
 * for every row of boots).
 */
#define COL_BOOT DB_MACHINE_COLS
#define COL_BOOT_ID COL_BOOT /* NULL: no boot */
#define COL_LOG_SHA (COL_BOOT + DB_BOOT_COLS)
#define COL_LOG_LEN (COL_LOG_SHA + 1)
#define COL_NONCE (COL_LOG_LEN + 1) /* then its expiry */

static const char sql_evidence_view[] =
	"SELECT " DB_MACHINE_SELECT ", " DB_BOOT_SELECT ", "
	"l.sha256, length(l.log), "
	"CASE WHEN n.used = 0 AND ?2 < n.expires_at THEN n.value END, "
	"n.expires_at " DB_MACHINE_FROM "LEFT JOIN boots b ON b.id = "
	"(SELECT max(id) FROM boots WHERE machine_id = ?1) "
	"LEFT JOIN boot_logs l ON l.boot_id = b.id "
	"WHERE m.id = ?1";

/* The columns past the machine's; -1 when one is out of shape. */
static int view_rest(struct db_stmt *st, struct db_evidence_view *v,
		     struct imt_error *err)
{
	if (!db_col_is_null(st, COL_BOOT_ID)) {
		if (db_boot_from_row(st, COL_BOOT, &v->boot) < 0)
			return db_err(err, IMT_ERR_INTERNAL,
				      "corrupt boot row");
		v->have_boot = 1;
	}
	if (v->have_boot && !db_col_is_null(st, COL_LOG_SHA)) {
		if (db_log_columns(st, COL_LOG_SHA, COL_LOG_LEN, 0,
				   v->log.sha256, &v->log.len, &v->log.data,
				   err) < 0)
			return -1;
		v->have_log = 1;
	}
	if (!db_col_is_null(st, COL_NONCE))
		v->have_nonce = db_nonce_columns(st, COL_NONCE, v->nonce,
						 &v->nonce_len,
						 &v->nonce_expires) == 0;
	return 0;
}

int db_evidence_view_get(struct db *db, const char *id, int64_t now,
			 struct db_evidence_view *out, struct imt_error *err)
{
	struct db_stmt *st;
	int step, rc = -1;

	if (out != NULL)
		memset(out, 0, sizeof(*out));
	if (db == NULL || out == NULL)
		return db_bad(err, "no database or result");
	if (db_check_id(id, err) < 0)
		return -1;
	st = db_stmt(db, sql_evidence_view, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, id);
	db_bind_int64(st, 2, now);
	step = db_step(st);
	if (step == DB_DONE) {
		rc = 0;
	} else if (step != DB_ROW) {
		db_fail(db, err, "machine");
	} else if (db_machine_from_row(st, 0, &out->m) < 0) {
		db_err(err, IMT_ERR_INTERNAL,
		       "machine %s: corrupt row or out of memory", id);
	} else {
		out->found = 1;
		rc = view_rest(st, out, err);
	}
	db_reset(st);
	if (rc < 0)
		db_evidence_view_release(out);
	return rc;
}

void db_evidence_view_release(struct db_evidence_view *v)
{
	if (v == NULL)
		return;
	db_machine_release(&v->m);
	db_boot_log_release(&v->log);
	v->found = 0;
}

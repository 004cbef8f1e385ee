/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_evidence.h - what evidence reads of its machine, in one statement
 * (db_evidence.c). The conventions every function follows, and the limits,
 * are db.h's.
 */
#ifndef IMATRUST_DB_EVIDENCE_H
#define IMATRUST_DB_EVIDENCE_H

#include "db.h"
#include "db_boot.h"
#include "db_machine.h"

/*
 * A machine as the evidence path sees it, read by one statement: one
 * snapshot and, on PostgreSQL, one round trip instead of one a table.
 */
struct db_evidence_view {
	struct db_machine m; /* release with db_evidence_view_release() */
	int found;	     /* 0: no such machine, nothing else is set */
	struct db_boot boot; /* the current boot */
	int have_boot;
	struct db_boot_log log; /* the boot's firmware event log: digest and
				 * length, never its bytes (data NULL) */
	int have_log;
	uint8_t nonce[DB_NONCE_MAX]; /* outstanding: unused, unexpired */
	size_t nonce_len;
	int64_t nonce_expires;
	int have_nonce;
};

/**
 * db_evidence_view_get() - machine @id, its current boot, that boot's log
 * digest and its nonce outstanding at @now, as db_machine_get(),
 * db_boot_current(), db_boot_log_get() without the log and
 * db_nonce_outstanding() would read them, in one statement.
 * @out: filled; release with db_evidence_view_release() (also when not
 *       found)
 *
 * Return: 0 (see @out->found) or -1 with @err.
 */
int db_evidence_view_get(struct db *db, const char *id, int64_t now,
			 struct db_evidence_view *out, struct imt_error *err);

/** db_evidence_view_release() - what db_evidence_view_get() allocated. */
void db_evidence_view_release(struct db_evidence_view *v);

#endif /* IMATRUST_DB_EVIDENCE_H */

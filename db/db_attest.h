/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_attest.h - the machine columns attestation writes: pinned bank,
 * rate-limited rejections, state transitions (db_attest.c). The conventions
 * every function follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_ATTEST_H
#define IMATRUST_DB_ATTEST_H

#include "db.h"

/**
 * db_machine_pin_bank() - pin @bank ("sha1", "sha256") as the machine's
 * quote bank, inside the caller's transaction.
 */
int db_machine_pin_bank(struct db *db, const char *id, const char *bank,
			struct imt_error *err);

/**
 * db_machine_note_rejected() - write a "rejected" event with @reason
 * unless one was written less than @interval seconds before @now; the
 * rate limit is in the same UPDATE, so concurrent callers write one.
 * @written: receives 1 when the event was written, else 0
 */
int db_machine_note_rejected(struct db *db, const char *id, int64_t now,
			     int64_t interval, const char *reason, int *written,
			     struct imt_error *err);

/**
 * db_machine_transition() - write one row of the verifier's state table:
 * state @to with @reason and, when @kind is not NULL, an event of that
 * kind (with @from and @to when they differ). Only the engine calls it
 * (verifier/engine/engine.c); @from is the state the caller read.
 */
int db_machine_transition(struct db *db, const char *id, const char *from,
			  const char *to, const char *reason, const char *kind,
			  int64_t now, struct imt_error *err);

#endif /* IMATRUST_DB_ATTEST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_nonce.h - single-use quote nonces (db_nonce.c). The conventions every
 * function follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_NONCE_H
#define IMATRUST_DB_NONCE_H

#include "db.h"

enum db_nonce_result {
	DB_NONCE_OK,	  /* was valid; now used */
	DB_NONCE_UNKNOWN, /* not this machine's (never issued to it,
				 * replaced, purged, or another machine's) */
	DB_NONCE_USED,	  /* marked used (a row of verifiers before
				 * db_nonce_renew(), until purged) */
	DB_NONCE_EXPIRED, /* now >= expires_at */
};

const char *db_nonce_result_name(enum db_nonce_result r);

/**
 * db_nonce_outstanding() - @machine_id's nonce while unused and unexpired.
 * @value: receives it (DB_NONCE_MAX bytes available)
 * @len: receives its length
 * @expires_at: receives its expiry
 * @found: receives 1 when there is one, else 0
 */
int db_nonce_outstanding(struct db *db, const char *machine_id, int64_t now,
			 uint8_t *value, size_t *len, int64_t *expires_at,
			 int *found, struct imt_error *err);

/**
 * db_nonce_issue() - store a fresh nonce for @machine_id, valid while
 * now < @expires_at, replacing its outstanding one: a machine has one
 * nonce at a time. The caller generates @value (RAND_bytes).
 */
int db_nonce_issue(struct db *db, const char *machine_id, const uint8_t *value,
		   size_t len, int64_t expires_at, struct imt_error *err);

/* What db_nonce_renew() leaves in the row. */
struct db_nonce_next {
	const uint8_t *value; /* the next nonce, DB_NONCE_MIN..MAX bytes */
	size_t len;
	int64_t expires; /* valid while now < expires */
	/*
	 * Not 0: the evidence counts as seen at this time (its records,
	 * or none, are stored at the boot's next index), kept in the row
	 * in place of machines.last_seen: see db_boot_advance.seen_in_nonce
	 */
	int64_t seen_at;
};

/**
 * db_nonce_renew() - use nonce @value once and issue @next in ONE UPDATE
 * of the machine's nonce row: what evidence does with its nonce. @value
 * must be unused, unexpired at @now and issued to @machine_id; the row
 * holds @next from then on, so @value is unknown.
 * @res: DB_NONCE_OK when renewed; otherwise why not (nothing changes)
 *
 * No savepoint in a batch: one statement, atomic on its own.
 */
int db_nonce_renew(struct db *db, const char *machine_id, const uint8_t *value,
		   size_t len, int64_t now, const struct db_nonce_next *next,
		   enum db_nonce_result *res, struct imt_error *err);

#endif /* IMATRUST_DB_NONCE_H */

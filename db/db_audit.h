/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_audit.h - the audit trail of identities, imports, policies and keys
 * (db_audit.c). The conventions every function follows, and the limits, are
 * db.h's.
 */
#ifndef IMATRUST_DB_AUDIT_H
#define IMATRUST_DB_AUDIT_H

#include "db.h"

/*
 * An audit entry: what was done to an identity, by whom. Pointers are
 * borrowed; every one but @action may be NULL. Entries are never removed
 * with the machine they name.
 */
struct db_audit {
	int64_t id; /* cursor for the next page (listing) */
	int64_t time;
	const char *op_name; /* token name; NULL: the verifier itself */
	/* listing: the token's role when written (0021); NULL: the
	 * verifier, or written before. Adding ignores it: the role is the
	 * stored token's of @op_name, read in the writing transaction */
	const char *role;
	const char *action; /* "approve", "register", "remove", ... */
	const char *machine_id;
	const uint8_t *ek_fpr; /* DB_FPR_SIZE bytes */
	const char *detail;    /* JSON text */
};

typedef int (*db_audit_cb)(const struct db_audit *a, void *arg);

/*
 * Told of each audit entry a transaction wrote, once it committed (its
 * @id and @role are filled), oldest first; then once with @a NULL when
 * more than DB_AUDIT_HELD_MAX were written, the rest not told. Called
 * under the caller of the commit's locks: do not use @db in it.
 */
typedef void (*db_audit_committed_fn)(const struct db_audit *a, void *arg);

#define DB_AUDIT_HELD_MAX 4096 /* entries held for one transaction */

/**
 * db_audit_on_commit() - tell @fn (with @arg) of every audit entry the
 * connection commits from now on, nothing of one rolled back; NULL: stop.
 */
void db_audit_on_commit(struct db *db, db_audit_committed_fn fn, void *arg);

/** db_audit_add() - append entry @a (its @id is ignored). */
int db_audit_add(struct db *db, const struct db_audit *a,
		 struct imt_error *err);

/**
 * db_audit_list() - call @cb for entries with id > @after, oldest first,
 * at most @limit (1..DB_LIST_MAX); only @machine_id's when not NULL.
 */
int db_audit_list(struct db *db, const char *machine_id, int64_t after,
		  unsigned int limit, db_audit_cb cb, void *arg,
		  struct imt_error *err);

/**
 * db_audit_list_since() - db_audit_list() of the entries written at
 * @since (seconds since the epoch) or later; 0: all.
 */
int db_audit_list_since(struct db *db, const char *machine_id, int64_t since,
			int64_t after, unsigned int limit, db_audit_cb cb,
			void *arg, struct imt_error *err);

#endif /* IMATRUST_DB_AUDIT_H */

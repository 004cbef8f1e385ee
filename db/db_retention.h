/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_retention.h - retention: bounded deletion of old rows
 * (db_retention.c). The conventions every function follows, and the limits,
 * are db.h's.
 */
#ifndef IMATRUST_DB_RETENTION_H
#define IMATRUST_DB_RETENTION_H

#include "db.h"

struct db_retention {
	unsigned int keep_boots; /* boots kept per machine, >= 1 */
	unsigned int max_events; /* events kept per machine, 0: no cap */
	unsigned int max_rows;	 /* rows deleted per call, >= 1 */
	int64_t pending_expire;	 /* seconds a never approved pending
					 * machine is kept, 0: forever */
	int64_t webhook_keep;	 /* seconds a delivered webhook
					 * message is kept (0: deleted at
					 * the next pass) */
	int64_t audit_keep;	 /* seconds an audit entry is kept,
					 * 0: forever */
	int64_t event_keep;	 /* seconds an event is kept, 0: as
					 * keep_boots and max_events say */
};

/**
 * db_retention_run() - delete the records and events of each machine's
 * boots beyond the newest @keep_boots (then those boots), a machine's
 * oldest events beyond @max_events (a boot that lasts months still
 * flaps between trusted and stale), nonces that are used or expired
 * at @now, expired enrollment challenges, and pending machines that were
 * never approved nor sent evidence, @pending_expire after their creation
 * (each with a "pending-expired" audit entry), and webhook messages
 * delivered @webhook_keep seconds ago or more, and audit entries written
 * @audit_keep seconds ago or more (oldest first; the machine an entry
 * names does not matter), events written @event_keep seconds ago or more
 * (the same way); at most @max_rows rows per call so the writer is never
 * held for long.
 * @deleted: receives the rows deleted (may be NULL)
 * @more: receives 1 when rows remain to delete: call again (may be NULL)
 */
int db_retention_run(struct db *db, const struct db_retention *r, int64_t now,
		     size_t *deleted, int *more, struct imt_error *err);

#endif /* IMATRUST_DB_RETENTION_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_cluster.h - several verifiers on one PostgreSQL database
 * (db_cluster.c): the machine lock of state-moving transactions, the leader
 * lock, the change lock and its announcements. On SQLite one process owns
 * the file: the locks are no-ops, and it leads. The conventions every
 * function follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_CLUSTER_H
#define IMATRUST_DB_CLUSTER_H

#include "db.h"

/* The channel a reference, policy or key change is announced on. */
#define DB_CHANGE_CHANNEL "imatrust_change"

/**
 * db_machine_lock() - hold machine @id's lock until the open transaction
 * (a batch) ends: take it first in every transaction that moves the
 * machine's state, and read the machine after it, so no instance writes
 * over what another committed meanwhile.
 */
int db_machine_lock(struct db *db, const char *id, struct imt_error *err);

/**
 * db_leader() - *@leader 1 when this connection holds (or now took) the
 * leader lock: the one instance that runs the housekeeping clock. It is
 * held until the connection ends; ask again at every tick.
 */
int db_leader(struct db *db, int *leader, struct imt_error *err);

/**
 * db_change_lock() - *@got 1 when this connection holds (or now took) the
 * lock of reference, policy and key changes, which one instance at a
 * time makes; db_change_unlock() gives it back.
 */
int db_change_lock(struct db *db, int *got, struct imt_error *err);
void db_change_unlock(struct db *db);

/**
 * db_change_announce() - tell the other instances that references,
 * policies or keys changed (NOTIFY on DB_CHANGE_CHANNEL, delivered when
 * the open transaction, if any, commits).
 */
int db_change_announce(struct db *db, struct imt_error *err);

/**
 * db_changed_elsewhere() - 1 once after another instance announced a
 * change, or after the connection was made again (announcements may
 * have been missed meanwhile); then 0 until the next. Read between
 * statements: the connection picks announcements up at its next call.
 */
int db_changed_elsewhere(struct db *db);

#endif /* IMATRUST_DB_CLUSTER_H */

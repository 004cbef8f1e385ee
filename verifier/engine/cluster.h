/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cluster.h - one verifier among several on one PostgreSQL database
 * (proto/DESIGN.md §6): who leads the housekeeping, and the in-memory
 * sets another instance's change makes old. On SQLite the one process
 * leads and nothing changes elsewhere.
 */
#ifndef IMATRUST_CLUSTER_H
#define IMATRUST_CLUSTER_H

#include "verifier.h"

/**
 * cluster_lead() - does this instance run the housekeeping (the stale
 * clock, retention, webhook delivery) now? Takes the leader lock when it
 * is free (its holder died), logs each change of role, and sets
 * v->leader for the delivery thread. Call WITHOUT v->lock, at every tick.
 * Return: 1 leader, 0 not (or the database cannot say).
 */
int cluster_lead(struct verifier *v);

/**
 * cluster_sync() - read the policies and signature keys again when
 * another instance announced a change (v->lock held). policies.c and
 * keyring.c call it before each use of their set.
 */
void cluster_sync(struct verifier *v);

/**
 * cluster_change_take() - take the one lock of reference, policy and
 * key changes, in this process and across instances (a route does it
 * through cluster_change_begin(), routes.h). Call WITHOUT v->lock.
 * Return: 1 taken, 0 another change holds it, -1 the database cannot
 * say (@err).
 */
int cluster_change_take(struct verifier *v, struct imt_error *err);

/**
 * cluster_change_try() - the same lock for work without a request (a
 * re-judge left over from before a restart): 1 taken, 0 not (another
 * change holds it, which will do the work; or the database cannot say,
 * logged). Call WITHOUT v->lock.
 */
int cluster_change_try(struct verifier *v);

/**
 * cluster_change_end() - announce the change to the other instances
 * and release the lock. Call WITHOUT v->lock.
 */
void cluster_change_end(struct verifier *v);

#endif /* IMATRUST_CLUSTER_H */

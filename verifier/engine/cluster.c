// SPDX-License-Identifier: GPL-2.0-only
/*
 * cluster.c - one verifier among several on one database: the leader of
 * the housekeeping, changes one at a time, and what another instance's
 * change makes old here (db_cluster.c holds the locks and the channel).
 */
#include <pthread.h>

#include "cluster.h"
#include "db_cluster.h"
#include "keyring.h"
#include "log.h"
#include "policies.h"

int cluster_lead(struct verifier *v)
{
	struct imt_error err;
	int leader = 0, was;

	pthread_mutex_lock(&v->lock);
	if (db_leader(v->db, &leader, &err) < 0)
		log_warnx("leader lock: %s", err.msg);
	pthread_mutex_unlock(&v->lock);
	was = atomic_exchange(&v->leader, leader);
	if (leader != was)
		log_info("%s",
			 leader ?
				 "this instance now runs the housekeeping (stale clock, retention, webhook delivery)" :
				 "another instance runs the housekeeping");
	return leader;
}

void cluster_sync(struct verifier *v)
{
	if (!db_changed_elsewhere(v->db))
		return;
	policies_invalidate(v);
	keyring_invalidate(v);
}

/* One change at a time in this process, before the database's lock. */
static pthread_mutex_t change_lock = PTHREAD_MUTEX_INITIALIZER;

int cluster_change_take(struct verifier *v, struct imt_error *err)
{
	int got = 0, rc;

	if (pthread_mutex_trylock(&change_lock) != 0)
		return 0;
	pthread_mutex_lock(&v->lock);
	rc = db_change_lock(v->db, &got, err);
	pthread_mutex_unlock(&v->lock);
	if (rc == 0 && got)
		return 1;
	pthread_mutex_unlock(&change_lock);
	return rc < 0 ? -1 : 0;
}

int cluster_change_try(struct verifier *v)
{
	struct imt_error err;
	int rc = cluster_change_take(v, &err);

	if (rc < 0)
		log_warnx("change lock: %s", err.msg);
	return rc == 1;
}

void cluster_change_end(struct verifier *v)
{
	struct imt_error err;

	pthread_mutex_lock(&v->lock);
	if (db_change_announce(v->db, &err) < 0)
		log_warnx("announcing a change to the other instances: %s",
			  err.msg);
	db_change_unlock(v->db);
	pthread_mutex_unlock(&v->lock);
	pthread_mutex_unlock(&change_lock);
}

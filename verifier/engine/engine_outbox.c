// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_outbox.c - the webhook outbox under v->lock: the config file's
 * endpoints at start, the due messages, each attempt's outcome, the
 * figures. The delivery thread (results/webhook.c) reads the config's
 * secret files and posts without the lock, between these calls; the
 * messages themselves are queued by the database, in the transaction of
 * each change (db/schema/0010_webhooks.sql).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine_outbox.h"
#include "log.h"

#define GONE_MAX 256 /* config endpoints removed at one start, at most */

/* The config file's endpoints that left it; v->lock held. */
struct gone {
	char names[GONE_MAX][DB_WEBHOOK_NAME_MAX + 1];
	size_t n;
	const struct db_webhook_new *eps;
	size_t neps;
};

static int stated(const struct gone *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->neps; i++) {
		if (strcmp(g->eps[i].name, name) == 0)
			return 1;
	}
	return 0;
}

/* Config endpoints no longer in the file; and what each has queued. */
static int survey(const struct db_webhook *e, void *arg)
{
	struct gone *g = arg;

	if (e->from_config && !stated(g, e->name) && g->n < GONE_MAX)
		snprintf(g->names[g->n++], sizeof(g->names[0]), "%s", e->name);
	else if (e->pending > 0 || e->dropped > 0)
		log_info("webhook %s: %" PRIu64 " messages to deliver, %" PRIu64
			 " dropped so far",
			 e->name, e->pending, e->dropped);
	return 0;
}

/* Store @eps, each logged; v->lock held. */
static int put_all(struct verifier *v, const struct db_webhook_new *eps,
		   size_t n)
{
	struct imt_error err;
	size_t i;
	int created;

	for (i = 0; i < n; i++) {
		created = 0;
		if (db_webhook_put(v->db, &eps[i], (int64_t)time(NULL),
				   &created, &err) < 0) {
			log_warnx("webhook %s: %s", eps[i].name, err.msg);
			return -1;
		}
		log_info("webhook %s: %s (%s, key id %s)", eps[i].name,
			 eps[i].url, created ? "new" : "from the config file",
			 eps[i].key_id);
	}
	if (db_webhook_cap(v->db, (unsigned int)v->cfg.webhook_max_pending,
			   &err) < 0) {
		log_warnx("webhooks: %s", err.msg);
		return -1;
	}
	return 0;
}

/* Remove the config's endpoints that left it; v->lock held. */
static int remove_gone(struct verifier *v, const struct db_webhook_new *eps,
		       size_t n)
{
	static struct gone g; /* only the starting thread, under v->lock */
	struct imt_error err;
	size_t i;
	int found;

	g.n = 0;
	g.eps = eps;
	g.neps = n;
	if (db_webhook_list(v->db, survey, &g, &err) < 0) {
		log_warnx("webhooks: %s", err.msg);
		return -1;
	}
	for (i = 0; i < g.n; i++) {
		if (db_webhook_delete(v->db, g.names[i], &found, &err) < 0)
			log_warnx("webhook %s: %s", g.names[i], err.msg);
		else
			log_warnx("webhook %s left the config file: removed with its undelivered messages",
				  g.names[i]);
	}
	return 0;
}

int engine_outbox_sync(struct verifier *v, const struct db_webhook_new *eps,
		       size_t n)
{
	int rc = -1;

	pthread_mutex_lock(&v->lock);
	if (put_all(v, eps, n) == 0 && remove_gone(v, eps, n) == 0)
		rc = 0;
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int engine_outbox_due(struct verifier *v, int64_t now, unsigned int limit,
		      db_webhook_message_cb cb, void *arg,
		      struct imt_error *err)
{
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_webhook_due(v->db, now, limit, cb, arg, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int engine_outbox_delivered(struct verifier *v, int64_t seq, int64_t now,
			    struct imt_error *err)
{
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_webhook_delivered(v->db, seq, now, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int engine_outbox_failed(struct verifier *v, int64_t seq, int64_t next_attempt,
			 const char *error, struct imt_error *err)
{
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_webhook_failed(v->db, seq, next_attempt, error, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int engine_outbox_list(struct verifier *v, db_webhook_cb cb, void *arg,
		       struct imt_error *err)
{
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_webhook_list(v->db, cb, arg, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

void engine_outbox_on_queued(struct verifier *v, void (*fn)(void *arg),
			     void *arg)
{
	pthread_mutex_lock(&v->lock);
	db_webhook_on_queued(v->db, fn, arg);
	pthread_mutex_unlock(&v->lock);
}

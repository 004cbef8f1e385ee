// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_housekeeping.c - retention and the reference changes left
 * unfinished, for the daemon's clock (engine_housekeeping.h).
 */
#include "cluster.h"
#include "db_ref.h"
#include "db_retention.h"
#include "engine_housekeeping.h"
#include "import_store.h"
#include "log.h"
#include "rejudge.h"

void engine_retention(struct verifier *v, int64_t now)
{
	struct db_retention r = {
		.keep_boots = (unsigned int)v->cfg.keep_boots,
		.max_events = (unsigned int)v->cfg.max_events,
		.max_rows = ENGINE_RETENTION_ROWS,
		.pending_expire = (int64_t)v->cfg.pending_expire,
		.webhook_keep = (int64_t)v->cfg.webhook_keep,
		.audit_keep = (int64_t)v->cfg.audit_keep,
		.event_keep = (int64_t)v->cfg.event_keep,
	};
	struct imt_error err;
	size_t deleted = 0;
	int more = 0;

	pthread_mutex_lock(&v->lock);
	if (db_retention_run(v->db, &r, now, &deleted, &more, &err) < 0)
		log_warnx("retention: %s", err.msg);
	pthread_mutex_unlock(&v->lock);
	if (deleted > 0)
		log_debug("retention: %zu rows deleted%s", deleted,
			  more ? ", more to go" : "");
}

/*
 * A withdrawal whose re-judge did not finish left its digests queued.
 * Under the change lock: a change running on another instance empties
 * the queue itself when its re-judge ends, and one run here must not
 * empty it under that re-judge's feet.
 */
void engine_resume_changes(struct verifier *v, int64_t now)
{
	struct rejudge_stats st;
	struct imt_error err;
	size_t queued = 0;
	int rc;

	if (!cluster_change_try(v))
		return;
	/* an import or a withdrawal cut short: drop or complete it */
	if (import_recover(v, &queued, &err) < 0)
		log_warnx("recovering unfinished reference changes: %s",
			  err.msg);
	else if (queued > 0)
		log_info("dropped or withdrew %zu references of reference changes that did not finish",
			 queued);
	pthread_mutex_lock(&v->lock);
	rc = db_ref_withdrawn_count(v->db, &queued, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0 || queued == 0)
		goto out;
	if (rejudge_all(v, REJUDGE_WITHDRAWN,
			"{\"check\":\"rejudge\",\"change\":\"resumed at start\"}",
			now, &st, &err) < 0)
		log_warnx("re-judging %zu withdrawn digests: %s", queued,
			  err.msg);
	else
		log_info("re-judged %zu withdrawn digests left from before: %zu machines now untrusted",
			 queued, st.now_untrusted);
out:
	cluster_change_end(v);
}

void engine_load_references(struct verifier *v)
{
	struct db_ref_index_stats st;
	struct imt_error err, bg_err;
	int rc;

	pthread_mutex_lock(&v->lock);
	rc = db_ref_index_refresh(v->db, &err);
	db_ref_index_stats(v->db, &st);
	/* later rebuilds on a connection of their own, beside the lock */
	if (db_ref_index_background(v->db, v->cfg.database, &bg_err) < 0)
		log_warnx("references in memory: %s (rebuilt in the lookups)",
			  bg_err.msg);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		log_warnx("references in memory: %s (the database answers)",
			  err.msg);
	else if (st.built)
		log_info("%zu references in memory, %zu bytes", st.refs,
			 st.bytes);
}

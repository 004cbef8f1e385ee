// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine.c - the trust engine's core (engine.h): status to HTTP, the
 * state table applied, nonces, the stale clock. The evidence path is
 * engine_evidence.c; enrollment and activation, engine_enroll.c; what
 * operators do to identities, engine_identity.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>

#include "db_attest.h"
#include "db_boot.h"
#include "db_cluster.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "engine.h"
#include "engine_internal.h"
#include "log.h"

static const unsigned int http_of[ENGINE_STATUS_COUNT] = {
	[ENGINE_OK] = 200,	  [ENGINE_CREATED] = 201,
	[ENGINE_MALFORMED] = 400, [ENGINE_REJECTED] = 403,
	[ENGINE_NONCE] = 403,	  [ENGINE_NOT_ACTIVATED] = 403,
	[ENGINE_PENDING] = 403,	  [ENGINE_UNKNOWN] = 404,
	[ENGINE_CONFLICT] = 409,  [ENGINE_LIMIT] = 429,
	[ENGINE_STORAGE] = 503,	  [ENGINE_INTERNAL] = 500,
	[ENGINE_REFUSED] = 403,	  [ENGINE_BUSY] = 503,
	[ENGINE_TOO_LARGE] = 413,
};

unsigned int engine_http_status(enum engine_status s)
{
	if ((unsigned int)s >= ENGINE_STATUS_COUNT)
		return 500;
	return http_of[s];
}

enum engine_status engine_status_of(enum imt_result rc)
{
	switch (rc) {
	case IMT_ERR_LIMIT:
		return ENGINE_TOO_LARGE;
	case IMT_ERR_INTERNAL:
		return ENGINE_INTERNAL;
	default:
		return ENGINE_MALFORMED;
	}
}

enum engine_status engine_storage_status(enum imt_result rc)
{
	switch (rc) {
	case IMT_ERR_MALFORMED:
		return ENGINE_MALFORMED;
	case IMT_ERR_MISMATCH:
		return ENGINE_CONFLICT;
	case IMT_ERR_LIMIT:
		return ENGINE_TOO_LARGE;
	default:
		return ENGINE_INTERNAL;
	}
}

void engine_answer_set(struct engine_answer *ans, enum engine_status status,
		       const char *fmt, ...)
{
	va_list ap;

	ans->status = status;
	va_start(ap, fmt);
	vsnprintf(ans->message, sizeof(ans->message), fmt, ap);
	va_end(ap);
}

void engine_answer_storage(struct engine_answer *ans, const char *what,
			   const struct imt_error *err)
{
	engine_answer_set(ans, engine_storage_status(err->status), "%s: %s",
			  what, err->msg);
}

int engine_transition(struct verifier *v, const char *id,
		      enum db_machine_state from, enum transition_event event,
		      const char *reason, int64_t now,
		      enum db_machine_state *to, struct imt_error *err)
{
	const struct transition_row *row = transition_find((int)from, event);

	if (to != NULL)
		*to = from;
	if (row == NULL)
		return 0;
	if (db_machine_transition(v->db, id, db_machine_state_name(from),
				  db_machine_state_name(row->to), reason,
				  row->kind, now, err) < 0)
		return -1;
	if (to != NULL)
		*to = row->to;
	if (row->to != from)
		log_info("%s: %s -> %s (%s)", id, db_machine_state_name(from),
			 db_machine_state_name(row->to),
			 transition_event_name(event));
	return 1;
}

int engine_issue_nonce(struct verifier *v, const char *id, int64_t now,
		       uint8_t *nonce, size_t *len, uint64_t *expires,
		       struct engine_answer *ans)
{
	struct imt_error err;

	if (RAND_bytes(nonce, ENGINE_NONCE_SIZE) != 1) {
		engine_answer_set(ans, ENGINE_INTERNAL,
				  "no randomness for a nonce");
		return -1;
	}
	*len = ENGINE_NONCE_SIZE;
	*expires = (uint64_t)now + v->cfg.nonce_ttl;
	if (db_nonce_issue(v->db, id, nonce, *len, (int64_t)*expires, &err) <
	    0) {
		engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
		return -1;
	}
	atomic_fetch_add(&v->metrics.nonces_issued, 1);
	return 0;
}

int engine_usable(const char *id, const struct db_machine *m, int found,
		  struct engine_answer *ans)
{
	if (!found) {
		engine_answer_set(ans, ENGINE_UNKNOWN,
				  "unknown agent %s: enroll first", id);
		return -1;
	}
	if (!m->activated) {
		engine_answer_set(ans, ENGINE_NOT_ACTIVATED,
				  "not activated: enroll first");
		return -1;
	}
	return 0;
}

int engine_load(struct verifier *v, const char *id, struct db_machine *m,
		struct engine_answer *ans)
{
	struct imt_error err;
	int found;

	if (db_machine_get(v->db, id, m, &found, &err) < 0) {
		engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
		return -1;
	}
	if (engine_usable(id, m, found, ans) < 0) {
		if (found)
			db_machine_release(m);
		return -1;
	}
	return 0;
}

void engine_nonce(struct verifier *v, const char *id, int64_t now,
		  struct engine_answer *ans)
{
	struct wire_nonce *n = &ans->nonce;
	struct imt_error err;
	struct db_machine m;
	int64_t expires = 0;
	int found = 0;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	if (engine_load(v, id, &m, ans) < 0)
		goto out;
	db_machine_release(&m);
	if (db_nonce_outstanding(v->db, id, now, n->nonce, &n->nonce_len,
				 &expires, &found, &err) < 0) {
		engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
		goto out;
	}
	/*
	 * Reuse it while more than half its life is left (clock seconds),
	 * so the agent has time to quote: a flood writes at most one row per
	 * half nonce_ttl.
	 */
	if (found && 2 * (expires - now) > (int64_t)v->cfg.nonce_ttl)
		n->nonce_expires = (uint64_t)expires;
	else if (engine_issue_nonce(v, id, now, n->nonce, &n->nonce_len,
				    &n->nonce_expires, ans) < 0)
		goto out;
	n->nonce_ttl = n->nonce_expires - (uint64_t)now;
	ans->status = ENGINE_OK;
out:
	pthread_mutex_unlock(&v->lock);
}

void engine_verdict(struct verifier *v, const char *id, int64_t now,
		    struct engine_answer *ans)
{
	struct wire_verdict *vd = &ans->verdict;
	struct imt_error err;
	struct db_machine m;
	struct db_boot boot;
	int have_boot = 0;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	if (engine_load(v, id, &m, ans) < 0)
		goto out;
	snprintf(vd->state, sizeof(vd->state), "%s",
		 db_machine_state_name(m.state));
	db_machine_release(&m);
	if (db_boot_current(v->db, id, &boot, &have_boot, &err) < 0) {
		engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
		goto out;
	}
	vd->next_index = have_boot ? boot.next_record_index : 0;
	if (engine_issue_nonce(v, id, now, vd->nonce, &vd->nonce_len,
			       &vd->nonce_expires, ans) < 0)
		goto out;
	vd->nonce_ttl = v->cfg.nonce_ttl;
	ans->status = ENGINE_OK;
out:
	pthread_mutex_unlock(&v->lock);
}

void engine_activation_states(enum db_machine_state *vouched,
			      enum db_machine_state *unvouched)
{
	*vouched = transition_find(TRANSITION_NEW, TR_ACTIVATED)->to;
	*unvouched =
		transition_find(TRANSITION_NEW, TR_ACTIVATED_UNVOUCHED)->to;
}

#define STALE_BATCH 1000 /* machines turned stale per round */

struct stale_round {
	char ids[STALE_BATCH][DB_MACHINE_ID_MAX + 1];
	size_t n;
};

static int collect_silent(const struct db_machine *m, void *arg)
{
	struct stale_round *s = arg;

	memcpy(s->ids[s->n++], m->id, sizeof(s->ids[0]));
	return s->n == STALE_BATCH;
}

/*
 * Machine @id goes stale unless evidence came since it was listed, to
 * any instance: read again under its lock (v->lock held). 1: it went.
 */
static int stale_one(struct verifier *v, const char *id, int64_t before,
		     int64_t now, struct imt_error *err)
{
	struct db_machine m;
	char reason[128];
	int found = 0, rc = -1;

	if (db_batch_begin(v->db, err) < 0)
		return -1;
	if (db_machine_lock(v->db, id, err) < 0 ||
	    db_machine_get(v->db, id, &m, &found, err) < 0)
		goto out;
	rc = 0;
	if (found && (m.last_seen != 0 ? m.last_seen : m.created_at) < before) {
		snprintf(reason, sizeof(reason),
			 "{\"check\":\"deadline\",\"last_seen\":%lld,\"stale_after\":%llu}",
			 (long long)m.last_seen,
			 (unsigned long long)v->cfg.stale_after);
		rc = engine_transition(v, id, m.state, TR_DEADLINE, reason, now,
				       NULL, err);
	}
	if (found)
		db_machine_release(&m);
out:
	if (rc < 0 || db_batch_commit(v->db, err) < 0) {
		db_batch_abort(v->db);
		return -1;
	}
	return rc;
}

size_t engine_stale_tick(struct verifier *v, int64_t now)
{
	static struct stale_round s; /* the clock's thread only */
	int64_t before = now - (int64_t)v->cfg.stale_after;
	struct imt_error err;
	size_t i, stale = 0;
	int rc;

	s.n = 0;
	pthread_mutex_lock(&v->lock);
	if (db_machine_list_silent(v->db, before, STALE_BATCH, collect_silent,
				   &s, &err) < 0)
		log_warnx("stale: %s", err.msg);
	for (i = 0; i < s.n; i++) {
		rc = stale_one(v, s.ids[i], before, now, &err);
		if (rc < 0)
			log_warnx("stale %s: %s", s.ids[i], err.msg);
		stale += rc == 1;
	}
	pthread_mutex_unlock(&v->lock);
	return stale;
}

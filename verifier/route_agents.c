// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_agents.c - the agent side of the REST API (proto/PROTOCOL.md):
 * enrollment, activation, nonces, evidence. HTTP and JSON glue only; the
 * checks live in enroll.c and attest.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "engine.h"
#include "enroll.h"
#include "judge.h"
#include "log.h"
#include "verifier.h"
#include "wire.h"

#define WHY_MAX 256

static unsigned int status_of(enum imt_result rc)
{
	switch (rc) {
	case IMT_ERR_LIMIT:
		return 413;
	case IMT_ERR_INTERNAL:
		return 500;
	default:
		return 400;
	}
}

/* Decode @req's body as @kind; on failure answer 4xx and return -1. */
static int decode(enum wire_kind kind, const struct http_request *req,
		  void *msg, struct http_response *res)
{
	struct imt_error err;
	enum imt_result rc;

	rc = wire_decode(kind, req->body, req->body_len, msg, &err);
	if (rc != IMT_OK) {
		http_error(res, status_of(rc), "%s", err.msg);
		return -1;
	}
	return 0;
}

static void answer(enum wire_kind kind, const void *msg, unsigned int status,
		   struct http_response *res)
{
	struct imt_error err;

	res->body = wire_encode(kind, msg, &err);
	if (res->body == NULL)
		http_error(res, 500, "encoding the answer: %s", err.msg);
	else
		res->status = status;
}

/* The engine's answer: its status through engine_http_status(). */
static void answer_engine(enum wire_kind kind, const struct engine_answer *a,
			  struct http_response *res)
{
	if (a->status != ENGINE_OK)
		http_error(res, engine_http_status(a->status), "%s",
			   a->message);
	else
		answer(kind, kind == WIRE_NONCE ? (const void *)&a->nonce :
		       (const void *)&a->verdict, 200, res);
}

/* A path id must name the body's agent: one agent cannot speak for two. */
static int same_agent(const struct http_request *req, const char *agent,
		      struct http_response *res)
{
	if (strcmp(req->params[0], agent) != 0) {
		http_error(res, 400, "agent '%s' in the body, '%s' in the path",
			   agent, req->params[0]);
		return 0;
	}
	return 1;
}

/*
 * Store a new machine or, for a known one with the same EK, the
 * re-enrollment; then the challenge. @chained says whether the EK is
 * vouched for. 0, or -1 with @res filled.
 */
static int store_enrollment(struct verifier *v, const struct wire_enroll *m,
			    struct db_challenge *ch, int chained,
			    const char *why, struct http_response *res)
{
	struct db_machine old;
	struct imt_error err;
	int64_t now = time(NULL);
	int found, rc = -1;

	pthread_mutex_lock(&v->lock);
	if (db_machine_get(v->db, m->agent, &old, &found, &err) < 0)
		goto storage;
	if (found && (old.ek_pub_len != m->ek_pub.len ||
		      memcmp(old.ek_pub, m->ek_pub.data, m->ek_pub.len) != 0)) {
		http_error(res, 409,
			   "taken: agent id %s belongs to a machine with another EK",
			   m->agent);
		goto out;
	}
	if (!found) {
		struct db_machine_new n = {
			.id = m->agent,
			.ek_pub = m->ek_pub.data,
			.ek_pub_len = m->ek_pub.len,
			.ek_cert = m->ek_cert.len > 0 ? m->ek_cert.data : NULL,
			.ek_cert_len = m->ek_cert.len,
			.ak_pub = ch->ak_pub,
			.ak_pub_len = ch->ak_pub_len,
			.ak_name = ch->ak_name,
			.ak_name_len = ch->ak_name_len,
			.state = chained ? DB_STATE_ENROLLING :
					   DB_STATE_PENDING,
		};

		if (db_machine_create(v->db, &n, now, &err) < 0)
			goto storage;
		if (!chained) {
			char *reason = judge_check_reason("ek", why);

			db_machine_set_state(v->db, m->agent, DB_STATE_PENDING,
					     reason, now, &err);
			free(reason);
		}
	} else {
		db_event_add(v->db, m->agent, "re-enroll", NULL, now, &err);
	}
	ch->ek_chained = chained;
	ch->expires_at = now + ENROLL_CHALLENGE_TTL;
	if (db_challenge_put(v->db, m->agent, ch, &err) < 0)
		goto storage;
	rc = 0;
	goto out;
storage:
	http_error(res, 503, "storage: %s", err.msg);
out:
	pthread_mutex_unlock(&v->lock);
	if (found)
		db_machine_release(&old);
	return rc;
}

void route_agents_enroll(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	struct verifier *v = ctx;
	struct wire_enroll m;
	struct wire_challenge out = { 0 };
	struct db_challenge ch = { 0 };
	struct imt_error err;
	char why[WHY_MAX] = "";
	enum imt_result rc;
	int chained = 0;

	if (decode(WIRE_ENROLL, req, &m, res) < 0)
		return;
	rc = enroll_check_ek_cert(v->ek_ca, m.ek_pub.data, m.ek_pub.len,
				  m.ek_cert.data, m.ek_cert.len, &chained,
				  why, sizeof(why), &err);
	if (rc == IMT_OK)
		rc = enroll_challenge(&m, &ch, &out, &err);
	if (rc != IMT_OK) {
		http_error(res, status_of(rc), "%s", err.msg);
		goto out;
	}
	if (store_enrollment(v, &m, &ch, chained, why, res) < 0)
		goto out;
	atomic_fetch_add(&v->metrics.enrollments, 1);
	log_info("%s: enrollment%s%s", m.agent, chained ? "" : " pending: ",
		 chained ? "" : why);
	answer(WIRE_CHALLENGE, &out, 201, res);
out:
	explicit_bzero(&ch, sizeof(ch));
	wire_free(WIRE_CHALLENGE, &out);
	wire_free(WIRE_ENROLL, &m);
}

void route_agents_activate(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx;
	struct engine_answer ans;
	struct wire_activate m;
	struct db_challenge ch;
	struct imt_error err;
	int64_t now = time(NULL);
	int found = 0, ok = 0;

	if (decode(WIRE_ACTIVATE, req, &m, res) < 0)
		return;
	if (!same_agent(req, m.agent, res))
		return;
	pthread_mutex_lock(&v->lock);
	if (db_challenge_get(v->db, m.agent, &ch, &found, &err) < 0) {
		http_error(res, 503, "storage: %s", err.msg);
	} else if (!found || ch.expires_at <= now) {
		http_error(res, 403, "challenge: none open for %s; enroll again",
			   m.agent);
	} else if (!enroll_proof_ok(&ch, m.agent, m.proof, m.proof_len)) {
		db_challenge_delete(v->db, m.agent, &err);
		db_event_add(v->db, m.agent, "activation-failed",
			     "{\"check\":\"proof\"}", now, &err);
		http_error(res, 403, "challenge: wrong proof; enroll again");
	} else if (db_machine_activate(v->db, m.agent, &ch, now, NULL,
				       &err) < 0) {
		http_error(res, 503, "storage: %s", err.msg);
	} else {
		ok = 1;
	}
	pthread_mutex_unlock(&v->lock);
	explicit_bzero(&ch, sizeof(ch));
	if (!ok)
		return;
	atomic_fetch_add(&v->metrics.activations, 1);
	log_info("%s: activated", m.agent);
	engine_verdict(v, m.agent, now, &ans);
	answer_engine(WIRE_VERDICT, &ans, res);
}

void route_agents_nonce(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct engine_answer ans;

	engine_nonce(ctx, req->params[0], time(NULL), &ans);
	answer_engine(WIRE_NONCE, &ans, res);
}

void route_agents_evidence(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct wire_evidence ev;
	struct engine_answer ans;

	if (decode(WIRE_EVIDENCE, req, &ev, res) < 0)
		return;
	if (same_agent(req, ev.agent, res)) {
		engine_evidence(ctx, &ev, time(NULL), &ans);
		answer_engine(WIRE_VERDICT, &ans, res);
	}
	wire_free(WIRE_EVIDENCE, &ev);
}

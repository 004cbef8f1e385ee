// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_agents.c - the agent side of the REST API (proto/PROTOCOL.md):
 * enrollment, activation, nonces, evidence. HTTP and JSON glue only; the
 * checks live in enroll.c and attest.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db_enroll.h"
#include "db_identity.h"
#include "db_machine.h"
#include "engine.h"
#include "enroll.h"
#include "judge.h"
#include "log.h"
#include "verifier.h"
#include "wire.h"
#include "routes.h"

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

	/* only the evidence route takes another type (routes.c) */
	if (req->body_type_other && kind == WIRE_EVIDENCE)
		rc = wire_decode_evidence_framed(req->body, req->body_len, msg,
						 &err);
	else
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

/*
 * Every engine answer to an agent says which evidence bodies this
 * verifier takes: an agent sends framed evidence only to a verifier that
 * says so (PROTOCOL.md, "Bytes after the JSON"), so an older verifier
 * never sees one.
 */
static const char *const agent_headers[] = {
	"Accept-Post", "application/json, " WIRE_EVIDENCE_FRAMED_TYPE, NULL
};

/* The engine's answer: its status through engine_http_status(). */
static void answer_engine(enum wire_kind kind, const struct engine_answer *a,
			  struct http_response *res)
{
	res->headers = agent_headers;
	if (a->status != ENGINE_OK)
		http_error(res, engine_http_status(a->status), "%s",
			   a->message);
	else
		answer(kind,
		       kind == WIRE_NONCE ? (const void *)&a->nonce :
					    (const void *)&a->verdict,
		       200, res);
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
 * Enrollment (proto/PROTOCOL.md): nothing of a machine is created or
 * changed before its TPM proves, by TPM2_ActivateCredential, that it
 * holds the EK. POST /v1/agents only stores a challenge, bounded per EK
 * and in all; the activation creates the machine or binds the new AK to
 * the known one with the same EK.
 */

/*
 * Does @w forbid enrolling @id with the EK @fpr? 1 with the 409 message
 * in @buf, else 0. A taken EK is named by its fingerprint, which the
 * sender knows already, never by the id it belongs to.
 */
static int taken_why(const struct db_identity *w, const char *id,
		     const char *fpr, char *buf, size_t n)
{
	int known = w->machine && w->machine_same_ek;

	if (w->machine && !w->machine_same_ek)
		snprintf(buf, n,
			 "agent id %s belongs to a machine with "
			 "another EK",
			 id);
	else if (!w->machine && w->id_registered_other)
		snprintf(buf, n,
			 "agent id %s is pre-registered for another "
			 "EK",
			 id);
	else if (w->ek_elsewhere)
		snprintf(buf, n, "this EK (%s) is enrolled under another id",
			 fpr);
	else if (w->ek_registered_other && !known)
		snprintf(buf, n,
			 "this EK (%s) is pre-registered for another "
			 "id",
			 fpr);
	else
		return 0;
	return 1;
}

/* The policy of "enroll = ...": 0, or -1 with a 403 in @res. */
static int admitted(const struct verifier *v, const struct db_identity *w,
		    const struct db_challenge *ch, const char *fpr,
		    const char *why, struct http_response *res)
{
	enum config_enroll mode = config_enroll_mode(&v->cfg);

	if (w->machine && w->machine_same_ek)
		return 0; /* admitted before: a re-enrollment */
	if (mode != CONFIG_ENROLL_CA && !w->registered) {
		http_error(res, 403,
			   "not registered: id %s with EK %s is not "
			   "pre-registered (imatrust machine add %s --ek %s)",
			   ch->machine_id, fpr, ch->machine_id, fpr);
		return -1;
	}
	if (mode == CONFIG_ENROLL_CA_REGISTERED && !ch->ek_chained) {
		http_error(res, 403,
			   "not vouched: enroll = ca+registered and "
			   "the EK certificate does not chain to ek_ca (%s)",
			   why);
		return -1;
	}
	return 0;
}

/* Refuse a challenge past a cap: the answer and the counter. */
static void refuse_cap(struct verifier *v, enum db_open_result r,
		       struct http_response *res)
{
	if (r == DB_OPEN_EK_FULL) {
		atomic_fetch_add(&v->metrics.enroll_ek_cap, 1);
		http_error(res, 429,
			   "enrollment: %llu challenges are open for "
			   "this EK (max_enrollments_per_ek); activate one or "
			   "wait %d s",
			   (unsigned long long)v->cfg.max_enrollments_per_ek,
			   ENROLL_CHALLENGE_TTL);
	} else {
		atomic_fetch_add(&v->metrics.enroll_cap, 1);
		http_error(res, 503,
			   "enrollment: %llu challenges are open "
			   "(max_open_enrollments); try again later",
			   (unsigned long long)v->cfg.max_open_enrollments);
	}
}

/*
 * Store the challenge @ch when the id and the EK are free or one known
 * machine's, the policy admits it and no cap is reached. 0, or -1 with
 * @res filled.
 */
static int open_challenge(struct verifier *v, struct db_challenge *ch,
			  const char *why, struct http_response *res)
{
	struct db_enroll_limits lim = {
		.max_open = (unsigned int)v->cfg.max_open_enrollments,
		.max_per_ek = (unsigned int)v->cfg.max_enrollments_per_ek,
	};
	char fpr[ENROLL_FPR_HEX + 1], taken[WHY_MAX];
	enum db_open_result r = DB_OPEN_FULL;
	struct db_identity w;
	struct imt_error err;
	int rc = -1, vouched;

	enroll_fpr_hex(ch->ek_fpr, fpr);
	pthread_mutex_lock(&v->lock);
	if (db_identity_check(v->db, ch->machine_id, ch->ek_fpr, ch->ek_pub,
			      ch->ek_pub_len, &w, &err) < 0)
		goto storage;
	if (taken_why(&w, ch->machine_id, fpr, taken, sizeof(taken))) {
		atomic_fetch_add(&v->metrics.enroll_taken, 1);
		http_error(res, 409, "taken: %s", taken);
		goto out;
	}
	if (admitted(v, &w, ch, fpr, why, res) < 0) {
		atomic_fetch_add(&v->metrics.enroll_unregistered, 1);
		goto out;
	}
	vouched = ch->ek_chained || w.registered || w.machine;
	if (!vouched)
		ch->expires_at = ch->created_at + ENROLL_UNVOUCHED_TTL;
	if (db_challenge_open(v->db, ch, vouched, &lim, ch->created_at, &r,
			      &err) < 0)
		goto storage;
	if (r == DB_OPEN_FULL || r == DB_OPEN_EK_FULL) {
		refuse_cap(v, r, res);
		goto out;
	}
	if (r == DB_OPEN_EVICTED)
		atomic_fetch_add(&v->metrics.enroll_evicted, 1);
	rc = 0;
	goto out;
storage:
	http_error(res, 503, "storage: %s", err.msg);
out:
	pthread_mutex_unlock(&v->lock);
	return rc;
}

void route_agents_enroll(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	struct verifier *v = ctx;
	struct wire_enroll m;
	struct wire_challenge out = { 0 };
	static __thread struct db_challenge ch; /* 25 KiB: not on the stack */
	char why[WHY_MAX] = "", fpr[ENROLL_FPR_HEX + 1];
	struct imt_error err;
	enum imt_result rc;
	int chained = 0;

	if (decode(WIRE_ENROLL, req, &m, res) < 0)
		return;
	memset(&ch, 0, sizeof(ch));
	rc = enroll_check_ek_cert(v->ek_ca, m.ek_pub.data, m.ek_pub.len,
				  m.ek_cert.data, m.ek_cert.len, &chained, why,
				  sizeof(why), &err);
	if (rc == IMT_OK)
		rc = enroll_challenge(&m, &ch, &out, &err);
	if (rc != IMT_OK) {
		http_error(res, status_of(rc), "%s", err.msg);
		goto out;
	}
	ch.ek_chained = chained;
	ch.created_at = time(NULL);
	ch.expires_at = ch.created_at + ENROLL_CHALLENGE_TTL;
	if (open_challenge(v, &ch, why, res) < 0)
		goto out;
	atomic_fetch_add(&v->metrics.enrollments, 1);
	enroll_fpr_hex(ch.ek_fpr, fpr);
	/* debug: a flood of enrollments must not flood the log */
	log_debug("%s: challenge for EK %s%s%s", m.agent, fpr,
		  chained ? "" : ", not vouched: ", chained ? "" : why);
	answer(WIRE_CHALLENGE, &out, 201, res);
out:
	/* a refused enrollment cost a certificate check and a credential */
	res->charge = res->status >= 400;
	explicit_bzero(&ch, sizeof(ch));
	wire_free(WIRE_CHALLENGE, &out);
	wire_free(WIRE_ENROLL, &m);
}

/* The answers to an activation that verified but changes nothing. */
static void refuse_activation(struct verifier *v, enum db_activation r,
			      const struct db_challenge *ch,
			      struct http_response *res)
{
	char fpr[ENROLL_FPR_HEX + 1];

	enroll_fpr_hex(ch->ek_fpr, fpr);
	switch (r) {
	case DB_ACT_ID_TAKEN:
		atomic_fetch_add(&v->metrics.enroll_taken, 1);
		http_error(res, 409, "taken: agent id %s belongs to another EK",
			   ch->machine_id);
		break;
	case DB_ACT_EK_TAKEN:
		atomic_fetch_add(&v->metrics.enroll_taken, 1);
		http_error(res, 409,
			   "taken: this EK (%s) is enrolled under "
			   "another id",
			   fpr);
		break;
	case DB_ACT_PENDING_FULL:
		atomic_fetch_add(&v->metrics.enroll_pending_cap, 1);
		http_error(res, 503,
			   "enrollment: %llu machines wait in pending "
			   "(max_pending); an operator must approve or remove "
			   "some",
			   (unsigned long long)v->cfg.max_pending);
		break;
	default:
		atomic_fetch_add(&v->metrics.enroll_unregistered, 1);
		http_error(res, 403, "not registered: id %s with EK %s",
			   ch->machine_id, fpr);
		break;
	}
}

/* Why the stored EK is not vouched for, as a state reason; malloc'ed. */
static char *pending_reason(struct verifier *v, const struct db_challenge *ch)
{
	char why[WHY_MAX] = "no EK certificate";
	struct imt_error err;
	int chained = 0;

	if (enroll_check_ek_cert(v->ek_ca, ch->ek_pub, ch->ek_pub_len,
				 ch->ek_cert, ch->ek_cert_len, &chained, why,
				 sizeof(why), &err) != IMT_OK)
		snprintf(why, sizeof(why), "%s", err.msg);
	return judge_check_reason("ek", why);
}

/*
 * Find the challenge the proof opens and activate it; 0 when a machine
 * was created or re-bound (*@state set), else -1 with @res filled.
 */
static int activate(struct verifier *v, const struct wire_activate *m,
		    int64_t now, struct db_challenge *ch,
		    enum db_machine_state *state, struct http_response *res)
{
	struct db_activate_opts o = {
		.max_pending = (unsigned int)v->cfg.max_pending,
		.registered_only = config_enroll_mode(&v->cfg) !=
				   CONFIG_ENROLL_CA,
	};
	uint8_t hash[DB_PROOF_HASH_SIZE];
	enum db_activation r = DB_ACT_CREATED;
	struct imt_error err;
	char *reason = NULL;
	int found = 0, rc = -1;

	engine_activation_states(&o.to_vouched, &o.to_unvouched);
	enroll_proof_hash(m->proof, m->proof_len, hash);
	pthread_mutex_lock(&v->lock);
	if (db_challenge_find(v->db, m->agent, hash, now, ch, &found, &err) < 0)
		goto storage;
	/* a wrong proof finds nothing, so it cancels nothing */
	if (!found || !enroll_proof_ok(ch, m->agent, m->proof, m->proof_len)) {
		atomic_fetch_add(&v->metrics.activations_refused, 1);
		http_error(res, 403,
			   "challenge: no open challenge of %s "
			   "matches this proof; enroll again",
			   m->agent);
		goto out;
	}
	if (!ch->ek_chained)
		o.pending_reason = reason = pending_reason(v, ch);
	if (db_challenge_activate(v->db, ch, &o, now, &r, state, &err) < 0)
		goto storage;
	if (r != DB_ACT_CREATED && r != DB_ACT_REPLACED) {
		refuse_activation(v, r, ch, res);
		goto out;
	}
	rc = 0;
	goto out;
storage:
	http_error(res, 503, "storage: %s", err.msg);
out:
	pthread_mutex_unlock(&v->lock);
	free(reason);
	return rc;
}

void route_agents_activate(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx;
	static __thread struct db_challenge ch; /* 25 KiB: not on the stack */
	char fpr[ENROLL_FPR_HEX + 1];
	enum db_machine_state state = DB_STATE_PENDING;
	struct engine_answer ans;
	struct wire_activate m;
	int64_t now = time(NULL);
	int rc;

	if (decode(WIRE_ACTIVATE, req, &m, res) < 0)
		return;
	if (!same_agent(req, m.agent, res))
		return;
	rc = activate(v, &m, now, &ch, &state, res);
	enroll_fpr_hex(ch.ek_fpr, fpr);
	explicit_bzero(&ch, sizeof(ch));
	if (rc < 0)
		return;
	atomic_fetch_add(&v->metrics.activations, 1);
	log_info("%s: activated, EK %s, %s", m.agent, fpr,
		 db_machine_state_name(state));
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
	struct verifier *v = ctx;
	struct wire_evidence ev;
	struct engine_answer ans;

	if (req->body_type_other)
		atomic_fetch_add(&v->metrics.evidence_framed, 1);
	if (decode(WIRE_EVIDENCE, req, &ev, res) < 0)
		return;
	if (same_agent(req, ev.agent, res)) {
		engine_evidence(ctx, &ev, time(NULL), &ans);
		answer_engine(WIRE_VERDICT, &ans, res);
		/* a quote no enrolled AK signed cost a signature check */
		res->charge = ans.status == ENGINE_REJECTED;
	}
	wire_free(WIRE_EVIDENCE, &ev);
}

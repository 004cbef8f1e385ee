// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_agents.c - the agent side of the REST API (proto/PROTOCOL.md):
 * enrollment, activation, nonces, evidence. HTTP and JSON glue only:
 * decode, call one engine entry point (engine.h), map its status to HTTP
 * through engine_http_status(), encode.
 */
#include <string.h>
#include <time.h>

#include "engine.h"
#include "verifier.h"
#include "wire.h"
#include "routes.h"

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
		http_error(res, engine_http_status(engine_status_of(rc)), "%s",
			   err.msg);
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
 * Enrollment (proto/PROTOCOL.md): the engine checks, stores a challenge
 * and counts (engine_enroll()); a refusal is charged to its address, it
 * cost a certificate check and a credential.
 */
void route_agents_enroll(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	struct wire_challenge out = { 0 };
	struct engine_answer ans;
	struct wire_enroll m;

	if (decode(WIRE_ENROLL, req, &m, res) < 0)
		return;
	engine_enroll(ctx, &m, time(NULL), &out, &ans);
	if (ans.status != ENGINE_CREATED)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		answer(WIRE_CHALLENGE, &out, 201, res);
	res->charge = res->status >= 400;
	wire_free(WIRE_CHALLENGE, &out);
	wire_free(WIRE_ENROLL, &m);
}

/*
 * Activation: the engine's answer is a verdict when the machine was
 * activated (with the agent headers, as every verdict), else a refusal.
 */
void route_agents_activate(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct engine_answer ans;
	struct wire_activate m;
	int64_t now = time(NULL);

	if (decode(WIRE_ACTIVATE, req, &m, res) < 0)
		return;
	if (!same_agent(req, m.agent, res))
		return;
	if (engine_activate(ctx, &m, now, &ans))
		answer_engine(WIRE_VERDICT, &ans, res);
	else
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
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

// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_talk.c - talking to the verifier: a nonce, enrollment and
 * activation, a verdict taken, and what an answer makes the agent do.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent_int.h"
#include "log.h"

/* ---- talking to the verifier ------------------------------------------ */

/*
 * POST @len bytes of @body of media type @type (NULL: JSON, @body a
 * string or NULL for none) to @path. Return: the reaction; the answer is
 * in @r (to be freed) when it is RULES_GO_ON, else its status is in
 * a->last_status (0: none came).
 */
enum rules_reaction agent_post_body(struct agent *a, const char *path,
				    const char *type, const char *body,
				    size_t len, struct client_reply *r)
{
	char msg[RULES_MESSAGE_MAX];
	enum rules_reaction re;
	int rc;

	a->last_status = 0;
	rc = type != NULL ?
		     client_post_typed(a->client, path, type, body, len, r) :
		     client_post(a->client, path, body, r);
	if (rc < 0) {
		log_warnx("POST %s: %s", path, r->error);
		/* the nonce may or may not have been consumed */
		a->nonce_len = 0;
		return RULES_BACKOFF;
	}
	if (r->status == 200 || r->status == 201) {
		a->verifier_framed = strstr(r->accept_post,
					    WIRE_EVIDENCE_FRAMED_TYPE) != NULL;
		return RULES_GO_ON;
	}
	rules_error_message(r->body, r->len, msg, sizeof(msg));
	re = rules_reaction(r->status, msg);
	log_warnx("POST %s: %ld %s: %s", path, r->status,
		  msg[0] != '\0' ? msg : "(no message)",
		  rules_reaction_name(re));
	a->last_status = r->status;
	client_reply_free(r);
	a->nonce_len = 0;
	return re;
}

/* POST @json (NULL: empty) to @path, as agent_post_body(). */
static enum rules_reaction agent_post(struct agent *a, const char *path,
				      const char *json, struct client_reply *r)
{
	return agent_post_body(a, path, NULL, json, 0, r);
}

/* The step after a reaction other than RULES_GO_ON. */
enum agent_step agent_react(struct agent *a, enum rules_reaction re,
			    enum agent_step retry)
{
	switch (re) {
	case RULES_ENROLL:
		if (retry != STEP_ENROLL)
			return STEP_ENROLL;
		/* the enrollment itself was refused: not in a tight loop */
		break;
	case RULES_PENDING:
		return STEP_PENDING;
	case RULES_CONFLICT:
		log_warnx("id '%s' is enrolled with another TPM: set another id",
			  a->cfg->id);
		agent_status("id '%s' taken by another TPM", a->cfg->id);
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	case RULES_GO_ON:
	case RULES_BACKOFF:
		break;
	}
	a->after_backoff = retry;
	return STEP_BACKOFF;
}

/* Take state, nonce and next_index from a verdict answer. */
enum agent_step agent_take_verdict(struct agent *a, struct client_reply *r)
{
	struct wire_verdict v;
	struct imt_error err;
	enum imt_result rc;

	rc = wire_decode(WIRE_VERDICT, r->body, r->len, &v, &err);
	client_reply_free(r);
	if (rc != IMT_OK) {
		log_warnx("verdict: %s", err.msg);
		a->after_backoff = STEP_CONNECT;
		return STEP_BACKOFF;
	}
	memcpy(a->nonce, v.nonce, v.nonce_len);
	a->nonce_len = v.nonce_len;
	a->nonce_got_ms = agent_now_ms();
	/* the TTL itself when the verifier sends it: no clock skew then */
	a->nonce_life_ms = v.nonce_ttl > 0 ?
				   rules_nonce_life_ms(v.nonce_ttl, 0) :
				   rules_nonce_life_ms(v.nonce_expires,
						       (uint64_t)time(NULL));
	if (strcmp(a->state, v.state) != 0)
		log_info("verdict %s, next_index %" PRIu64, v.state,
			 v.next_index);
	else
		log_debug("verdict %s, next_index %" PRIu64, v.state,
			  v.next_index);
	snprintf(a->state, sizeof(a->state), "%s", v.state);
	agent_status("verdict %s, next_index %" PRIu64, v.state, v.next_index);
	/* confirmed by the verifier; durably only if the evidence asked */
	a->stored_records = v.has_stored_records ? v.stored_records : 0;
	a->stored_durable = 0;
	if (a->export_on && !v.has_stored_records && !a->export_unconfirmed) {
		log_warnx(
			"export: the verifier does not say which records it stored (an older verifier?): nothing is deleted");
		a->export_unconfirmed = 1;
	}
	if (strcmp(v.boot_log, "wanted") == 0 && a->boot_log != NULL) {
		log_debug("verdict: the firmware event log is wanted");
		a->boot_log_due = 1;
	}
	wire_free(WIRE_VERDICT, &v);
	backoff_reset(&a->backoff);
	a->synced = 1;
	if (strcmp(a->state, "pending") == 0)
		return STEP_PENDING;
	agent_resume(a, v.next_index);
	return STEP_STREAM;
}

/* POST /nonce: a nonce and nothing else (anyone may ask for it). */
enum agent_step agent_nonce(struct agent *a)
{
	struct client_reply r;
	struct wire_nonce n;
	struct imt_error err;
	enum rules_reaction re;
	enum imt_result rc;

	re = agent_post(a, a->path_nonce, NULL, &r);
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_CONNECT);
	rc = wire_decode(WIRE_NONCE, r.body, r.len, &n, &err);
	client_reply_free(&r);
	if (rc != IMT_OK) {
		log_warnx("nonce: %s", err.msg);
		a->after_backoff = STEP_CONNECT;
		return STEP_BACKOFF;
	}
	memcpy(a->nonce, n.nonce, n.nonce_len);
	a->nonce_len = n.nonce_len;
	a->nonce_got_ms = agent_now_ms();
	a->nonce_life_ms = rules_nonce_life_ms(n.nonce_ttl, 0);
	wire_free(WIRE_NONCE, &n);
	return STEP_STREAM;
}

/*
 * (Re)connect: a nonce, and since the verifier may have changed meanwhile
 * (restarted, restored), where the list continues comes with the first
 * verdict: the next round is a probe.
 */
enum agent_step agent_connect(struct agent *a)
{
	enum agent_step next = agent_nonce(a);

	if (next == STEP_STREAM)
		a->synced = 0;
	return next;
}

/* TPM2_ActivateCredential on the challenge and POST the proof. */
static enum agent_step agent_activate(struct agent *a,
				      const struct wire_challenge *ch)
{
	uint8_t secret[TPM_SECRET_MAX];
	struct wire_activate act;
	struct client_reply r;
	struct imt_error err;
	enum rules_reaction re;
	enum tpm_status st;
	size_t secret_len = 0;
	char *json;
	int rc;

	st = tpm_activate_credential(a->tpm, ch->credential.data,
				     ch->credential.len, ch->secret.data,
				     ch->secret.len, secret, &secret_len);
	if (st != TPM_OK) {
		log_warnx("activate credential: %s", tpm_status_name(st));
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	}
	memset(&act, 0, sizeof(act));
	snprintf(act.agent, sizeof(act.agent), "%s", a->cfg->id);
	rc = rules_proof(secret, secret_len, a->cfg->id, act.proof);
	explicit_bzero(secret, sizeof(secret));
	act.proof_len = RULES_PROOF_LEN;
	json = rc == 0 ? wire_encode(WIRE_ACTIVATE, &act, &err) : NULL;
	explicit_bzero(&act, sizeof(act));
	if (json == NULL) {
		log_warnx("activate: %s", rc == 0 ? err.msg : "HMAC failed");
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	}
	re = agent_post(a, a->path_activate, json, &r);
	free(json);
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_ENROLL);
	log_info("enrolled as '%s'", a->cfg->id);
	a->boot_log_due = a->boot_log != NULL;
	return agent_take_verdict(a, &r);
}

/* POST /v1/agents: EK, its certificate and the AK; activate the answer. */
enum agent_step agent_enroll(struct agent *a)
{
	struct wire_enroll e;
	struct wire_challenge ch;
	struct client_reply r;
	struct imt_error err;
	enum rules_reaction re;
	enum agent_step next;
	char *json;

	memset(&e, 0, sizeof(e));
	snprintf(e.agent, sizeof(e.agent), "%s", a->cfg->id);
	e.ek_pub = (struct wire_blob){ a->ek.pub, a->ek.pub_len };
	e.ek_cert = (struct wire_blob){ a->ek.cert, a->ek.cert_len };
	e.ak_pub = (struct wire_blob){ a->ak.pub, a->ak.pub_len };
	json = wire_encode(WIRE_ENROLL, &e, &err);
	if (json == NULL)
		fatalx("enroll: %s", err.msg); /* our own TPM's data */
	log_info("enrolling as '%s'%s", a->cfg->id,
		 a->ek.cert_len == 0 ? " (the TPM has no EK certificate)" : "");
	agent_status("enrolling as '%s'", a->cfg->id);
	re = agent_post(a, "/v1/agents", json, &r);
	free(json);
	if (re != RULES_GO_ON)
		return agent_react(a, re, STEP_ENROLL);
	if (wire_decode(WIRE_CHALLENGE, r.body, r.len, &ch, &err) != IMT_OK) {
		log_warnx("challenge: %s", err.msg);
		client_reply_free(&r);
		a->after_backoff = STEP_ENROLL;
		return STEP_BACKOFF;
	}
	client_reply_free(&r);
	next = agent_activate(a, &ch);
	wire_free(WIRE_CHALLENGE, &ch);
	return next;
}

/* Waiting for an operator to approve this machine's EK. */
enum agent_step agent_pending(struct agent *a)
{
	uint32_t ms = backoff_next(&a->backoff);

	log_info("pending: waiting for an operator to approve '%s' (%u ms)",
		 a->cfg->id, ms);
	agent_status("pending approval of '%s'", a->cfg->id);
	agent_sleep(a, ms);
	return STEP_CONNECT;
}

enum agent_step agent_backoff(struct agent *a)
{
	uint32_t ms = backoff_next(&a->backoff);

	log_info("retrying in %u ms", ms);
	agent_sleep(a, ms);
	return a->after_backoff;
}

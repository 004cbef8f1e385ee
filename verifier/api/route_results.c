// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_results.c - signed attestation results (EAR, ear.h):
 *
 *	GET /v1/results/jwks			the public keys as a JWK Set:
 *						the current one, then the
 *						previous one (no token: it
 *						is public)
 *	GET /v1/machines/{id}/result[?nonce=B64URL]
 *						{"result": JWT, "kid",
 *						 "expires_at"} (bearer token)
 *
 * The JWT is made from the machine as stored at the moment of the
 * request, read in a read hold (reader.c, never v->lock); the signature
 * is made outside it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "db_machine.h"
#include "ear.h"
#include "enroll.h"
#include "policies.h"
#include "rest.h"
#include "result_keys.h"
#include "verifier.h"
#include "routes.h"

#define CHAIN_WHY_MAX 256

void route_results_jwks(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct verifier *v = ctx;
	json_t *jwks;

	(void)req;
	if (v->result_keys == NULL) {
		http_error(res, 503, "no result signing key");
		return;
	}
	/*
	 * rest_reply() adds "v": 1 as to every answer; a JWK Set may carry
	 * members its readers do not know (RFC 7517 §5), so it stays one.
	 */
	jwks = result_keys_jwks(v->result_keys, (int64_t)time(NULL));
	if (jwks == NULL)
		http_error(res, 500, "cannot list the result keys");
	else
		rest_reply(res, 200, jwks);
}

/* Does @m's EK certificate chain to ek_ca (hardware: genuine)? */
static int ek_chained(struct verifier *v, const struct db_machine *m)
{
	char why[CHAIN_WHY_MAX];
	struct imt_error err;
	int chained = 0;

	if (v->ek_ca == NULL || m->ek_cert == NULL)
		return 0;
	if (enroll_check_ek_cert(v->ek_ca, m->ek_pub, m->ek_pub_len, m->ek_cert,
				 m->ek_cert_len, &chained, why, sizeof(why),
				 &err) != IMT_OK)
		return 0;
	return chained;
}

/* ?nonce=: absent, or 8 to 64 bytes of base64url; -1 after a 400. */
static int result_nonce(const struct http_request *req,
			struct http_response *res, const char **nonce)
{
	*nonce = http_query(req, "nonce");
	if (*nonce != NULL && !ear_nonce_ok(*nonce)) {
		http_error(res, 400,
			   "?nonce=: want %d to %d bytes as "
			   "base64url without padding",
			   EAR_NONCE_MIN, EAR_NONCE_MAX);
		return -1;
	}
	return 0;
}

/* @claims signed with the current key, whose kid @kid receives. */
static char *sign_result(struct result_keys *ks, int64_t now, json_t *claims,
			 char kid[RESULT_KID_MAX])
{
	const struct result_key *k = result_keys_hold(ks, now);
	char *token = ear_token(k, claims);

	snprintf(kid, RESULT_KID_MAX, "%s", k->kid);
	result_keys_release(ks);
	return token;
}

void route_machines_result(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx, *r;
	char name[DB_NAME_MAX + 1], policy[DB_NAME_MAX + 1];
	char kid[RESULT_KID_MAX];
	const char *nonce;
	struct ear_facts f = { .id = req->params[0] };
	struct imt_error err;
	struct db_machine m;
	json_t *claims = NULL;
	char *token = NULL;
	int found = 0, rc;

	if (auth_operator(v, req, res, name) < 0 ||
	    result_nonce(req, res, &nonce) < 0)
		return;
	if (v->result_keys == NULL) {
		http_error(res, 503, "no result signing key");
		return;
	}
	r = read_begin(v);
	rc = db_machine_get(r->db, f.id, &m, &found, &err);
	if (rc == 0 && found)
		snprintf(policy, sizeof(policy), "%s",
			 policies_for(r, f.id)->name);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "read machine", &err);
		return;
	}
	if (!found) {
		http_error(res, 404, "no machine \"%s\"", f.id);
		return;
	}
	f.state = m.state;
	f.reason = m.state_reason;
	f.policy = policy;
	f.ek_chained = ek_chained(v, &m);
	f.last_seen = m.last_seen;
	f.now = (int64_t)time(NULL);
	f.stale_after = v->cfg.stale_after;
	f.nonce = nonce;
	claims = ear_claims(&f);
	if (claims != NULL)
		token = sign_result(v->result_keys, f.now, claims, kid);
	if (token == NULL)
		http_error(res, 500, "cannot sign the result");
	else
		rest_reply(res, 200,
			   json_pack("{s:s,s:s,s:s,s:O}", "machine", f.id,
				     "result", token, "kid", kid, "expires_at",
				     json_object_get(claims, "exp")));
	free(token);
	json_decref(claims);
	db_machine_release(&m);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_verify.c - one-shot verification for pipelines (bearer token):
 *
 *	POST /v1/verify	a bundle (proto/wire.h: the agent's evidence fields
 *			for a whole list, with "ak_pub" or "machine", and a
 *			"policy") -> 200 {"verdict", "tnc", "policy",
 *			"reasons", "records", "checks", "ak", "stored":
 *			false}
 *
 * HTTP and JSON glue only: the checks are engine_verify()'s, and nothing
 * is stored. A body that does not decode is a 400 (413 over a limit)
 * naming the field; an unknown policy or machine a 404.
 */
#include <stdio.h>
#include <string.h>

#include "db_boot.h"
#include "db_machine.h"
#include "engine.h"
#include "rest.h"
#include "transition.h"
#include "verifier.h"
#include "wire.h"
#include "json_text.h"
#include "routes.h"

/* Said with every answer on a given AK: what it does and does not prove. */
#define AK_GIVEN_NOTE \
	"the bundle is consistent under the AK it names; " \
	"which TPM holds that AK is not proven: bind it yourself (its EK " \
	"certificate and credential activation, as enrollment does)"

static json_t *checks_json(const struct engine_verify *r)
{
	json_t *j = json_object();
	int c;

	for (c = 0; j != NULL && c < ENGINE_CHECK_COUNT; c++)
		json_object_set_new(j, engine_check_name(c),
				    json_string(engine_check_result_name(
					    r->checks[c])));
	return j;
}

static json_t *records_json(const struct engine_verify *r)
{
	json_t *j = json_pack("{s:I,s:I}", "total", (json_int_t)r->records,
			      "unacceptable", (json_int_t)r->unacceptable);
	int i;

	for (i = 0; j != NULL && i < ENGINE_VERIFY_VERDICTS; i++)
		json_object_set_new(j, db_verdict_name(i),
				    json_integer((json_int_t)r->verdicts[i]));
	return j;
}

static json_t *reasons_json(const struct engine_verify *r)
{
	json_t *j = json_array();
	size_t i;

	for (i = 0; j != NULL && i < r->nreasons; i++)
		json_array_append_new(j, json_reason(r->reasons[i]));
	return j;
}

static json_t *answer(const struct wire_bundle *b,
		      const struct engine_verify *r)
{
	char ak[WIRE_ID_MAX + 16];
	json_t *j;

	snprintf(ak, sizeof(ak), r->enrolled ? "enrolled:%s" : "given",
		 b->machine);
	j = json_pack("{s:s,s:s,s:s,s:o,s:o,s:o,s:s,s:b}", "verdict",
		      db_machine_state_name(r->state), "tnc",
		      transition_tnc_name(transition_tnc_of(r->state)),
		      "policy", r->policy, "reasons", reasons_json(r),
		      "records", records_json(r), "checks", checks_json(r),
		      "ak", ak, "stored", 0);
	if (j != NULL && !r->enrolled)
		json_object_set_new(j, "ak_note", json_string(AK_GIVEN_NOTE));
	return j;
}

void route_verify(void *ctx, const struct http_request *req,
		  struct http_response *res)
{
	struct engine_answer ans;
	struct engine_verify r;
	struct wire_bundle b;
	struct imt_error err;
	enum imt_result rc;

	rc = wire_decode(WIRE_BUNDLE, req->body, req->body_len, &b, &err);
	if (rc != IMT_OK) {
		http_error(res,
			   rc == IMT_ERR_LIMIT	  ? 413 :
			   rc == IMT_ERR_INTERNAL ? 500 :
						    400,
			   "%s", err.msg);
		return;
	}
	engine_verify(ctx, &b, &r, &ans);
	if (ans.status != ENGINE_OK)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		rest_reply(res, 200, answer(&b, &r));
	wire_free(WIRE_BUNDLE, &b);
}

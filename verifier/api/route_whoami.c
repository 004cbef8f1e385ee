// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_whoami.c - GET /v1/whoami: which token a request carries and what
 * it may do (issue #36), so the console shows a reader no action buttons
 * and the CLI can say who it is. Any valid token may ask; an expired one
 * is 401 as everywhere.
 */
#include <time.h>

#include <jansson.h>

#include "auth.h"
#include "rest.h"
#include "verifier.h"
#include "routes.h"

/* @t as JSON: the number of seconds, or null for 0 (never). */
static json_t *time_or_null(int64_t t)
{
	return t != 0 ? json_integer((json_int_t)t) : json_null();
}

void route_whoami(void *ctx, const struct http_request *req,
		  struct http_response *res)
{
	struct db_token tok;

	if (auth_token(ctx, req, res, &tok) < 0)
		return;
	rest_reply(res, 200,
		   json_pack("{s:s,s:s,s:I,s:o,s:o}", "name", tok.name, "role",
			     db_token_role_name(tok.role), "created_at",
			     (json_int_t)tok.created_at, "expires_at",
			     time_or_null(tok.expires_at), "last_used",
			     time_or_null(tok.last_used)));
}

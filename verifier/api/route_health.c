// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_health.c - GET /v1/health: is the verifier up, and since when.
 */
#include <stdlib.h>

#include <jansson.h>

#include "verifier.h"
#include "routes.h"

void route_health(void *ctx, const struct http_request *req,
		  struct http_response *res)
{
	struct verifier *v = ctx;
	json_t *obj;

	(void)req;
	obj = json_pack("{s:i,s:s,s:I}", "v", 1, "status", "ok", "uptime",
			(json_int_t)(time(NULL) - v->started));
	res->body = obj != NULL ? json_dumps(obj, JSON_COMPACT) : NULL;
	res->status = res->body != NULL ? 200 : 500;
	json_decref(obj);
}

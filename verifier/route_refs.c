// SPDX-License-Identifier: GPL-2.0-only
/* route_refs.c - STUB: replaced by the operator API work. */
#include "verifier.h"

void route_refs_import(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_refs_list(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_refs_delete(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}


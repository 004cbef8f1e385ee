// SPDX-License-Identifier: GPL-2.0-only
/* route_machines.c - STUB: replaced by the operator API work. */
#include "verifier.h"

void route_machines_list(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_machines_get(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_machines_events(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_machines_records(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_machines_approve(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}


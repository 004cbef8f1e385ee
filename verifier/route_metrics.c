// SPDX-License-Identifier: GPL-2.0-only
/* route_metrics.c - STUB: replaced by the operator API work. */
#include "verifier.h"

void route_metrics(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}

void route_page(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	http_error(res, 501, "not implemented yet");
}


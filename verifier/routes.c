// SPDX-License-Identifier: GPL-2.0-only
/*
 * routes.c - the REST API of imatrust-verifier, one line per route
 * (method, path, handler, largest body). docs: the OpenAPI document.
 */
#include "verifier.h"

const struct http_route verifier_routes[] = {
	{ "GET", "/v1/health", route_health, 0 },
	{ NULL, NULL, NULL, 0 },
};

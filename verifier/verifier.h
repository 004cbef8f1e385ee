/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verifier.h - the verifier's state, shared by its route handlers.
 */
#ifndef IMATRUST_VERIFIER_H
#define IMATRUST_VERIFIER_H

#include <time.h>

#include "config.h"
#include "http.h"

struct db;

struct verifier {
	struct config cfg;
	struct db *db;		/* owned; the one writer connection */
	time_t started;
};

/* The REST routes under /v1, terminated by a NULL method. */
extern const struct http_route verifier_routes[];

void route_health(void *ctx, const struct http_request *req,
		  struct http_response *res);

#endif /* IMATRUST_VERIFIER_H */

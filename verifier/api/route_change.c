// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_change.c - the answers every operator change shares: the change
 * lock refused, and the re-judge with its counts (routes.h).
 */
#include "change.h"
#include "cluster.h"
#include "rejudge.h"
#include "rest.h"
#include "routes.h"

int cluster_change_begin(struct verifier *v, struct http_response *res)
{
	struct imt_error err;

	switch (cluster_change_take(v, &err)) {
	case 1:
		return 0;
	case -1:
		http_error(res, 503, "storage: %s", err.msg);
		return -1;
	default:
		http_error(res, 409,
			   "another reference, policy or key change is in progress (on this or another verifier instance); send this one when it has finished");
		return -1;
	}
}

void change_answer(struct verifier *v, struct http_response *res,
		   unsigned int status, unsigned int changes, json_t *ans,
		   const char *cause, int64_t now)
{
	struct rejudge_stats st = { 0 };
	struct imt_error err;

	if (rejudge_all(v, changes, cause, now, &st, &err) < 0) {
		json_decref(ans);
		http_error(res, 500,
			   "stored, but judging the records again "
			   "failed: %s",
			   err.msg);
		return;
	}
	rest_reply(res, status, rejudge_stats_json(ans, &st));
}

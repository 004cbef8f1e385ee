// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_boot_baseline.c - an operator approves a machine's current boot
 * as its boot baseline (bearer token):
 *
 *	POST /v1/machines/{id}/boot-baseline
 *
 * For a policy whose boot section says "baseline": "first-boot", a
 * machine's first firmware event log is its baseline and a boot that
 * measures otherwise in PCRs 0-9 is untrusted (rule "baseline"); after a
 * planned change (a new kernel, firmware update) the operator approves
 * the new boot, and every current boot is judged again.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "change.h"
#include "cluster.h"
#include "db_boot.h"
#include "engine_ops.h"
#include "hex.h"
#include "rejudge.h"
#include "verifier.h"
#include "routes.h"

void route_machines_boot_baseline(void *ctx, const struct http_request *req,
				  struct http_response *res)
{
	struct verifier *v = ctx;
	const char *id = req->params[0];
	char op_name[DB_NAME_MAX + 1], sha[2 * DB_BOOT_LOG_SHA256_SIZE + 1];
	uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE];
	int64_t now = (int64_t)time(NULL);
	struct engine_answer ans;
	char *cause;

	if (auth_operator(v, req, res, op_name) < 0)
		return;
	cause = change_cause("boot-baseline", "machine", json_string(id),
			     op_name);
	if (cause == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	if (cluster_change_begin(v, res) < 0) {
		free(cause);
		return;
	}
	engine_boot_baseline(v, id, op_name, cause, now, sha256, &ans);
	if (ans.status != ENGINE_OK) {
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	} else {
		hex_encode(sha256, sizeof(sha256), sha);
		change_answer(v, res, 200, REJUDGE_POLICY,
			      json_pack("{s:s,s:{s:s,s:s,s:I}}", "machine", id,
					"baseline", "sha256", sha,
					"approved_by", op_name, "approved_at",
					(json_int_t)now),
			      cause, now);
	}
	cluster_change_end(v);
	free(cause);
}

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
#include "db_machine.h"
#include "hex.h"
#include "rejudge.h"
#include "rest.h"
#include "verifier.h"
#include "routes.h"

/* The current boot's log approved as @id's baseline (v->lock held). */
static int approve_locked(struct verifier *v, const char *id,
			  const char *op_name, int64_t now, const char *cause,
			  int *status, char *sha, struct imt_error *err)
{
	struct db_machine m;
	struct db_boot boot;
	struct db_boot_log log = { 0 };
	int found = 0, rc;

	*status = 404;
	if (db_machine_get(v->db, id, &m, &found, err) < 0)
		return -1;
	if (!found)
		return 0;
	db_machine_release(&m);
	if (db_boot_current(v->db, id, &boot, &found, err) < 0)
		return -1;
	if (found && db_boot_log_get(v->db, boot.id, 1, &log, &found, err) < 0)
		return -1;
	if (!found)
		return 0;
	rc = db_boot_baseline_approve(v->db, id, log.data, log.len, op_name,
				      now, err);
	if (rc == 0) {
		*status = 200;
		hex_encode(log.sha256, sizeof(log.sha256), sha);
		change_audit(v, op_name, "boot-baseline", cause, now);
	}
	db_boot_log_release(&log);
	return rc;
}

void route_machines_boot_baseline(void *ctx, const struct http_request *req,
				  struct http_response *res)
{
	struct verifier *v = ctx;
	const char *id = req->params[0];
	char op_name[DB_NAME_MAX + 1], sha[2 * DB_BOOT_LOG_SHA256_SIZE + 1];
	int64_t now = (int64_t)time(NULL);
	struct imt_error err;
	char *cause;
	int rc, status;

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
	pthread_mutex_lock(&v->lock);
	rc = approve_locked(v, id, op_name, now, cause, &status, sha, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		rest_db_error(res, "approve boot baseline", &err);
	else if (status == 404)
		http_error(res, 404,
			   "no machine \"%s\" with a firmware event "
			   "log for its current boot",
			   id);
	else
		change_answer(v, res, 200, REJUDGE_POLICY,
			      json_pack("{s:s,s:{s:s,s:s,s:I}}", "machine", id,
					"baseline", "sha256", sha,
					"approved_by", op_name, "approved_at",
					(json_int_t)now),
			      cause, now);
	cluster_change_end(v);
	free(cause);
}

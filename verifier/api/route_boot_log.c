// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_boot_log.c - the firmware event log of a machine's current boot
 * (bearer token):
 *
 *	GET /v1/machines/{id}/boot-log[?format=decoded|cel|raw]
 *
 * decoded (the default) and cel are the JSON of boot_log_json(); raw is
 * the bytes the agent sent, application/octet-stream. The log is the
 * agent's: descriptions in it are attacker text, JSON-escaped here and
 * printed safely by the CLI.
 */
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "boot_log_json.h"
#include "db_boot.h"
#include "db_machine.h"
#include "hex.h"
#include "rest.h"
#include "route_boot_log.h"
#include "verifier.h"
#include "routes.h"

/* The machine's boot baseline: digest, when, who approved it (null: taken
 * from its first boot), whether the current log is it. */
static json_t *baseline_json(struct verifier *v, const struct db_boot *boot,
			     const struct db_boot_log *log,
			     struct imt_error *err)
{
	char sha[2 * DB_BOOT_LOG_SHA256_SIZE + 1];
	struct db_boot_baseline b;
	json_t *j;
	int found = 0;

	if (db_boot_baseline_of_boot(v->db, boot->id, 0, &b, &found, err) < 0 ||
	    !found)
		return json_null();
	hex_encode(b.sha256, sizeof(b.sha256), sha);
	j = json_pack("{s:s,s:I,s:s?,s:I,s:b}", "sha256", sha, "set_at",
		      (json_int_t)b.set_at, "approved_by",
		      b.approved_by[0] ? b.approved_by : NULL, "approved_at",
		      (json_int_t)b.approved_at, "current",
		      b.len == log->len && memcmp(b.sha256, log->sha256,
						  sizeof(b.sha256)) == 0);
	db_boot_baseline_release(&b);
	return j != NULL ? j : json_null();
}

json_t *route_boot_log_summary(struct verifier *v, const struct db_boot *boot,
			       struct imt_error *err)
{
	char sha[2 * DB_BOOT_LOG_SHA256_SIZE + 1];
	struct db_boot_log log;
	int found = 0;

	if (boot == NULL)
		return json_null();
	if (db_boot_log_get(v->db, boot->id, 0, &log, &found, err) < 0)
		return NULL;
	if (!found)
		return json_null();
	hex_encode(log.sha256, sizeof(log.sha256), sha);
	return json_pack("{s:b,s:I,s:s,s:I,s:o}", "present", 1, "size",
			 (json_int_t)log.len, "sha256", sha, "received",
			 (json_int_t)log.received_at, "baseline",
			 baseline_json(v, boot, &log, err));
}

/* The current boot's log, with its bytes; 0, or -1 answered. */
static int load_log(struct verifier *v, const char *id,
		    struct http_response *res, struct db_boot_log *log)
{
	struct db_machine m;
	struct db_boot boot;
	struct imt_error err;
	int found = 0, has_boot = 0, has_log = 0, rc;
	struct verifier *r;

	r = read_begin(v);
	rc = db_machine_get(r->db, id, &m, &found, &err);
	if (rc == 0 && found) {
		db_machine_release(&m);
		rc = db_boot_current(r->db, id, &boot, &has_boot, &err);
	}
	if (rc == 0 && has_boot)
		rc = db_boot_log_get(r->db, boot.id, 1, log, &has_log, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "read boot log", &err);
		return -1;
	}
	if (!found) {
		http_error(res, 404, "no machine \"%s\"", id);
		return -1;
	}
	if (!has_log) {
		http_error(res, 404,
			   "machine \"%s\" has no firmware event log for its current boot (its agent sent none: no UEFI log, boot_log = none, or protocol v1)",
			   id);
		return -1;
	}
	return 0;
}

void route_machines_boot_log(void *ctx, const struct http_request *req,
			     struct http_response *res)
{
	const char *format = http_query(req, "format");
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1];
	struct db_boot_log log;
	struct imt_error err;
	unsigned int flags = BOOT_LOG_DECODED;
	json_t *j;

	if (format == NULL || strcmp(format, "decoded") == 0) {
		flags = BOOT_LOG_DECODED;
	} else if (strcmp(format, "cel") == 0) {
		flags = BOOT_LOG_CEL;
	} else if (strcmp(format, "raw") != 0) {
		http_error(res, 400,
			   "format: decoded, cel or raw, not \"%.32s\"",
			   format);
		return;
	}
	if (auth_operator(v, req, res, name) < 0 ||
	    load_log(v, req->params[0], res, &log) < 0)
		return;
	if (format != NULL && strcmp(format, "raw") == 0) {
		/* the buffer goes to the server, which frees it */
		res->body = (char *)log.data;
		res->body_len = log.len;
		res->content_type = "application/octet-stream";
		res->status = 200;
		return;
	}
	j = boot_log_json(log.data, log.len, flags, &err);
	db_boot_log_release(&log);
	if (j == NULL)
		http_error(res, 422, "the stored event log does not decode: %s",
			   err.msg);
	else if (flags == BOOT_LOG_CEL) /* CEL is an array: one member */
		rest_reply(res, 200, json_pack("{s:o}", "cel", j));
	else
		rest_reply(res, 200, j);
}

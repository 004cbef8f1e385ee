// SPDX-License-Identifier: GPL-2.0-only
/*
 * change.c - the cause and audit entry of an operator change.
 */
#include <stdlib.h>

#include "change.h"
#include "db_audit.h"
#include "log.h"

char *change_cause(const char *change, const char *key, json_t *value,
		   const char *op_name)
{
	json_t *j = json_pack("{s:s,s:s,s:o,s:s}", "check", "rejudge", "change",
			      change, key, value, "operator", op_name);
	char *s = j != NULL ?
			  json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) :
			  NULL;

	json_decref(j);
	return s;
}

void change_audit(struct verifier *v, const char *op_name, const char *action,
		  const char *detail, int64_t now)
{
	struct db_audit a = {
		.time = now,
		.op_name = op_name,
		.action = action,
		.detail = detail != NULL ? detail : "{}",
	};
	struct imt_error err;

	if (db_audit_add(v->db, &a, &err) < 0)
		log_warnx("audit %s by %s: %s", action, op_name, err.msg);
}

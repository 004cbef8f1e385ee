// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_identity.c - what operators do to machine identities (bearer
 * token), each written to the audit trail:
 *
 *	POST   /v1/machines		pre-register {id, ek}: the id can
 *					only be taken by that EK
 *	DELETE /v1/machines/{id}	remove a machine with everything it
 *					has, or a pre-registration
 *	GET    /v1/audit?after=&limit=&machine=&since=	the audit trail
 *
 * The engine writes, under its lock (engine_identity.c); the routes
 * check the token, decode, call it and encode. Shapes are in
 * verifier/api/openapi.json.
 */
#include <string.h>
#include <time.h>

#include "auth.h"
#include "engine.h"
#include "db_audit.h"
#include "db_identity.h"
#include "db_machine.h"
#include "enroll.h"
#include "hex.h"
#include "rest.h"
#include "verifier.h"
#include "wire.h"
#include "json_text.h"
#include "routes.h"

static json_t *registration_json(const struct db_registration *r)
{
	return json_pack("{s:s,s:o,s:s,s:I}", "id", r->machine_id, "ek_fpr",
			 hex_json(r->ek_fpr, DB_FPR_SIZE), "operator",
			 r->op_name, "created_at", (json_int_t)r->created_at);
}

/* The {id, ek} of a registration request; 0, or -1 after a 400. */
static int registration_body(const struct http_request *req,
			     struct http_response *res, char *id,
			     uint8_t fpr[DB_FPR_SIZE])
{
	static const char *const keys[] = { "id", "ek", NULL };
	json_t *body = rest_body(req, res, keys);
	const char *s;
	int rc = -1;

	if (body == NULL)
		return -1;
	s = json_string_value(json_object_get(body, "id"));
	if (!wire_id_ok(s))
		http_error(res, 400, "id: want [A-Za-z0-9._-], 1-64 bytes");
	else if (hex_fpr_parse(json_string_value(json_object_get(body, "ek")),
			       fpr) < 0)
		http_error(res, 400,
			   "ek: want the EK fingerprint, 64 hex "
			   "digits (SHA-256 of the EK's SubjectPublicKeyInfo)");
	else
		rc = 0;
	if (rc == 0)
		strcpy(id, s);
	json_decref(body);
	return rc;
}

void route_machines_add(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1], id[WIRE_ID_MAX + 1];
	struct db_registration reg;
	struct engine_answer ans;
	uint8_t fpr[DB_FPR_SIZE];

	if (auth_operator(v, req, res, name) < 0 ||
	    registration_body(req, res, id, fpr) < 0)
		return;
	engine_machine_add(v, id, fpr, name, (int64_t)time(NULL), &reg, &ans);
	if (ans.status != ENGINE_CREATED && ans.status != ENGINE_OK)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		rest_reply(res, engine_http_status(ans.status),
			   json_pack("{s:o}", "registration",
				     registration_json(&reg)));
}

static json_t *removal_json(const char *id, const struct db_removal *r)
{
	return json_pack("{s:s,s:b,s:b,s:o,s:o,s:I,s:I,s:I}", "id", id,
			 "machine", r->machine, "registration", r->registration,
			 "ek_fpr",
			 r->has_ek_fpr ? hex_json(r->ek_fpr, DB_FPR_SIZE) :
					 json_null(),
			 "state",
			 r->state[0] ? json_string(r->state) : json_null(),
			 "boots", (json_int_t)r->boots, "records",
			 (json_int_t)r->records, "enrollments",
			 (json_int_t)r->enrollments);
}

void route_machines_remove(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1];
	struct engine_answer ans;
	struct db_removal r;

	if (auth_operator(v, req, res, name) < 0)
		return;
	engine_machine_remove(v, req->params[0], name, (int64_t)time(NULL), &r,
			      &ans);
	if (ans.status != ENGINE_OK) {
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
		return;
	}
	rest_reply(res, 200,
		   json_pack("{s:o}", "removed",
			     removal_json(req->params[0], &r)));
}

struct audit_page {
	json_t *rows;
	int oom;
	int64_t last;
};

static int audit_one(const struct db_audit *a, void *arg)
{
	struct audit_page *pg = arg;
	json_t *row =
		json_pack("{s:I,s:I,s:s?,s:s?,s:s,s:s?,s:o,s:o}", "id",
			  (json_int_t)a->id, "time", (json_int_t)a->time,
			  "operator", a->op_name, "role", a->role, "action",
			  a->action, "machine", a->machine_id, "ek_fpr",
			  a->ek_fpr != NULL ? hex_json(a->ek_fpr, DB_FPR_SIZE) :
					      json_null(),
			  "detail", json_reason(a->detail));

	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
	pg->last = a->id;
	return pg->oom;
}

void route_audit(void *ctx, const struct http_request *req,
		 struct http_response *res)
{
	struct verifier *v = ctx, *r;
	struct audit_page pg = { .rows = json_array() };
	const char *machine = http_query(req, "machine");
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	uint64_t after, since;
	unsigned int limit;
	int rc;

	if (auth_operator(v, req, res, name) < 0 ||
	    rest_query_limit(req, res, &limit) < 0 ||
	    rest_query_uint(req, res, "after", 0, INT64_MAX, &after) < 0 ||
	    rest_query_uint(req, res, "since", 0, INT64_MAX, &since) < 0)
		goto out;
	if (machine != NULL && !wire_id_ok(machine)) {
		http_error(res, 400,
			   "?machine=: want [A-Za-z0-9._-], 1-64 "
			   "bytes");
		goto out;
	}
	r = read_begin(v);
	rc = db_audit_list_since(r->db, machine, (int64_t)since, (int64_t)after,
				 limit, audit_one, &pg, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list audit", &err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom ? NULL :
			    json_pack("{s:O,s:o}", "audit", pg.rows, "next",
				      json_array_size(pg.rows) == limit ?
					      json_integer(pg.last) :
					      json_null()));
out:
	json_decref(pg.rows);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_policies.c - named policies (bearer token):
 *
 *	GET    /v1/policies		every policy, in the order machine
 *					patterns are tried
 *	GET    /v1/policies/{name}	one policy
 *	PUT    /v1/policies/{name}	create or replace: the body is the
 *					policy document (verifier/policy/policy.h)
 *	DELETE /v1/policies/{name}	forget it (not the default)
 *
 * A change is checked whole first (a bad document stores nothing), then
 * stored with an audit entry, and every record of every current boot is
 * judged again both ways (rejudge.c), the cause naming the policy. One
 * reference, policy or key change runs at a time: another meanwhile is
 * answered 409. Shapes are in verifier/api/openapi.json.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "cluster.h"
#include "db_policy.h"
#include "engine_ops.h"
#include "log.h"
#include "policy.h"
#include "change.h"
#include "rejudge.h"
#include "rest.h"
#include "verifier.h"
#include "wire.h"
#include "routes.h"

/*
 * The stored document as policy_to_json() writes it (the migration's
 * default was written by hand), or as stored when it no longer parses.
 */
static json_t *stored_doc(const struct db_policy *p)
{
	struct policy *pol =
		policy_parse(p->name, p->body, strlen(p->body), NULL);
	json_t *doc;

	if (pol == NULL)
		return json_loads(p->body, 0, NULL);
	doc = policy_to_json(pol);
	policy_free(pol);
	return doc;
}

/* {name, updated_at} and the stored document's fields, in that order. */
static json_t *policy_json(const struct db_policy *p)
{
	json_t *doc = stored_doc(p);
	json_t *j = json_pack("{s:s,s:I}", "name", p->name, "updated_at",
			      (json_int_t)p->updated_at);

	if (j != NULL && (doc == NULL || json_object_update(j, doc) < 0)) {
		json_decref(j);
		j = NULL;
	}
	/* the mark in the table is what counts */
	if (j != NULL)
		json_object_set_new(j, "default", json_boolean(p->is_default));
	json_decref(doc);
	return j;
}

struct policy_page {
	json_t *rows;
	const char *only; /* one name, or NULL for all */
	int oom;
};

static int list_one(const struct db_policy *p, void *arg)
{
	struct policy_page *pg = arg;
	json_t *row;

	if (pg->only != NULL && strcmp(pg->only, p->name) != 0)
		return 0;
	row = policy_json(p);
	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
	return pg->oom;
}

/* The stored policies (only @only when not NULL) into pg->rows. */
static int read_policies(struct verifier *v, const char *only,
			 struct policy_page *pg, struct http_response *res)
{
	struct verifier *r;
	struct imt_error err;
	int rc;

	pg->rows = json_array();
	pg->only = only;
	pg->oom = pg->rows == NULL;
	if (pg->oom) {
		http_error(res, 503, "out of memory");
		return -1;
	}
	r = read_begin(v);
	rc = db_policy_list(r->db, list_one, pg, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list policies", &err);
		return -1;
	}
	if (pg->oom) {
		http_error(res, 503, "out of memory");
		return -1;
	}
	return 0;
}

void route_policies_list(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	struct verifier *v = ctx;
	struct policy_page pg = { 0 };
	char name[DB_NAME_MAX + 1];

	if (auth_operator(v, req, res, name) < 0 ||
	    read_policies(v, NULL, &pg, res) < 0)
		goto out;
	rest_reply(res, 200, json_pack("{s:O}", "policies", pg.rows));
out:
	json_decref(pg.rows);
}

void route_policies_get(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct verifier *v = ctx;
	struct policy_page pg = { 0 };
	char name[DB_NAME_MAX + 1];

	if (auth_operator(v, req, res, name) < 0 ||
	    read_policies(v, req->params[0], &pg, res) < 0)
		goto out;
	if (json_array_size(pg.rows) == 0)
		http_error(res, 404, "no policy \"%s\"", req->params[0]);
	else
		rest_reply(res, 200,
			   json_pack("{s:O}", "policy",
				     json_array_get(pg.rows, 0)));
out:
	json_decref(pg.rows);
}

/* Refuse to take the default mark off the default: none would be left. */
static int keeps_a_default(struct verifier *v, const struct policy *p,
			   struct http_response *res)
{
	if (p->is_default || !engine_policy_is_default(v, p->name))
		return 0;
	http_error(res, 409,
		   "policy %s is the default: make another policy "
		   "the default first (\"default\": true)",
		   p->name);
	return -1;
}

void route_policies_put(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct verifier *v = ctx;
	const char *pname = req->params[0];
	char name[DB_NAME_MAX + 1], *text = NULL, *cause = NULL;
	int64_t now = (int64_t)time(NULL);
	struct engine_answer ans;
	struct policy *p = NULL;
	struct imt_error err;
	json_t *doc = NULL;

	if (auth_operator(v, req, res, name) < 0)
		goto out;
	if (!wire_id_ok(pname)) {
		http_error(res, 400,
			   "policy name: want [A-Za-z0-9._-], 1-64 "
			   "bytes");
		goto out;
	}
	p = policy_parse(pname, req->body, req->body_len, &err);
	if (p == NULL) {
		http_error(res, 400, "policy %s: %s; nothing stored", pname,
			   err.msg);
		goto out;
	}
	doc = policy_to_json(p);
	text = doc != NULL ?
		       json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER) :
		       NULL;
	cause = change_cause("policy", "policy", json_string(pname), name);
	if (text == NULL || cause == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	if (keeps_a_default(v, p, res) < 0 || cluster_change_begin(v, res) < 0)
		goto out;
	engine_policy_put(v, p, text, name, now, &ans);
	if (ans.status != ENGINE_OK && ans.status != ENGINE_CREATED)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		change_answer(v, res, engine_http_status(ans.status),
			      REJUDGE_POLICY,
			      json_pack("{s:s,s:O}", "name", pname, "policy",
					doc),
			      cause, now);
	cluster_change_end(v);
out:
	json_decref(doc);
	free(text);
	free(cause);
	policy_free(p);
}

void route_policies_delete(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx;
	const char *pname = req->params[0];
	char name[DB_NAME_MAX + 1], *cause = NULL;
	int64_t now = (int64_t)time(NULL);
	struct engine_answer ans;

	if (auth_operator(v, req, res, name) < 0)
		return;
	cause = change_cause("policy-delete", "policy", json_string(pname),
			     name);
	if (cause == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	engine_policy_delete(v, pname, name, cause, now, &ans);
	if (ans.status != ENGINE_OK)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		change_answer(v, res, 200, REJUDGE_POLICY,
			      json_pack("{s:s}", "deleted", pname), cause, now);
	cluster_change_end(v);
out:
	free(cause);
}

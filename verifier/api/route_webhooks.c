// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_webhooks.c - webhook endpoints (bearer token):
 *
 *	POST   /v1/webhooks		{"v":1,"name","url","ca"?,
 *					"allow_http"?,"secret"?}: a new
 *					endpoint; the answer carries its
 *					secret, this once
 *	GET    /v1/webhooks		every endpoint with its delivery
 *					figures, no secret
 *	DELETE /v1/webhooks/{name}	forget one and its queue
 *	POST   /v1/webhooks/{name}/rotate
 *					{"v":1,"secret"?}: a new secret,
 *					the old one kept signing beside
 *					it; the answer carries the new one,
 *					this once. {"v":1,"finish":true}:
 *					the old one dropped
 *
 * Endpoints of the config file are listed but changed only there. Each
 * change is audited. Shapes are in verifier/api/openapi.json; delivery is
 * webhook.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "auth.h"
#include "db.h"
#include "db_webhook.h"
#include "engine_ops.h"
#include "rest.h"
#include "verifier.h"
#include "webhook_ca.h"
#include "webhook_endpoint.h"
#include "webhook_sign.h"
#include "routes.h"

static json_t *webhook_json(const struct db_webhook *w, int64_t now)
{
	return json_pack("{s:s,s:s,s:s?,s:b,s:s,s:s,s:b,s:I,s:I,s:I,s:I,"
			 "s:I,s:I,s:o,s:s?,s:s?}",
			 "name", w->name, "url", w->url, "ca", w->ca_file,
			 "allow_http", w->allow_http, "key_id", w->key_id,
			 "source", w->from_config ? "config" : "api", "enabled",
			 w->enabled, "created_at", (json_int_t)w->created_at,
			 "max_pending", (json_int_t)w->max_pending, "delivered",
			 (json_int_t)w->delivered, "failed_attempts",
			 (json_int_t)w->failed, "dropped",
			 (json_int_t)w->dropped, "pending",
			 (json_int_t)w->pending, "oldest_pending_age",
			 w->oldest_pending != 0 ?
				 json_integer(now - w->oldest_pending) :
				 json_null(),
			 "last_error", w->last_error, "key_id_previous",
			 w->key_id_previous);
}

struct webhook_page {
	json_t *rows;
	int64_t now;
	int oom;
};

static int list_one(const struct db_webhook *w, void *arg)
{
	struct webhook_page *pg = arg;
	json_t *row = webhook_json(w, pg->now);

	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
	return pg->oom;
}

/* The body's optional string @key into @out; -1 after a 400. */
static int opt_string(json_t *body, const char *key, char *out, size_t size,
		      struct http_response *res)
{
	json_t *j = json_object_get(body, key);

	out[0] = '\0';
	if (j == NULL)
		return 0;
	if (!json_is_string(j) || json_string_length(j) == 0 ||
	    json_string_length(j) >= size ||
	    strlen(json_string_value(j)) != json_string_length(j)) {
		http_error(res, 400, "%s: want a string of 1-%zu bytes", key,
			   size - 1);
		return -1;
	}
	memcpy(out, json_string_value(j), json_string_length(j) + 1);
	return 0;
}

/*
 * The CA file @name of webhook_ca_dir (webhook_ca.h): 0 when it is one
 * the delivery will read, or -1 after answering 400 with the rule.
 */
static int check_ca(const char *dir, const char *name,
		    struct http_response *res)
{
	char why[256];
	size_t len;
	char *text = webhook_ca_read(dir, name, &len, why, sizeof(why));

	if (text == NULL) {
		http_error(res, 400, "%s", why);
		return -1;
	}
	free(text);
	return 0;
}

/* The endpoint the body states; 0, or -1 after answering 400. */
static int read_spec(json_t *body, const char *ca_dir, struct webhook_spec *s,
		     char *secret_text, struct http_response *res)
{
	json_t *ah = json_object_get(body, "allow_http");
	char why[256];

	memset(s, 0, sizeof(*s));
	if (opt_string(body, "name", s->name, sizeof(s->name), res) < 0 ||
	    opt_string(body, "url", s->url, sizeof(s->url), res) < 0 ||
	    opt_string(body, "ca", s->ca_file, sizeof(s->ca_file), res) < 0 ||
	    opt_string(body, "secret", secret_text, WEBHOOK_SECRET_TEXT_MAX,
		       res) < 0)
		return -1;
	if (!webhook_name_ok(s->name)) {
		http_error(res, 400, "name: want [A-Za-z0-9._-], 1-%d bytes",
			   DB_WEBHOOK_NAME_MAX);
		return -1;
	}
	if (ah != NULL && !json_is_boolean(ah)) {
		http_error(res, 400, "allow_http: want true or false");
		return -1;
	}
	s->allow_http = json_is_true(ah);
	if (s->url[0] == '\0' ||
	    webhook_url_check(s->url, s->allow_http, why, sizeof(why)) < 0) {
		http_error(res, 400, "url: %s", s->url[0] ? why : "missing");
		return -1;
	}
	if (s->ca_file[0] != '\0')
		return check_ca(ca_dir, s->ca_file, res);
	return 0;
}

/* The secret: the body's, or 32 random bytes; 0 or -1 after answering. */
static int make_secret(const char *text, uint8_t *secret, size_t *len,
		       struct http_response *res)
{
	if (text[0] != '\0') {
		if (webhook_secret_parse(text, strlen(text), secret, len) == 0)
			return 0;
		http_error(res, 400,
			   "secret: want whsec_ and the base64 of "
			   "%d to %d bytes",
			   DB_WEBHOOK_SECRET_MIN, DB_WEBHOOK_SECRET_MAX);
		return -1;
	}
	*len = WEBHOOK_SECRET_BYTES;
	if (RAND_bytes(secret, WEBHOOK_SECRET_BYTES) != 1) {
		http_error(res, 503, "no randomness for a secret");
		return -1;
	}
	return 0;
}

void route_webhooks_add(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	static const char *const keys[] = { "name",	  "url",    "ca",
					    "allow_http", "secret", NULL };
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1], secret_text[WEBHOOK_SECRET_TEXT_MAX];
	char key_id[WEBHOOK_KEY_ID_LEN + 1];
	uint8_t secret[DB_WEBHOOK_SECRET_MAX];
	int64_t now = (int64_t)time(NULL);
	struct db_webhook_new n = { 0 };
	struct engine_answer ans;
	struct webhook_spec s;
	size_t slen = 0;
	json_t *body;
	int rc;

	if (auth_operator(v, req, res, name) < 0)
		return;
	body = rest_body(req, res, keys);
	if (body == NULL)
		return;
	rc = read_spec(body, v->cfg.webhook_ca_dir, &s, secret_text, res);
	json_decref(body);
	if (rc < 0 || make_secret(secret_text, secret, &slen, res) < 0)
		goto out;
	webhook_key_id(secret, slen, key_id);
	n.name = s.name;
	n.url = s.url;
	n.ca_file = s.ca_file[0] != '\0' ? s.ca_file : NULL;
	n.allow_http = s.allow_http;
	n.secret = secret;
	n.secret_len = slen;
	n.key_id = key_id;
	n.max_pending = (unsigned int)v->cfg.webhook_max_pending;
	engine_webhook_add(v, &n, name, now, &ans);
	if (ans.status != ENGINE_CREATED) {
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	} else {
		webhook_secret_text(secret, slen, secret_text);
		rest_reply(res, 201,
			   json_pack("{s:{s:s,s:s,s:s?,s:b,s:s,"
				     "s:s},s:s}",
				     "webhook", "name", s.name, "url", s.url,
				     "ca", n.ca_file, "allow_http",
				     s.allow_http, "key_id", key_id, "source",
				     "api", "secret", secret_text));
	}
out:
	OPENSSL_cleanse(secret, sizeof(secret));
	OPENSSL_cleanse(secret_text, sizeof(secret_text));
}

/* {"finish": true}: 1; absent or false: 0; -1 after a 400. */
static int want_finish(json_t *body, struct http_response *res)
{
	json_t *j = json_object_get(body, "finish");

	if (j != NULL && !json_is_boolean(j)) {
		http_error(res, 400, "finish: want true or false");
		return -1;
	}
	return json_is_true(j);
}

/* Finish @wname's rotation: only the current secret signs from now. */
static void rotate_finish(struct verifier *v, const char *wname,
			  const char *op_name, struct http_response *res)
{
	struct engine_answer ans;

	engine_webhook_rotate(v, wname, NULL, 0, NULL, op_name,
			      (int64_t)time(NULL), &ans);
	if (ans.status != ENGINE_OK)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		rest_reply(res, 200,
			   json_pack("{s:s,s:b}", "name", wname, "finished",
				     1));
}

void route_webhooks_rotate(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	static const char *const keys[] = { "secret", "finish", NULL };
	struct verifier *v = ctx;
	const char *wname = req->params[0];
	char name[DB_NAME_MAX + 1], secret_text[WEBHOOK_SECRET_TEXT_MAX];
	char key_id[WEBHOOK_KEY_ID_LEN + 1];
	uint8_t secret[DB_WEBHOOK_SECRET_MAX];
	struct engine_answer ans;
	size_t slen = 0;
	json_t *body;
	int finish;

	if (auth_operator(v, req, res, name) < 0)
		return;
	body = rest_body(req, res, keys);
	if (body == NULL)
		return;
	finish = want_finish(body, res);
	if (finish == 0 && opt_string(body, "secret", secret_text,
				      sizeof(secret_text), res) < 0)
		finish = -1;
	json_decref(body);
	if (finish == 1)
		rotate_finish(v, wname, name, res);
	if (finish != 0 || make_secret(secret_text, secret, &slen, res) < 0)
		goto out;
	webhook_key_id(secret, slen, key_id);
	engine_webhook_rotate(v, wname, secret, slen, key_id, name,
			      (int64_t)time(NULL), &ans);
	if (ans.status != ENGINE_OK) {
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	} else {
		webhook_secret_text(secret, slen, secret_text);
		rest_reply(res, 200,
			   json_pack("{s:s,s:s,s:s}", "name", wname, "key_id",
				     key_id, "secret", secret_text));
	}
out:
	OPENSSL_cleanse(secret, sizeof(secret));
	OPENSSL_cleanse(secret_text, sizeof(secret_text));
}

void route_webhooks_list(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	struct verifier *v = ctx, *r;
	struct webhook_page pg = { .rows = json_array(),
				   .now = (int64_t)time(NULL) };
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	int rc;

	if (auth_operator(v, req, res, name) < 0)
		goto out;
	r = read_begin(v);
	rc = db_webhook_list(r->db, list_one, &pg, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list webhooks", &err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom || pg.rows == NULL ?
			   NULL :
			   json_pack("{s:O}", "webhooks", pg.rows));
out:
	json_decref(pg.rows);
}

void route_webhooks_delete(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx;
	const char *wname = req->params[0];
	char name[DB_NAME_MAX + 1];
	struct engine_answer ans;

	if (auth_operator(v, req, res, name) < 0)
		return;
	engine_webhook_delete(v, wname, name, (int64_t)time(NULL), &ans);
	if (ans.status != ENGINE_OK)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		rest_reply(res, 200, json_pack("{s:s}", "deleted", wname));
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_keys.c - signature keys for IMA signatures (bearer token):
 *
 *	POST   /v1/keys?name=NAME	import an X.509 certificate:
 *					{"v":1,"cert":PEM text, or the DER
 *					in base64}; the source "key:NAME"
 *	GET    /v1/keys			every key, oldest first
 *	DELETE /v1/keys/{name}		forget a key imported on its own
 *
 * The certificate travels inside JSON because every request body is
 * application/json (http.c) and the CLI's client sends text. NAME
 * defaults to the key id IMA signatures carry, as 8 hex digits. After a
 * change every record of every current boot is judged again both ways
 * (a record a key now verifies turns "signed"), with an audit entry.
 * Shapes are in verifier/api/openapi.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "b64.h"
#include "cluster.h"
#include "db_key.h"
#include "engine_ops.h"
#include "hex.h"
#include "keyring.h"
#include "log.h"
#include "change.h"
#include "rejudge.h"
#include "rest.h"
#include "verifier.h"
#include "wire.h"
#include "routes.h"

#define NAME_MAX_LEN WIRE_ID_MAX /* a route segment (HTTP_PARAM_MAX) */
#define CERT_TEXT_MAX (DB_KEY_DER_MAX * 2) /* bytes of "cert" */

/*
 * The one way a certificate is read: PEM or DER, an X.509 certificate
 * only (a bare public key has no name to show), its DER, fingerprint,
 * subject and key id into @c (keyring_cert_free()).
 */
static int load_cert(const uint8_t *buf, size_t len, struct keyring_cert *c,
		     struct imt_error *err)
{
	return keyring_cert_load(buf, len, 0, c, err);
}

/* "cert": PEM text as is, else base64 of the DER; malloc'ed bytes. */
static uint8_t *cert_bytes(const char *text, size_t n, size_t *len)
{
	uint8_t *out;
	long got;

	if (strstr(text, "-----BEGIN") != NULL) {
		out = malloc(n);
		if (out != NULL)
			memcpy(out, text, n);
		*len = n;
		return out;
	}
	out = malloc(n / 4 * 3 + 3);
	got = out != NULL && n % 4 == 0 ? b64_decode(text, n, out) : -1;
	if (got <= 0) {
		free(out);
		return NULL;
	}
	*len = (size_t)got;
	return out;
}

/* The body's certificate, loaded; 0, or -1 after answering 400. */
static int read_cert(const struct http_request *req, struct http_response *res,
		     struct keyring_cert *c)
{
	static const char *const keys[] = { "cert", "name", NULL };
	json_t *body = rest_body(req, res, keys), *j;
	struct imt_error err;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc = -1;

	if (body == NULL)
		return -1;
	j = json_object_get(body, "cert");
	if (!json_is_string(j) || json_string_length(j) == 0 ||
	    json_string_length(j) > CERT_TEXT_MAX) {
		http_error(res, 400,
			   "cert: want the certificate, PEM or the "
			   "DER in base64, at most %d bytes",
			   CERT_TEXT_MAX);
		goto out;
	}
	bytes = cert_bytes(json_string_value(j), json_string_length(j), &len);
	if (bytes == NULL || load_cert(bytes, len, c, &err) < 0) {
		http_error(res, 400, "cert: %s",
			   bytes == NULL ?
				   "not an X.509 certificate (neither PEM nor "
				   "base64 DER)" :
				   err.msg);
		goto out;
	}
	rc = 0;
out:
	free(bytes);
	json_decref(body);
	return rc;
}

/* ?name=, else "name" in the body, else the key id; 0 or -1 (400). */
static int key_name(const struct http_request *req, struct http_response *res,
		    const struct keyring_cert *c, char out[NAME_MAX_LEN + 1])
{
	const char *q = http_query(req, "name");
	json_t *body = json_loadb(req->body, req->body_len, 0, NULL);
	const char *b = json_string_value(json_object_get(body, "name"));
	const char *name = q != NULL ? q : b;
	int rc = 0;

	if (name == NULL)
		snprintf(out, NAME_MAX_LEN + 1, "%02x%02x%02x%02x",
			 c->key.keyid[0], c->key.keyid[1], c->key.keyid[2],
			 c->key.keyid[3]);
	else if (!wire_id_ok(name))
		rc = -1;
	else
		snprintf(out, NAME_MAX_LEN + 1, "%s", name);
	json_decref(body);
	if (rc < 0)
		http_error(res, 400, "name: want [A-Za-z0-9._-], 1-64 bytes");
	return rc;
}

static json_t *key_json(const struct db_key *k)
{
	char id[9];

	snprintf(id, sizeof(id), "%02x%02x%02x%02x", k->keyid[0], k->keyid[1],
		 k->keyid[2], k->keyid[3]);
	return json_pack("{s:s,s:s,s:o,s:s,s:s,s:I}", "name", k->name, "keyid",
			 id, "fingerprint", hex_json(k->fpr, 32), "subject",
			 k->subject, "source",
			 k->source != NULL ? k->source : "", "added_at",
			 (json_int_t)k->added_at);
}

void route_keys_add(void *ctx, const struct http_request *req,
		    struct http_response *res)
{
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1], kname[NAME_MAX_LEN + 1], *cause = NULL;
	char src[NAME_MAX_LEN + 8];
	int64_t now = (int64_t)time(NULL);
	struct keyring_cert c = { 0 };
	struct engine_answer ans;

	if (auth_operator(v, req, res, name) < 0 || read_cert(req, res, &c) < 0)
		return;
	if (key_name(req, res, &c, kname) < 0)
		goto out;
	c.key.name = kname;
	c.key.source = NULL;
	cause = change_cause("key-add", "key", json_string(kname), name);
	if (cause == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	engine_key_add(v, &c.key, name, cause, now, &ans);
	snprintf(src, sizeof(src), "key:%s", kname);
	c.key.source = src;
	c.key.added_at = now;
	if (ans.status != ENGINE_CREATED)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		change_answer(v, res, 201, REJUDGE_POLICY,
			      json_pack("{s:o}", "key", key_json(&c.key)),
			      cause, now);
	cluster_change_end(v);
out:
	free(cause);
	keyring_cert_free(&c);
}

struct key_page {
	json_t *rows;
	int oom;
};

static int list_one(const struct db_key *k, void *arg)
{
	struct key_page *pg = arg;
	json_t *row = key_json(k);

	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
	return pg->oom;
}

void route_keys_list(void *ctx, const struct http_request *req,
		     struct http_response *res)
{
	struct verifier *v = ctx, *r;
	struct key_page pg = { .rows = json_array() };
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	int rc;

	if (auth_operator(v, req, res, name) < 0)
		goto out;
	r = read_begin(v);
	rc = db_key_list(r->db, list_one, &pg, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list keys", &err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom || pg.rows == NULL ?
			   NULL :
			   json_pack("{s:O}", "keys", pg.rows));
out:
	json_decref(pg.rows);
}

void route_keys_delete(void *ctx, const struct http_request *req,
		       struct http_response *res)
{
	struct verifier *v = ctx;
	const char *kname = req->params[0];
	char name[DB_NAME_MAX + 1], *cause = NULL;
	int64_t now = (int64_t)time(NULL);
	struct engine_answer ans;

	if (auth_operator(v, req, res, name) < 0)
		return;
	cause = change_cause("key-delete", "key", json_string(kname), name);
	if (cause == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	engine_key_delete(v, kname, name, cause, now, &ans);
	if (ans.status != ENGINE_OK)
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
	else
		change_answer(v, res, 200, REJUDGE_POLICY,
			      json_pack("{s:s}", "deleted", kname), cause, now);
	cluster_change_end(v);
out:
	free(cause);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_sources.c - what the references came from (bearer token):
 *
 *	GET /v1/sources[?kind=deb]	every source, oldest first: kind,
 *					name, package, version, arch, the
 *					SHA-256 of the .deb, when imported,
 *					when it is to be retired, how many
 *					references it states
 *
 * Shapes are in verifier/api/openapi.json.
 */
#include <string.h>

#include "auth.h"
#include "db_ref.h"
#include "db_source.h"
#include "hex.h"
#include "rest.h"
#include "verifier.h"
#include "routes.h"

struct source_page {
	json_t *rows;
	int oom;
};

static json_t *str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

static int list_one(const struct db_source_info *s, void *arg)
{
	struct source_page *pg = arg;
	const char *kind = db_source_kind_name(s->kind);
	json_t *row;

	row = json_pack("{s:s,s:s,s:o,s:o,s:o,s:o,s:I,s:o,s:I}", "kind",
			kind != NULL ? kind : "invalid", "name", s->name,
			"package", str_or_null(s->package), "version",
			str_or_null(s->version), "arch", str_or_null(s->arch),
			"content_sha256",
			s->content_sha256 != NULL ?
				hex_json(s->content_sha256, 32) :
				json_null(),
			"imported_at", (json_int_t)s->imported_at, "retire_at",
			rest_time(s->retire_at), "refs", (json_int_t)s->refs);
	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
	return pg->oom;
}

void route_sources_list(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct verifier *v = ctx, *r;
	struct source_page pg = { .rows = json_array() };
	const char *kind = http_query(req, "kind");
	enum db_source_kind k = 0;
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	int rc;

	if (auth_operator(v, req, res, name) < 0)
		goto out;
	if (kind != NULL && db_source_kind_parse(kind, &k) < 0) {
		http_error(res, 400,
			   "?kind=: want dir-tree, deb, golden-list "
			   "or keylime");
		goto out;
	}
	r = read_begin(v);
	rc = db_source_list(r->db, kind != NULL ? (int)k : -1, list_one, &pg,
			    &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list sources", &err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom || pg.rows == NULL ?
			   NULL :
			   json_pack("{s:O}", "sources", pg.rows));
out:
	json_decref(pg.rows);
}

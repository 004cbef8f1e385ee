// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_refs.c - reference digests (bearer token):
 *
 *	POST   /v1/references	import: {"v":1,"source":{"kind","name"},
 *				"replace":bool,"refs":[{path,algo,digest}]}
 *	GET    /v1/references?path=&source=KIND:NAME&after=&limit=
 *	DELETE /v1/references	{"v":1,"refs":[...]} and/or {"source":{}}
 *
 * Every entry is checked before anything is stored, and a bad entry
 * (named by its index) stores nothing. Then the references are stored
 * by engine_refs_import() in chunks of ENGINE_REFS_CHUNK, each its own
 * transaction, so evidence is answered between them, as one generation
 * of the source
 * that vouches only from its last chunk's commit on (db_ref_import_commit()):
 * judging and listing never see part of an import, and what a crash or
 * a failure left of one is dropped (db_ref_recover()). A replace
 * withdraws the source's references the import did not state again in
 * that same last commit (the old ones vouch until the new ones are all
 * there), then deletes them in chunks. After an import
 * or a delete, the stored records of every machine's current boot are
 * judged again both ways (rejudge.c). One reference change runs at a
 * time: another meanwhile is answered 409.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "cluster.h"
#include "db_ref.h"
#include "engine_refs.h"
#include "hash_algo.h"
#include "hex.h"
#include "rejudge.h"
#include "rest.h"
#include "verifier.h"
#include "json_text.h"
#include "routes.h"

#define REFS_PER_REQUEST_MAX 100000 /* references in one request */

/*
 * The checked entries of "refs": path and algo borrowed from the JSON,
 * refs[i].digest pointing into digests (DB_DIGEST_MAX bytes each).
 */
struct refs_request {
	json_t *body;
	struct db_ref_source source;
	int has_source;
	int replace;
	int has_refs;
	struct db_ref_entry *refs;
	uint8_t *digests;
	size_t nrefs;
};

/* The kind named by @len bytes of @name (db_source_kind_parse()). */
static int kind_parse(const char *name, size_t len, enum db_source_kind *kind)
{
	char buf[16];

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return db_source_kind_parse(buf, kind);
}

/* A JSON string without NUL bytes, 1..@max bytes; NULL otherwise. */
static const char *plain_string(json_t *j, size_t max)
{
	const char *s = json_string_value(j);
	size_t n = json_string_length(j);

	if (s == NULL || n == 0 || n > max || strlen(s) != n)
		return NULL;
	return s;
}

static int parse_source(json_t *j, struct db_ref_source *src,
			struct http_response *res)
{
	static const char *const keys[] = { "kind", "name", NULL };
	const char *kind;

	if (!json_is_object(j) || rest_check_keys(j, keys) != NULL) {
		http_error(res, 400, "\"source\": want {\"kind\", \"name\"}");
		return -1;
	}
	kind = plain_string(json_object_get(j, "kind"), 16);
	if (kind == NULL || kind_parse(kind, strlen(kind), &src->kind) < 0) {
		http_error(res, 400,
			   "\"source\".\"kind\": want dir-tree, "
			   "deb, golden-list or keylime");
		return -1;
	}
	src->name = plain_string(json_object_get(j, "name"), DB_NAME_MAX);
	if (src->name == NULL) {
		http_error(res, 400,
			   "\"source\".\"name\": want 1 to %d "
			   "bytes",
			   DB_NAME_MAX);
		return -1;
	}
	return 0;
}

/*
 * Check one entry of "refs" into @e, its digest into @digest
 * (DB_DIGEST_MAX bytes); NULL when good, else what is wrong.
 */
static const char *parse_ref(json_t *j, struct db_ref_entry *e, uint8_t *digest)
{
	static const char *const keys[] = { "path", "algo", "digest", NULL };
	const struct hash_algo *h;
	const char *hex;

	if (!json_is_object(j) || rest_check_keys(j, keys) != NULL)
		return "want {\"path\", \"algo\", \"digest\"}";
	e->path = plain_string(json_object_get(j, "path"), DB_PATH_MAX);
	if (e->path == NULL || e->path[0] != '/')
		return "\"path\": want an absolute path";
	e->algo = plain_string(json_object_get(j, "algo"), 16);
	h = e->algo != NULL ? hash_algo_by_name(e->algo, strlen(e->algo)) :
			      NULL;
	if (h == NULL)
		return "\"algo\": not a digest algorithm the kernel names";
	hex = json_string_value(json_object_get(j, "digest"));
	if (hex == NULL || strlen(hex) != 2 * h->size ||
	    hex_decode(hex, 2 * h->size, digest, DB_DIGEST_MAX) < 0)
		return "\"digest\": want the algorithm's size in hex";
	e->digest = digest;
	e->digest_len = h->size;
	return NULL;
}

static int parse_refs(json_t *arr, struct refs_request *rq,
		      struct http_response *res)
{
	const char *why;
	size_t i, n = json_array_size(arr);

	if (!json_is_array(arr)) {
		http_error(res, 400, "\"refs\": want an array");
		return -1;
	}
	if (n > REFS_PER_REQUEST_MAX) {
		http_error(res, 413,
			   "\"refs\": %zu entries, at most %d in "
			   "one request: send several",
			   n, REFS_PER_REQUEST_MAX);
		return -1;
	}
	rq->refs = calloc(n > 0 ? n : 1, sizeof(*rq->refs));
	rq->digests = calloc(n > 0 ? n : 1, DB_DIGEST_MAX);
	if (rq->refs == NULL || rq->digests == NULL) {
		http_error(res, 503, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		why = parse_ref(json_array_get(arr, i), &rq->refs[i],
				rq->digests + i * DB_DIGEST_MAX);
		if (why != NULL) {
			http_error(res, 400, "refs[%zu]: %s; nothing stored", i,
				   why);
			return -1;
		}
	}
	rq->nrefs = n;
	return 0;
}

/* Parse and check the whole body before anything touches the database. */
static int parse_request(const struct http_request *req,
			 struct http_response *res, struct refs_request *rq,
			 int import)
{
	static const char *const import_keys[] = { "source", "replace", "refs",
						   NULL };
	static const char *const delete_keys[] = { "source", "refs", NULL };
	json_t *j;

	memset(rq, 0, sizeof(*rq));
	rq->body = rest_body(req, res, import ? import_keys : delete_keys);
	if (rq->body == NULL)
		return -1;
	j = json_object_get(rq->body, "source");
	if (j != NULL && parse_source(j, &rq->source, res) < 0)
		return -1;
	rq->has_source = j != NULL;
	j = json_object_get(rq->body, "replace");
	if (j != NULL && !json_is_boolean(j)) {
		http_error(res, 400, "\"replace\": want true or false");
		return -1;
	}
	rq->replace = json_is_true(j);
	j = json_object_get(rq->body, "refs");
	if (j != NULL && parse_refs(j, rq, res) < 0)
		return -1;
	rq->has_refs = j != NULL;
	if (import && (!rq->has_source || j == NULL)) {
		http_error(res, 400, "an import needs \"source\" and \"refs\"");
		return -1;
	}
	if (!import && !rq->has_source && j == NULL) {
		http_error(res, 400,
			   "say what to delete: \"refs\", "
			   "\"source\", or both");
		return -1;
	}
	return 0;
}

static void request_free(struct refs_request *rq)
{
	free(rq->refs);
	free(rq->digests);
	json_decref(rq->body);
}

/* {"check":"rejudge","source":{...},"operator":NAME} as JSON text. */
static char *rejudge_reason(const struct refs_request *rq, const char *op_name,
			    const char *change)
{
	json_t *j = json_pack("{s:s,s:s,s:s}", "check", "rejudge", "change",
			      change, "operator", op_name);
	char *s = NULL;

	if (j != NULL && rq->has_source)
		json_object_set_new(j, "source",
				    json_pack("{s:s,s:s}", "kind",
					      db_source_kind_name(
						      rq->source.kind),
					      "name", rq->source.name));
	if (j != NULL)
		s = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(j);
	return s;
}

/* A failed import: none of it vouches, and says so. */
static void import_failed(struct http_response *res, const char *what,
			  size_t stored, const struct refs_request *rq,
			  const struct imt_error *err)
{
	http_error(res, err->status == IMT_ERR_MISMATCH ? 409 : 500,
		   "%s failed after %zu of %zu references were stored in "
		   "chunks (none of them vouches: an import counts only "
		   "whole; %s): %s; send the import again",
		   what, stored, rq->nrefs,
		   rq->replace ? "nothing was withdrawn, the old "
				 "references vouch" :
				 "nothing is withdrawn",
		   err->msg);
}

/* The answer to an import, from what engine_refs_import() did. */
static void import_answer(struct http_response *res,
			  const struct refs_request *rq,
			  const struct engine_refs_result *r)
{
	switch (r->step) {
	case ENGINE_REFS_DONE:
		rest_reply(res, 200,
			   rejudge_stats_json(json_pack("{s:I,s:I}", "added",
							(json_int_t)rq->nrefs,
							"withdrawn",
							(json_int_t)
								r->withdrawn),
					      &r->st));
		break;
	case ENGINE_REFS_WITHDRAW:
		http_error(res, 500,
			   "all %zu references stored, but "
			   "withdrawing the older ones failed after %zu: %s; "
			   "send the import again",
			   rq->nrefs, r->withdrawn, r->err.msg);
		break;
	case ENGINE_REFS_REJUDGE:
		http_error(res, 500,
			   "references stored, but judging the "
			   "records again failed: %s",
			   r->err.msg);
		break;
	default:
		import_failed(res, "import", r->stored, rq, &r->err);
		break;
	}
}

void route_refs_import(void *ctx, const struct http_request *req,
		       struct http_response *res)
{
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1], *reason = NULL;
	int64_t now = (int64_t)time(NULL);
	struct refs_request rq = { 0 };
	struct engine_refs_result r;

	if (auth_operator(v, req, res, name) < 0 ||
	    parse_request(req, res, &rq, 1) < 0)
		goto out;
	reason = rejudge_reason(&rq, name, "import");
	if (reason == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	engine_refs_import(v, &rq.source, rq.refs, rq.nrefs, rq.replace, reason,
			   now, &r);
	import_answer(res, &rq, &r);
	cluster_change_end(v);
out:
	free(reason);
	request_free(&rq);
}

struct ref_page {
	json_t *rows;
	int oom;
};

static int list_one(const struct db_ref *r, void *arg)
{
	struct ref_page *pg = arg;
	json_t *row;

	row = json_pack("{s:I,s:o,s:s,s:o,s:{s:s,s:s},s:I}", "id",
			(json_int_t)r->id, "path", json_path(r->path), "algo",
			r->algo, "digest", hex_json(r->digest, r->digest_len),
			"source", "kind",
			db_source_kind_name(r->source_kind) ?
				db_source_kind_name(r->source_kind) :
				"invalid",
			"name", r->source_name, "imported_at",
			(json_int_t)r->imported_at);
	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
	return pg->oom;
}

/* ?source=KIND:NAME */
static int query_source(const struct http_request *req,
			struct http_response *res, struct db_ref_source *src)
{
	const char *s = http_query(req, "source");
	const char *colon = s != NULL ? strchr(s, ':') : NULL;

	if (s == NULL)
		return 0;
	if (colon == NULL ||
	    kind_parse(s, (size_t)(colon - s), &src->kind) < 0 ||
	    colon[1] == '\0' || strlen(colon + 1) > DB_NAME_MAX) {
		http_error(res, 400,
			   "?source=: want KIND:NAME, KIND one of "
			   "dir-tree, deb, golden-list, keylime");
		return -1;
	}
	src->name = colon + 1;
	return 1;
}

void route_refs_list(void *ctx, const struct http_request *req,
		     struct http_response *res)
{
	struct verifier *v = ctx, *r;
	struct ref_page pg = { .rows = json_array() };
	struct db_ref_filter filter = { 0 };
	struct db_ref_source src;
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	unsigned int limit;
	int64_t next = 0;
	uint64_t after;
	int rc;

	if (auth_operator(v, req, res, name) < 0 ||
	    rest_query_limit(req, res, &limit) < 0 ||
	    rest_query_uint(req, res, "after", 0, INT64_MAX, &after) < 0)
		goto out;
	rc = query_source(req, res, &src);
	if (rc < 0)
		goto out;
	filter.source = rc > 0 ? &src : NULL;
	filter.path = http_query(req, "path");
	if (filter.path != NULL && strlen(filter.path) > DB_PATH_MAX) {
		http_error(res, 400, "?path=: longer than %d bytes",
			   DB_PATH_MAX);
		goto out;
	}
	r = read_begin(v);
	rc = db_ref_list(r->db, &filter, (int64_t)after, limit, list_one, &pg,
			 &next, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list references", &err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom ? NULL :
			    json_pack("{s:O,s:o}", "refs", pg.rows, "next",
				      next != 0 ? json_integer(next) :
						  json_null()));
out:
	json_decref(pg.rows);
}

/* The answer to a delete, from what engine_refs_delete() did. */
static void delete_answer(struct http_response *res,
			  const struct refs_request *rq,
			  const struct engine_refs_result *r)
{
	switch (r->step) {
	case ENGINE_REFS_DONE:
		rest_reply(res, 200,
			   rejudge_stats_json(json_pack("{s:I}", "deleted",
							(json_int_t)r->stored),
					      &r->st));
		break;
	case ENGINE_REFS_REJUDGE:
		http_error(res, 500,
			   "%zu references deleted, but judging the "
			   "records again failed: %s",
			   r->stored, r->err.msg);
		break;
	default:
		http_error(res, 500,
			   "delete failed after %zu references "
			   "were deleted (those are gone%s%s): %s",
			   r->stored,
			   r->stored > 0 ? ", and the records judged again" :
					   "",
			   !rq->has_refs ?
				   "; the rest of the source vouches no more either, "
				   "and goes when the delete is sent again or the "
				   "verifier starts" :
				   "",
			   r->err.msg);
		break;
	}
}

void route_refs_delete(void *ctx, const struct http_request *req,
		       struct http_response *res)
{
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1], *reason = NULL;
	int64_t now = (int64_t)time(NULL);
	struct refs_request rq = { 0 };
	struct engine_refs_result r;

	if (auth_operator(v, req, res, name) < 0 ||
	    parse_request(req, res, &rq, 0) < 0)
		goto out;
	reason = rejudge_reason(&rq, name, "delete");
	if (reason == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	engine_refs_delete(v, rq.has_source ? &rq.source : NULL,
			   rq.has_refs ? rq.refs : NULL, rq.nrefs, reason, now,
			   &r);
	delete_answer(res, &rq, &r);
	cluster_change_end(v);
out:
	free(reason);
	request_free(&rq);
}

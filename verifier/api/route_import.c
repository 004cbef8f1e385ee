// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_import.c - reference imports the verifier parses itself
 * (bearer token; one import = one transaction: a bad input stores
 * nothing), and retiring a source:
 *
 *	POST /v1/references/deb		{"v":1,"deb":BASE64,"algos":[..]}
 *	POST /v1/references/list?name=	{"v":1,"list":BASE64,
 *					 "pcrs":{"sha256":HEX,...}}
 *	POST /v1/references/keylime?name=	a Keylime runtime policy
 *	POST /v1/references/retire	{"v":1,"source":{"kind","name"}}
 *
 * A package version is one source, deb:PACKAGE_VERSION_ARCH: the same
 * file again is a no-op ("already": true), another file under the same
 * version is refused (409). With upgrade_window set, importing a newer
 * version schedules the older ones' retirement. A list or a Keylime
 * policy imported again under its name replaces the previous one (the
 * old references vouch until the new ones are stored). After every
 * change every machine is re-judged both ways (rejudge.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/sha.h>

#include "auth.h"
#include "b64.h"
#include "cluster.h"
#include "db_key.h"
#include "db_ref.h"
#include "db_source.h"
#include "engine_refs.h"
#include "hash_algo.h"
#include "hex.h"
#include "import_deb.h"
#include "import_deb_child.h"
#include "import_keylime.h"
#include "import_list.h"
#include "policies.h"
#include "import_store.h"
#include "rejudge.h"
#include "rest.h"
#include "verifier.h"
#include "routes.h"

#define LIST_BANKS_MAX 4 /* PCR banks a golden list is checked in */

/* The body's base64 field @key, decoded (caller frees). */
static uint8_t *b64_field(json_t *body, const char *key, size_t *len,
			  struct http_response *res)
{
	const char *s = json_string_value(json_object_get(body, key));
	size_t n = s != NULL ? json_string_length(json_object_get(body, key)) :
			       0;
	uint8_t *out;
	long got;

	if (s == NULL || n == 0) {
		http_error(res, 400, "\"%s\": want base64 text", key);
		return NULL;
	}
	out = malloc(B64_DECODED_MAX(n) + 1);
	if (out == NULL) {
		http_error(res, 503, "out of memory");
		return NULL;
	}
	got = b64_decode(s, n, out);
	if (got <= 0) {
		free(out);
		http_error(res, 400, "\"%s\": not base64", key);
		return NULL;
	}
	*len = (size_t)got;
	return out;
}

static int parse_algos(json_t *body, const char **algos, size_t *n,
		       struct http_response *res)
{
	json_t *arr = json_object_get(body, "algos"), *it;
	size_t i;

	*n = 0;
	if (arr == NULL) {
		algos[(*n)++] = "sha256";
		return 0;
	}
	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > IMPORT_ALGOS_MAX) {
		http_error(res, 400, "\"algos\": want 1 to %d algorithm names",
			   IMPORT_ALGOS_MAX);
		return -1;
	}
	json_array_foreach(arr, i, it) {
		const char *a = json_string_value(it);

		if (a == NULL || hash_algo_by_name(a, strlen(a)) == NULL) {
			http_error(res, 400,
				   "algos[%zu]: not a digest "
				   "algorithm the kernel names",
				   i);
			return -1;
		}
		algos[(*n)++] = a;
	}
	return 0;
}

/* The name of ?name=: 1..DB_NAME_MAX bytes. */
static const char *query_name(const struct http_request *req,
			      struct http_response *res)
{
	const char *name = http_query(req, "name");

	if (name == NULL || name[0] == '\0' || strlen(name) > DB_NAME_MAX) {
		http_error(res, 400,
			   "?name=: want the source's name, 1 to %d "
			   "bytes",
			   DB_NAME_MAX);
		return NULL;
	}
	return name;
}

/*
 * Store @b as @src (the change lock held), re-judge, answer with @ans
 * (consumed) plus counts.
 */
static void store_and_answer(struct verifier *v, const char *op_name,
			     const struct db_ref_source *src,
			     const struct import_batch *b, int replace,
			     int64_t now, json_t *ans,
			     struct http_response *res)
{
	char *cause = engine_refs_cause("import", src, op_name);
	struct imt_error err;
	size_t withdrawn = 0;

	if (cause == NULL) {
		json_decref(ans);
		http_error(res, 503, "out of memory");
		return;
	}
	if (engine_refs_store(v, op_name, src, b, replace, now, &withdrawn,
			      &err) < 0) {
		json_decref(ans);
		http_error(res,
			   err.status == IMT_ERR_MISMATCH  ? 409 :
			   err.status == IMT_ERR_MALFORMED ? 400 :
							     500,
			   "%s:%s: %s; nothing of this import is stored",
			   db_source_kind_name(src->kind), src->name, err.msg);
		goto out;
	}
	json_object_set_new(ans, "added", json_integer((json_int_t)b->nrefs));
	json_object_set_new(ans, "withdrawn",
			    json_integer((json_int_t)withdrawn));
	json_object_set_new(ans, "source",
			    json_pack("{s:s,s:s}", "kind",
				      db_source_kind_name(src->kind), "name",
				      src->name));
	change_answer(v, res, 200,
		      REJUDGE_ADDED | (withdrawn > 0 ? REJUDGE_WITHDRAWN : 0) |
			      (b->nrules > 0 || b->nkeys > 0 ? REJUDGE_POLICY :
							       0),
		      ans, cause, now);
out:
	free(cause);
}

/* ---- Debian packages ---------------------------------------------------- */

/* The package is parsed; store it unless this very file is there. */
static void store_deb(struct verifier *v, const char *op_name,
		      const struct deb_info *info, const uint8_t sha[32],
		      const struct import_batch *b, int64_t now,
		      struct http_response *res)
{
	char src_name[3 * DEB_NAME_MAX + 3];
	struct db_source_meta meta = {
		.package = info->package,
		.version = info->version,
		.arch = info->architecture,
		.content_sha256 = sha,
	};
	struct db_ref_source src = {
		.kind = DB_SOURCE_DEB,
		.name = src_name,
		.meta = &meta,
	};
	struct imt_error err;
	json_t *ans;
	int found = 0, same = 0;
	size_t n;

	snprintf(src_name, sizeof(src_name), "%s_%s_%s", info->package,
		 info->version, info->architecture);
	if (strlen(src_name) > DB_NAME_MAX) {
		http_error(res, 400,
			   "package, version and architecture are "
			   "longer than a source name (%d bytes)",
			   DB_NAME_MAX);
		return;
	}
	if (engine_refs_find(v, &src, sha, &found, &same, &err) < 0) {
		rest_db_error(res, "source", &err);
		return;
	}
	if (found && same) {
		rest_reply(res, 200,
			   json_pack("{s:b,s:{s:s,s:s},s:i}", "already", 1,
				     "source", "kind", "deb", "name", src_name,
				     "added", 0));
		return;
	}
	if (found) {
		http_error(res, 409,
			   "deb:%s was imported from another file "
			   "with the same package, version and architecture; "
			   "retire it first (imatrust ref retire deb:%s)",
			   src_name, src_name);
		return;
	}
	ans = json_pack("{s:b,s:s,s:s,s:s,s:I}", "already", 0, "package",
			info->package, "version", info->version, "arch",
			info->architecture, "files", (json_int_t)info->files);
	if (ans == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	/* with upgrade_window: the older versions retire later */
	if (engine_refs_schedule_older(v, info->package, info->architecture,
				       src_name, now, &n))
		json_object_set_new(ans, "retire_scheduled",
				    json_integer((json_int_t)n));
	store_and_answer(v, op_name, &src, b, 0, now, ans, res);
}

/*
 * A package over a limit of import_deb.h is 413, one the parser could
 * not read to its end within its own limits 422; a malformed one 400.
 */
static int deb_status(const struct imt_error *err)
{
	switch (err->status) {
	case IMT_ERR_LIMIT:
		return strncmp(err->msg, "limit IMPORT_DEB_CHILD", 22) == 0 ?
			       422 :
			       413;
	case IMT_ERR_INTERNAL:
		return 503;
	default:
		return 400;
	}
}

void route_import_deb(void *ctx, const struct http_request *req,
		      struct http_response *res)
{
	static const char *const keys[] = { "deb", "algos", NULL };
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1];
	int64_t now = (int64_t)time(NULL);
	const char *algos[IMPORT_ALGOS_MAX];
	struct import_batch b = { 0 };
	struct import_sink sink;
	struct deb_info info;
	struct imt_error err;
	uint8_t *deb = NULL, sha[32];
	json_t *body = NULL;
	size_t len, nalgos;

	if (auth_operator(v, req, res, name) < 0)
		return;
	body = rest_body(req, res, keys);
	if (body == NULL || parse_algos(body, algos, &nalgos, res) < 0)
		goto out;
	deb = b64_field(body, "deb", &len, res);
	if (deb == NULL)
		goto out;
	SHA256(deb, len, sha);
	import_batch_sink(&b, &sink);
	/*
	 * parsed whole before anything is stored, outside every lock, by a
	 * child under limits: never libarchive on a stranger's package here
	 */
	if (import_deb_child(IMPORT_DEB_CHILD_EXE, &import_deb_child_defaults,
			     deb, len, algos, nalgos, &info, &sink, &err) < 0) {
		http_error(res, deb_status(&err),
			   "not imported: %s; nothing "
			   "stored",
			   err.msg);
		goto out;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	store_deb(v, name, &info, sha, &b, now, res);
	cluster_change_end(v);
out:
	import_batch_free(&b);
	free(deb);
	json_decref(body);
}

/* ---- golden lists --------------------------------------------------------- */

/* "pcrs": {"sha256": "10 HEX\n..." | {"10": HEX, ...}} as import_pcr. */
static int parse_pcrs(json_t *j, struct import_pcr *pcrs, size_t *n,
		      struct http_response *res)
{
	struct imt_error err;
	const char *bank;
	json_t *val;

	*n = 0;
	if (!json_is_object(j) || json_object_size(j) == 0 ||
	    json_object_size(j) > LIST_BANKS_MAX) {
		http_error(res, 400,
			   "\"pcrs\": want {BANK: TEXT} with 1 to "
			   "%d banks, TEXT as the kernel's pcrs files "
			   "(\"INDEX HEX\" lines)",
			   LIST_BANKS_MAX);
		return -1;
	}
	json_object_foreach(j, bank, val) {
		const char *text = json_string_value(val);

		if (text == NULL ||
		    import_pcr_parse(&pcrs[*n], bank, text,
				     json_string_length(val), &err) < 0) {
			http_error(res, 400, "\"pcrs\".\"%s\": %s", bank,
				   text == NULL ? "want text" : err.msg);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

void route_import_list(void *ctx, const struct http_request *req,
		       struct http_response *res)
{
	static const char *const keys[] = { "list", "pcrs", NULL };
	struct verifier *v = ctx;
	struct import_pcr pcrs[LIST_BANKS_MAX];
	int64_t now = (int64_t)time(NULL);
	char name[DB_NAME_MAX + 1];
	struct import_list_info info;
	struct import_batch b = { 0 };
	struct import_sink sink;
	struct imt_error err;
	const char *src_name;
	json_t *body = NULL;
	uint8_t *list = NULL;
	size_t len, npcrs;

	if (auth_operator(v, req, res, name) < 0 ||
	    (src_name = query_name(req, res)) == NULL)
		return;
	body = rest_body(req, res, keys);
	if (body == NULL ||
	    parse_pcrs(json_object_get(body, "pcrs"), pcrs, &npcrs, res) < 0)
		goto out;
	list = b64_field(body, "list", &len, res);
	if (list == NULL)
		goto out;
	import_batch_sink(&b, &sink);
	if (import_list(list, len, pcrs, npcrs, &sink, &info, &err) < 0) {
		http_error(res, 400,
			   "the list is refused: %s; nothing "
			   "stored",
			   err.msg);
		goto out;
	}
	struct db_ref_source src = {
		.kind = DB_SOURCE_GOLDEN_LIST,
		.name = src_name,
	};
	if (cluster_change_begin(v, res) < 0)
		goto out;
	store_and_answer(v, name, &src, &b, 1, now,
			 json_pack("{s:I,s:I,s:b}", "records",
				   (json_int_t)info.records, "violations",
				   (json_int_t)info.violations,
				   "boot_aggregate_checked",
				   info.boot_aggregate_checked),
			 res);
	cluster_change_end(v);
out:
	import_batch_free(&b);
	free(list);
	json_decref(body);
}

/* ---- Keylime runtime policies --------------------------------------------- */

/* The rules of keylime:@name in every policy that selects it, bounded. */
static int rules_fit(struct verifier *v, const char *name, size_t nrules,
		     struct http_response *res)
{
	struct db_ref_source src = { .kind = DB_SOURCE_KEYLIME, .name = name };
	struct imt_error err;
	int rc;

	rc = engine_refs_rules_fit(v, &src, nrules, &err);
	if (rc < 0)
		http_error(res, 413,
			   "the Keylime policy is refused: %s; "
			   "nothing stored",
			   err.msg);
	return rc;
}

/* What a Keylime import says besides its counts: what it left out, named. */
static json_t *keylime_answer(const struct keylime_info *info)
{
	json_t *left = json_array();
	size_t i;

	for (i = 0; i < info->not_imported && i < KEYLIME_NOT_IMPORTED_NAMED;
	     i++)
		json_array_append_new(left, json_pack("{s:s,s:s}", "member",
						      info->skip[i].what, "why",
						      info->skip[i].why));
	return json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:o}", "log_hash_alg",
			 info->log_hash_alg, "excludes",
			 (json_int_t)info->excludes, "exclude_prefixes",
			 (json_int_t)info->exclude_prefixes, "keys",
			 (json_int_t)info->keys, "ignored_keyrings",
			 (json_int_t)info->ignored_keyrings,
			 "not_imported_count", (json_int_t)info->not_imported,
			 "not_imported", left);
}

void route_import_keylime(void *ctx, const struct http_request *req,
			  struct http_response *res)
{
	struct verifier *v = ctx;
	int64_t now = (int64_t)time(NULL);
	char name[DB_NAME_MAX + 1];
	struct import_batch b = { 0 };
	struct keylime_info info;
	struct import_sink sink;
	struct imt_error err;
	const char *src_name;

	if (auth_operator(v, req, res, name) < 0 ||
	    (src_name = query_name(req, res)) == NULL)
		return;
	import_batch_sink(&b, &sink);
	if (import_keylime((const uint8_t *)req->body, req->body_len, &sink,
			   &info, &err) < 0) {
		http_error(res, err.status == IMT_ERR_LIMIT ? 413 : 400,
			   "the Keylime policy is refused: %s; nothing stored",
			   err.msg);
		goto out;
	}
	struct db_ref_source src = {
		.kind = DB_SOURCE_KEYLIME,
		.name = src_name,
	};
	if (cluster_change_begin(v, res) < 0)
		goto out;
	if (rules_fit(v, src_name, b.nrules, res) < 0) {
		cluster_change_end(v);
		goto out;
	}
	store_and_answer(v, name, &src, &b, 1, now, keylime_answer(&info), res);
	cluster_change_end(v);
out:
	import_batch_free(&b);
}

/* Every reference of a source @p selects, into @b (a read hold). */
struct export_walk {
	const struct policy *p;
	struct import_sink *sink;
	int failed;
};

static int export_ref(const struct db_ref *r, void *arg)
{
	struct export_walk *w = arg;
	char src[DB_NAME_MAX + 32];
	struct imt_error err;
	struct import_ref ir = {
		.kind = r->path[0] == '/' ? IMPORT_REF_FILE : IMPORT_REF_BUFFER,
		.path = r->path,
		.algo = r->algo,
		.digest = r->digest,
		.digest_len = r->digest_len,
	};

	snprintf(src, sizeof(src), "%s:%s", db_source_kind_name(r->source_kind),
		 r->source_name);
	if (!policy_selects(w->p, src))
		return 0;
	if (w->sink->ref(w->sink->arg, &ir, &err) < 0) {
		w->failed = 1;
		return 1;
	}
	return 0;
}

static int export_key(const struct db_key *k, void *arg)
{
	struct export_walk *w = arg;
	struct imt_error err;

	if (policy_selects(w->p, k->source) &&
	    w->sink->key(w->sink->arg, k->der, k->der_len, &err) < 0) {
		w->failed = 1;
		return 1;
	}
	return 0;
}

static int export_collect(struct verifier *rv, const char *policy,
			  struct import_batch *b, struct http_response *res)
{
	struct verifier *v;
	struct import_sink sink;
	struct export_walk w = { NULL, &sink, 0 };
	struct imt_error err;
	int64_t after = 0, next;
	int rc = -1;
	size_t i;

	import_batch_sink(b, &sink);
	v = read_begin(rv); /* a read hold, never the writer's lock */
	w.p = policies_find(v, policy);
	if (w.p == NULL) {
		http_error(res, 404, "no policy %s", policy);
		goto out;
	}
	do {
		if (db_ref_list(v->db, NULL, after, DB_LIST_MAX, export_ref, &w,
				&next, &err) < 0) {
			rest_db_error(res, "references", &err);
			goto out;
		}
		after = next;
	} while (next != 0 && !w.failed);
	if (!w.failed && db_key_list(v->db, export_key, &w, &err) < 0) {
		rest_db_error(res, "keys", &err);
		goto out;
	}
	for (i = 0; !w.failed && i < w.p->nrules; i++) {
		if (sink.exclude(b, w.p->rules[i].kind, w.p->rules[i].text,
				 &err) < 0)
			w.failed = 1;
	}
	if (w.failed) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	rc = 0;
out:
	read_end(v);
	return rc;
}

void route_export_keylime(void *ctx, const struct http_request *req,
			  struct http_response *res)
{
	struct verifier *v = ctx;
	struct import_batch b = { 0 };
	struct keylime_export ex = { 0 };
	struct import_ref *refs = NULL;
	struct keylime_rule *rules = NULL;
	struct keylime_key *keys = NULL;
	struct imt_error err;
	char *text = NULL;
	size_t i;

	if (export_collect(v, req->params[0], &b, res) < 0)
		goto out;
	refs = calloc(b.nrefs + 1, sizeof(*refs));
	rules = calloc(b.nrules + 1, sizeof(*rules));
	keys = calloc(b.nkeys + 1, sizeof(*keys));
	if (refs == NULL || rules == NULL || keys == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	for (i = 0; i < b.nrefs; i++)
		refs[i] = (struct import_ref){
			.kind = b.refs[i].path[0] == '/' ? IMPORT_REF_FILE :
							   IMPORT_REF_BUFFER,
			.path = b.refs[i].path,
			.algo = b.refs[i].algo,
			.digest = b.refs[i].digest,
			.digest_len = b.refs[i].digest_len,
		};
	for (i = 0; i < b.nrules; i++)
		rules[i] = (struct keylime_rule){ b.rules[i].kind,
						  b.rules[i].rule };
	for (i = 0; i < b.nkeys; i++)
		keys[i] = (struct keylime_key){ b.keys[i].der, b.keys[i].len };
	ex = (struct keylime_export){
		.refs = refs,
		.nrefs = b.nrefs,
		.rules = rules,
		.nrules = b.nrules,
		.keys = keys,
		.nkeys = b.nkeys,
	};
	text = keylime_policy_export(&ex, &err);
	if (text == NULL) {
		http_error(res, 500, "export: %s", err.msg);
		goto out;
	}
	/* the policy itself, as Keylime reads it (no "v" wrapper) */
	res->status = 200;
	res->body = text;
	text = NULL;
out:
	free(text);
	free(refs);
	free(rules);
	free(keys);
	import_batch_free(&b);
}

/* ---- retire ---------------------------------------------------------------- */

void route_import_retire(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	static const char *const keys[] = { "source", NULL };
	struct verifier *v = ctx;
	int64_t now = (int64_t)time(NULL);
	char name[DB_NAME_MAX + 1];
	struct db_ref_source src = { 0 };
	struct engine_refs_result r;
	json_t *body, *s;

	if (auth_operator(v, req, res, name) < 0)
		return;
	body = rest_body(req, res, keys);
	if (body == NULL)
		return;
	s = json_object_get(body, "source");
	src.name = json_string_value(json_object_get(s, "name"));
	if (db_source_kind_parse(json_string_value(json_object_get(s, "kind")),
				 &src.kind) < 0 ||
	    src.name == NULL || src.name[0] == '\0' ||
	    strlen(src.name) > DB_NAME_MAX) {
		http_error(res, 400,
			   "\"source\": want {\"kind\": dir-tree|deb|"
			   "golden-list|keylime, \"name\": NAME}");
		goto out;
	}
	if (cluster_change_begin(v, res) < 0)
		goto out;
	engine_refs_retire(v, &src, name, now, &r);
	if (r.step == ENGINE_REFS_LOOKUP)
		rest_db_error(res, "source", &r.err);
	else if (r.step == ENGINE_REFS_NO_SOURCE)
		http_error(res, 404, "no source %s:%s",
			   db_source_kind_name(src.kind), src.name);
	else if (r.step != ENGINE_REFS_DONE)
		http_error(res, 500, "retiring %s:%s: %s; send it again",
			   db_source_kind_name(src.kind), src.name, r.err.msg);
	else
		rest_reply(res, 200,
			   rejudge_stats_json(json_pack("{s:I}", "withdrawn",
							(json_int_t)r.withdrawn),
					      &r.st));
	cluster_change_end(v);
out:
	json_decref(body);
}

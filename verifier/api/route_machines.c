// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_machines.c - the operator's view of the fleet (bearer token):
 *
 *	GET  /v1/machines?after=ID&limit=N	machines in id order
 *	GET  /v1/machines/{id}			one machine and its boot
 *	GET  /v1/machines/{id}/events?after=&limit=
 *	GET  /v1/machines/{id}/records?from=&limit=&verdict=
 *						(RECORDS_EXPLAIN_MAX a page)
 *	POST /v1/machines/{id}/approve		let a pending machine in,
 *						naming its EK fingerprint
 *
 * Pages end with "next": the value to pass as ?after= (?from= for
 * records) for the following page, null on the last one. Shapes are in
 * verifier/api/openapi.json.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "db_boot.h"
#include "db_machine.h"
#include "enroll.h"
#include "engine.h"
#include "hex.h"
#include "ima_list.h"
#include "judge.h"
#include "policies.h"
#include "rest.h"
#include "route_boot_log.h"
#include "transition.h"
#include "verifier.h"
#include "json_text.h"
#include "routes.h"

/*
 * Records scanned at most for one ?verdict= page of a verdict the index
 * does not cover (known, violation, excluded): the page may then be
 * short, with "next" where the scan stopped.
 */
#define RECORDS_SCAN_MAX 100000
/*
 * Records one page explains at most (accepted_by: reference lookups per
 * record, under one read hold; issue #33): a larger ?limit= gets a page this
 * long, with "next" and "truncated": true while more records follow.
 */
#define RECORDS_EXPLAIN_MAX 200
#define CERT_NAME_MAX 512 /* bytes of a certificate subject shown */

/* What network access control should do: transition.c's table. */
static const char *tnc_name(enum db_machine_state state)
{
	return transition_tnc_name(transition_tnc_of(state));
}

/* The EK certificate's names, or null when there is none. */
static json_t *ek_cert_json(const struct db_machine *m)
{
	char subject[CERT_NAME_MAX], issuer[CERT_NAME_MAX];

	if (enroll_cert_names(m->ek_cert, m->ek_cert_len, subject, issuer,
			      CERT_NAME_MAX) < 0)
		return json_null();
	return json_pack("{s:s,s:s}", "subject", subject, "issuer", issuer);
}

/* The summary every listing and detail shows. */
static json_t *machine_json(const struct db_machine *m)
{
	return json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:b,s:o,s:o,s:o}", "id",
			 m->id, "state", db_machine_state_name(m->state), "tnc",
			 tnc_name(m->state), "state_reason",
			 json_reason(m->state_reason), "last_seen",
			 rest_time(m->last_seen), "created_at",
			 (json_int_t)m->created_at, "approved", m->approved,
			 "bank",
			 m->bank[0] != '\0' ? json_string(m->bank) :
					      json_null(),
			 "ek_fpr",
			 m->has_ek_fpr ? hex_json(m->ek_fpr, DB_FPR_SIZE) :
					 json_null(),
			 "ek_cert", ek_cert_json(m));
}

/*
 * Records the machine deleted before the verifier stored them (history
 * gap, proto/PROTOCOL.md "Deleted records"): null while the boot's
 * history is complete.
 */
static json_t *history_json(const struct db_boot *b)
{
	if (b->history_to == 0)
		return json_null();
	return json_pack("{s:I,s:I,s:b}", "deleted_from",
			 (json_int_t)b->history_from, "deleted_to",
			 (json_int_t)b->history_to, "after_stored",
			 b->history_followed);
}

/* "pcr10": the running value of every bank the boot keeps. */
static json_t *boot_json(const struct db_boot *b)
{
	json_t *j, *pcr10;

	j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:{s:o,s:o},s:o,s:o}", "id",
		      (json_int_t)b->id, "reset_count",
		      (json_int_t)b->reset_count, "restart_count",
		      (json_int_t)b->restart_count, "started_at",
		      (json_int_t)b->started_at, "next_record_index",
		      (json_int_t)b->next_record_index, "pcr10", "sha1",
		      hex_json(b->pcr10_sha1, DB_PCR_SHA1_SIZE), "sha256",
		      hex_json(b->pcr10_sha256, DB_PCR_SHA256_SIZE),
		      "boot_aggregate",
		      b->boot_aggregate_len > 0 ?
			      hex_json(b->boot_aggregate,
				       b->boot_aggregate_len) :
			      json_null(),
		      "history", history_json(b));
	pcr10 = json_object_get(j, "pcr10");
	if (pcr10 != NULL && b->have_sha384)
		json_object_set_new(pcr10, "sha384",
				    hex_json(b->pcr10_sha384,
					     DB_PCR_SHA384_SIZE));
	if (pcr10 != NULL && b->have_sha512)
		json_object_set_new(pcr10, "sha512",
				    hex_json(b->pcr10_sha512,
					     DB_PCR_SHA512_SIZE));
	return j;
}

/* A page under construction: rows appended, allocation failures noted. */
struct page {
	json_t *rows;
	int oom;
	char last_id[DB_MACHINE_ID_MAX + 1];
	int64_t last;
	struct verifier *v;   /* listings: each row's boot log summary */
	int failed;	      /* ... could not be read: */
	struct imt_error err; /* why */
};

static void page_add(struct page *pg, json_t *row)
{
	if (row == NULL || json_array_append_new(pg->rows, row) < 0)
		pg->oom = 1;
}

/*
 * A listed machine with its current boot's firmware log summary, so a
 * fleet view needs no request per machine (the listing's read hold).
 */
static int list_one(const struct db_machine *m, void *arg)
{
	struct page *pg = arg;
	json_t *row = machine_json(m), *log;
	struct db_boot boot;
	int has_boot = 0;

	if (db_boot_current(pg->v->db, m->id, &boot, &has_boot, &pg->err) < 0 ||
	    (log = route_boot_log_summary(pg->v, has_boot ? &boot : NULL,
					  &pg->err)) == NULL) {
		json_decref(row);
		pg->failed = 1;
		return -1;
	}
	if (row != NULL && json_object_set_new(row, "boot_log", log) < 0) {
		json_decref(row);
		row = NULL;
	}
	page_add(pg, row);
	strcpy(pg->last_id, m->id);
	return pg->oom;
}

void route_machines_list(void *ctx, const struct http_request *req,
			 struct http_response *res)
{
	struct verifier *v = ctx;
	struct page pg = { .rows = json_array(), .v = v };
	char name[DB_NAME_MAX + 1];
	const char *after;
	struct imt_error err;
	unsigned int limit;
	int rc;

	if (auth_operator(v, req, res, name) < 0 ||
	    rest_query_limit(req, res, &limit) < 0)
		goto out;
	after = http_query(req, "after");
	if (after != NULL && strlen(after) > DB_MACHINE_ID_MAX) {
		http_error(res, 400, "?after=: longer than a machine id");
		goto out;
	}
	pg.v = read_begin(v);
	rc = db_machine_list(pg.v->db, after != NULL && after[0] ? after : NULL,
			     limit, list_one, &pg, &err);
	read_end(pg.v);
	if (rc < 0 || pg.failed) {
		rest_db_error(res, rc < 0 ? "list machines" : "read boot logs",
			      rc < 0 ? &err : &pg.err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom ? NULL :
			    json_pack("{s:O,s:o}", "machines", pg.rows, "next",
				      json_array_size(pg.rows) == limit ?
					      json_string(pg.last_id) :
					      json_null()));
out:
	json_decref(pg.rows);
}

/* Read machine @id (and its current boot) in one read hold; 404 if none. */
static int load_machine(struct verifier *v, const char *id,
			struct http_response *res, struct db_machine *m,
			struct db_boot *boot, int *has_boot)
{
	struct verifier *r;
	struct imt_error err;
	int found = 0, rc;

	r = read_begin(v);
	rc = db_machine_get(r->db, id, m, &found, &err);
	if (rc == 0 && found && boot != NULL)
		rc = db_boot_current(r->db, id, boot, has_boot, &err);
	read_end(r);
	if (rc < 0) {
		if (found)
			db_machine_release(m);
		rest_db_error(res, "read machine", &err);
		return -1;
	}
	if (!found) {
		http_error(res, 404, "no machine \"%s\"", id);
		return -1;
	}
	return 0;
}

void route_machines_get(void *ctx, const struct http_request *req,
			struct http_response *res)
{
	struct verifier *v = ctx, *r;
	char name[DB_NAME_MAX + 1];
	struct db_machine m;
	struct db_boot boot;
	struct imt_error err;
	json_t *log;
	int has_boot = 0;

	if (auth_operator(v, req, res, name) < 0 ||
	    load_machine(v, req->params[0], res, &m, &boot, &has_boot) < 0)
		return;
	r = read_begin(v);
	snprintf(name, sizeof(name), "%s",
		 policies_for(r, req->params[0])->name);
	log = route_boot_log_summary(r, has_boot ? &boot : NULL, &err);
	read_end(r);
	if (log == NULL)
		rest_db_error(res, "read boot log", &err);
	else
		rest_reply(res, 200,
			   json_pack("{s:o,s:o,s:s,s:o}", "machine",
				     machine_json(&m), "boot",
				     has_boot ? boot_json(&boot) : json_null(),
				     "policy", name, "boot_log", log));
	db_machine_release(&m);
}

static int event_one(const struct db_event *ev, void *arg)
{
	struct page *pg = arg;

	page_add(pg,
		 json_pack("{s:I,s:I,s:o,s:s,s:s?,s:s?,s:o}", "id",
			   (json_int_t)ev->id, "time", (json_int_t)ev->time,
			   "boot_id",
			   ev->boot_id != 0 ? json_integer(ev->boot_id) :
					      json_null(),
			   "kind", ev->kind, "from", ev->from_state, "to",
			   ev->to_state, "reason", json_reason(ev->reason)));
	pg->last = ev->id;
	return pg->oom;
}

void route_machines_events(void *ctx, const struct http_request *req,
			   struct http_response *res)
{
	struct verifier *v = ctx, *r;
	struct page pg = { .rows = json_array() };
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	struct db_machine m;
	unsigned int limit;
	uint64_t after;
	int rc;

	if (auth_operator(v, req, res, name) < 0 ||
	    rest_query_limit(req, res, &limit) < 0 ||
	    rest_query_uint(req, res, "after", 0, INT64_MAX, &after) < 0 ||
	    load_machine(v, req->params[0], res, &m, NULL, NULL) < 0)
		goto out;
	db_machine_release(&m);
	r = read_begin(v);
	rc = db_event_list(r->db, req->params[0], (int64_t)after, limit,
			   event_one, &pg, &err);
	read_end(r);
	if (rc < 0) {
		rest_db_error(res, "list events", &err);
		goto out;
	}
	rest_reply(res, 200,
		   pg.oom ? NULL :
			    json_pack("{s:s,s:O,s:o}", "machine",
				      req->params[0], "events", pg.rows, "next",
				      json_array_size(pg.rows) == limit ?
					      json_integer(pg.last) :
					      json_null()));
out:
	json_decref(pg.rows);
}

/* A listed record, copied for judge_explain() after the listing. */
/* A page of records, possibly filtered by verdict. */
struct record_page {
	struct page pg;
	struct judge_copy *copy; /* one per row, limit of them */
	int filter;
	enum db_verdict want;
	unsigned int limit;
	unsigned int rows; /* rows seen in this db_record_list() call */
	int full;
	uint64_t last; /* index of the last row seen */
};

/* Keep what judge_explain() needs of @r (the strings are borrowed). */
static int copy_record(struct record_page *rp, const struct db_record *r)
{
	if (judge_copy_set(&rp->copy[json_array_size(rp->pg.rows)], r) < 0)
		rp->pg.oom = 1;
	return rp->pg.oom ? -1 : 0;
}

static void copies_free(struct record_page *rp, size_t n)
{
	size_t i;

	for (i = 0; rp->copy != NULL && i < n; i++)
		judge_copy_free(&rp->copy[i]);
	free(rp->copy);
}

/*
 * What decided each listed record, under @id's policy (read hold; the
 * listing is over, so judge_explain() may read the database): null for
 * a record its policy does not accept.
 */
static void explain_page(struct verifier *v, const char *id,
			 struct record_page *rp)
{
	const struct policy *p = policies_for(v, id);
	json_t *row, *why;
	size_t i;

	json_array_foreach(rp->pg.rows, i, row) {
		const struct judge_copy *c = &rp->copy[i];
		struct judge_input in;

		judge_input_of(c, &in);
		why = judge_acceptable(v, p, c->verdict) ?
			      judge_explain(v, p, &in, c->verdict) :
			      json_null();
		if (why == NULL ||
		    json_object_set_new(row, "accepted_by", why) < 0)
			rp->pg.oom = 1;
	}
}

static int record_one(int64_t boot_id, const struct db_record *r, void *arg)
{
	struct record_page *rp = arg;
	json_t *digest = hex_json(r->digest, r->digest_len);
	const char *hex = json_string_value(digest);

	(void)boot_id;
	rp->rows++;
	rp->last = r->index;
	if ((!rp->filter || r->verdict == rp->want) && copy_record(rp, r) == 0)
		page_add(&rp->pg,
			 json_pack("{s:I,s:I,s:s,s:o,s:s,s:s,s:s}", "index",
				   (json_int_t)r->index, "pcr",
				   (json_int_t)r->pcr, "template",
				   r->template != NULL ? r->template : "",
				   "path", json_path(r->path), "algo",
				   r->digest_algo != NULL ? r->digest_algo : "",
				   "digest", hex != NULL ? hex : "", "verdict",
				   db_verdict_name(r->verdict)));
	json_decref(digest);
	rp->full = json_array_size(rp->pg.rows) == rp->limit;
	return rp->pg.oom || rp->full;
}

/*
 * Fill @rp from index @from of @boot; *next receives where the next page
 * starts, or stays UINT64_MAX when this page reached the end.
 */
static int records_scan(struct verifier *v, const struct db_boot *boot,
			uint64_t from, struct record_page *rp, uint64_t *next,
			struct imt_error *err)
{
	/* unknown and mismatch records are indexed: read only those */
	int indexed = rp->filter && (rp->want == DB_VERDICT_UNKNOWN ||
				     rp->want == DB_VERDICT_MISMATCH);
	unsigned int page = rp->filter ? REST_PAGE_MAX : rp->limit;
	uint64_t scanned = 0;

	*next = UINT64_MAX;
	while (from < boot->next_record_index) {
		rp->rows = 0;
		if (db_record_list(v->db, boot->id, from, page, indexed,
				   record_one, rp, err) < 0)
			return -1;
		scanned += rp->rows;
		if (rp->pg.oom || rp->rows == 0)
			break;
		from = rp->last + 1;
		if (rp->full || scanned >= RECORDS_SCAN_MAX) {
			if (from < boot->next_record_index)
				*next = from;
			break;
		}
		if (rp->rows < page)
			break;
	}
	return 0;
}

void route_machines_records(void *ctx, const struct http_request *req,
			    struct http_response *res)
{
	struct verifier *v = ctx;
	struct record_page rp = { .pg.rows = json_array() };
	const char *verdict = http_query(req, "verdict");
	char name[DB_NAME_MAX + 1];
	uint64_t from, next = UINT64_MAX;
	struct imt_error err;
	struct db_machine m;
	struct db_boot boot;
	int has_boot = 0, rc = 0, capped;

	if (auth_operator(v, req, res, name) < 0 ||
	    rest_query_limit(req, res, &rp.limit) < 0 ||
	    rest_query_uint(req, res, "from", 0, INT64_MAX, &from) < 0)
		goto out;
	capped = rp.limit > RECORDS_EXPLAIN_MAX;
	if (capped)
		rp.limit = RECORDS_EXPLAIN_MAX;
	if (verdict != NULL && db_verdict_parse(verdict, &rp.want) < 0) {
		http_error(res, 400,
			   "?verdict=: want known, unknown, "
			   "mismatch, violation, excluded, signed or "
			   "bad-signature");
		goto out;
	}
	rp.filter = verdict != NULL;
	rp.copy = calloc(rp.limit, sizeof(*rp.copy));
	if (rp.copy == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	if (load_machine(v, req->params[0], res, &m, &boot, &has_boot) < 0)
		goto out;
	db_machine_release(&m);
	if (has_boot) {
		struct verifier *r = read_begin(v);

		rc = records_scan(r, &boot, from, &rp, &next, &err);
		if (rc == 0 && !rp.pg.oom)
			explain_page(r, req->params[0], &rp);
		read_end(r);
	}
	if (rc < 0) {
		rest_db_error(res, "list records", &err);
		goto out;
	}
	rest_reply(res, 200,
		   rp.pg.oom ?
			   NULL :
			   json_pack("{s:s,s:o,s:O,s:o,s:b}", "machine",
				     req->params[0], "boot_id",
				     has_boot ? json_integer(boot.id) :
						json_null(),
				     "records", rp.pg.rows, "next",
				     next != UINT64_MAX ?
					     json_integer((json_int_t)next) :
					     json_null(),
				     "truncated",
				     capped && next != UINT64_MAX));
out:
	copies_free(&rp, rp.limit);
	json_decref(rp.pg.rows);
}

/*
 * The fingerprint an approval names: "ek" in the body or the query.
 * 0, or -1 after answering 400.
 */
static int approval_fpr(const struct http_request *req,
			struct http_response *res, uint8_t fpr[DB_FPR_SIZE])
{
	static const char *const keys[] = { "ek", NULL };
	const char *text = http_query(req, "ek");
	json_t *body = NULL;
	int rc = 0;

	if (req->body_len > 0) {
		body = rest_body(req, res, keys);
		if (body == NULL)
			return -1;
		text = json_string_value(json_object_get(body, "ek"));
	}
	if (text == NULL || hex_fpr_parse(text, fpr) < 0) {
		http_error(res, 400,
			   "ek: the EK fingerprint (64 hex digits, "
			   "as imatrust machine ID shows it) is required to "
			   "approve");
		rc = -1;
	}
	json_decref(body);
	return rc;
}

void route_machines_approve(void *ctx, const struct http_request *req,
			    struct http_response *res)
{
	struct verifier *v = ctx;
	char name[DB_NAME_MAX + 1];
	struct engine_answer ans;
	uint8_t fpr[DB_FPR_SIZE];
	struct db_machine m;

	if (auth_operator(v, req, res, name) < 0 ||
	    approval_fpr(req, res, fpr) < 0)
		return;
	engine_approve(v, req->params[0], fpr, name, (int64_t)time(NULL), &ans);
	if (ans.status != ENGINE_OK) {
		http_error(res, engine_http_status(ans.status), "%s",
			   ans.message);
		return;
	}
	if (load_machine(v, req->params[0], res, &m, NULL, NULL) < 0)
		return;
	rest_reply(res, 200,
		   json_pack("{s:o,s:s}", "machine", machine_json(&m),
			     "approved_by", name));
	db_machine_release(&m);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_metrics.c - the metrics, which need no token:
 *
 *	GET /v1/metrics	Prometheus text format 0.0.4: machines per state
 *			and open enrollments (from the database), the
 *			counters of v->metrics, the HTTPS front's
 *			refusals and deadline closes, uptime
 *
 * (The fleet console, also without a token, is route_www.c.)
 *
 * The metrics name no machine: per-machine detail needs a token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "db_enroll.h"
#include "db_machine.h"
#include "db_ref.h"
#include "db_webhook.h"
#include "engine_refs.h"
#include "verifier.h"
#include "routes.h"

#define METRICS_STATES (DB_STATE_STALE + 1)
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The counters of struct verifier_metrics, one line each. */
static const struct {
	const char *name;
	const char *help;
	size_t off;
} counters[] = {
	{ "imatrust_enrollments_total", "Accepted enrollments.",
	  offsetof(struct verifier_metrics, enrollments) },
	{ "imatrust_activations_total", "Accepted credential activations.",
	  offsetof(struct verifier_metrics, activations) },
	{ "imatrust_evidence_ok_total", "Evidence that verified.",
	  offsetof(struct verifier_metrics, evidence_ok) },
	{ "imatrust_evidence_failed_total", "Evidence judged failed.",
	  offsetof(struct verifier_metrics, evidence_failed) },
	{ "imatrust_evidence_framed_total",
	  "Evidence bodies received framed, their bytes after the JSON text (agents of 2026-12 and later; the rest send JSON).",
	  offsetof(struct verifier_metrics, evidence_framed) },
	{ "imatrust_records_judged_total", "Measurement records judged.",
	  offsetof(struct verifier_metrics, records) },
	{ "imatrust_agent_rejected_total", "4xx answers to agents.",
	  offsetof(struct verifier_metrics, rejected) },
	{ "imatrust_evidence_rejected_total",
	  "Evidence that changed nothing: not the enrolled TPM's quote, or not over the machine's outstanding nonce.",
	  offsetof(struct verifier_metrics, evidence_rejected) },
	{ "imatrust_nonces_issued_total",
	  "Nonces written (one outstanding per machine).",
	  offsetof(struct verifier_metrics, nonces_issued) },
	{ "imatrust_enroll_refused_cap_total",
	  "Enrollments refused: max_open_enrollments challenges open (503).",
	  offsetof(struct verifier_metrics, enroll_cap) },
	{ "imatrust_enroll_refused_ek_cap_total",
	  "Enrollments refused: max_enrollments_per_ek open for the EK (429).",
	  offsetof(struct verifier_metrics, enroll_ek_cap) },
	{ "imatrust_enroll_evicted_total",
	  "Challenges of unvouched EKs dropped at the cap for a vouched EK.",
	  offsetof(struct verifier_metrics, enroll_evicted) },
	{ "imatrust_enroll_refused_taken_total",
	  "Enrollments refused: the id or the EK belongs to another (409).",
	  offsetof(struct verifier_metrics, enroll_taken) },
	{ "imatrust_enroll_refused_policy_total",
	  "Enrollments refused by the enroll policy (403).",
	  offsetof(struct verifier_metrics, enroll_unregistered) },
	{ "imatrust_enroll_refused_pending_total",
	  "Activations refused: max_pending machines pending (503).",
	  offsetof(struct verifier_metrics, enroll_pending_cap) },
	{ "imatrust_activations_refused_total",
	  "Activations whose proof opens no challenge (403).",
	  offsetof(struct verifier_metrics, activations_refused) },
	{ "imatrust_verifications_total",
	  "One-shot verdicts given (POST /v1/verify); nothing of them is stored.",
	  offsetof(struct verifier_metrics, verifications) },
};

/*
 * The HTTPS front's refusals by a limit and closes at a deadline
 * (struct http_stats), one labelled line each.
 */
static const struct {
	const char *name;  /* the metric */
	const char *label; /* its label and value */
	size_t off;
} http_counters[] = {
	{ "imatrust_http_refused_total", "reason=\"body_too_large\"",
	  offsetof(struct http_stats, too_large) },
	{ "imatrust_http_refused_total", "reason=\"inflight_full\"",
	  offsetof(struct http_stats, bytes_budget) },
	{ "imatrust_http_refused_total", "reason=\"inflight_reserved\"",
	  offsetof(struct http_stats, bytes_reserved) },
	{ "imatrust_http_refused_total", "reason=\"address_inflight\"",
	  offsetof(struct http_stats, bytes_per_addr) },
	{ "imatrust_http_refused_total", "reason=\"address_connections\"",
	  offsetof(struct http_stats, conn_per_addr) },
	{ "imatrust_http_refused_total", "reason=\"connections_reserved\"",
	  offsetof(struct http_stats, conn_reserved) },
	{ "imatrust_http_refused_total", "reason=\"address_failed_checks\"",
	  offsetof(struct http_stats, failed_checks) },
	{ "imatrust_http_closed_total", "deadline=\"headers\"",
	  offsetof(struct http_stats, closed_headers) },
	{ "imatrust_http_closed_total", "deadline=\"body\"",
	  offsetof(struct http_stats, closed_body) },
};

#define HTTP_COUNTERS (sizeof(http_counters) / sizeof(http_counters[0]))

/* The HTTP counters, the HELP and TYPE lines before each metric's first. */
static void write_http(FILE *f, struct verifier *v)
{
	static const struct http_stats none; /* no server: all 0 */
	const struct http_stats *st = v->http_stats ? v->http_stats : &none;
	size_t i;

	for (i = 0; i < HTTP_COUNTERS; i++) {
		atomic_uint_fast64_t *c =
			(atomic_uint_fast64_t *)((char *)st +
						 http_counters[i].off);

		if (i == 0)
			fputs("# HELP imatrust_http_refused_total Requests or connections refused by a limit of the HTTPS front: body_too_large (413: the route's body limit or max_inflight_body), inflight_full (503: max_inflight_body taken), inflight_reserved (503: its last quarter, kept for addresses holding little), address_inflight (429: the address's share of it), address_connections (not accepted: max_connections_per_ip), connections_reserved (not accepted: the last quarter of max_connections, kept for addresses holding few), address_failed_checks (429: the address's quotes no enrolled AK signed and refused enrollments, past 64 at once and 8 a second).\n"
			      "# TYPE imatrust_http_refused_total counter\n",
			      f);
		else if (strcmp(http_counters[i].name,
				http_counters[i - 1].name) != 0)
			fputs("# HELP imatrust_http_closed_total Connections closed at a deadline: headers (TLS handshake and request headers not in within header_timeout), body (a body slower than body_min_rate).\n"
			      "# TYPE imatrust_http_closed_total counter\n",
			      f);
		fprintf(f, "%s{%s} %llu\n", http_counters[i].name,
			http_counters[i].label,
			(unsigned long long)atomic_load(c));
	}
	fprintf(f,
		"# HELP imatrust_http_connections_total Connections accepted by the HTTPS front (an agent keeps one open: a count that grows with no new client is agents reconnecting).\n"
		"# TYPE imatrust_http_connections_total counter\n"
		"imatrust_http_connections_total %llu\n",
		(unsigned long long)atomic_load(&st->connections));
}

struct state_count {
	uint64_t n[METRICS_STATES];
	uint64_t open_enrollments;
	struct db_ref_cache_stats refs; /* the reference lookup cache */
	char last[DB_MACHINE_ID_MAX + 1];
	unsigned int rows;
};

static int count_one(const struct db_machine *m, void *arg)
{
	struct state_count *sc = arg;

	if ((size_t)m->state < METRICS_STATES)
		sc->n[m->state]++;
	strcpy(sc->last, m->id);
	sc->rows++;
	return 0;
}

/* Machines per state, a page at a time, each page a read hold. */
static int count_states(struct verifier *v, struct state_count *sc,
			struct imt_error *err)
{
	struct verifier *r;
	int rc;

	memset(sc, 0, sizeof(*sc));
	do {
		sc->rows = 0;
		r = read_begin(v);
		rc = db_machine_list(r->db, sc->last[0] ? sc->last : NULL,
				     DB_LIST_MAX, count_one, sc, err);
		read_end(r);
	} while (rc == 0 && sc->rows == DB_LIST_MAX);
	if (rc == 0) {
		r = read_begin(v);
		rc = db_challenge_count(r->db, time(NULL),
					&sc->open_enrollments, err);
		read_end(r);
		engine_refs_cache_stats(v, &sc->refs);
	}
	return rc;
}

#define WEBHOOKS_LISTED 256 /* endpoints in the metrics, at most */

/* The delivery figures of one webhook endpoint, copied out. */
struct webhook_row {
	char name[DB_WEBHOOK_NAME_MAX + 1];
	uint64_t v[5]; /* in the order of webhook_metrics[] */
};

static const struct {
	const char *name, *type, *help;
} webhook_metrics[] = {
	{ "imatrust_webhook_delivered_total", "counter",
	  "Webhook messages delivered (2xx), per endpoint." },
	{ "imatrust_webhook_failed_attempts_total", "counter",
	  "Webhook delivery attempts that failed, per endpoint." },
	{ "imatrust_webhook_dropped_total", "counter",
	  "Webhook messages dropped undelivered: webhook_max_pending was reached." },
	{ "imatrust_webhook_pending", "gauge",
	  "Webhook messages not delivered yet, per endpoint." },
	{ "imatrust_webhook_lag_seconds", "gauge",
	  "Age of the oldest undelivered webhook message, per endpoint (0: none)." },
};

#define WEBHOOK_METRICS (sizeof(webhook_metrics) / sizeof(webhook_metrics[0]))

struct webhook_rows {
	struct webhook_row r[WEBHOOKS_LISTED];
	size_t n;
	int64_t now;
};

static int webhook_one(const struct db_webhook *w, void *arg)
{
	struct webhook_rows *rows = arg;
	struct webhook_row *r = &rows->r[rows->n];

	if (rows->n == WEBHOOKS_LISTED)
		return 1;
	snprintf(r->name, sizeof(r->name), "%s", w->name);
	r->v[0] = w->delivered;
	r->v[1] = w->failed;
	r->v[2] = w->dropped;
	r->v[3] = w->pending;
	r->v[4] = w->oldest_pending != 0 && rows->now > w->oldest_pending ?
			  (uint64_t)(rows->now - w->oldest_pending) :
			  0;
	rows->n++;
	return 0;
}

/* Per endpoint (names are [A-Za-z0-9._-]: no label escaping needed). */
static void write_webhooks(FILE *f, struct verifier *v)
{
	struct verifier *r;
	static struct webhook_rows rows;
	static pthread_mutex_t rows_lock = PTHREAD_MUTEX_INITIALIZER;
	struct imt_error err;
	size_t i, j;
	int rc;

	pthread_mutex_lock(&rows_lock);
	rows.n = 0;
	rows.now = (int64_t)time(NULL);
	r = read_begin(v);
	rc = db_webhook_list(r->db, webhook_one, &rows, &err);
	read_end(r);
	for (i = 0; rc == 0 && i < WEBHOOK_METRICS; i++) {
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n",
			webhook_metrics[i].name, webhook_metrics[i].help,
			webhook_metrics[i].name, webhook_metrics[i].type);
		for (j = 0; j < rows.n; j++)
			fprintf(f, "%s{endpoint=\"%s\"} %llu\n",
				webhook_metrics[i].name, rows.r[j].name,
				(unsigned long long)rows.r[j].v[i]);
	}
	pthread_mutex_unlock(&rows_lock);
}

static void write_metrics(FILE *f, struct verifier *v,
			  const struct state_count *sc)
{
	size_t i;

	fputs("# HELP imatrust_machines Machines per state.\n"
	      "# TYPE imatrust_machines gauge\n",
	      f);
	for (i = 0; i < METRICS_STATES; i++)
		fprintf(f, "imatrust_machines{state=\"%s\"} %llu\n",
			db_machine_state_name((enum db_machine_state)i),
			(unsigned long long)sc->n[i]);
	fprintf(f,
		"# HELP imatrust_open_enrollments Credential challenges "
		"open.\n# TYPE imatrust_open_enrollments gauge\n"
		"imatrust_open_enrollments %llu\n",
		(unsigned long long)sc->open_enrollments);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		atomic_uint_fast64_t *c =
			(atomic_uint_fast64_t *)((char *)&v->metrics +
						 counters[i].off);

		fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n",
			counters[i].name, counters[i].help, counters[i].name,
			counters[i].name, (unsigned long long)atomic_load(c));
	}
	fprintf(f,
		"# HELP imatrust_reference_lookups_total Reference "
		"lookups, by where the answer came from.\n"
		"# TYPE imatrust_reference_lookups_total counter\n"
		"imatrust_reference_lookups_total{from=\"memory\"} %llu\n"
		"imatrust_reference_lookups_total{from=\"database\"} %llu\n"
		"# HELP imatrust_reference_cache_flushes_total Times the "
		"references changed under the lookup cache.\n"
		"# TYPE imatrust_reference_cache_flushes_total counter\n"
		"imatrust_reference_cache_flushes_total %llu\n",
		(unsigned long long)sc->refs.hits,
		(unsigned long long)sc->refs.misses,
		(unsigned long long)sc->refs.flushes);
	fprintf(f,
		"# HELP imatrust_uptime_seconds Seconds since the "
		"verifier started.\n# TYPE imatrust_uptime_seconds gauge\n"
		"imatrust_uptime_seconds %lld\n",
		(long long)(time(NULL) - v->started));
	write_http(f, v);
	write_webhooks(f, v);
}

void route_metrics(void *ctx, const struct http_request *req,
		   struct http_response *res)
{
	struct verifier *v = ctx;
	struct state_count sc;
	struct imt_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)req;
	if (count_states(v, &sc, &err) < 0) {
		http_error(res, 500, "count machines: %s", err.msg);
		return;
	}
	f = open_memstream(&text, &len);
	if (f == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	write_metrics(f, v, &sc);
	if (fclose(f) != 0 || text == NULL) {
		free(text);
		http_error(res, 503, "out of memory");
		return;
	}
	res->status = 200;
	res->body = text;
	res->content_type = METRICS_TYPE;
}

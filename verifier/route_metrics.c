// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_metrics.c - what needs no token:
 *
 *	GET /v1/metrics	Prometheus text format 0.0.4: machines per state
 *			and open enrollments (from the database), the
 *			counters of v->metrics, uptime
 *	GET /		the fleet page: asks for a token, keeps it in
 *			sessionStorage, shows GET /v1/machines every second
 *
 * The metrics name no machine: per-machine detail needs a token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db.h"
#include "verifier.h"

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
	{ "imatrust_records_judged_total", "Measurement records judged.",
	  offsetof(struct verifier_metrics, records) },
	{ "imatrust_agent_rejected_total", "4xx answers to agents.",
	  offsetof(struct verifier_metrics, rejected) },
	{ "imatrust_evidence_rejected_total",
	  "Evidence that changed nothing: not the enrolled TPM's quote, or not over the machine's outstanding nonce.",
	  offsetof(struct verifier_metrics, evidence_rejected) },
	{ "imatrust_nonces_issued_total", "Nonces written (one outstanding per machine).",
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
};

struct state_count {
	uint64_t n[METRICS_STATES];
	uint64_t open_enrollments;
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

/* Machines per state, a page at a time. Takes v->lock per page. */
static int count_states(struct verifier *v, struct state_count *sc,
			struct imt_error *err)
{
	int rc;

	memset(sc, 0, sizeof(*sc));
	do {
		sc->rows = 0;
		pthread_mutex_lock(&v->lock);
		rc = db_machine_list(v->db, sc->last[0] ? sc->last : NULL,
				     DB_LIST_MAX, count_one, sc, err);
		pthread_mutex_unlock(&v->lock);
	} while (rc == 0 && sc->rows == DB_LIST_MAX);
	if (rc == 0) {
		pthread_mutex_lock(&v->lock);
		rc = db_challenge_count(v->db, time(NULL),
					&sc->open_enrollments, err);
		pthread_mutex_unlock(&v->lock);
	}
	return rc;
}

#define WEBHOOKS_LISTED 256	/* endpoints in the metrics, at most */

/* The delivery figures of one webhook endpoint, copied out. */
struct webhook_row {
	char name[DB_WEBHOOK_NAME_MAX + 1];
	uint64_t v[5];		/* in the order of webhook_metrics[] */
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
		  (uint64_t)(rows->now - w->oldest_pending) : 0;
	rows->n++;
	return 0;
}

/* Per endpoint (names are [A-Za-z0-9._-]: no label escaping needed). */
static void write_webhooks(FILE *f, struct verifier *v)
{
	static struct webhook_rows rows;
	static pthread_mutex_t rows_lock = PTHREAD_MUTEX_INITIALIZER;
	struct imt_error err;
	size_t i, j;
	int rc;

	pthread_mutex_lock(&rows_lock);
	rows.n = 0;
	rows.now = (int64_t)time(NULL);
	pthread_mutex_lock(&v->lock);
	rc = db_webhook_list(v->db, webhook_one, &rows, &err);
	pthread_mutex_unlock(&v->lock);
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
	      "# TYPE imatrust_machines gauge\n", f);
	for (i = 0; i < METRICS_STATES; i++)
		fprintf(f, "imatrust_machines{state=\"%s\"} %llu\n",
			db_machine_state_name((enum db_machine_state)i),
			(unsigned long long)sc->n[i]);
	fprintf(f, "# HELP imatrust_open_enrollments Credential challenges "
		"open.\n# TYPE imatrust_open_enrollments gauge\n"
		"imatrust_open_enrollments %llu\n",
		(unsigned long long)sc->open_enrollments);
	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
		atomic_uint_fast64_t *c = (atomic_uint_fast64_t *)
			((char *)&v->metrics + counters[i].off);

		fprintf(f, "# HELP %s %s\n# TYPE %s counter\n%s %llu\n",
			counters[i].name, counters[i].help, counters[i].name,
			counters[i].name,
			(unsigned long long)atomic_load(c));
	}
	fprintf(f, "# HELP imatrust_uptime_seconds Seconds since the "
		"verifier started.\n# TYPE imatrust_uptime_seconds gauge\n"
		"imatrust_uptime_seconds %lld\n",
		(long long)(time(NULL) - v->started));
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

/*
 * The fleet page: no external resources, no inline data from the server
 * (the table is filled with textContent from GET /v1/machines, so a
 * machine id or reason cannot inject markup). The token stays in this
 * tab's sessionStorage and goes out only as the Authorization header.
 */
static const char page_html[] =
"<!doctype html>\n"
"<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
"<meta name=\"viewport\" content=\"width=device-width\">\n"
"<title>imatrust fleet</title>\n"
"<style>\n"
"body{font:14px system-ui,sans-serif;margin:2em;color:#222}\n"
"table{border-collapse:collapse}td,th{padding:.3em .8em;"
"border-bottom:1px solid #ddd;text-align:left}\n"
".trusted{color:#070}.untrusted{color:#b60}.failed{color:#c00}"
".stale,.pending,.enrolling{color:#666}\n"
"#err{color:#c00}code{font-size:12px}\n"
"</style></head><body>\n"
"<h1>imatrust fleet</h1>\n"
"<form id=\"login\"><label>Operator token "
"<input id=\"token\" type=\"password\" autocomplete=\"off\" size=\"40\">"
"</label> <button>Show fleet</button></form>\n"
"<p id=\"err\"></p>\n"
"<div id=\"fleet\" hidden><p><span id=\"count\"></span> "
"<button id=\"logout\">Forget token</button></p>\n"
"<table><thead><tr><th>Machine</th><th>State</th><th>TNC</th>"
"<th>Last seen</th><th>Reason</th></tr></thead>"
"<tbody id=\"rows\"></tbody></table></div>\n"
"<script>\n"
"'use strict';\n"
"const $ = (id) => document.getElementById(id);\n"
"const KEY = 'imatrust-token';\n"
"function cell(tr, text, cls) {\n"
"  const td = document.createElement('td');\n"
"  td.textContent = text; if (cls) td.className = cls;\n"
"  tr.appendChild(td);\n"
"}\n"
"function when(t) {\n"
"  return t === null ? 'never' : new Date(t * 1000).toISOString();\n"
"}\n"
"function show(machines) {\n"
"  const rows = $('rows');\n"
"  rows.replaceChildren();\n"
"  for (const m of machines) {\n"
"    const tr = document.createElement('tr');\n"
"    cell(tr, m.id); cell(tr, m.state, m.state); cell(tr, m.tnc);\n"
"    cell(tr, when(m.last_seen));\n"
"    cell(tr, m.state_reason === null ? '' :\n"
"         JSON.stringify(m.state_reason));\n"
"    rows.appendChild(tr);\n"
"  }\n"
"  $('count').textContent = machines.length + ' machines';\n"
"}\n"
"async function fetchAll(token) {\n"
"  let all = [], after = null;\n"
"  do {\n"
"    const q = '?limit=1000' + (after === null ? '' :\n"
"              '&after=' + encodeURIComponent(after));\n"
"    const r = await fetch('/v1/machines' + q,\n"
"      { headers: { Authorization: 'Bearer ' + token } });\n"
"    const body = await r.json();\n"
"    if (!r.ok) throw new Error(body.error ? body.error.message :\n"
"                               'HTTP ' + r.status);\n"
"    all = all.concat(body.machines); after = body.next;\n"
"  } while (after !== null);\n"
"  return all;\n"
"}\n"
"let timer = null;\n"
"async function tick() {\n"
"  const token = sessionStorage.getItem(KEY);\n"
"  if (!token) { stop(); return; }\n"
"  try {\n"
"    show(await fetchAll(token));\n"
"    $('err').textContent = ''; $('fleet').hidden = false;\n"
"    $('login').hidden = true;\n"
"  } catch (e) {\n"
"    $('err').textContent = e.message;\n"
"    if (/token/.test(e.message)) stop();\n"
"  }\n"
"}\n"
"function stop() {\n"
"  sessionStorage.removeItem(KEY); clearInterval(timer); timer = null;\n"
"  $('fleet').hidden = true; $('login').hidden = false;\n"
"}\n"
"function start() {\n"
"  if (timer === null) timer = setInterval(tick, 1000);\n"
"  tick();\n"
"}\n"
"$('login').addEventListener('submit', (ev) => {\n"
"  ev.preventDefault();\n"
"  sessionStorage.setItem(KEY, $('token').value.trim());\n"
"  $('token').value = ''; start();\n"
"});\n"
"$('logout').addEventListener('click', stop);\n"
"if (sessionStorage.getItem(KEY)) start();\n"
"</script></body></html>\n";

void route_page(void *ctx, const struct http_request *req,
		struct http_response *res)
{
	(void)ctx;
	(void)req;
	res->body = strdup(page_html);
	if (res->body == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	res->status = 200;
	res->content_type = "text/html; charset=utf-8";
}

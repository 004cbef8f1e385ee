// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_beat.c - simulated agents heartbeating against a real verifier,
 * latency sampled per window (bench_beat.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/rand.h>

#include "bench_beat.h"
#include "db.h"
#include "db_token.h"
#include "hex.h"

static pid_t verifier_pid = -1;

static void stop_verifier(void)
{
	bench_stop(&verifier_pid);
}

void beat_die(const char *what, const char *detail)
{
	fprintf(stderr, "bench: %s: %.300s\n", what,
		detail != NULL ? detail : "");
	exit(1);
}

CURL *beat_easy(const char *ca, struct bench_buf *resp, long timeout)
{
	CURL *c = bench_http_easy(ca, resp, timeout);

	if (c == NULL)
		beat_die("curl", "no easy handle");
	return c;
}

/* ---- samples --------------------------------------------------------- */

void beat_samples_add(struct beat_samples *s, double ms)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->ms = realloc(s->ms, s->cap * sizeof(*s->ms));
		if (s->ms == NULL)
			beat_die("samples", "out of memory");
	}
	s->ms[s->n++] = ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void beat_samples_sort(struct beat_samples *s)
{
	if (s->n > 0)
		qsort(s->ms, s->n, sizeof(*s->ms), cmp_double);
}

double beat_pct(const struct beat_samples *s, size_t pct)
{
	size_t i = s->n * pct / 100;

	return s->n == 0 ? 0.0 : s->ms[i < s->n ? i : s->n - 1];
}

void beat_report(const char *name, struct beat_samples *s, double secs)
{
	if (s->n == 0) {
		printf("%-15s no heartbeat answered\n", name);
		return;
	}
	beat_samples_sort(s);
	printf("%-15s %7zu heartbeats in %6.2f s (%6.0f/s)  median %8.2f ms"
	       "  p99 %8.2f ms  max %8.2f ms  agents stalled >= %.0f s: "
	       "%zu\n",
	       name, s->n, secs, (double)s->n / secs, beat_pct(s, 50),
	       beat_pct(s, 99), s->ms[s->n - 1], BEAT_STALL_MS / 1e3,
	       s->stalled_agents);
}

/* ---- the agents ------------------------------------------------------ */

static void start(CURLM *m, struct beat_agent *ag, enum beat_window win)
{
	char url[512];
	const char *what = ag->stage == BEAT_NONCE ? "nonce" : "evidence";

	free(ag->body);
	ag->body = ag->stage == BEAT_NONCE ? strdup("") :
					     fleet_evidence(&ag->a, 0, &ag->ev);
	if (ag->body == NULL)
		beat_die(ag->a.id, "cannot build evidence");
	snprintf(url, sizeof(url), "%s/v1/agents/%s/%s", ag->base, ag->a.id,
		 what);
	ag->resp.len = 0;
	curl_easy_setopt(ag->h, CURLOPT_URL, url);
	if (ag->stage == BEAT_NONCE)
		bench_http_set_body(ag->h, ag->body, 0, 0);
	else
		bench_http_set_body(ag->h, ag->body, ag->ev.body_len, 1);
	ag->win = win;
	ag->started = bench_now();
	ag->busy = 1;
	if (curl_multi_add_handle(m, ag->h) != CURLM_OK)
		beat_die(ag->a.id, "curl_multi_add_handle");
}

/* The nonce answer's nonce (its other fields vary between versions). */
static void take_nonce(struct beat_agent *ag)
{
	json_t *j = json_loads(ag->resp.data, 0, NULL);
	const char *hex = json_string_value(json_object_get(j, "nonce"));
	size_t len = hex != NULL ? strlen(hex) / 2 : 0;

	if (len == 0 || len > sizeof(ag->a.nonce) ||
	    hex_decode(hex, 2 * len, ag->a.nonce, sizeof(ag->a.nonce)) < 0)
		beat_die(ag->a.id, ag->resp.data);
	ag->a.nonce_len = len;
	json_decref(j);
}

/* The verdict: "trusted" and the next index; take the next nonce. */
static void take_verdict(struct beat_agent *ag)
{
	struct wire_verdict v;
	struct imt_error err;

	if (wire_decode(WIRE_VERDICT, ag->resp.data, ag->resp.len, &v, &err) !=
	    IMT_OK) {
		fprintf(stderr, "bench: %s answered: %.300s\n", ag->a.id,
			ag->resp.data);
		beat_die(ag->a.id, err.msg);
	}
	if (strcmp(v.state, "trusted") != 0 || v.next_index != ag->ev.next)
		beat_die(ag->a.id, ag->resp.data);
	memcpy(ag->a.nonce, v.nonce, v.nonce_len);
	ag->a.nonce_len = v.nonce_len;
	wire_free(WIRE_VERDICT, &v);
	fleet_accept(&ag->a, &ag->ev);
}

/* The answer must be 200 and what was wanted; record the latency. */
static void finish(struct beat_fleet *f, struct beat_agent *ag, CURLcode rc)
{
	double t = bench_now();
	long status = 0;

	curl_multi_remove_handle(f->m, ag->h);
	ag->busy = 0;
	if (rc != CURLE_OK)
		beat_die(ag->a.id, curl_easy_strerror(rc));
	curl_easy_getinfo(ag->h, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200)
		beat_die(ag->a.id, ag->resp.data);
	if (ag->stage == BEAT_NONCE)
		take_nonce(ag);
	else
		take_verdict(ag);
	if (ag->stage == BEAT_BEAT && ag->win != BEAT_WIN_NONE) {
		struct beat_samples *s = &f->win[ag->win];
		double ms = (t - ag->started) * 1e3;

		beat_samples_add(s, ms);
		if (ms >= BEAT_STALL_MS && !ag->stalled[ag->win]++)
			s->stalled_agents++;
	}
	if (ag->stage != BEAT_BEAT)
		ag->stage++;
	/* paced: the next one an interval after this one started */
	ag->due = ag->started + f->interval;
	if (ag->due < t)
		ag->due = t;
}

static void agent_connect(struct beat_fleet *f, struct beat_agent *ag)
{
	char entry[160];

	ag->h = beat_easy(f->ca, &ag->resp, 600);
	curl_easy_setopt(ag->h, CURLOPT_HTTPHEADER, f->headers);
	snprintf(entry, sizeof(entry), "%s.agents.bench:%u:127.0.0.1", ag->a.id,
		 f->port);
	snprintf(ag->base, sizeof(ag->base), "https://%s.agents.bench:%u",
		 ag->a.id, f->port);
	ag->resolve = curl_slist_append(NULL, entry);
	curl_easy_setopt(ag->h, CURLOPT_RESOLVE, ag->resolve);
}

void beat_fleet_init(struct beat_fleet *f)
{
	struct fleet_agent *fa = calloc(f->n, sizeof(*fa));
	uint8_t *records = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
	size_t i;

	f->headers = bench_http_init();
	f->ag = calloc(f->n, sizeof(*f->ag));
	if (f->headers == NULL || f->ag == NULL || fa == NULL ||
	    records == NULL)
		beat_die("agents", "out of memory");
	for (i = 0; i < f->n; i++) {
		snprintf(fa[i].id, sizeof(fa[i].id), "bench-%06zu", i);
		if (soft_ak_new(&fa[i].ak) < 0)
			beat_die("soft_ak_new", fa[i].id);
	}
	if (fleet_pool_init() < 0 || fleet_seed(f->db, fa, f->n) < 0)
		beat_die("seeding", f->db);
	for (i = 0; i < f->n; i++) {
		f->ag[i].a = fa[i];
		f->ag[i].ev.records = records;
		agent_connect(f, &f->ag[i]);
	}
	free(fa);
}

/* ---- the operator and the verifier ----------------------------------- */

void beat_add_token(const char *db, char hex[2 * BEAT_TOKEN_BYTES + 1])
{
	uint8_t raw[BEAT_TOKEN_BYTES];
	struct imt_error err;
	struct db *d;

	RAND_bytes(raw, sizeof(raw));
	hex_encode(raw, sizeof(raw), hex);
	if (db_open(db, &d, &err) < 0 ||
	    db_token_add(d, "bench", (const uint8_t *)hex, 2 * BEAT_TOKEN_BYTES,
			 0, &err) < 0)
		beat_die("token", err.msg);
	db_close(d);
}

void beat_verifier_start(struct beat_fleet *f, char **argv, const char *dir)
{
	struct bench_buf b = { 0 };
	char log[4096];
	CURL *c;

	snprintf(log, sizeof(log), "%s/verifier.log", dir);
	atexit(stop_verifier);
	verifier_pid = bench_spawn(argv, log);
	if (verifier_pid < 0)
		beat_die("the verifier did not start", log);
	c = beat_easy(f->ca, &b, 5);
	if (bench_http_wait_ready(c, f->port, &verifier_pid) < 0)
		beat_die("the verifier did not start", log);
	curl_easy_cleanup(c);
	free(b.data);
	f->m = curl_multi_init();
	curl_multi_setopt(f->m, CURLMOPT_MAXCONNECTS, (long)f->n + 16);
}

/* ---- the run --------------------------------------------------------- */

/* Take the answers that came, then wait a little for more. */
static void drive(struct beat_fleet *f)
{
	size_t i;
	CURLMsg *msg;
	int running, n;

	curl_multi_perform(f->m, &running);
	while ((msg = curl_multi_info_read(f->m, &n)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		for (i = 0; i < f->n; i++)
			if (f->ag[i].h == msg->easy_handle)
				break;
		if (i < f->n)
			finish(f, &f->ag[i], msg->data.result);
	}
	curl_multi_poll(f->m, NULL, 0, 2, &n);
}

/*
 * One step: start the agents that are due (heartbeats sampled in @win;
 * none when @stop, which only drains), take the answers that came.
 * Return: the requests still in flight.
 */
static size_t step(struct beat_fleet *f, enum beat_window win, int stop)
{
	double t = bench_now();
	size_t i, busy = 0;

	for (i = 0; i < f->n; i++) {
		struct beat_agent *ag = &f->ag[i];

		if (!ag->busy && !stop && ag->due <= t)
			start(f->m, ag,
			      ag->stage == BEAT_BEAT ? win : BEAT_WIN_NONE);
		busy += ag->busy;
	}
	if (busy > 0 || !stop)
		drive(f);
	return busy;
}

static int all_beating(const struct beat_fleet *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->ag[i].stage != BEAT_BEAT)
			return 0;
	return 1;
}

void beat_run(struct beat_fleet *f, unsigned int seconds,
	      struct beat_load *load)
{
	double t0 = bench_now();
	enum beat_window win = BEAT_WIN_NONE;
	int stop = 0;

	for (;;) {
		double t = bench_now();

		if (win == BEAT_WIN_NONE && all_beating(f)) {
			printf("warm-up: %zu agents connected and attested: "
			       "%.1f s\n",
			       f->n, t - t0);
			win = BEAT_WIN_BASE;
			f->base0 = t;
		} else if (win == BEAT_WIN_BASE && t - f->base0 >= seconds) {
			f->base1 = t;
			win = BEAT_WIN_LOAD;
			if (pthread_create(&load->th, NULL, load->run,
					   load->arg) != 0)
				beat_die("pthread_create", load->name);
		} else if (win == BEAT_WIN_LOAD && !stop &&
			   load->over(load->arg, t - f->base1)) {
			stop = 1;
		}
		if (step(f, win, stop) == 0 && stop)
			break;
	}
	pthread_join(load->th, NULL);
}

void beat_fleet_stop(struct beat_fleet *f)
{
	size_t i;

	/* close the connections first: the verifier then stops at once */
	for (i = 0; i < f->n; i++)
		curl_easy_cleanup(f->ag[i].h);
	curl_multi_cleanup(f->m);
	stop_verifier();
}

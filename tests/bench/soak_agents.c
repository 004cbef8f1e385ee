// SPDX-License-Identifier: GPL-2.0-only
/*
 * soak_agents.c - simulated agents that keep attesting through failures:
 * the client of tests/integration/test_scale_out.sh (several verifiers
 * on one PostgreSQL behind HAProxy, one of them killed, the database
 * restarted).
 *
 *	soak-agents [-n AGENTS] [-t THREADS] [-s SECONDS] [-r RECORDS]
 *		    [-i INTERVAL] [-c CONNECTIONS] [-R PORT,PORT...]
 *		    -D DB -p PORT -C CA -o DIR
 *
 * Seeds DB (a path or a postgresql:// URI) with AGENTS activated machines
 * (software P-256 AKs, bench_fleet.h) and references for their records,
 * then streams evidence with RECORDS new records each to 127.0.0.1:PORT
 * for SECONDS, as a real agent does: a failed exchange (no connection,
 * 503, a nonce the verifier no longer knows) costs the agent its nonce
 * and a short pause, then it asks for a new nonce and goes on from the
 * index the verifier names. What must never happen fails the run: a
 * verdict other than trusted, a next_index behind what the verifier
 * already confirmed (a record lost), an answer that is no verdict.
 *
 * -R: every RACE_EVERY-th evidence is a race: the same evidence is sent
 * at once straight to two of the verifiers on PORTs, over connections
 * made beforehand (the attacker who replays a captured quote to another
 * instance while the agent sends it). At most one may accept it; two
 * acceptances are "nonce accepted twice".
 *
 * -i: each agent sends evidence every INTERVAL seconds, the fleet spread
 * evenly over the interval, as real agents do (default 0: as fast as
 * the verifier answers); evidence answered more than LATE_SECONDS after
 * it was due counts as "late". -c: the agents share CONNECTIONS
 * keep-alive connections (default one each), for fleets larger than the
 * descriptors a process may hold; the verifier still keeps state for
 * every machine.
 *
 * -A: the agents' connections come from ADDRS loopback addresses,
 * 127.0.1.1 on (as a fleet does, each machine its own address), so the
 * verifier's per-address limits apply to attackers, not to the fleet.
 * -F: forgers on these loopback addresses (one thread each) send (with
 * -L from SIGUSR1 on), at FORGE_RATE a second each, evidence for the fleet's machines quoted by
 * an AK of their own (the failed-check flood): never accepted.
 * The latency of every honest evidence answered 200 while streaming is
 * printed as "soak: latency_ms p50 .. p95 .. p99 .. max .. n .."; with
 * -L only from a SIGUSR1 on (the attacks started). SIGUSR2 ends the
 * streaming early, as SECONDS would (the attacks ended).
 *
 * After SECONDS every agent must get one more heartbeat accepted within
 * SETTLE_SECONDS (plus a second per 1,000 agents). DIR/agents.tsv then has one line per agent: its id and
 * the list index the verifier confirmed last (the records it must hold).
 * The counts go to stdout as "soak: NAME N" lines.
 */
#include <getopt.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>

#include "bench_fleet.h"
#include "bench_http.h"

#define THREADS_MAX 64
#define PORTS_MAX 8
#define RACE_EVERY 40	    /* one evidence in this many is raced */
#define PAUSE_SECONDS 0.2   /* after a failed exchange */
#define SETTLE_SECONDS 60.0 /* for the last heartbeat of each agent */
#define TIMEOUT_SECONDS 30L /* one exchange */
#define LATE_SECONDS 5.0    /* -i: answered this long after it was due */
#define FORGE_RATE 50.0	    /* -F: forged evidence a second per address */

struct opts {
	size_t agents, threads, records, conns;
	double interval;
	unsigned int seconds, port;
	unsigned int race_ports[PORTS_MAX];
	size_t nrace;
	size_t naddrs;		  /* -A: honest source addresses */
	char *forgers[PORTS_MAX]; /* -F: the forgers' addresses */
	size_t nforgers;
	const char *db, *ca, *dir;
};

/* What happened, over every thread. */
enum count {
	C_ACCEPTED,	      /* evidence answered 200 trusted */
	C_RECORDS,	      /* records confirmed */
	C_NONCES,	      /* nonces taken */
	C_CONN,		      /* no connection, or it broke */
	C_UNAVAILABLE,	      /* 502, 503, 504 */
	C_NONCE_REFUSED,      /* 403 "nonce: ..." */
	C_CONFLICT,	      /* 409 */
	C_RESYNC,	      /* the verifier had more than the agent knew */
	C_RACES,	      /* evidence sent to two verifiers at once */
	C_RACE_ONE,	      /* ... accepted by exactly one */
	C_RACE_TWICE,	      /* ... accepted by both: a nonce used twice */
	C_RACE_LOST_NONCE,    /* the loser: 403 "nonce: ..." */
	C_RACE_LOST_CONFLICT, /* ... 409, concurrent evidence */
	C_RACE_LOST_OTHER,    /* ... anything else (a dead verifier) */
	C_IMPOSTORS,	      /* evidence signed by another TPM's AK */
	C_IMPOSTOR_REFUSED,   /* ... refused (403) */
	C_FATAL,	      /* what must never happen */
	C_LATE,		      /* -i: accepted LATE_SECONDS or more after due */
	C_FORGED,	      /* -F: forged evidence sent */
	C_FORGED_REFUSED,     /* ... answered 403 (a signature checked) */
	C_FORGED_LIMITED,     /* ... answered 429 from the headers */
	C_FORGED_OTHER,	      /* ... no answer, or another */
	C_COUNT,
};

static const char *const count_names[C_COUNT] = {
	"accepted",
	"records",
	"nonces",
	"connection_errors",
	"unavailable",
	"nonce_refused",
	"conflicts",
	"resyncs",
	"races",
	"races_one_accepted",
	"races_accepted_twice",
	"races_lost_nonce",
	"races_lost_conflict",
	"races_lost_other",
	"impostors",
	"impostors_refused",
	"fatal",
	"late",
	"forged",
	"forged_refused",
	"forged_limited",
	"forged_other",
};

static atomic_ullong counts[C_COUNT];
static struct curl_slist *headers;
static atomic_int stop;
static volatile sig_atomic_t recording = 1; /* -L: from SIGUSR1 */

struct agent {
	struct fleet_agent f;
	struct bench_conn *c; /* its keep-alive connection (-c: shared) */
	double not_before;    /* paused (a failure) or not due (-i) */
	double due;	      /* -i: when its evidence was due */
};

struct worker {
	const struct opts *o;
	struct agent *a;
	size_t n;
	struct bench_conn *conns; /* the agents' connections */
	size_t nconns;
	struct fleet_evidence ev;
	struct bench_buf resp;
	CURLM *multi;
	struct soft_ak rogue; /* a TPM of the attacker's own */
	unsigned long sent;   /* evidence built: every RACE_EVERY-th
				 * raced, the one half-way an impostor */
	int attack;	      /* while streaming, not when settling */
	double *lat;	      /* ms of each honest evidence answered 200 */
	size_t nlat, caplat;
	pthread_t th;
};

/* One forger (-F): its address, the fleet it forges for. */
struct forger {
	const struct opts *o;
	const struct agent *a; /* ids only */
	const char *addr;
	pthread_t th;
};

static void count(enum count c, unsigned long long n)
{
	atomic_fetch_add(&counts[c], n);
}

static void fatal(const struct agent *a, const char *what, const char *body)
{
	count(C_FATAL, 1);
	fprintf(stderr, "soak: %s: %s: %.300s\n", a->f.id, what,
		body != NULL ? body : "");
}

static CURL *easy(const struct opts *o, struct bench_buf *resp)
{
	CURL *c = bench_http_easy(o->ca, resp, TIMEOUT_SECONDS);

	if (c == NULL)
		return NULL;
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_POST, 1L);
	return c;
}

/*
 * POST @body to @base/v1/agents/ID/@what on @h: @len bytes of framed
 * evidence, or (@len 0) a JSON string. The HTTP status or 0.
 */
static long post(CURLM *m, CURL *h, const char *base, const char *id,
		 const char *what, const char *body, size_t len,
		 struct bench_buf *resp)
{
	char url[512];
	long status = 0;

	snprintf(url, sizeof(url), "%s/v1/agents/%s/%s", base, id, what);
	resp->len = 0;
	if (resp->data != NULL)
		resp->data[0] = '\0';
	curl_easy_setopt(h, CURLOPT_URL, url);
	bench_http_set_body(h, body, len, len > 0);
	if (bench_http_perform(m, h) != CURLE_OK)
		return 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	return status;
}

/* An error answer whose message starts "nonce" (engine.c's). */
static int is_nonce_refusal(const char *body)
{
	const char *m = body != NULL ? strstr(body, "\"message\":\"") : NULL;

	return m != NULL && strncmp(m + 11, "nonce", 5) == 0;
}

/* A failed exchange: no nonce, a pause; and what kind of failure. */
static void setback(struct agent *a, long status, const char *body)
{
	a->f.nonce_len = 0;
	a->not_before = bench_now() + PAUSE_SECONDS;
	if (status == 0)
		count(C_CONN, 1);
	else if (status == 502 || status == 503 || status == 504)
		count(C_UNAVAILABLE, 1);
	else if (status == 403 && is_nonce_refusal(body))
		count(C_NONCE_REFUSED, 1);
	else if (status == 409)
		count(C_CONFLICT, 1);
	else
		fatal(a, "unexpected answer", body);
}

/* Move @a on to @next: extend its PCR 10 over the records between. */
static void catch_up(struct agent *a, uint64_t next)
{
	struct fleet_evidence e;
	uint8_t *buf = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
	char *json;

	e.records = buf;
	while (buf != NULL && a->f.next < next) {
		uint64_t n = next - a->f.next;

		json = fleet_evidence(&a->f,
				      n > FLEET_BATCH_MAX ? FLEET_BATCH_MAX :
							    (size_t)n,
				      &e);
		free(json);
		fleet_accept(&a->f, &e);
	}
	free(buf);
}

/* A 200 answer to evidence: the verdict must be trusted, and not behind. */
static int take_verdict(struct agent *a, const struct fleet_evidence *e,
			const struct bench_buf *resp)
{
	struct wire_verdict v;
	struct imt_error err;
	uint64_t before = a->f.next;

	if (wire_decode(WIRE_VERDICT, resp->data, resp->len, &v, &err) !=
	    IMT_OK) {
		fatal(a, "not a verdict", err.msg);
		return -1;
	}
	if (strcmp(v.state, "trusted") != 0) {
		fatal(a, v.state, resp->data);
	} else if (v.next_index < before) {
		fatal(a, "next_index behind what was confirmed", resp->data);
	} else {
		if (v.next_index == e->next) {
			fleet_accept(&a->f, e);
		} else {
			count(C_RESYNC, 1);
			catch_up(a, v.next_index);
		}
		count(C_ACCEPTED, 1);
		count(C_RECORDS, a->f.next - before);
		memcpy(a->f.nonce, v.nonce, v.nonce_len);
		a->f.nonce_len = v.nonce_len;
	}
	wire_free(WIRE_VERDICT, &v);
	return strcmp(v.state, "trusted") == 0 ? 0 : -1;
}

static int take_nonce(struct agent *a, const struct bench_buf *resp)
{
	struct imt_error err;
	struct wire_nonce n;

	if (wire_decode(WIRE_NONCE, resp->data, resp->len, &n, &err) !=
	    IMT_OK) {
		fatal(a, "not a nonce", err.msg);
		return -1;
	}
	memcpy(a->f.nonce, n.nonce, n.nonce_len);
	a->f.nonce_len = n.nonce_len;
	wire_free(WIRE_NONCE, &n);
	count(C_NONCES, 1);
	return 0;
}

/* Run each of @h[2] once in @m, at once; their statuses (0: failed). */
static void both(CURLM *m, CURL *h[2], long status[2])
{
	size_t i;

	for (i = 0; i < 2; i++)
		curl_multi_add_handle(m, h[i]);
	bench_http_run(m);
	for (i = 0; i < 2; i++) {
		curl_multi_remove_handle(m, h[i]);
		status[i] = 0;
		if (bench_http_result(h[i]) == CURLE_OK)
			curl_easy_getinfo(h[i], CURLINFO_RESPONSE_CODE,
					  &status[i]);
	}
}

/*
 * The same evidence straight to two verifiers at once: at most one may
 * take it. Both connections are made first (GET /v1/health), so the two
 * requests leave within microseconds of each other and meet in the
 * verifiers' checks. The winner's verdict counts.
 */
static int race(struct worker *w, struct agent *a, const char *json, size_t len)
{
	const struct opts *o = w->o;
	struct bench_buf resp[2] = { { 0 } };
	char base[2][64], url[2][512];
	CURL *h[2] = { NULL, NULL };
	CURLM *m = curl_multi_init();
	long status[2];
	size_t i, first = (w->sent / RACE_EVERY) % o->nrace;
	int won = 0, rc = -1;

	count(C_RACES, 1);
	for (i = 0; i < 2; i++) {
		snprintf(base[i], sizeof(base[i]), "https://127.0.0.1:%u",
			 o->race_ports[(first + i) % o->nrace]);
		snprintf(url[i], sizeof(url[i]), "%s/v1/health", base[i]);
		h[i] = easy(o, &resp[i]);
		if (h[i] == NULL || m == NULL)
			goto out;
		curl_easy_setopt(h[i], CURLOPT_URL, url[i]);
		curl_easy_setopt(h[i], CURLOPT_HTTPGET, 1L);
	}
	both(m, h, status);
	for (i = 0; i < 2; i++) {
		snprintf(url[i], sizeof(url[i]), "%s/v1/agents/%s/evidence",
			 base[i], a->f.id);
		resp[i].len = 0;
		curl_easy_setopt(h[i], CURLOPT_URL, url[i]);
		bench_http_set_body(h[i], json, len, 1);
	}
	both(m, h, status);
	won = (status[0] == 200) + (status[1] == 200);
	rc = 0;
	if (won == 2) {
		count(C_RACE_TWICE, 1);
		fatal(a, "evidence accepted by two verifiers", resp[1].data);
		rc = -1;
	} else if (won == 1) {
		i = status[0] == 200; /* the loser */
		count(C_RACE_ONE, 1);
		count(status[i] == 409 ? C_RACE_LOST_CONFLICT :
		      status[i] == 403 && is_nonce_refusal(resp[i].data) ?
					 C_RACE_LOST_NONCE :
					 C_RACE_LOST_OTHER,
		      1);
		rc = take_verdict(a, &w->ev, &resp[1 - i]);
	} else {
		setback(a, status[0] != 0 ? status[0] : status[1],
			status[0] != 0 ? resp[0].data : resp[1].data);
	}
out:
	for (i = 0; i < 2; i++) {
		curl_easy_cleanup(h[i]);
		free(resp[i].data);
	}
	curl_multi_cleanup(m);
	return rc;
}

/*
 * The attacker with a TPM of their own: @a's next evidence, quoted by
 * another AK over the same PCRs and nonce, must be refused, and leave
 * @a's nonce usable (refused evidence changes nothing).
 */
static int impostor(struct worker *w, struct agent *a, size_t nrec)
{
	struct soft_ak real = a->f.ak;
	long status;
	char *json;

	a->f.ak = w->rogue;
	json = fleet_evidence(&a->f, nrec, &w->ev);
	a->f.ak = real;
	if (json == NULL) {
		fatal(a, "evidence", "cannot build");
		return -1;
	}
	count(C_IMPOSTORS, 1);
	status = post(w->multi, a->c->h, a->c->base, a->f.id, "evidence", json,
		      w->ev.body_len, &w->resp);
	free(json);
	if (status == 200) {
		fatal(a, "evidence of another TPM accepted", w->resp.data);
		return -1;
	}
	if (status == 403 && strstr(w->resp.data, "nonce") == NULL)
		count(C_IMPOSTOR_REFUSED, 1);
	else
		setback(a, status, w->resp.data);
	return 0;
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		recording = 1;
	else
		atomic_store(&stop, 1);
}

/* Keep @ms, one honest evidence's round trip (out of memory: dropped). */
static void note_latency(struct worker *w, double ms)
{
	double *grown;

	if (w->nlat == w->caplat) {
		grown = realloc(w->lat,
				(w->caplat * 2 + 1024) * sizeof(*grown));
		if (grown == NULL)
			return;
		w->lat = grown;
		w->caplat = w->caplat * 2 + 1024;
	}
	w->lat[w->nlat++] = ms;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Every worker's latencies, sorted: the percentiles on one line. */
static void print_latency(struct worker *w, size_t n)
{
	size_t i, all = 0, at = 0;
	double *v;

	for (i = 0; i < n; i++)
		all += w[i].nlat;
	v = malloc((all + 1) * sizeof(*v));
	if (v == NULL || all == 0) {
		printf("soak: latency_ms none\n");
		free(v);
		return;
	}
	for (i = 0; i < n; i++) {
		memcpy(v + at, w[i].lat, w[i].nlat * sizeof(*v));
		at += w[i].nlat;
	}
	qsort(v, all, sizeof(*v), by_value);
	printf("soak: latency_ms p50 %.1f p95 %.1f p99 %.1f max %.1f n %zu\n",
	       v[all / 2], v[all * 95 / 100], v[all * 99 / 100], v[all - 1],
	       all);
	free(v);
}

/* One forged evidence for @a from @h: counted by its answer. */
static void forge_one(struct forger *f, CURLM *m, CURL *h,
		      struct fleet_agent *fa, struct fleet_evidence *ev,
		      struct bench_buf *resp)
{
	char base[96];
	char *json = fleet_evidence(fa, 1, ev);
	long status;

	if (json == NULL)
		return;
	snprintf(base, sizeof(base), "https://127.0.0.1:%u", f->o->port);
	count(C_FORGED, 1);
	status = post(m, h, base, fa->id, "evidence", json, ev->body_len, resp);
	free(json);
	if (status == 200) {
		count(C_FATAL, 1);
		fprintf(stderr, "soak: %s: forged evidence accepted\n", fa->id);
	}
	count(status == 403 ? C_FORGED_REFUSED :
	      status == 429 ? C_FORGED_LIMITED :
			      C_FORGED_OTHER,
	      1);
}

/* -F: a forger: evidence of its own AK for each machine in turn. */
static void *forge(void *arg)
{
	struct forger *f = arg;
	struct bench_buf resp = { 0 };
	struct fleet_evidence ev;
	struct fleet_agent fa;
	CURLM *m = curl_multi_init();
	CURL *h = easy(f->o, &resp);
	size_t i = 0;

	ev.records = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
	memset(&fa, 0, sizeof(fa));
	if (m == NULL || h == NULL || ev.records == NULL ||
	    soft_ak_new(&fa.ak) < 0)
		goto out;
	curl_easy_setopt(h, CURLOPT_INTERFACE, f->addr);
	fa.nonce_len = 20;
	while (!atomic_load(&stop)) {
		if (!recording) { /* -L: the attacks did not start */
			usleep(100000);
			continue;
		}
		snprintf(fa.id, sizeof(fa.id), "%s", f->a[i].f.id);
		i = (i + 1) % f->o->agents;
		forge_one(f, m, h, &fa, &ev, &resp);
		usleep((useconds_t)(1e6 / FORGE_RATE));
	}
out:
	curl_easy_cleanup(h);
	curl_multi_cleanup(m);
	free(ev.records);
	free(resp.data);
	return NULL;
}

/* One step of @a: a nonce if it has none, else evidence. 1: accepted. */
static int step(struct worker *w, struct agent *a, size_t nrec)
{
	double t0;
	long status;
	char *json;
	int rc;

	if (a->f.nonce_len == 0) {
		status = post(w->multi, a->c->h, a->c->base, a->f.id, "nonce",
			      "", 0, &w->resp);
		if (status != 200) {
			setback(a, status, w->resp.data);
			return 0;
		}
		return take_nonce(a, &w->resp) < 0 ? -1 : 0;
	}
	if (w->o->nrace >= 2 && w->attack &&
	    ++w->sent % RACE_EVERY == RACE_EVERY / 2)
		return impostor(w, a, nrec);
	json = fleet_evidence(&a->f, nrec, &w->ev);
	if (json == NULL) {
		fatal(a, "evidence", "cannot build");
		return -1;
	}
	if (w->o->nrace >= 2 && w->attack && w->sent % RACE_EVERY == 0) {
		rc = race(w, a, json, w->ev.body_len);
		free(json);
		return rc < 0 ? -1 : a->f.nonce_len > 0;
	}
	t0 = bench_now();
	status = post(w->multi, a->c->h, a->c->base, a->f.id, "evidence", json,
		      w->ev.body_len, &w->resp);
	free(json);
	if (status != 200) {
		setback(a, status, w->resp.data);
		return 0;
	}
	if (w->attack && recording)
		note_latency(w, (bench_now() - t0) * 1000);
	return take_verdict(a, &w->ev, &w->resp) < 0 ? -1 : 1;
}

/* -i: @a's evidence was accepted; the next is due an interval later. */
static void next_due(const struct opts *o, struct agent *a)
{
	double now = bench_now();

	if (now - a->due >= LATE_SECONDS)
		count(C_LATE, 1);
	a->due += o->interval;
	if (a->due < now) /* far behind: start over from now */
		a->due = now;
	a->not_before = a->due;
}

static void *stream(void *arg)
{
	struct worker *w = arg;
	size_t i = 0;
	int rc;

	w->attack = 1;
	while (!atomic_load(&stop)) {
		struct agent *a = &w->a[i];

		i = (i + 1) % w->n;
		if (a->not_before > bench_now()) {
			if (i == 0)
				usleep(10000);
			continue;
		}
		rc = step(w, a, w->o->records);
		if (rc < 0)
			atomic_store(&stop, 1);
		else if (rc == 1 && w->o->interval > 0)
			next_due(w->o, a);
	}
	return NULL;
}

/* Every agent's last heartbeat, accepted, within SETTLE_SECONDS. */
static void *settle(void *arg)
{
	struct worker *w = arg;
	double until =
		bench_now() + SETTLE_SECONDS + (double)w->o->agents / 1000;
	size_t i;
	int rc;

	w->attack = 0;
	for (i = 0; i < w->n; i++) {
		struct agent *a = &w->a[i];

		do {
			while (a->not_before > bench_now())
				usleep(20000);
			rc = step(w, a, 0);
		} while (rc == 0 && bench_now() < until);
		if (rc != 1) {
			fatal(a, "no heartbeat accepted at the end", NULL);
			return NULL;
		}
	}
	return NULL;
}

/* A line every 5 s (@t), the counts then: how the run goes while
 * things break; tests/scale and tests/bench read it. */
static void progress(unsigned int t)
{
	printf("soak: t=%u s accepted %llu records %llu connection_errors "
	       "%llu unavailable %llu nonce_refused %llu\n",
	       t, (unsigned long long)atomic_load(&counts[C_ACCEPTED]),
	       (unsigned long long)atomic_load(&counts[C_RECORDS]),
	       (unsigned long long)atomic_load(&counts[C_CONN]),
	       (unsigned long long)atomic_load(&counts[C_UNAVAILABLE]),
	       (unsigned long long)atomic_load(&counts[C_NONCE_REFUSED]));
}

static int run_threads(struct worker *w, size_t n, void *(*fn)(void *))
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pthread_create(&w[i].th, NULL, fn, &w[i]) != 0)
			return -1;
	for (i = 0; i < n; i++)
		pthread_join(w[i].th, NULL);
	return 0;
}

static int write_agents(const struct opts *o, const struct agent *a)
{
	char path[4096];
	FILE *f;
	size_t i;
	int ok;

	snprintf(path, sizeof(path), "%s/agents.tsv", o->dir);
	f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return -1;
	}
	for (i = 0; i < o->agents; i++)
		fprintf(f, "%s\t%llu\n", a[i].f.id,
			(unsigned long long)a[i].f.next);
	ok = !ferror(f);
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: soak-agents [-n AGENTS] [-t THREADS] [-s SECONDS] [-r RECORDS]\n"
		"                   [-i INTERVAL] [-c CONNECTIONS] [-R PORT,PORT...]\n"
		"                   [-A ADDRS] [-F ADDR,ADDR...] [-L]\n"
		"                   -D DB -p PORT -C CA -o DIR\n");
	exit(2);
}

static void parse_ports(struct opts *o, char *list)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nrace == PORTS_MAX)
			usage();
		o->race_ports[o->nrace++] =
			(unsigned int)strtoul(tok, NULL, 10);
	}
}

static void parse_forgers(struct opts *o, char *list)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(list, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nforgers == PORTS_MAX || strncmp(tok, "127.", 4) != 0)
			usage(); /* loopback only */
		o->forgers[o->nforgers++] = tok;
	}
}

static void parse(int argc, char **argv, struct opts *o)
{
	int ch;

	*o = (struct opts){
		.agents = 1000, .threads = 8, .seconds = 60, .records = 5
	};
	while ((ch = getopt(argc, argv, "n:t:s:r:i:c:R:A:F:LD:p:C:o:")) != -1) {
		switch (ch) {
		case 'L':
			recording = 0;
			break;
		case 'A':
			o->naddrs = strtoul(optarg, NULL, 10);
			break;
		case 'F':
			parse_forgers(o, optarg);
			break;
		case 'n':
			o->agents = strtoul(optarg, NULL, 10);
			break;
		case 't':
			o->threads = strtoul(optarg, NULL, 10);
			break;
		case 's':
			o->seconds = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'r':
			o->records = strtoul(optarg, NULL, 10);
			break;
		case 'i':
			o->interval = strtod(optarg, NULL);
			break;
		case 'c':
			o->conns = strtoul(optarg, NULL, 10);
			break;
		case 'R':
			parse_ports(o, optarg);
			break;
		case 'D':
			o->db = optarg;
			break;
		case 'p':
			o->port = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'C':
			o->ca = optarg;
			break;
		case 'o':
			o->dir = optarg;
			break;
		default:
			usage();
		}
	}
	if (o->db == NULL || o->port == 0 || o->ca == NULL || o->dir == NULL ||
	    o->agents == 0 || o->threads == 0 || o->threads > THREADS_MAX ||
	    o->threads > o->agents || o->seconds == 0 ||
	    o->records > FLEET_BATCH_MAX || o->interval < 0 || o->naddrs > 250)
		usage();
	if (o->conns == 0 || o->conns > o->agents)
		o->conns = o->agents; /* one each */
	if (o->conns < o->threads)
		o->conns = o->threads;
}

/* Worker @w's connections; agent j uses the (j mod n)-th. -1 on failure. */
static int connections(const struct opts *o, struct worker *w, size_t i)
{
	size_t j, per = o->conns / o->threads;
	char name[96], addr[32];

	w->nconns = per + (i < o->conns % o->threads);
	w->conns = calloc(w->nconns, sizeof(*w->conns));
	if (w->conns == NULL)
		return -1;
	for (j = 0; j < w->nconns; j++) {
		CURL *h = easy(o, &w->resp);

		/* one per agent: named after it, as bench-verifier's */
		if (o->conns == o->agents)
			snprintf(name, sizeof(name), "%s", w->a[j].f.id);
		else
			snprintf(name, sizeof(name), "conn-%zu-%zu", i, j);
		if (h != NULL && o->naddrs > 0) {
			/* -A: 127.0.1.1 on, spread over the fleet */
			snprintf(addr, sizeof(addr), "127.0.1.%zu",
				 1 + (i * per + j) % o->naddrs);
			curl_easy_setopt(h, CURLOPT_INTERFACE, addr);
		}
		if (bench_http_connect(&w->conns[j], h, name, o->port) < 0)
			return -1;
	}
	for (j = 0; j < w->n; j++)
		w->a[j].c = &w->conns[j % w->nconns];
	return 0;
}

static struct worker *workers(const struct opts *o, struct agent *a)
{
	struct worker *w = calloc(o->threads, sizeof(*w));
	size_t i, at = 0, per = o->agents / o->threads;

	for (i = 0; w != NULL && i < o->threads; i++) {
		w[i].o = o;
		w[i].a = a + at;
		w[i].n = per + (i < o->agents % o->threads);
		at += w[i].n;
		w[i].ev.records = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
		w[i].multi = curl_multi_init();
		if (w[i].ev.records == NULL || w[i].multi == NULL ||
		    soft_ak_new(&w[i].rogue) < 0)
			return NULL;
		curl_multi_setopt(w[i].multi, CURLMOPT_MAXCONNECTS,
				  (long)w[i].n + 16);
		if (connections(o, &w[i], i) < 0)
			return NULL;
	}
	return w;
}

int main(int argc, char **argv)
{
	struct forger forgers[PORTS_MAX];
	struct fleet_agent *seed;
	struct agent *a;
	struct worker *w;
	struct opts o;
	double t0, t;
	size_t i;

	parse(argc, argv, &o);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	headers = bench_http_init();
	a = calloc(o.agents, sizeof(*a));
	seed = calloc(o.agents, sizeof(*seed));
	if (headers == NULL || a == NULL || seed == NULL)
		return 1;
	t0 = bench_now();
	for (i = 0; i < o.agents; i++) {
		snprintf(seed[i].id, sizeof(seed[i].id), "soak-%06zu", i);
		if (soft_ak_new(&seed[i].ak) < 0)
			return 1;
	}
	if (fleet_pool_init() < 0 || fleet_seed(o.db, seed, o.agents) < 0)
		return 1;
	for (i = 0; i < o.agents; i++)
		a[i].f = seed[i];
	free(seed);
	printf("soak: seeded %zu machines in %.1f s\n", o.agents,
	       bench_now() - t0);
	w = workers(&o, a);
	if (w == NULL)
		return 1;

	t0 = bench_now();
	/* -i: the fleet's evidence spread evenly over the interval */
	for (i = 0; o.interval > 0 && i < o.agents; i++)
		a[i].due = a[i].not_before =
			t0 + o.interval * (double)i / (double)o.agents;
	for (i = 0; i < o.threads; i++)
		if (pthread_create(&w[i].th, NULL, stream, &w[i]) != 0)
			return 1;
	for (i = 0; i < o.nforgers; i++) {
		forgers[i] = (struct forger){ .o = &o,
					      .a = a,
					      .addr = o.forgers[i] };
		if (pthread_create(&forgers[i].th, NULL, forge, &forgers[i]) !=
		    0)
			return 1;
	}
	for (t = 0;
	     !atomic_load(&stop) && (t = bench_now() - t0) < o.seconds;) {
		unsigned int mark;

		usleep(250000);
		mark = (unsigned int)(bench_now() - t0) / 5 * 5;
		if (mark != (unsigned int)t / 5 * 5)
			progress(mark);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < o.threads; i++)
		pthread_join(w[i].th, NULL);
	for (i = 0; i < o.nforgers; i++)
		pthread_join(forgers[i].th, NULL);
	printf("soak: streamed for %.1f s\n", bench_now() - t0);
	print_latency(w, o.threads);
	if (atomic_load(&counts[C_FATAL]) == 0) {
		atomic_store(&stop, 0);
		t0 = bench_now();
		if (run_threads(w, o.threads, settle) < 0)
			return 1;
		printf("soak: settled in %.1f s (one heartbeat per agent)\n",
		       bench_now() - t0);
	}
	for (i = 0; i < C_COUNT; i++)
		printf("soak: %s %llu\n", count_names[i],
		       (unsigned long long)atomic_load(&counts[i]));
	if (write_agents(&o, a) < 0)
		return 1;
	return atomic_load(&counts[C_FATAL]) == 0 ? 0 : 1;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_import_latency.c - evidence latency of a real imatrust-verifier
 * while an operator imports a large reference set, against the same with
 * no import, in one run.
 *
 *	bench-import-latency [-n AGENTS] [-i INTERVAL_MS] [-s SECONDS]
 *		[-R REFS] -D DB -p PORT -C CA -o DIR -- VERIFIER ARGS...
 *
 * Seeds DB with AGENTS activated machines (bench_fleet.c: software P-256
 * AKs, references for their records) and an operator token, starts the
 * verifier command (HTTPS on 127.0.0.1:PORT, certificate CA naming
 * *.agents.bench), then drives every agent from one thread (a curl multi
 * handle, one keep-alive connection per agent under a name of its own):
 * each sends a heartbeat every INTERVAL_MS (paced, not back to back, so
 * the latency is the verifier's, not a queue this driver builds). After
 * warm-up (nonce, boot_aggregate evidence), SECONDS of heartbeats with no
 * import, then one POST /v1/references of REFS new references from
 * another thread, heartbeats going on until it is answered. Prints the
 * heartbeat latency (median, p99, max) of both windows and the import's
 * duration. Every answer must be 200 "trusted", else exit 1.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/rand.h>

#include "bench_fleet.h"
#include "bench_http.h"
#include "db.h"
#include "hex.h"

#define TOKEN_BYTES 16 /* operator token: 32 hex characters */

struct opts {
	size_t agents;
	unsigned int interval_ms;
	unsigned int seconds;
	size_t refs;
	unsigned int port;
	const char *db, *ca, *dir;
	char **verifier;
};

enum stage { STAGE_NONCE, STAGE_FIRST, STAGE_BEAT };
enum window { WIN_NONE, WIN_BASE, WIN_IMPORT, WIN_COUNT };

struct agent {
	struct fleet_agent a;
	struct fleet_evidence ev; /* records: the shared buffer */
	CURL *h;
	struct curl_slist *resolve; /* ID.agents.bench -> 127.0.0.1 */
	char base[128];
	struct bench_buf resp;
	char *body;
	enum stage stage;
	enum window win;	/* of the request in flight */
	int stalled[WIN_COUNT]; /* counted in that window's samples */
	double due, started;
	int busy;
};

#define STALL_MS 1000.0 /* a heartbeat this slow stalled its agent */

struct samples {
	double *ms;
	size_t n, cap;
	size_t stalled_agents; /* agents with a heartbeat >= STALL_MS */
};

struct import_job {
	const struct opts *o;
	char *body;
	char auth[128];
	struct bench_buf resp;
	long status;
	double t0, t1;
	atomic_int done;
	pthread_t th;
};

static pid_t verifier_pid = -1;
static struct curl_slist *headers;

static void stop_verifier(void)
{
	bench_stop(&verifier_pid);
}

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "bench: %s: %.300s\n", what,
		detail != NULL ? detail : "");
	exit(1);
}

static CURL *easy(const struct opts *o, struct bench_buf *resp, long timeout)
{
	CURL *c = bench_http_easy(o->ca, resp, timeout);

	if (c == NULL)
		die("curl", "no easy handle");
	return c;
}

static void samples_add(struct samples *s, double ms)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->ms = realloc(s->ms, s->cap * sizeof(*s->ms));
		if (s->ms == NULL)
			die("samples", "out of memory");
	}
	s->ms[s->n++] = ms;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, struct samples *s, double secs)
{
	size_t p50, p99;

	if (s->n == 0) {
		printf("%-15s no heartbeat answered\n", name);
		return;
	}
	qsort(s->ms, s->n, sizeof(*s->ms), cmp_double);
	p50 = s->n / 2;
	p99 = s->n * 99 / 100;
	printf("%-15s %7zu heartbeats in %6.2f s (%6.0f/s)  median %8.2f ms"
	       "  p99 %8.2f ms  max %8.2f ms  agents stalled >= %.0f s: "
	       "%zu\n",
	       name, s->n, secs, (double)s->n / secs, s->ms[p50],
	       s->ms[p99 < s->n ? p99 : s->n - 1], s->ms[s->n - 1],
	       STALL_MS / 1e3, s->stalled_agents);
}

/* ---- the agents ------------------------------------------------------ */

static void start(const struct opts *o, CURLM *m, struct agent *ag,
		  enum window win)
{
	char url[512];
	const char *what = ag->stage == STAGE_NONCE ? "nonce" : "evidence";

	free(ag->body);
	ag->body = ag->stage == STAGE_NONCE ?
			   strdup("") :
			   fleet_evidence(&ag->a, 0, &ag->ev);
	if (ag->body == NULL)
		die(ag->a.id, "cannot build evidence");
	snprintf(url, sizeof(url), "%s/v1/agents/%s/%s", ag->base, ag->a.id,
		 what);
	ag->resp.len = 0;
	curl_easy_setopt(ag->h, CURLOPT_URL, url);
	if (ag->stage == STAGE_NONCE)
		bench_http_set_body(ag->h, ag->body, 0, 0);
	else
		bench_http_set_body(ag->h, ag->body, ag->ev.body_len, 1);
	(void)o;
	ag->win = win;
	ag->started = bench_now();
	ag->busy = 1;
	if (curl_multi_add_handle(m, ag->h) != CURLM_OK)
		die(ag->a.id, "curl_multi_add_handle");
}

/* The nonce answer's nonce (its other fields vary between versions). */
static void take_nonce(struct agent *ag)
{
	json_t *j = json_loads(ag->resp.data, 0, NULL);
	const char *hex = json_string_value(json_object_get(j, "nonce"));
	size_t len = hex != NULL ? strlen(hex) / 2 : 0;

	if (len == 0 || len > sizeof(ag->a.nonce) ||
	    hex_decode(hex, 2 * len, ag->a.nonce, sizeof(ag->a.nonce)) < 0)
		die(ag->a.id, ag->resp.data);
	ag->a.nonce_len = len;
	json_decref(j);
}

/* The verdict: "trusted" and the next index; take the next nonce. */
static void take_verdict(struct agent *ag)
{
	struct wire_verdict v;
	struct imt_error err;

	if (wire_decode(WIRE_VERDICT, ag->resp.data, ag->resp.len, &v, &err) !=
	    IMT_OK) {
		fprintf(stderr, "bench: %s answered: %.300s\n", ag->a.id,
			ag->resp.data);
		die(ag->a.id, err.msg);
	}
	if (strcmp(v.state, "trusted") != 0 || v.next_index != ag->ev.next)
		die(ag->a.id, ag->resp.data);
	memcpy(ag->a.nonce, v.nonce, v.nonce_len);
	ag->a.nonce_len = v.nonce_len;
	wire_free(WIRE_VERDICT, &v);
	fleet_accept(&ag->a, &ag->ev);
}

/* The answer must be 200 and what was wanted; record the latency. */
static void finish(CURLM *m, struct agent *ag, CURLcode rc, struct samples *win,
		   double interval)
{
	double t = bench_now();
	long status = 0;

	curl_multi_remove_handle(m, ag->h);
	ag->busy = 0;
	if (rc != CURLE_OK)
		die(ag->a.id, curl_easy_strerror(rc));
	curl_easy_getinfo(ag->h, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200)
		die(ag->a.id, ag->resp.data);
	if (ag->stage == STAGE_NONCE)
		take_nonce(ag);
	else
		take_verdict(ag);
	if (ag->stage == STAGE_BEAT && ag->win != WIN_NONE) {
		double ms = (t - ag->started) * 1e3;

		samples_add(&win[ag->win], ms);
		if (ms >= STALL_MS && !ag->stalled[ag->win]++)
			win[ag->win].stalled_agents++;
	}
	if (ag->stage != STAGE_BEAT)
		ag->stage++;
	/* paced: the next one an interval after this one started */
	ag->due = ag->started + interval;
	if (ag->due < t)
		ag->due = t;
}

static struct agent *agents_new(const struct opts *o, uint8_t *records)
{
	struct agent *ag = calloc(o->agents, sizeof(*ag));
	struct fleet_agent *fa = calloc(o->agents, sizeof(*fa));
	char entry[160];
	size_t i;

	if (ag == NULL || fa == NULL)
		die("agents", "out of memory");
	for (i = 0; i < o->agents; i++) {
		snprintf(fa[i].id, sizeof(fa[i].id), "bench-%06zu", i);
		if (soft_ak_new(&fa[i].ak) < 0)
			die("soft_ak_new", fa[i].id);
	}
	if (fleet_pool_init() < 0 || fleet_seed(o->db, fa, o->agents) < 0)
		die("seeding", o->db);
	for (i = 0; i < o->agents; i++) {
		ag[i].a = fa[i];
		ag[i].ev.records = records;
		ag[i].h = easy(o, &ag[i].resp, 600);
		curl_easy_setopt(ag[i].h, CURLOPT_HTTPHEADER, headers);
		snprintf(entry, sizeof(entry), "%s.agents.bench:%u:127.0.0.1",
			 fa[i].id, o->port);
		snprintf(ag[i].base, sizeof(ag[i].base),
			 "https://%s.agents.bench:%u", fa[i].id, o->port);
		ag[i].resolve = curl_slist_append(NULL, entry);
		curl_easy_setopt(ag[i].h, CURLOPT_RESOLVE, ag[i].resolve);
	}
	free(fa);
	return ag;
}

/* ---- the operator ---------------------------------------------------- */

/* An operator token, stored hashed in the database. */
static void add_token(const struct opts *o, char *hex)
{
	uint8_t raw[TOKEN_BYTES];
	struct imt_error err;
	struct db *db;

	RAND_bytes(raw, sizeof(raw));
	hex_encode(raw, sizeof(raw), hex);
	if (db_open(o->db, &db, &err) < 0 ||
	    db_token_add(db, "bench", (const uint8_t *)hex, 2 * TOKEN_BYTES, 0,
			 &err) < 0)
		die("token", err.msg);
	db_close(db);
}

/* REFS new references: paths no agent measures, random digests. */
static char *import_body(size_t n)
{
	static const char head[] = "{\"v\":1,\"source\":{\"kind\":\"deb\","
				   "\"name\":\"bench-import.deb\"},\"refs\":[";
	const size_t entry = 128;
	char *body = malloc(sizeof(head) + n * entry + 4), *p;
	uint8_t d[32];
	char hex[65];
	size_t i;

	if (body == NULL)
		die("import body", "out of memory");
	p = body + sprintf(body, "%s", head);
	for (i = 0; i < n; i++) {
		RAND_bytes(d, sizeof(d));
		hex_encode(d, sizeof(d), hex);
		p += sprintf(p,
			     "%s{\"path\":\"/opt/bench/f%07zu\",\"algo\":"
			     "\"sha256\",\"digest\":\"%s\"}",
			     i ? "," : "", i, hex);
	}
	strcpy(p, "]}");
	return body;
}

static void *import_thread(void *arg)
{
	struct import_job *j = arg;
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: "
						       "application/json");
	char url[128];
	CURL *c = easy(j->o, &j->resp, 1800);
	CURLcode rc;

	h = curl_slist_append(h, j->auth);
	h = curl_slist_append(h, "Expect:");
	snprintf(url, sizeof(url), "https://127.0.0.1:%u/v1/references",
		 j->o->port);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, j->body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(j->body));
	j->t0 = bench_now();
	rc = curl_easy_perform(c);
	j->t1 = bench_now();
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &j->status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	atomic_store(&j->done, 1);
	return NULL;
}

/* ---- the run --------------------------------------------------------- */

static int wait_ready(const struct opts *o)
{
	struct bench_buf b = { 0 };
	CURL *c = easy(o, &b, 5);
	int rc = bench_http_wait_ready(c, o->port, &verifier_pid);

	curl_easy_cleanup(c);
	free(b.data);
	return rc;
}

struct run {
	const struct opts *o;
	CURLM *m;
	struct agent *ag;
	struct samples win[WIN_COUNT];
	struct import_job job;
	double base0, base1; /* the window with no import */
	int importing;
};

/* Start the agents that are due; @stop: start none, only drain. */
static size_t start_due(struct run *r, enum window win, int stop)
{
	double t = bench_now();
	size_t i, busy = 0;

	for (i = 0; i < r->o->agents; i++) {
		struct agent *ag = &r->ag[i];

		if (!ag->busy && !stop && ag->due <= t)
			start(r->o, r->m, ag,
			      ag->stage == STAGE_BEAT ? win : WIN_NONE);
		busy += ag->busy;
	}
	return busy;
}

static void drive(struct run *r, double interval)
{
	size_t i;
	CURLMsg *msg;
	int running, n;

	curl_multi_perform(r->m, &running);
	while ((msg = curl_multi_info_read(r->m, &n)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		for (i = 0; i < r->o->agents; i++)
			if (r->ag[i].h == msg->easy_handle)
				break;
		if (i < r->o->agents)
			finish(r->m, &r->ag[i], msg->data.result, r->win,
			       interval);
	}
	curl_multi_poll(r->m, NULL, 0, 2, &n);
}

static int all_beating(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->o->agents; i++)
		if (r->ag[i].stage != STAGE_BEAT)
			return 0;
	return 1;
}

/* Warm-up, the window with no import, the import window, drain. */
static void run_phases(struct run *r)
{
	double interval = r->o->interval_ms / 1e3, t0 = bench_now();
	enum window win = WIN_NONE;
	int stop = 0;

	for (;;) {
		double t = bench_now();

		if (win == WIN_NONE && all_beating(r)) {
			printf("warm-up: %zu agents connected and attested: "
			       "%.1f s\n",
			       r->o->agents, t - t0);
			win = WIN_BASE;
			r->base0 = t;
		} else if (win == WIN_BASE && t - r->base0 >= r->o->seconds) {
			r->base1 = t;
			win = WIN_IMPORT;
			if (pthread_create(&r->job.th, NULL, import_thread,
					   &r->job) != 0)
				die("pthread_create", "import");
		} else if (win == WIN_IMPORT && atomic_load(&r->job.done)) {
			stop = 1;
		}
		if (start_due(r, win, stop) == 0 && stop)
			break;
		drive(r, interval);
	}
	pthread_join(r->job.th, NULL);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: bench-import-latency [-n AGENTS] "
		"[-i INTERVAL_MS] [-s SECONDS] [-R REFS]\n"
		"        -D DB -p PORT -C CA -o DIR -- VERIFIER ARGS...\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int ch;

	*o = (struct opts){
		.agents = 200, .interval_ms = 200, .seconds = 5, .refs = 100000
	};
	while ((ch = getopt(argc, argv, "n:i:s:R:D:p:C:o:")) != -1) {
		switch (ch) {
		case 'n':
			o->agents = strtoul(optarg, NULL, 10);
			break;
		case 'i':
			o->interval_ms =
				(unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 's':
			o->seconds = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			o->refs = strtoul(optarg, NULL, 10);
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
	    optind >= argc || o->agents == 0 || o->interval_ms == 0 ||
	    o->seconds == 0 || o->refs == 0 || o->refs > 100000)
		usage();
	o->verifier = argv + optind;
}

int main(int argc, char **argv)
{
	static struct run r;
	struct opts o;
	char log[4096], token[2 * TOKEN_BYTES + 1];
	uint8_t *records;
	double t;

	parse(argc, argv, &o);
	headers = bench_http_init();
	if (headers == NULL)
		return 1;
	records = malloc(FLEET_BATCH_MAX * FLEET_RECORD_MAX);
	if (records == NULL)
		return 1;
	t = bench_now();
	r.o = &o;
	r.ag = agents_new(&o, records);
	add_token(&o, token);
	r.job.o = &o;
	r.job.body = import_body(o.refs);
	snprintf(r.job.auth, sizeof(r.job.auth), "Authorization: Bearer %s",
		 token);
	printf("seeding: %zu machines, %d references, an operator token; "
	       "an import body of %zu references (%.1f MB): %.1f s\n",
	       o.agents, FLEET_POOL, o.refs, (double)strlen(r.job.body) / 1e6,
	       bench_now() - t);

	snprintf(log, sizeof(log), "%s/verifier.log", o.dir);
	atexit(stop_verifier);
	verifier_pid = bench_spawn(o.verifier, log);
	if (verifier_pid < 0 || wait_ready(&o) < 0)
		die("the verifier did not start", log);
	r.m = curl_multi_init();
	curl_multi_setopt(r.m, CURLMOPT_MAXCONNECTS, (long)o.agents + 16);
	run_phases(&r);

	printf("agents %zu, a heartbeat each every %u ms (%.0f/s offered)\n",
	       o.agents, o.interval_ms, o.agents * 1e3 / o.interval_ms);
	report("no import", &r.win[WIN_BASE], r.base1 - r.base0);
	report("during import", &r.win[WIN_IMPORT], r.job.t1 - r.job.t0);
	printf("import: %zu references, HTTP %ld in %.2f s (%.0f "
	       "references/s): %.300s\n",
	       o.refs, r.job.status, r.job.t1 - r.job.t0,
	       (double)o.refs / (r.job.t1 - r.job.t0),
	       r.job.resp.data != NULL ? r.job.resp.data : "");
	/* close the connections first: the verifier then stops at once */
	for (size_t i = 0; i < o.agents; i++)
		curl_easy_cleanup(r.ag[i].h);
	curl_multi_cleanup(r.m);
	stop_verifier();
	return r.job.status == 200 ? 0 : 1;
}

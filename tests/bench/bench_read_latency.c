// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_read_latency.c - evidence latency of a real imatrust-verifier
 * while an operator's console reads a machine's records with their
 * explanation among many references (issue #33, "Reads never hold the
 * writer"), against the same with no reader, in one run.
 *
 *	bench-read-latency [-n AGENTS] [-i INTERVAL_MS] [-s SECONDS]
 *		[-R REFS] [-L BOUND_MS] -D DB -p PORT -C CA -o DIR --
 *		VERIFIER ARGS...
 *
 * Seeds DB with AGENTS activated machines (bench_fleet.c), REFS more
 * references imported as Debian packages of 100 files (as
 * tests/bench/explain does), a machine "console-target" with one boot of
 * 20,000 known records spread over them, and an operator token; starts
 * the verifier, drives the agents' heartbeats every INTERVAL_MS from one
 * thread (as bench_import_latency.c does). After warm-up: SECONDS of
 * heartbeats with no reader, then SECONDS with a console-shaped loop on
 * another thread: GET /v1/machines/console-target/records?limit=1000
 * page after page on "next", from the start again at the end, back to
 * back, each followed by the console's filter ?verdict=violation (a scan
 * of every record, none matching). Prints the heartbeat latency
 * (median, p99, max) of both windows and the pages' times. With -L:
 * exit 1 unless the reader window's median heartbeat exceeds the quiet
 * window's by at most one page's time (the median page) plus BOUND_MS
 * of slack; the median, since the p99 of a shared 2-core host moves by
 * more than a page from run to run. Every answer must be 200
 * ("trusted" for evidence), else exit 1.
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
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "bench_fleet.h"
#include "bench_http.h"
#include "db.h"
#include "hex.h"

#define TOKEN_BYTES 16	      /* operator token: 32 hex characters */
#define REFS_PER_SOURCE 100   /* files of one imported package */
#define CONSOLE_RECORDS 20000 /* the read machine's records */
#define CONSOLE "console-target"

struct opts {
	size_t agents;
	unsigned int interval_ms;
	unsigned int seconds;
	size_t refs;
	double bound_ms; /* -L: 0 when none */
	unsigned int port;
	const char *db, *ca, *dir;
	char **verifier;
};

enum stage { STAGE_NONCE, STAGE_FIRST, STAGE_BEAT };
enum window { WIN_NONE, WIN_BASE, WIN_READ, WIN_COUNT };

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

/* The console: pages of records read back to back until stopped. */
struct read_job {
	const struct opts *o;
	char auth[128];
	struct bench_buf resp;
	struct samples pages; /* each page's ms */
	struct samples scans; /* each ?verdict=violation page's ms */
	size_t records;	      /* listed, all pages */
	double t0, t1;
	atomic_int stop;
	int failed;
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

/* Reference @i: file f@i of package p(@i / REFS_PER_SOURCE). */
static void ref_path(size_t i, char *out, size_t n)
{
	snprintf(out, n, "/usr/lib/p%zu/f%zu", i / REFS_PER_SOURCE, i);
}

/* Its digest: SHA-256 of its path. */
static void ref_digest(size_t i, uint8_t d[32])
{
	char path[64];

	ref_path(i, path, sizeof(path));
	EVP_Digest(path, strlen(path), d, NULL, EVP_sha256(), NULL);
}

/* One package of references, from @first, as one import. */
static void import_source(struct db *db, size_t first, size_t n)
{
	char name[64], pkg[32], path[64];
	struct db_source_meta meta = {
		.package = pkg,
		.version = "1.0-1",
		.arch = "amd64",
	};
	struct db_ref_source src = {
		.kind = DB_SOURCE_DEB,
		.name = name,
		.meta = &meta,
	};
	struct db_ref_entry e = { .path = path,
				  .algo = "sha256",
				  .digest_len = 32 };
	struct imt_error err;
	uint8_t d[32];
	size_t i;

	snprintf(pkg, sizeof(pkg), "p%zu", first / REFS_PER_SOURCE);
	snprintf(name, sizeof(name), "%s_1.0-1_amd64", pkg);
	if (db_ref_import_begin(db, &src, 1700000000, &err) < 0)
		die(name, err.msg);
	for (i = first; i < first + n; i++) {
		ref_path(i, path, sizeof(path));
		ref_digest(i, d);
		e.digest = d;
		e.conffile = i % REFS_PER_SOURCE == 0;
		if (db_ref_add_entry(db, &src, &e, 1700000000, &err) < 0)
			die(path, err.msg);
	}
	if (db_ref_import_commit(db, &err) < 0)
		die(name, err.msg);
}

/* The console's machine: one boot of known records over the refs. */
static void console_boot(struct db *db, size_t refs)
{
	uint8_t s1[DB_PCR_SHA1_SIZE] = { 1 }, s256[DB_PCR_SHA256_SIZE] = { 2 };
	static struct db_record recs[CONSOLE_RECORDS];
	static uint8_t dig[CONSOLE_RECORDS][32];
	static char paths[CONSOLE_RECORDS][64];
	struct imt_error err;
	struct db_boot boot;
	size_t i, r;

	if (db_boot_start(db, CONSOLE, 1, 0, 1700000000, &boot, &err) < 0)
		die(CONSOLE, err.msg);
	for (i = 0; i < CONSOLE_RECORDS; i++) {
		r = (i * 7919) % refs;
		ref_digest(r, dig[i]);
		ref_path(r, paths[i], sizeof(paths[i]));
		recs[i] = (struct db_record){
			.index = i,
			.pcr = 10,
			.template = "ima-ng",
			.path = paths[i],
			.digest_algo = "sha256",
			.digest = dig[i],
			.digest_len = 32,
			.verdict = DB_VERDICT_KNOWN,
		};
	}
	if (db_boot_advance(db,
			    &(struct db_boot_advance){
				    .boot_id = boot.id,
				    .from_index = 0,
				    .to_index = CONSOLE_RECORDS,
				    .pcr10_sha1 = s1,
				    .pcr10_sha256 = s256,
				    .records = recs,
				    .nrecords = CONSOLE_RECORDS },
			    1700000001, &err) < 0)
		die("records", err.msg);
}

/* REFS references in packages, and the machine the console reads. */
static void seed_console(const struct opts *o)
{
	static const uint8_t ek[] = { 0x00, 0x01, 0xde, 0xad };
	static const uint8_t ak[] = { 0x00, 0x01, 0xbe, 0xef };
	static const uint8_t name[] = { 0x00, 0x0b, 1, 2, 3 };
	uint8_t fpr[DB_FPR_SIZE] = { 0xc0 };
	struct db_machine_new m = {
		.id = CONSOLE,
		.ek_pub = ek,
		.ek_pub_len = sizeof(ek),
		.ek_fpr = fpr,
		.activated = 1,
		.ak_pub = ak,
		.ak_pub_len = sizeof(ak),
		.ak_name = name,
		.ak_name_len = sizeof(name),
		.state = DB_STATE_ENROLLING,
	};
	struct imt_error err;
	struct db *db;
	size_t i;

	if (db_open(o->db, &db, &err) < 0)
		die(o->db, err.msg);
	for (i = 0; i < o->refs; i += REFS_PER_SOURCE)
		import_source(db, i,
			      o->refs - i < REFS_PER_SOURCE ? o->refs - i :
							      REFS_PER_SOURCE);
	if (db_machine_create(db, &m, 1700000000, &err) < 0)
		die(CONSOLE, err.msg);
	console_boot(db, o->refs);
	db_close(db);
}

/*
 * One page from @from, of @verdict's records when not NULL; its "next"
 * (-1 at the end), records in *@n.
 */
static json_int_t read_page(struct read_job *j, CURL *c, json_int_t from,
			    const char *verdict, size_t *n)
{
	char url[256];
	long status = 0;
	json_t *a, *next;
	json_int_t to;

	snprintf(url, sizeof(url),
		 "https://127.0.0.1:%u/v1/machines/" CONSOLE
		 "/records?limit=1000&from=%lld%s%s",
		 j->o->port, (long long)from,
		 verdict != NULL ? "&verdict=" : "",
		 verdict != NULL ? verdict : "");
	curl_easy_setopt(c, CURLOPT_URL, url);
	j->resp.len = 0;
	if (curl_easy_perform(c) != CURLE_OK)
		die("records", "request failed");
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	a = status == 200 ? json_loads(j->resp.data, 0, NULL) : NULL;
	if (a == NULL)
		die("records", j->resp.data);
	*n = json_array_size(json_object_get(a, "records"));
	next = json_object_get(a, "next");
	to = json_is_integer(next) ? json_integer_value(next) : -1;
	json_decref(a);
	return to;
}

static void *read_thread(void *arg)
{
	struct read_job *j = arg;
	struct curl_slist *h = curl_slist_append(NULL, j->auth);
	CURL *c = easy(j->o, &j->resp, 600);
	json_int_t from = 0;
	double t;
	size_t n;

	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	j->t0 = bench_now();
	while (!atomic_load(&j->stop)) {
		t = bench_now();
		from = read_page(j, c, from, NULL, &n);
		samples_add(&j->pages, (bench_now() - t) * 1e3);
		j->records += n;
		if (from < 0)
			from = 0;
		/* the console's filter: a scan of every record for none */
		t = bench_now();
		(void)read_page(j, c, 0, "violation", &n);
		samples_add(&j->scans, (bench_now() - t) * 1e3);
	}
	j->t1 = bench_now();
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
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
	struct read_job job;
	double base0, base1; /* the window with no reader */
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

/* Warm-up, the window with no reader, the reader's window, drain. */
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
			win = WIN_READ;
			if (pthread_create(&r->job.th, NULL, read_thread,
					   &r->job) != 0)
				die("pthread_create", "reader");
		} else if (win == WIN_READ && !stop &&
			   t - r->base1 >= r->o->seconds) {
			atomic_store(&r->job.stop, 1);
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
		"usage: bench-read-latency [-n AGENTS] "
		"[-i INTERVAL_MS] [-s SECONDS] [-R REFS] [-L BOUND_MS]\n"
		"        -D DB -p PORT -C CA -o DIR -- VERIFIER ARGS...\n");
	exit(2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	int ch;

	*o = (struct opts){
		.agents = 200, .interval_ms = 200, .seconds = 5, .refs = 50000
	};
	while ((ch = getopt(argc, argv, "n:i:s:R:L:D:p:C:o:")) != -1) {
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
		case 'L':
			o->bound_ms = strtod(optarg, NULL);
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
	    o->seconds == 0 || o->refs == 0)
		usage();
	o->verifier = argv + optind;
}

/* The @pct percentile of @s, sorted by report(); 0 when empty. */
static double pct_of(const struct samples *s, size_t pct)
{
	size_t i = s->n * pct / 100;

	return s->n == 0 ? 0.0 : s->ms[i < s->n ? i : s->n - 1];
}

/* Both windows and the pages; 0, or 1 past the bound (-L). */
static int results(struct run *r)
{
	const struct opts *o = r->o;
	struct samples *pg = &r->job.pages;
	double extra, p99, bound;

	printf("agents %zu, a heartbeat each every %u ms (%.0f/s offered); "
	       "%zu references\n",
	       o->agents, o->interval_ms, o->agents * 1e3 / o->interval_ms,
	       o->refs);
	report("no reader", &r->win[WIN_BASE], r->base1 - r->base0);
	report("console reads", &r->win[WIN_READ], r->job.t1 - r->job.t0);
	if (pg->n == 0)
		die("reader", "no page answered");
	qsort(pg->ms, pg->n, sizeof(*pg->ms), cmp_double);
	qsort(r->job.scans.ms, r->job.scans.n, sizeof(double), cmp_double);
	printf("reader: %zu pages, %zu records explained in %.2f s: page "
	       "median %.2f ms, max %.2f ms; %zu ?verdict=violation scans "
	       "of %d records: median %.2f ms\n",
	       pg->n, r->job.records, r->job.t1 - r->job.t0, pg->ms[pg->n / 2],
	       pg->ms[pg->n - 1], r->job.scans.n, CONSOLE_RECORDS,
	       r->job.scans.n ? r->job.scans.ms[r->job.scans.n / 2] : 0.0);
	extra = pct_of(&r->win[WIN_READ], 50) - pct_of(&r->win[WIN_BASE], 50);
	p99 = pct_of(&r->win[WIN_READ], 99) - pct_of(&r->win[WIN_BASE], 99);
	bound = pg->ms[pg->n / 2] + o->bound_ms;
	printf("evidence with the reader minus without: median %+.2f ms, "
	       "p99 %+.2f ms (one page: %.2f ms)\n",
	       extra, p99, pg->ms[pg->n / 2]);
	if (o->bound_ms <= 0)
		return 0;
	printf("bound on the median: one page + %.0f ms = %.2f ms: %s\n",
	       o->bound_ms, bound,
	       extra <= bound ? "ok" :
				"FAIL, the reader "
				"delayed evidence by more");
	return extra > bound;
}

int main(int argc, char **argv)
{
	static struct run r;
	struct opts o;
	char log[4096], token[2 * TOKEN_BYTES + 1];
	uint8_t *records;
	double t;
	int rc;

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
	seed_console(&o);
	add_token(&o, token);
	r.job.o = &o;
	snprintf(r.job.auth, sizeof(r.job.auth), "Authorization: Bearer %s",
		 token);
	printf("seeding: %zu machines, %zu references, %s with %d records, "
	       "an operator token: %.1f s\n",
	       o.agents, o.refs + FLEET_POOL, CONSOLE, CONSOLE_RECORDS,
	       bench_now() - t);
	snprintf(log, sizeof(log), "%s/verifier.log", o.dir);
	atexit(stop_verifier);
	t = bench_now();
	verifier_pid = bench_spawn(o.verifier, log);
	if (verifier_pid < 0 || wait_ready(&o) < 0)
		die("the verifier did not start", log);
	printf("verifier ready: %.1f s\n", bench_now() - t);
	r.m = curl_multi_init();
	curl_multi_setopt(r.m, CURLMOPT_MAXCONNECTS, (long)o.agents + 16);
	run_phases(&r);
	rc = results(&r);
	/* close the connections first: the verifier then stops at once */
	for (size_t i = 0; i < o.agents; i++)
		curl_easy_cleanup(r.ag[i].h);
	curl_multi_cleanup(r.m);
	stop_verifier();
	return rc;
}

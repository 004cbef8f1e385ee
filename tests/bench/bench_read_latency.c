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

#include "bench_beat.h"
#include "bench_refs.h"
#include "db.h"
#include "db_boot.h"
#include "db_machine.h"
#include "hex.h"

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

/* The console: pages of records read back to back until stopped. */
struct read_job {
	const struct opts *o;
	char auth[128];
	struct bench_buf resp;
	struct beat_samples pages; /* each page's ms */
	struct beat_samples scans; /* each ?verdict=violation page's ms */
	size_t records;		   /* listed, all pages */
	double t0, t1;
	atomic_int stop;
	int failed;
};

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
		beat_die(CONSOLE, err.msg);
	for (i = 0; i < CONSOLE_RECORDS; i++) {
		r = (i * 7919) % refs;
		bench_ref_digest(r, dig[i]);
		bench_ref_path(r, paths[i], sizeof(paths[i]));
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
		beat_die("records", err.msg);
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

	if (db_open(o->db, &db, &err) < 0)
		beat_die(o->db, err.msg);
	if (bench_refs_import(db, o->refs, &err) < 0)
		beat_die("import", err.msg);
	if (db_machine_create(db, &m, 1700000000, &err) < 0)
		beat_die(CONSOLE, err.msg);
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
		beat_die("records", "request failed");
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	a = status == 200 ? json_loads(j->resp.data, 0, NULL) : NULL;
	if (a == NULL)
		beat_die("records", j->resp.data);
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
	CURL *c = beat_easy(j->o->ca, &j->resp, 600);
	json_int_t from = 0;
	double t;
	size_t n;

	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	j->t0 = bench_now();
	while (!atomic_load(&j->stop)) {
		t = bench_now();
		from = read_page(j, c, from, NULL, &n);
		beat_samples_add(&j->pages, (bench_now() - t) * 1e3);
		j->records += n;
		if (from < 0)
			from = 0;
		/* the console's filter: a scan of every record for none */
		t = bench_now();
		(void)read_page(j, c, 0, "violation", &n);
		beat_samples_add(&j->scans, (bench_now() - t) * 1e3);
	}
	j->t1 = bench_now();
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	return NULL;
}

/* ---- the run --------------------------------------------------------- */

struct run {
	const struct opts *o;
	struct beat_fleet f;
	struct read_job job;
};

/* The reader reads for as long as the quiet window lasted. */
static int read_over(void *arg, double secs)
{
	struct read_job *j = arg;

	if (secs < j->o->seconds)
		return 0;
	atomic_store(&j->stop, 1);
	return 1;
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

/* Both windows and the pages; 0, or 1 past the bound (-L). */
static int results(struct run *r)
{
	const struct opts *o = r->o;
	struct beat_samples *pg = &r->job.pages;
	double extra, p99, bound;

	printf("agents %zu, a heartbeat each every %u ms (%.0f/s offered); "
	       "%zu references\n",
	       o->agents, o->interval_ms, o->agents * 1e3 / o->interval_ms,
	       o->refs);
	beat_report("no reader", &r->f.win[BEAT_WIN_BASE],
		    r->f.base1 - r->f.base0);
	beat_report("console reads", &r->f.win[BEAT_WIN_LOAD],
		    r->job.t1 - r->job.t0);
	if (pg->n == 0)
		beat_die("reader", "no page answered");
	beat_samples_sort(pg);
	beat_samples_sort(&r->job.scans);
	printf("reader: %zu pages, %zu records explained in %.2f s: page "
	       "median %.2f ms, max %.2f ms; %zu ?verdict=violation scans "
	       "of %d records: median %.2f ms\n",
	       pg->n, r->job.records, r->job.t1 - r->job.t0, pg->ms[pg->n / 2],
	       pg->ms[pg->n - 1], r->job.scans.n, CONSOLE_RECORDS,
	       r->job.scans.n ? r->job.scans.ms[r->job.scans.n / 2] : 0.0);
	extra = beat_pct(&r->f.win[BEAT_WIN_LOAD], 50) -
		beat_pct(&r->f.win[BEAT_WIN_BASE], 50);
	p99 = beat_pct(&r->f.win[BEAT_WIN_LOAD], 99) -
	      beat_pct(&r->f.win[BEAT_WIN_BASE], 99);
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
	char token[2 * BEAT_TOKEN_BYTES + 1];
	double t;
	int rc;

	parse(argc, argv, &o);
	t = bench_now();
	r.o = &o;
	r.f = (struct beat_fleet){ .ca = o.ca,
				   .db = o.db,
				   .port = o.port,
				   .n = o.agents,
				   .interval = o.interval_ms / 1e3 };
	beat_fleet_init(&r.f);
	seed_console(&o);
	beat_add_token(o.db, token);
	r.job.o = &o;
	snprintf(r.job.auth, sizeof(r.job.auth), "Authorization: Bearer %s",
		 token);
	printf("seeding: %zu machines, %zu references, %s with %d records, "
	       "an operator token: %.1f s\n",
	       o.agents, o.refs + FLEET_POOL, CONSOLE, CONSOLE_RECORDS,
	       bench_now() - t);
	t = bench_now();
	beat_verifier_start(&r.f, o.verifier, o.dir);
	printf("verifier ready: %.1f s\n", bench_now() - t);
	beat_run(&r.f, o.seconds,
		 &(struct beat_load){ .name = "reader",
				      .run = read_thread,
				      .arg = &r.job,
				      .over = read_over });
	rc = results(&r);
	beat_fleet_stop(&r.f);
	return rc;
}

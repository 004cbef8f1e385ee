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

#include "bench_beat.h"
#include "hex.h"

struct opts {
	size_t agents;
	unsigned int interval_ms;
	unsigned int seconds;
	size_t refs;
	unsigned int port;
	const char *db, *ca, *dir;
	char **verifier;
};

struct import_job {
	const struct opts *o;
	char *body;
	char auth[128];
	struct bench_buf resp;
	long status;
	double t0, t1;
	atomic_int done;
};

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
		beat_die("import body", "out of memory");
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
	CURL *c = beat_easy(j->o->ca, &j->resp, 1800);
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

struct run {
	const struct opts *o;
	struct beat_fleet f;
	struct import_job job;
};

/* The load's window ends when the import is answered. */
static int import_over(void *arg, double secs)
{
	struct import_job *j = arg;

	(void)secs;
	return atomic_load(&j->done);
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
	char token[2 * BEAT_TOKEN_BYTES + 1];
	double t;

	parse(argc, argv, &o);
	t = bench_now();
	r.o = &o;
	r.f = (struct beat_fleet){ .ca = o.ca,
				   .db = o.db,
				   .port = o.port,
				   .n = o.agents,
				   .interval = o.interval_ms / 1e3 };
	beat_fleet_init(&r.f);
	beat_add_token(o.db, token);
	r.job.o = &o;
	r.job.body = import_body(o.refs);
	snprintf(r.job.auth, sizeof(r.job.auth), "Authorization: Bearer %s",
		 token);
	printf("seeding: %zu machines, %d references, an operator token; "
	       "an import body of %zu references (%.1f MB): %.1f s\n",
	       o.agents, FLEET_POOL, o.refs, (double)strlen(r.job.body) / 1e6,
	       bench_now() - t);
	beat_verifier_start(&r.f, o.verifier, o.dir);
	beat_run(&r.f, o.seconds,
		 &(struct beat_load){ .name = "import",
				      .run = import_thread,
				      .arg = &r.job,
				      .over = import_over });

	printf("agents %zu, a heartbeat each every %u ms (%.0f/s offered)\n",
	       o.agents, o.interval_ms, o.agents * 1e3 / o.interval_ms);
	beat_report("no import", &r.f.win[BEAT_WIN_BASE],
		    r.f.base1 - r.f.base0);
	beat_report("during import", &r.f.win[BEAT_WIN_LOAD],
		    r.job.t1 - r.job.t0);
	printf("import: %zu references, HTTP %ld in %.2f s (%.0f "
	       "references/s): %.300s\n",
	       o.refs, r.job.status, r.job.t1 - r.job.t0,
	       (double)o.refs / (r.job.t1 - r.job.t0),
	       r.job.resp.data != NULL ? r.job.resp.data : "");
	beat_fleet_stop(&r.f);
	return r.job.status == 200 ? 0 : 1;
}

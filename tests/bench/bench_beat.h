/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_beat.h - simulated agents heartbeating against a real verifier,
 * the latency of each heartbeat sampled in the window it started in:
 * what bench_import_latency.c and bench_read_latency.c share (a load on
 * the verifier from another thread, against none, in one run).
 *
 * One thread drives every agent (a curl multi handle, one keep-alive
 * connection per agent under a name of its own, ID.agents.bench): each
 * sends a heartbeat every interval, paced, not back to back, so that the
 * latency is the verifier's, not a queue this driver builds. Every
 * answer must be 200 and "trusted", else the run dies.
 */
#ifndef IMATRUST_BENCH_BEAT_H
#define IMATRUST_BENCH_BEAT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <curl/curl.h>

#include "bench_fleet.h"
#include "bench_http.h"

#define BEAT_STALL_MS 1000.0 /* a heartbeat this slow stalled its agent */
#define BEAT_TOKEN_BYTES 16  /* operator token: 32 hex characters */

enum beat_stage { BEAT_NONCE, BEAT_FIRST, BEAT_BEAT };

/* The windows: warm-up (not sampled), the quiet one, the one loaded. */
enum beat_window { BEAT_WIN_NONE, BEAT_WIN_BASE, BEAT_WIN_LOAD, BEAT_WINDOWS };

struct beat_samples {
	double *ms;
	size_t n, cap;
	size_t stalled_agents; /* agents with a heartbeat >= BEAT_STALL_MS */
};

struct beat_agent {
	struct fleet_agent a;
	struct fleet_evidence ev; /* records: the shared buffer */
	CURL *h;
	struct curl_slist *resolve; /* ID.agents.bench -> 127.0.0.1 */
	char base[128];
	struct bench_buf resp;
	char *body;
	enum beat_stage stage;
	enum beat_window win;	   /* of the request in flight */
	int stalled[BEAT_WINDOWS]; /* counted in that window's samples */
	double due, started;
	int busy;
};

struct beat_fleet {
	/* set by the caller before beat_fleet_init() */
	const char *ca, *db; /* the verifier's CA, its database */
	unsigned int port;
	size_t n;	 /* agents */
	double interval; /* seconds between one agent's heartbeats */
	/* the driver's */
	struct curl_slist *headers;
	struct beat_agent *ag;
	CURLM *m;
	struct beat_samples win[BEAT_WINDOWS];
	double base0, base1; /* the quiet window, set by beat_run() */
};

/* What another thread puts on the verifier while the agents beat. */
struct beat_load {
	const char *name;
	void *(*run)(void *arg); /* the thread */
	void *arg;
	/* whether the loaded window is over, @secs into it (it may tell the
	 * thread to stop) */
	int (*over)(void *arg, double secs);
	pthread_t th;
};

/* Print "bench: WHAT: DETAIL" and exit 1. */
void beat_die(const char *what, const char *detail) __attribute__((noreturn));

/* A handle trusting @ca, answers into @resp; dies when there is none. */
CURL *beat_easy(const char *ca, struct bench_buf *resp, long timeout);

void beat_samples_add(struct beat_samples *s, double ms);

/* Sort @s; then beat_pct() reads its percentiles. */
void beat_samples_sort(struct beat_samples *s);

/* The @pct percentile of sorted @s; 0 when empty. */
double beat_pct(const struct beat_samples *s, size_t pct);

/* One line: heartbeats, rate, median, p99, max, stalled agents (sorts). */
void beat_report(const char *name, struct beat_samples *s, double secs);

/* Seed f->db with f->n activated machines and make their agents. */
void beat_fleet_init(struct beat_fleet *f);

/* An operator token stored (hashed) in @db, its hex in @hex. */
void beat_add_token(const char *db, char hex[2 * BEAT_TOKEN_BYTES + 1]);

/*
 * Start the verifier (@argv, its output in DIR/verifier.log) and wait
 * until it answers; it is stopped at exit, or by beat_fleet_stop().
 */
void beat_verifier_start(struct beat_fleet *f, char **argv, const char *dir);

/*
 * The run: warm-up (every agent past its nonce and first evidence), then
 * @seconds with no load, then @load's thread until its over() says so;
 * the heartbeats in flight are drained and the thread joined.
 */
void beat_run(struct beat_fleet *f, unsigned int seconds,
	      struct beat_load *load);

/* Close the agents' connections, then stop the verifier. */
void beat_fleet_stop(struct beat_fleet *f);

#endif /* IMATRUST_BENCH_BEAT_H */

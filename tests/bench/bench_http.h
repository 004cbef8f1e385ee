/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_http.h - what the benchmark drivers (bench_verifier.c,
 * bench_import_latency.c) share to run a verifier and talk HTTPS to it:
 * the answer buffer, a libcurl handle, the child process, the clock.
 */
#ifndef IMATRUST_BENCH_HTTP_H
#define IMATRUST_BENCH_HTTP_H

#include <stddef.h>
#include <sys/types.h>

#include <curl/curl.h>

/* An answer body, always NUL-terminated once something arrived. */
struct bench_buf {
	char *data;
	size_t len, cap;
};

/**
 * bench_http_init() - stdout line-buffered, libcurl initialised, and the
 * headers of every request: JSON, and no "Expect: 100-continue" wait.
 *
 * Return: the header list, or NULL if libcurl failed.
 */
struct curl_slist *bench_http_init(void);

/**
 * bench_http_easy() - a libcurl handle that trusts @ca, collects the
 * answer into @resp, gives up after @timeout seconds and keeps idle
 * connections as long as the verifier does.
 *
 * Return: the handle, or NULL if libcurl made none.
 */
CURL *bench_http_easy(const char *ca, struct bench_buf *resp, long timeout);

/**
 * bench_http_wait_ready() - GET /v1/health on 127.0.0.1:@port with @c
 * (its URL is overwritten) until it answers 200, for up to 30 seconds, or
 * until the child *@pid exits (then *@pid becomes -1).
 *
 * Return: 0 once it answered 200, else -1.
 */
int bench_http_wait_ready(CURL *c, unsigned int port, pid_t *pid);

/**
 * bench_spawn() - run @argv (argv[0] looked up in PATH) as a child with
 * its stdout and stderr in the file @log (truncated), or inherited if
 * @log is NULL.
 *
 * Return: the child's pid, or -1 if fork failed.
 */
pid_t bench_spawn(char **argv, const char *log);

/**
 * bench_stop() - SIGTERM the child *@pid, if any, wait for it and set
 * *@pid to -1.
 */
void bench_stop(pid_t *pid);

/**
 * bench_now() - CLOCK_MONOTONIC.
 *
 * Return: seconds.
 */
double bench_now(void);

#endif /* IMATRUST_BENCH_HTTP_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_http.h - what the benchmark drivers (bench_verifier.c,
 * bench_beat.c, soak_agents.c) share to run a verifier and talk
 * HTTPS to it: the answer buffer, a libcurl handle, an agent's own
 * connection, a multi handle run to its end, the child process, the clock.
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
 * bench_http_set_body() - the body of @h's next POST: the JSON string
 * @body (@framed 0), or @len bytes of framed evidence with its own
 * Content-Type (@framed 1, wire.h). After bench_http_init().
 */
void bench_http_set_body(CURL *h, const char *body, size_t len, int framed);

/**
 * bench_http_easy() - a libcurl handle that trusts @ca, collects the
 * answer into @resp, gives up after @timeout seconds and keeps idle
 * connections as long as the verifier does.
 *
 * Return: the handle, or NULL if libcurl made none.
 */
CURL *bench_http_easy(const char *ca, struct bench_buf *resp, long timeout);

/*
 * An agent's own keep-alive connection: agent ID talks to ID.agents.bench
 * (resolved to 127.0.0.1), so libcurl's connection cache never lends one
 * agent's connection to another.
 */
struct bench_conn {
	CURL *h;
	struct curl_slist *resolve; /* ID.agents.bench -> 127.0.0.1 */
	char base[128];		    /* https://ID.agents.bench:PORT */
};

/**
 * bench_http_connect() - @c as agent @id's connection to the verifier on
 * 127.0.0.1:@port, over the caller's handle @h (it becomes @c->h).
 *
 * Return: 0, or -1 if @h is NULL or memory ran out.
 */
int bench_http_connect(struct bench_conn *c, CURL *h, const char *id,
		       unsigned int port);

/**
 * bench_http_run() - run the handles added to @m to their end; each one's
 * result is then bench_http_result()'s (kept in its CURLOPT_PRIVATE).
 */
void bench_http_run(CURLM *m);

/**
 * bench_http_result() - what the last bench_http_run() made of @h.
 *
 * Return: its CURLcode, CURLE_RECV_ERROR if it did not finish.
 */
CURLcode bench_http_result(CURL *h);

/**
 * bench_http_perform() - curl_easy_perform() of @h inside @m, whose
 * connection cache it uses.
 *
 * Return: @h's CURLcode, CURLE_FAILED_INIT if @m did not take it.
 */
CURLcode bench_http_perform(CURLM *m, CURL *h);

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

// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_http.c - the verifier child and the libcurl plumbing the
 * benchmark drivers share.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_http.h"
#include "wire.h"

#define STARTUP_TRIES 300 /* x 100 ms for the verifier to listen */

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct bench_buf *b = arg;
	size_t len = size * n;

	if (b->len + len + 1 > b->cap) {
		size_t cap = (b->len + len + 1) * 2;
		char *p = realloc(b->data, cap);

		if (p == NULL)
			return 0;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return len;
}

/* the headers of a JSON body, and of framed evidence (wire.h) */
static struct curl_slist *json_headers, *framed_headers;

static struct curl_slist *headers_of(const char *content_type)
{
	struct curl_slist *h = curl_slist_append(NULL, content_type);

	return h != NULL ? curl_slist_append(h, "Expect:") : NULL;
}

struct curl_slist *bench_http_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	json_headers = headers_of("Content-Type: application/json");
	framed_headers = headers_of("Content-Type: " WIRE_EVIDENCE_FRAMED_TYPE);
	return framed_headers != NULL ? json_headers : NULL;
}

void bench_http_set_body(CURL *h, const char *body, size_t len, int framed)
{
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE,
			 (long)(framed ? len : strlen(body)));
	curl_easy_setopt(h, CURLOPT_HTTPHEADER,
			 framed ? framed_headers : json_headers);
}

CURL *bench_http_easy(const char *ca, struct bench_buf *resp, long timeout)
{
	CURL *c = curl_easy_init();

	if (c == NULL)
		return NULL;
	curl_easy_setopt(c, CURLOPT_CAINFO, ca);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, resp);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout);
	/* keep idle connections as long as the verifier does */
	curl_easy_setopt(c, CURLOPT_MAXAGE_CONN, 3600L);
	return c;
}

int bench_http_connect(struct bench_conn *c, CURL *h, const char *id,
		       unsigned int port)
{
	char entry[160];

	c->h = h;
	if (h == NULL)
		return -1;
	snprintf(entry, sizeof(entry), "%s.agents.bench:%u:127.0.0.1", id,
		 port);
	snprintf(c->base, sizeof(c->base), "https://%s.agents.bench:%u", id,
		 port);
	c->resolve = curl_slist_append(NULL, entry);
	if (c->resolve == NULL)
		return -1;
	curl_easy_setopt(h, CURLOPT_RESOLVE, c->resolve);
	return 0;
}

void bench_http_run(CURLM *m)
{
	int running = 1, n;
	CURLMsg *msg;

	while (running) {
		if (curl_multi_perform(m, &running) != CURLM_OK)
			break;
		if (running &&
		    curl_multi_poll(m, NULL, 0, 1000, &n) != CURLM_OK)
			break;
	}
	while ((msg = curl_multi_info_read(m, &n)) != NULL)
		if (msg->msg == CURLMSG_DONE)
			curl_easy_setopt(msg->easy_handle, CURLOPT_PRIVATE,
					 (char *)(intptr_t)(msg->data.result +
							    1));
}

CURLcode bench_http_result(CURL *h)
{
	char *p = NULL;

	curl_easy_getinfo(h, CURLINFO_PRIVATE, &p);
	return p == NULL ? CURLE_RECV_ERROR : (CURLcode)((intptr_t)p - 1);
}

CURLcode bench_http_perform(CURLM *m, CURL *h)
{
	curl_easy_setopt(h, CURLOPT_PRIVATE, NULL);
	if (curl_multi_add_handle(m, h) != CURLM_OK)
		return CURLE_FAILED_INIT;
	bench_http_run(m);
	curl_multi_remove_handle(m, h);
	return bench_http_result(h);
}

int bench_http_wait_ready(CURL *c, unsigned int port, pid_t *pid)
{
	char url[128];
	long status = 0;
	int i;

	snprintf(url, sizeof(url), "https://127.0.0.1:%u/v1/health", port);
	curl_easy_setopt(c, CURLOPT_URL, url);
	for (i = 0; i < STARTUP_TRIES && status != 200; i++) {
		if (waitpid(*pid, NULL, WNOHANG) == *pid) {
			*pid = -1;
			break;
		}
		if (curl_easy_perform(c) == CURLE_OK)
			curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (status != 200)
			usleep(100000);
	}
	return status == 200 ? 0 : -1;
}

pid_t bench_spawn(char **argv, const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (log != NULL && freopen(log, "w", stderr) == NULL)
			_exit(127);
		if (log != NULL)
			dup2(fileno(stderr), STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

void bench_stop(pid_t *pid)
{
	if (*pid > 0) {
		kill(*pid, SIGTERM);
		waitpid(*pid, NULL, 0);
		*pid = -1;
	}
}

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * client_post.c - many POSTs at once, each to a URL of its own, over
 * libcurl's multi interface, and a URL read as libcurl reads it (see
 * client.h). The verifier's webhooks go through here: one owner of
 * libcurl's options beside client.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "client_int.h"

/* A post's own state while it runs; p->handle points here. */
struct client_xfer {
	CURL *easy;
	struct curl_slist *headers;
	char curl_err[CURL_ERROR_SIZE];
	int refused; /* addr_ok() said no */
	int done;
};

static size_t client_post_discard(char *data, size_t size, size_t n, void *arg)
{
	(void)data;
	(void)arg;
	return size * n;
}

/* libcurl's socket for a connection: only where the caller agrees. */
static curl_socket_t client_post_socket(void *arg, curlsocktype purpose,
					struct curl_sockaddr *a)
{
	struct client_post *p = arg;
	struct client_xfer *x = p->handle;

	(void)purpose;
	if (p->addr_ok != NULL && p->addr_ok(&a->addr, p->arg) < 0) {
		x->refused = 1;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

/* The headers of @p as a list; -1 on OOM. */
static int client_post_headers(struct client_post *p, struct client_xfer *x)
{
	const char *const *h;
	struct curl_slist *l;

	for (h = p->headers; h != NULL && *h != NULL; h++) {
		l = curl_slist_append(x->headers, *h);
		if (l == NULL)
			return -1;
		x->headers = l;
	}
	/* no 100-continue round trip for a body over 1 KiB */
	l = curl_slist_append(x->headers, "Expect:");
	if (l == NULL)
		return -1;
	x->headers = l;
	return 0;
}

/* The peer verified against @p's CA alone, or the system store. */
static CURLcode client_post_ca(CURL *e, const struct client_post *p)
{
	struct curl_blob blob = {
		.data = (void *)p->ca_pem,
		.len = p->ca_len,
		.flags = CURL_BLOB_COPY,
	};
	CURLcode rc;

	if (p->ca_pem == NULL)
		return CURLE_OK;
	rc = curl_easy_setopt(e, CURLOPT_CAINFO, NULL);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(e, CURLOPT_CAINFO_BLOB, &blob);
	return rc;
}

/* Set up @p's transfer; -1 with @p's error set when it cannot go. */
static int client_post_prepare(struct client_post *p)
{
	struct client_xfer *x = calloc(1, sizeof(*x));
	CURLcode rc = CURLE_OK;
	CURL *e;

	p->handle = x;
	e = x != NULL ? curl_easy_init() : NULL;
	if (x != NULL)
		x->easy = e;
	if (e == NULL || client_post_headers(p, x) < 0) {
		p->err = CLIENT_ERR_OTHER;
		snprintf(p->error, sizeof(p->error), "out of memory");
		return -1;
	}
#define SET(opt, val) \
	do { \
		if (rc == CURLE_OK) \
			rc = curl_easy_setopt(e, opt, val); \
	} while (0)
	SET(CURLOPT_URL, p->url);
	SET(CURLOPT_PRIVATE, p);
	SET(CURLOPT_HTTPHEADER, x->headers);
	SET(CURLOPT_POSTFIELDS, p->body);
	SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)p->len);
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, p->connect_timeout_ms);
	SET(CURLOPT_TIMEOUT_MS, p->timeout_ms);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_WRITEFUNCTION, client_post_discard);
	SET(CURLOPT_ERRORBUFFER, x->curl_err);
	SET(CURLOPT_OPENSOCKETFUNCTION, client_post_socket);
	SET(CURLOPT_OPENSOCKETDATA, p);
#undef SET
	if (rc == CURLE_OK)
		rc = client_post_ca(e, p);
	if (rc != CURLE_OK) {
		p->err = CLIENT_ERR_OTHER;
		snprintf(p->error, sizeof(p->error), "%s",
			 curl_easy_strerror(rc));
		return -1;
	}
	return 0;
}

/* The outcome of @p's finished transfer. */
static void client_post_finish(struct client_post *p, CURLcode rc)
{
	struct client_xfer *x = p->handle;

	x->done = 1;
	if (x->refused) {
		p->err = CLIENT_ERR_REFUSED;
		snprintf(p->error, sizeof(p->error), "address refused");
	} else if (rc != CURLE_OK) {
		p->err = client_err_of(rc);
		snprintf(p->error, sizeof(p->error), "%s",
			 x->curl_err[0] != '\0' ? x->curl_err :
						  curl_easy_strerror(rc));
	} else {
		curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &p->status);
	}
}

/* Run @multi until every transfer is done or @stop says so. */
static void client_post_run(CURLM *multi, int (*stop)(void *arg),
			    void *stop_arg, int poll_ms)
{
	struct client_post *p;
	int running = 0, left;
	CURLMsg *msg;

	do {
		if (curl_multi_perform(multi, &running) != CURLM_OK)
			break;
		while ((msg = curl_multi_info_read(multi, &left)) != NULL) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
					  (char **)&p);
			client_post_finish(p, msg->data.result);
		}
		if (running > 0)
			curl_multi_poll(multi, NULL, 0, poll_ms, NULL);
	} while (running > 0 && (stop == NULL || !stop(stop_arg)));
}

/* Forget @p's transfer; one that never finished was abandoned. */
static void client_post_release(CURLM *multi, struct client_post *p)
{
	struct client_xfer *x = p->handle;

	if (x == NULL)
		return;
	if (!x->done && p->err == CLIENT_ERR_NONE) {
		p->err = CLIENT_ERR_STOPPED;
		snprintf(p->error, sizeof(p->error), "abandoned");
	}
	if (x->easy != NULL) {
		if (multi != NULL)
			curl_multi_remove_handle(multi, x->easy);
		curl_easy_cleanup(x->easy);
	}
	curl_slist_free_all(x->headers);
	free(x);
	p->handle = NULL;
}

void client_post_all(struct client_post *p, size_t n, int (*stop)(void *arg),
		     void *stop_arg, int poll_ms)
{
	CURLM *multi = curl_multi_init();
	size_t i;

	for (i = 0; i < n; i++) {
		p[i].status = 0;
		p[i].err = CLIENT_ERR_NONE;
		p[i].error[0] = '\0';
		p[i].handle = NULL;
		if (client_post_prepare(&p[i]) == 0 &&
		    (multi == NULL ||
		     curl_multi_add_handle(multi,
					   ((struct client_xfer *)p[i].handle)
						   ->easy) != CURLM_OK)) {
			p[i].err = CLIENT_ERR_OTHER;
			snprintf(p[i].error, sizeof(p[i].error),
				 "out of memory");
		}
	}
	if (multi != NULL)
		client_post_run(multi, stop, stop_arg, poll_ms);
	for (i = 0; i < n; i++)
		client_post_release(multi, &p[i]);
	if (multi != NULL)
		curl_multi_cleanup(multi);
}

int client_post_start(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void client_post_end(void)
{
	curl_global_cleanup();
}

/* Part @what of @u, or NULL when it has none (a copy of ours). */
static char *client_url_part(CURLU *u, CURLUPart what, int *oom)
{
	char *s = NULL, *copy;

	if (curl_url_get(u, what, &s, 0) != CURLUE_OK)
		return NULL;
	copy = strdup(s);
	curl_free(s);
	if (copy == NULL)
		*oom = 1;
	return copy;
}

int client_url_parse(const char *url, struct client_url_parts *parts)
{
	CURLU *u = curl_url();
	int oom = 0;

	memset(parts, 0, sizeof(*parts));
	if (u == NULL || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK) {
		curl_url_cleanup(u);
		return -1;
	}
	parts->scheme = client_url_part(u, CURLUPART_SCHEME, &oom);
	parts->host = client_url_part(u, CURLUPART_HOST, &oom);
	parts->user = client_url_part(u, CURLUPART_USER, &oom);
	parts->password = client_url_part(u, CURLUPART_PASSWORD, &oom);
	curl_url_cleanup(u);
	if (oom) {
		client_url_parts_free(parts);
		return -1;
	}
	return 0;
}

void client_url_parts_free(struct client_url_parts *u)
{
	free(u->scheme);
	free(u->host);
	free(u->user);
	free(u->password);
	memset(u, 0, sizeof(*u));
}

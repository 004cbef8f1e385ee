// SPDX-License-Identifier: GPL-2.0-only
/*
 * client.c - the agent's HTTPS client over libcurl (see client.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "client.h"
#include "wire.h"

#define CLIENT_URL_MAX 2048	/* base URL plus a /v1/... path */

struct client {
	CURL *curl;		/* one handle: its connection is reused */
	struct curl_slist *headers;
	char *base_url;
};

/* What the write callback collects; the answer's size is bounded. */
struct client_sink {
	char *buf;
	size_t len, cap;
	int too_large;
};

static size_t client_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct client_sink *s = arg;
	size_t n = size * nmemb;
	char *p;

	if (n > WIRE_BODY_MAX - s->len) {
		s->too_large = 1;
		return 0;	/* CURLE_WRITE_ERROR ends the transfer */
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap != 0 ? s->cap : 4096;

		while (cap < s->len + n + 1)
			cap *= 2;
		p = realloc(s->buf, cap);
		if (p == NULL)
			return 0;
		s->buf = p;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return n;
}

/* The options every request shares; 0 or the first failing code. */
static CURLcode client_setup(CURL *h, const char *ca_cert,
			     struct curl_slist *headers)
{
	CURLcode rc = CURLE_OK;

#define SET(opt, val) \
	do { \
		if (rc == CURLE_OK) \
			rc = curl_easy_setopt(h, opt, val); \
	} while (0)
	SET(CURLOPT_PROTOCOLS_STR, "https");
	SET(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	SET(CURLOPT_CAINFO, ca_cert);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, CLIENT_CONNECT_TIMEOUT_MS);
	SET(CURLOPT_TIMEOUT_MS, CLIENT_TIMEOUT_MS);
	SET(CURLOPT_HTTPHEADER, headers);
	SET(CURLOPT_USERAGENT, "imatrust-agent/1");
	SET(CURLOPT_WRITEFUNCTION, client_write);
	SET(CURLOPT_POST, 1L);
#undef SET
	return rc;
}

struct client *client_new(const char *base_url, const char *ca_cert)
{
	struct client *c = calloc(1, sizeof(*c));
	struct curl_slist *h;

	if (c == NULL)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(c);
		return NULL;
	}
	c->base_url = strdup(base_url);
	c->curl = curl_easy_init();
	/* "Expect:" off: a 100-continue round trip per evidence is waste */
	h = curl_slist_append(NULL, "Content-Type: application/json");
	if (h != NULL)
		c->headers = h;
	h = h != NULL ? curl_slist_append(h, "Accept: application/json") : NULL;
	h = h != NULL ? curl_slist_append(h, "Expect:") : NULL;
	if (c->base_url == NULL || c->curl == NULL || h == NULL ||
	    client_setup(c->curl, ca_cert, c->headers) != CURLE_OK) {
		client_free(c);
		return NULL;
	}
	return c;
}

void client_free(struct client *c)
{
	if (c == NULL)
		return;
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->headers);
	free(c->base_url);
	free(c);
	curl_global_cleanup();
}

int client_post(struct client *c, const char *path, const char *json,
		struct client_reply *r)
{
	struct client_sink sink = { 0 };
	char url[CLIENT_URL_MAX];
	char errbuf[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	if ((size_t)snprintf(url, sizeof(url), "%s%s", c->base_url, path) >=
	    sizeof(url)) {
		snprintf(r->error, sizeof(r->error), "URL too long");
		return -1;
	}
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, json != NULL ? json : "");
	curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)(json != NULL ? strlen(json) : 0));
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, NULL);
	if (rc != CURLE_OK) {
		if (sink.too_large)
			snprintf(r->error, sizeof(r->error),
				 "answer larger than %u bytes", WIRE_BODY_MAX);
		else
			snprintf(r->error, sizeof(r->error), "%s",
				 errbuf[0] != '\0' ? errbuf :
				 curl_easy_strerror(rc));
		free(sink.buf);
		return -1;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
	r->body = sink.buf;
	r->len = sink.len;
	return 0;
}

void client_reply_free(struct client_reply *r)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

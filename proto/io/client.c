// SPDX-License-Identifier: GPL-2.0-only
/*
 * client.c - HTTPS to the verifier over libcurl (see client.h).
 */
#define _GNU_SOURCE /* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_int.h"
#include "grow.h"
#include "wire.h"

#define CLIENT_URL_MAX 2048 /* base URL plus a /v1/... path */

struct client {
	CURL *curl;		      /* one handle: its connection is reused */
	struct curl_slist *hdr_body;  /* headers of a request with a body */
	struct curl_slist *hdr_plain; /* ... and without one */
	char *base_url;		      /* without a trailing '/' */
	char *ca_file;		      /* NULL: the system store */
	char *auth; /* "Authorization: Bearer TOKEN" or NULL */
	size_t answer_max;
};

/* What the write callback collects; the answer's size is bounded. */
struct client_sink {
	char *buf;
	size_t len, cap, max;
	int too_large;
};

/* libcurl's codes the callers tell apart; anything else is OTHER. */
static const struct {
	CURLcode code;
	enum client_err err;
} client_errs[] = {
	{ CURLE_COULDNT_CONNECT, CLIENT_ERR_CONNECT },
	{ CURLE_COULDNT_RESOLVE_HOST, CLIENT_ERR_RESOLVE },
	{ CURLE_PEER_FAILED_VERIFICATION, CLIENT_ERR_TLS },
	{ CURLE_SSL_CACERT_BADFILE, CLIENT_ERR_TLS },
	{ CURLE_SSL_CONNECT_ERROR, CLIENT_ERR_TLS },
	{ CURLE_SSL_CERTPROBLEM, CLIENT_ERR_TLS },
	{ CURLE_UNSUPPORTED_PROTOCOL, CLIENT_ERR_PROTOCOL },
};

enum client_err client_err_of(CURLcode rc)
{
	size_t i;

	for (i = 0; i < sizeof(client_errs) / sizeof(client_errs[0]); i++) {
		if (client_errs[i].code == rc)
			return client_errs[i].err;
	}
	return CLIENT_ERR_OTHER;
}

static size_t client_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct client_sink *s = arg;
	size_t n = size * nmemb;
	char *p;

	if (n > s->max - s->len) {
		s->too_large = 1;
		return 0; /* CURLE_WRITE_ERROR ends the transfer */
	}
	p = grow(s->buf, &s->cap, s->len + n + 1, 4096);
	if (p == NULL)
		return 0;
	s->buf = p;
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return n;
}

/* The options every request shares; 0 or the first failing code. */
static CURLcode client_setup(CURL *h, const struct client_opts *o,
			     const char *ca_file)
{
	CURLcode rc = CURLE_OK;

#define SET(opt, val) \
	do { \
		if (rc == CURLE_OK) \
			rc = curl_easy_setopt(h, opt, val); \
	} while (0)
	SET(CURLOPT_PROTOCOLS_STR, o->allow_http ? "https,http" : "https");
	SET(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	if (ca_file != NULL)
		SET(CURLOPT_CAINFO, ca_file);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
	SET(CURLOPT_TIMEOUT_MS, o->timeout_ms);
	if (o->user_agent != NULL)
		SET(CURLOPT_USERAGENT, o->user_agent);
	SET(CURLOPT_WRITEFUNCTION, client_write);
#undef SET
	return rc;
}

/*
 * @auth (if any), Accept, "Expect:" [, Content-Type @type: NULL for a
 * request without a body]; NULL on OOM.
 */
static struct curl_slist *client_headers(const char *auth, const char *type)
{
	struct curl_slist *h = NULL, *t;
	const char *lines[4];
	char content_type[128];
	size_t n = 0, i;

	if (auth != NULL)
		lines[n++] = auth;
	lines[n++] = "Accept: application/json";
	/* off: a 100-continue round trip per evidence is waste */
	lines[n++] = "Expect:";
	if (type != NULL) {
		if ((size_t)snprintf(content_type, sizeof(content_type),
				     "Content-Type: %s",
				     type) >= sizeof(content_type))
			return NULL;
		lines[n++] = content_type;
	}
	for (i = 0; i < n; i++) {
		t = curl_slist_append(h, lines[i]);
		if (t == NULL) {
			curl_slist_free_all(h);
			return NULL;
		}
		h = t;
	}
	return h;
}

void client_opts_init(struct client_opts *o, const char *base_url,
		      const char *ca_file)
{
	memset(o, 0, sizeof(*o));
	o->base_url = base_url;
	o->ca_file = ca_file;
	o->answer_max = WIRE_BODY_MAX;
	o->connect_timeout_ms = CLIENT_CONNECT_TIMEOUT_MS;
	o->timeout_ms = CLIENT_TIMEOUT_MS;
}

struct client *client_new(const struct client_opts *o)
{
	struct client *c = calloc(1, sizeof(*c));
	size_t n;

	if (c == NULL)
		return NULL;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(c);
		return NULL;
	}
	c->answer_max = o->answer_max;
	c->base_url = strdup(o->base_url);
	c->ca_file = o->ca_file != NULL ? strdup(o->ca_file) : NULL;
	/* a line break in the token would start a header of its own */
	if (o->token != NULL && strpbrk(o->token, "\r\n") == NULL &&
	    asprintf(&c->auth, "Authorization: Bearer %s", o->token) < 0)
		c->auth = NULL;
	c->curl = curl_easy_init();
	c->hdr_body = client_headers(c->auth, "application/json");
	c->hdr_plain = client_headers(c->auth, NULL);
	if (c->base_url == NULL || (o->ca_file != NULL && c->ca_file == NULL) ||
	    (o->token != NULL && c->auth == NULL) || c->curl == NULL ||
	    c->hdr_body == NULL || c->hdr_plain == NULL ||
	    client_setup(c->curl, o, c->ca_file) != CURLE_OK) {
		client_free(c);
		return NULL;
	}
	n = strlen(c->base_url);
	while (n > 0 && c->base_url[n - 1] == '/')
		c->base_url[--n] = '\0';
	return c;
}

/* Wipe and free a header list that may carry the token. */
static void client_headers_free(struct curl_slist *h)
{
	struct curl_slist *p;

	for (p = h; p != NULL; p = p->next)
		explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

void client_free(struct client *c)
{
	if (c == NULL)
		return;
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	client_headers_free(c->hdr_body);
	client_headers_free(c->hdr_plain);
	if (c->auth != NULL)
		explicit_bzero(c->auth, strlen(c->auth));
	free(c->auth);
	free(c->ca_file);
	free(c->base_url);
	free(c);
	curl_global_cleanup();
}

/*
 * Method, body and headers of one request on the kept handle: a body
 * (or a POST) goes as POSTFIELDS, anything else as a GET; a method other
 * than GET and POST is named with CUSTOMREQUEST.
 */
static void client_method(struct client *c, const char *method,
			  const char *body, size_t len,
			  struct curl_slist *headers)
{
	int has_body = body != NULL || strcmp(method, "POST") == 0;
	int custom = strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0;

	if (has_body) {
		curl_easy_setopt(c->curl, CURLOPT_POST, 1L);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS,
				 body != NULL ? body : "");
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)(body != NULL ? len : 0));
	} else {
		curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
	}
	curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST,
			 custom ? method : NULL);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER,
			 headers != NULL ? headers :
			 has_body	 ? c->hdr_body :
					   c->hdr_plain);
}

/* client_request() with @len bytes of @body and @headers (NULL: ours). */
static int client_perform(struct client *c, const char *method,
			  const char *path, const char *body, size_t len,
			  struct curl_slist *headers, struct client_reply *r)
{
	struct client_sink sink = { .max = c->answer_max };
	struct curl_header *accept;
	char url[CLIENT_URL_MAX];
	char errbuf[CURL_ERROR_SIZE] = "";
	CURLcode rc;

	memset(r, 0, sizeof(*r));
	if ((size_t)snprintf(url, sizeof(url), "%s%s", c->base_url, path) >=
	    sizeof(url)) {
		r->err = CLIENT_ERR_OTHER;
		snprintf(r->error, sizeof(r->error), "URL too long");
		return -1;
	}
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	client_method(c, method, body, len, headers);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, errbuf);
	rc = curl_easy_perform(c->curl);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, NULL);
	if (rc != CURLE_OK) {
		r->err = sink.too_large ? CLIENT_ERR_TOO_LARGE :
					  client_err_of(rc);
		if (sink.too_large)
			snprintf(r->error, sizeof(r->error),
				 "answer larger than %zu bytes", sink.max);
		else
			snprintf(r->error, sizeof(r->error), "%s",
				 errbuf[0] != '\0' ? errbuf :
						     curl_easy_strerror(rc));
		free(sink.buf);
		return -1;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
	if (curl_easy_header(c->curl, "Accept-Post", 0, CURLH_HEADER, -1,
			     &accept) == CURLHE_OK)
		snprintf(r->accept_post, sizeof(r->accept_post), "%s",
			 accept->value);
	r->body = sink.buf;
	r->len = sink.len;
	return 0;
}

int client_request(struct client *c, const char *method, const char *path,
		   const char *json, struct client_reply *r)
{
	return client_perform(c, method, path, json,
			      json != NULL ? strlen(json) : 0, NULL, r);
}

int client_post(struct client *c, const char *path, const char *json,
		struct client_reply *r)
{
	return client_request(c, "POST", path, json, r);
}

int client_post_typed(struct client *c, const char *path, const char *type,
		      const char *body, size_t len, struct client_reply *r)
{
	struct curl_slist *headers = client_headers(c->auth, type);
	int rc;

	if (headers == NULL) {
		memset(r, 0, sizeof(*r));
		r->err = CLIENT_ERR_OTHER;
		snprintf(r->error, sizeof(r->error),
			 "Content-Type %.64s: out of memory or too long", type);
		return -1;
	}
	rc = client_perform(c, "POST", path, body, len, headers, r);
	/* curl keeps the list's address until the next request sets one */
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->hdr_plain);
	client_headers_free(headers);
	return rc;
}

void client_reply_free(struct client_reply *r)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

char *client_escape(struct client *c, const char *s)
{
	char *e = curl_easy_escape(c->curl, s, 0);
	char *out = e != NULL ? strdup(e) : NULL;

	curl_free(e);
	return out;
}

const char *client_url(const struct client *c)
{
	return c->base_url;
}

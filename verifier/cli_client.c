// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_client.c - libcurl for the operator CLI, wrapped once.
 */
#define _GNU_SOURCE	/* asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli_client.h"
#include "cli_util.h"

struct cli_client {
	CURL *curl;
	char *url;		/* base, without a trailing '/' */
	char *ca;		/* CA file, or NULL for the system store */
	char *auth;		/* "Authorization: Bearer TOKEN" */
	char errbuf[CURL_ERROR_SIZE];
};

struct answer_buf {
	char *p;
	size_t n;
	int too_big;
};

int cli_client_opt(struct cli_client_opts *o, int ch, const char *arg)
{
	switch (ch) {
	case CLI_CLIENT_OPT_URL:
		o->url = arg;
		return 1;
	case CLI_CLIENT_OPT_CA:
		o->ca = arg;
		return 1;
	case CLI_CLIENT_OPT_TOKEN:
		o->token_file = arg;
		return 1;
	}
	return 0;
}

static const char *pick(const char *opt, const char *env)
{
	const char *e;

	if (opt != NULL)
		return opt;
	e = getenv(env);
	return e != NULL && e[0] != '\0' ? e : NULL;
}

/* "Authorization: Bearer TOKEN" from the file or IMATRUST_TOKEN. */
static char *auth_header(const struct cli_client_opts *o)
{
	const char *file = pick(o->token_file, "IMATRUST_TOKEN_FILE");
	const char *env = getenv("IMATRUST_TOKEN");
	char *text = NULL, *hdr = NULL;
	size_t len = 0;

	if (file != NULL) {
		text = cli_read_file(file, CLI_CLIENT_TOKEN_MAX, &len);
		if (text == NULL)
			return NULL;
	} else if (env != NULL && env[0] != '\0') {
		len = strlen(env);
		text = strndup(env, CLI_CLIENT_TOKEN_MAX);
	} else {
		cli_warnx("no operator token: give --token-file FILE, or set "
			  "IMATRUST_TOKEN_FILE or IMATRUST_TOKEN (made by "
			  "imatrust-verifier token add NAME)");
		return NULL;
	}
	if (text == NULL)
		return NULL;
	/* the file's final newline is not part of the token */
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
			   text[len - 1] == ' '))
		len--;
	if (len == 0 || memchr(text, '\n', len) != NULL)
		cli_warnx("the operator token is empty or has several lines");
	else if (asprintf(&hdr, "Authorization: Bearer %.*s", (int)len,
			  text) < 0)
		hdr = NULL;
	explicit_bzero(text, len);
	free(text);
	return hdr;
}

struct cli_client *cli_client_new(const struct cli_client_opts *o)
{
	const char *url = pick(o->url, "IMATRUST_URL");
	const char *ca = pick(o->ca, "IMATRUST_CA");
	struct cli_client *c = calloc(1, sizeof(*c));
	size_t n;

	if (c == NULL)
		return NULL;
	c->url = strdup(url != NULL ? url : CLI_CLIENT_URL_DEFAULT);
	c->ca = ca != NULL ? strdup(ca) : NULL;
	c->auth = auth_header(o);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	c->curl = curl_easy_init();
	if (c->url == NULL || (ca != NULL && c->ca == NULL) ||
	    c->auth == NULL || c->curl == NULL) {
		cli_client_free(c);
		return NULL;
	}
	n = strlen(c->url);
	while (n > 0 && c->url[n - 1] == '/')
		c->url[--n] = '\0';
	return c;
}

void cli_client_free(struct cli_client *c)
{
	if (c == NULL)
		return;
	if (c->curl != NULL)
		curl_easy_cleanup(c->curl);
	if (c->auth != NULL)
		explicit_bzero(c->auth, strlen(c->auth));
	free(c->auth);
	free(c->ca);
	free(c->url);
	free(c);
}

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	struct answer_buf *b = arg;
	char *grown;

	if (size * n > CLI_CLIENT_ANSWER_MAX - b->n) {
		b->too_big = 1;
		return 0;
	}
	grown = realloc(b->p, b->n + size * n + 1);
	if (grown == NULL)
		return 0;
	b->p = grown;
	memcpy(b->p + b->n, p, size * n);
	b->n += size * n;
	b->p[b->n] = '\0';
	return size * n;
}

/* Say why the transfer failed, in the operator's terms. */
static void transport_error(struct cli_client *c, CURLcode rc,
			    const struct answer_buf *b)
{
	const char *detail = c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc);

	switch (rc) {
	case CURLE_COULDNT_CONNECT:
		cli_warnx("cannot connect to %s: %s (is imatrust-verifier "
			  "running there? set --url or IMATRUST_URL)",
			  c->url, detail);
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
		cli_warnx("cannot resolve the host of %s", c->url);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CERTPROBLEM:
		cli_warnx("TLS with %s failed: %s (give the CA that issued "
			  "the verifier's certificate with --ca or "
			  "IMATRUST_CA)", c->url, detail);
		break;
	default:
		if (b->too_big)
			cli_warnx("answer from %s larger than %u bytes",
				  c->url, CLI_CLIENT_ANSWER_MAX);
		else
			cli_warnx("%s: %s", c->url, detail);
		break;
	}
}

/* The verifier's own message of an error answer. */
static void answer_error(struct cli_client *c, long status, json_t *j)
{
	const char *msg = json_string_value(json_object_get(
		json_object_get(j, "error"), "message"));

	if (msg == NULL)
		msg = "(no JSON error in the answer)";
	if (status == 401)
		cli_warnx("the verifier refused the operator token: %s", msg);
	else
		cli_warnx("verifier answered %ld: %s", status, msg);
	(void)c;
}

static int perform(struct cli_client *c, const char *method, const char *url,
		   const char *text, struct answer_buf *b, long *status)
{
	struct curl_slist *hdr = NULL;
	CURLcode rc;

	curl_easy_reset(c->curl);
	c->errbuf[0] = '\0';
	hdr = curl_slist_append(hdr, c->auth);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (text != NULL)
		hdr = curl_slist_append(hdr, "Content-Type: application/json");
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(c->curl, CURLOPT_SSLVERSION,
			 (long)CURL_SSLVERSION_TLSv1_2);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT, 10L);
	if (c->ca != NULL)
		curl_easy_setopt(c->curl, CURLOPT_CAINFO, c->ca);
	if (text != NULL) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, text);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(text));
	}
	rc = curl_easy_perform(c->curl);
	curl_slist_free_all(hdr);
	if (rc != CURLE_OK) {
		transport_error(c, rc, b);
		return -1;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	return 0;
}

int cli_client_call(struct cli_client *c, const char *method,
		    const char *path, json_t *body, json_t **answer)
{
	struct answer_buf b = { NULL, 0, 0 };
	char *url = NULL, *text = NULL;
	long status = 0;
	json_t *j = NULL;
	int rc = -1;

	*answer = NULL;
	if (asprintf(&url, "%s%s", c->url, path) < 0) {
		url = NULL;
		goto out;
	}
	if (body != NULL) {
		text = json_dumps(body, JSON_COMPACT);
		if (text == NULL)
			goto out;
	}
	if (perform(c, method, url, text, &b, &status) < 0)
		goto out;
	j = b.p != NULL ? json_loadb(b.p, b.n, 0, NULL) : NULL;
	if (status < 200 || status > 299) {
		answer_error(c, status, j);
		goto out;
	}
	if (!json_is_object(j)) {
		cli_warnx("%s: the answer is not a JSON object", url);
		goto out;
	}
	*answer = j;
	j = NULL;
	rc = 0;
out:
	json_decref(j);
	free(b.p);
	free(text);
	free(url);
	return rc;
}

char *cli_client_escape(struct cli_client *c, const char *s)
{
	char *e = curl_easy_escape(c->curl, s, 0);
	char *out = e != NULL ? strdup(e) : NULL;

	curl_free(e);
	return out;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_client.c - the operator CLI over the shared HTTPS client: options,
 * token, the http:// refusal, JSON, and messages in the operator's terms.
 */
#define _GNU_SOURCE /* strndup, asprintf */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_client.h"
#include "cli_util.h"
#include "client.h"

#define CLI_CLIENT_CONNECT_MS 10000L /* the CLI waits longer than agents */

struct cli_client {
	struct client *http;
	const char *url; /* the client's base URL, for messages */
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
	case CLI_CLIENT_OPT_INSECURE:
		o->insecure_http = 1;
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

/* The token from the file or IMATRUST_TOKEN; wipe and free it. */
static char *read_token(const struct cli_client_opts *o)
{
	const char *file = pick(o->token_file, "IMATRUST_TOKEN_FILE");
	const char *env = getenv("IMATRUST_TOKEN");
	char *text = NULL;
	size_t len = 0;

	if (file != NULL) {
		text = cli_read_file(file, CLI_CLIENT_TOKEN_MAX, &len);
		if (text == NULL)
			return NULL;
	} else if (env != NULL && env[0] != '\0') {
		text = strndup(env, CLI_CLIENT_TOKEN_MAX);
		len = text != NULL ? strlen(text) : 0;
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
		text[--len] = '\0';
	if (len == 0 || strpbrk(text, "\r\n") != NULL) {
		cli_warnx("the operator token is empty or has several lines");
		explicit_bzero(text, len);
		free(text);
		return NULL;
	}
	return text;
}

/* --insecure-http, or IMATRUST_INSECURE_HTTP=1. */
static int insecure_http(const struct cli_client_opts *o)
{
	const char *env = getenv("IMATRUST_INSECURE_HTTP");

	return o->insecure_http || (env != NULL && strcmp(env, "1") == 0);
}

/*
 * https://, or http:// when the operator said so: anything else would
 * either send the bearer token in clear or let libcurl guess a scheme.
 */
static void check_url(const char *url, int insecure)
{
	if (strncasecmp(url, "https://", 8) == 0)
		return;
	if (strncasecmp(url, "http://", 7) == 0) {
		if (insecure)
			return;
		cli_warnx("refusing %s: http:// would send the operator token "
			  "in clear; use https://, or give --insecure-http "
			  "(IMATRUST_INSECURE_HTTP=1) on a trusted link",
			  url);
	} else {
		cli_warnx("'%s' is not an https:// URL (set --url or "
			  "IMATRUST_URL)",
			  url);
	}
	exit(CLI_EXIT_USAGE);
}

struct cli_client *cli_client_new(const struct cli_client_opts *o)
{
	const char *url = pick(o->url, "IMATRUST_URL");
	struct cli_client *c;
	struct client_opts co;
	char *token;

	if (url == NULL)
		url = CLI_CLIENT_URL_DEFAULT;
	check_url(url, insecure_http(o));
	token = read_token(o);
	if (token == NULL)
		return NULL;
	client_opts_init(&co, url, pick(o->ca, "IMATRUST_CA"));
	co.token = token;
	co.answer_max = CLI_CLIENT_ANSWER_MAX;
	co.connect_timeout_ms = CLI_CLIENT_CONNECT_MS;
	co.timeout_ms = 0; /* an import may take its time */
	co.allow_http = insecure_http(o);
	c = calloc(1, sizeof(*c));
	if (c != NULL && (c->http = client_new(&co)) != NULL) {
		c->url = client_url(c->http);
	} else {
		cli_warnx("cannot start the HTTPS client (libcurl)");
		free(c);
		c = NULL;
	}
	explicit_bzero(token, strlen(token));
	free(token);
	return c;
}

void cli_client_free(struct cli_client *c)
{
	if (c == NULL)
		return;
	client_free(c->http);
	free(c);
}

/* Say why no answer arrived, in the operator's terms. */
static void transport_error(const struct cli_client *c,
			    const struct client_reply *r)
{
	switch (r->err) {
	case CLIENT_ERR_CONNECT:
		cli_warnx("cannot connect to %s: %s (is imatrust-verifier "
			  "running there? set --url or IMATRUST_URL)",
			  c->url, r->error);
		break;
	case CLIENT_ERR_RESOLVE:
		cli_warnx("cannot resolve the host of %s", c->url);
		break;
	case CLIENT_ERR_TLS:
		cli_warnx("TLS with %s failed: %s (give the CA that issued "
			  "the verifier's certificate with --ca or "
			  "IMATRUST_CA)",
			  c->url, r->error);
		break;
	case CLIENT_ERR_TOO_LARGE:
		cli_warnx("answer from %s larger than %u bytes", c->url,
			  CLI_CLIENT_ANSWER_MAX);
		break;
	default:
		cli_warnx("%s: %s", c->url, r->error);
		break;
	}
}

/* The verifier's own message of an error answer. */
static void answer_error(long status, json_t *j)
{
	const char *msg = json_string_value(
		json_object_get(json_object_get(j, "error"), "message"));

	if (msg == NULL)
		msg = "(no JSON error in the answer)";
	if (status == 401)
		cli_warnx("the verifier refused the operator token: %s", msg);
	else if (status == 403 && strstr(msg, "token's role") != NULL)
		cli_warnx("the verifier refused this token's role: %s", msg);
	else
		cli_warnx("verifier answered %ld: %s", status, msg);
}

int cli_client_once(const struct cli_client_opts *o, const char *method,
		    const char *path, json_t *body, json_t **answer)
{
	struct cli_client *c = cli_client_new(o);
	int rc = CLI_EXIT_MISMATCH;

	*answer = NULL;
	if (c != NULL && cli_client_call(c, method, path, body, answer) == 0)
		rc = CLI_EXIT_OK;
	cli_client_free(c);
	return rc;
}

int cli_client_try(struct cli_client *c, const char *method, const char *path,
		   json_t *body, long *status, json_t **answer)
{
	struct client_reply r = { 0 };
	char *text = NULL;
	int rc = -1;

	*answer = NULL;
	*status = 0;
	if (body != NULL) {
		text = json_dumps(body, JSON_COMPACT);
		if (text == NULL)
			goto out;
	}
	if (client_request(c->http, method, path, text, &r) < 0) {
		transport_error(c, &r);
		goto out;
	}
	*status = r.status;
	*answer = r.body != NULL ? json_loadb(r.body, r.len, 0, NULL) : NULL;
	rc = 0;
out:
	client_reply_free(&r);
	free(text);
	return rc;
}

int cli_client_call(struct cli_client *c, const char *method, const char *path,
		    json_t *body, json_t **answer)
{
	json_t *j;
	long status;

	*answer = NULL;
	if (cli_client_try(c, method, path, body, &status, &j) < 0)
		return -1;
	if (status < 200 || status > 299) {
		answer_error(status, j);
		json_decref(j);
		return -1;
	}
	if (!json_is_object(j)) {
		cli_warnx("%s%s: the answer is not a JSON object", c->url,
			  path);
		json_decref(j);
		return -1;
	}
	*answer = j;
	return 0;
}

int cli_client_get_raw(struct cli_client *c, const char *path, char **body,
		       size_t *len)
{
	struct client_reply r = { 0 };
	json_t *j;

	*body = NULL;
	*len = 0;
	if (client_request(c->http, "GET", path, NULL, &r) < 0) {
		transport_error(c, &r);
		client_reply_free(&r);
		return -1;
	}
	if (r.status < 200 || r.status > 299) {
		j = r.body != NULL ? json_loadb(r.body, r.len, 0, NULL) : NULL;
		answer_error(r.status, j);
		json_decref(j);
		client_reply_free(&r);
		return -1;
	}
	/* the reply's buffer becomes the caller's */
	*body = r.body;
	*len = r.len;
	return 0;
}

char *cli_client_escape(struct cli_client *c, const char *s)
{
	return client_escape(c->http, s);
}

int cli_client_get_pages(struct cli_client *c, const char *prefix,
			 const char *query, const char *key, json_t *all)
{
	json_t *ans, *next;
	long long after = 0;
	char *path = NULL;
	int rc = -1;

	do {
		free(path);
		if (asprintf(&path, "%s?limit=1000&after=%lld%s", prefix, after,
			     query) < 0) {
			path = NULL;
			goto out;
		}
		if (cli_client_call(c, "GET", path, NULL, &ans) < 0)
			goto out;
		json_array_extend(all, json_object_get(ans, key));
		next = json_object_get(ans, "next");
		after = json_is_integer(next) ? json_integer_value(next) : 0;
		json_decref(ans);
	} while (after != 0);
	rc = 0;
out:
	free(path);
	return rc;
}

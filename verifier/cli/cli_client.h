/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_client.h - the operator CLI's one way to the verifier: its
 * options and environment, the token, JSON in and out, and messages in the
 * operator's terms, over the shared HTTPS client (proto/io/client.h).
 *
 * Settings come from the options --url, --ca, --token-file, else from
 * the environment: IMATRUST_URL, IMATRUST_CA, IMATRUST_TOKEN_FILE, or
 * IMATRUST_TOKEN (the token itself). The default URL is
 * https://127.0.0.1:8443. An http:// URL would carry the token in clear:
 * it is refused unless --insecure-http or IMATRUST_INSECURE_HTTP=1.
 */
#ifndef IMATRUST_CLI_CLIENT_H
#define IMATRUST_CLI_CLIENT_H

#include <getopt.h>

#include <jansson.h>

#define CLI_CLIENT_URL_DEFAULT "https://127.0.0.1:8443"
#define CLI_CLIENT_ANSWER_MAX (64u << 20) /* bytes of one answer */
#define CLI_CLIENT_TOKEN_MAX 512	  /* bytes of a token file */

/* The options every remote command takes; put these in its getopt table. */
#define CLI_CLIENT_OPT_URL 0x100
#define CLI_CLIENT_OPT_CA 0x101
#define CLI_CLIENT_OPT_TOKEN 0x102
#define CLI_CLIENT_OPT_INSECURE 0x103
/* A command's own long options without a short letter start here. */
#define CLI_CLIENT_OPT_NEXT 0x110
#define CLI_CLIENT_LONGOPTS \
	{ "url", required_argument, NULL, CLI_CLIENT_OPT_URL }, \
		{ "ca", required_argument, NULL, CLI_CLIENT_OPT_CA }, \
		{ "token-file", required_argument, NULL, \
		  CLI_CLIENT_OPT_TOKEN }, \
	{ \
		"insecure-http", no_argument, NULL, CLI_CLIENT_OPT_INSECURE \
	}
#define CLI_CLIENT_USAGE \
	"[--url URL] [--ca FILE] [--token-file FILE] " \
	"[--insecure-http]"

struct cli_client_opts {
	const char *url;
	const char *ca;
	const char *token_file;
	int insecure_http; /* allow http:// (the token in clear) */
};

struct cli_client;

/**
 * cli_client_opt() - take option @ch (from getopt_long) if it is one of
 * CLI_CLIENT_LONGOPTS.
 * Return: 1 when taken, else 0.
 */
int cli_client_opt(struct cli_client_opts *o, int ch, const char *arg);

/**
 * cli_client_new() - a client for the options and environment.
 *
 * A URL that is not https:// (or http:// with --insecure-http or
 * IMATRUST_INSECURE_HTTP=1) is a usage error: the message names the flag
 * and the process exits with CLI_EXIT_USAGE before the token is read.
 *
 * Return: the client, or NULL after printing why (no token, ...).
 */
struct cli_client *cli_client_new(const struct cli_client_opts *o);

/** cli_client_free() - free @c, wiping the token; NULL is fine. */
void cli_client_free(struct cli_client *c);

/**
 * cli_client_call() - @method @path (with query) and JSON @body (NULL
 * for none) with the token; the JSON answer in *@answer.
 * @c: the client
 * @method: "GET", "POST", "DELETE"
 * @path: "/v1/machines?limit=10"
 * @body: the request; borrowed
 * @answer: receives the parsed 2xx answer (caller decrefs)
 *
 * Return: 0, or -1 after printing what went wrong: connection refused,
 * TLS failure, token refused (401), or the verifier's error message.
 */
int cli_client_call(struct cli_client *c, const char *method, const char *path,
		    json_t *body, json_t **answer);

/**
 * cli_client_once() - one cli_client_call() on a client made for it, as
 * a command's exit code: what a command that asks once needs.
 * @o: the client options
 * @answer: receives the parsed answer, or NULL (caller decrefs)
 *
 * Return: CLI_EXIT_OK, or CLI_EXIT_MISMATCH after printing why.
 */
int cli_client_once(const struct cli_client_opts *o, const char *method,
		    const char *path, json_t *body, json_t **answer);

/**
 * cli_client_try() - cli_client_call() that leaves the answer's status to
 * the caller: only a transport failure is an error (printed).
 * @status: receives the HTTP status
 * @answer: receives the parsed JSON of any answer, or NULL (caller decrefs)
 * Return: 0 when an answer came, else -1.
 */
int cli_client_try(struct cli_client *c, const char *method, const char *path,
		   json_t *body, long *status, json_t **answer);

/**
 * cli_client_get_raw() - GET @path with the token; the answer's bytes as
 * they came (not JSON).
 * @c: the client
 * @path: "/v1/machines/m1/boot-log?format=raw"
 * @body: receives the bytes (caller frees)
 * @len: receives their length
 *
 * Return: 0, or -1 after printing what went wrong (cli_client_call()).
 */
int cli_client_get_raw(struct cli_client *c, const char *path, char **body,
		       size_t *len);

/**
 * cli_client_escape() - @s escaped for a query argument.
 * Return: malloc'ed text (caller frees), or NULL.
 */
char *cli_client_escape(struct cli_client *c, const char *s);

/**
 * cli_client_get_pages() - GET @prefix?limit=1000&after=N@query page
 * after page (N: the "next" of the previous answer, 0 at first, until
 * there is none), the arrays under @key of every answer appended to @all.
 * @c: the client
 * @prefix: "/v1/audit"
 * @query: more query arguments, already escaped ("&machine=m"), or ""
 * @key: the array of one page in the answer, "audit"
 * @all: a JSON array
 *
 * Return: 0, or -1 after printing what went wrong (cli_client_call()).
 */
int cli_client_get_pages(struct cli_client *c, const char *prefix,
			 const char *query, const char *key, json_t *all);

#endif /* IMATRUST_CLI_CLIENT_H */

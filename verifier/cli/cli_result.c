// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_result.c - "imatrust machine ID result [--nonce B64URL] [--json]":
 * the machine's signed attestation result (EAR, GET
 * /v1/machines/{id}/result). Prints the JWT on one line, to hand to a
 * relying party; --json prints it with its header and claims decoded
 * (not verified: the relying party verifies with GET /v1/results/jwks).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "b64.h"
#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define NONCE_TEXT_MAX 128 /* base64url of 64 bytes is 86 characters */

/* Part @i (0: header, 1: claims) of the compact JWS @tok as JSON. */
static json_t *jws_part(const char *tok, int i)
{
	const char *p = tok, *end;
	uint8_t *buf;
	json_t *j = NULL;
	long n;

	for (; i > 0 && p != NULL; i--) {
		p = strchr(p, '.');
		p = p != NULL ? p + 1 : NULL;
	}
	end = p != NULL ? strchr(p, '.') : NULL;
	if (end == NULL)
		return NULL;
	buf = malloc(B64_DECODED_MAX((size_t)(end - p) + 3) + 1);
	if (buf == NULL)
		return NULL;
	n = b64url_decode(p, (size_t)(end - p), buf);
	if (n >= 0)
		j = json_loadb((const char *)buf, (size_t)n, 0, NULL);
	free(buf);
	return j;
}

static int print_result(json_t *ans, int as_json)
{
	const char *tok = json_string_value(json_object_get(ans, "result"));
	json_t *out;

	if (tok == NULL) {
		cli_warnx("the answer carries no result");
		return CLI_EXIT_MISMATCH;
	}
	if (!as_json) {
		printf("%s\n", tok);
		return CLI_EXIT_OK;
	}
	out = json_pack("{s:s,s:O,s:O,s:o?,s:o?}", "result", tok, "kid",
			json_object_get(ans, "kid"), "expires_at",
			json_object_get(ans, "expires_at"), "header",
			jws_part(tok, 0), "claims", jws_part(tok, 1));
	if (out == NULL) {
		cli_warnx("the result does not decode");
		return CLI_EXIT_MISMATCH;
	}
	cli_print_json(out);
	json_decref(out);
	return CLI_EXIT_OK;
}

int cli_machine_result(const char *id, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nonce", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		CLI_CLIENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_client_opts co;
	struct cli_client *c;
	const char *nonce = NULL;
	char path[96 + NONCE_TEXT_MAX];
	json_t *ans;
	int ch, as_json = 0, rc = CLI_EXIT_MISMATCH;

	memset(&co, 0, sizeof(co));
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (ch == 'n')
			nonce = optarg;
		else if (ch == 'j')
			as_json = 1;
		else if (!cli_client_opt(&co, ch, optarg))
			goto usage;
	}
	/* the verifier checks the nonce; here only that it fits a URL */
	if (optind != argc ||
	    (nonce != NULL &&
	     (strlen(nonce) > NONCE_TEXT_MAX ||
	      strspn(nonce,
		     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		     "0123456789-_") != strlen(nonce))))
		goto usage;
	snprintf(path, sizeof(path), "/v1/machines/%s/result%s%s", id,
		 nonce != NULL ? "?nonce=" : "", nonce != NULL ? nonce : "");
	c = cli_client_new(&co);
	if (c == NULL)
		return CLI_EXIT_MISMATCH;
	if (cli_client_call(c, "GET", path, NULL, &ans) == 0) {
		rc = print_result(ans, as_json);
		json_decref(ans);
	}
	cli_client_free(c);
	return rc;
usage:
	fprintf(stderr,
		"usage: imatrust machine ID result [--nonce B64URL] "
		"[--json] %s\n  B64URL: 8 to 64 bytes, base64url without "
		"padding\n",
		CLI_CLIENT_USAGE);
	return CLI_EXIT_USAGE;
}

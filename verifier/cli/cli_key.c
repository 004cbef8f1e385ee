// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_key.c - "imatrust key": signature keys for IMA signatures over the
 * REST API.
 *
 *	imatrust key add [--name NAME] CERT.pem|CERT.der
 *	imatrust key ls [--json]	NAME KEYID SOURCE SUBJECT FINGERPRINT
 *	imatrust key rm NAME
 *
 * A key is the source "key:NAME" (policies select it with "key:*");
 * NAME defaults to its key id (8 hex digits). add and rm re-judge every
 * machine on the verifier. All take --url, --ca, --token-file.
 */
#define _GNU_SOURCE /* asprintf */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define KEY_FILE_MAX 32768 /* DB_KEY_DER_MAX * 2: PEM of the largest */

struct key_args {
	struct cli_client_opts co;
	const char *name;
	int json;
};

static int key_parse(int argc, char **argv, int nargs, const char *usage,
		     struct key_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "name", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "jn:", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch == 'j')
			a->json = 1;
		else if (ch == 'n')
			a->name = optarg;
		else
			goto usage;
	}
	if (argc - optind == nargs)
		return 0;
usage:
	fprintf(stderr, "usage: imatrust key %s %s\n", usage, CLI_CLIENT_USAGE);
	return -1;
}

/* The file as the request's "cert": PEM as it is, DER in base64. */
static json_t *cert_json(const char *file)
{
	size_t len;
	char *text = cli_read_file(file, KEY_FILE_MAX, &len), *b64;
	json_t *j;

	if (text == NULL)
		return NULL;
	if (memchr(text, '\0', len) == NULL &&
	    strstr(text, "-----BEGIN") != NULL) {
		j = json_stringn(text, len);
	} else {
		b64 = malloc(len / 3 * 4 + 8);
		if (b64 != NULL)
			b64_encode((const uint8_t *)text, len, b64);
		j = b64 != NULL ? json_string(b64) : NULL;
		free(b64);
	}
	free(text);
	if (j == NULL)
		cli_warnx("%s: not text a certificate can be sent as", file);
	return j;
}

static int cmd_add(int argc, char **argv)
{
	struct key_args a;
	json_t *cert, *body = NULL, *ans = NULL, *k;
	char *path = NULL;
	int rc = CLI_EXIT_USAGE;

	if (key_parse(argc, argv, 1, "add [--name NAME] CERT.pem|CERT.der",
		      &a) < 0 ||
	    (a.name != NULL && !cli_name_ok(a.name, "key")))
		return CLI_EXIT_USAGE;
	cert = cert_json(argv[optind]);
	if (cert == NULL)
		return CLI_EXIT_USAGE;
	body = json_pack("{s:i,s:o}", "v", 1, "cert", cert);
	if (body == NULL ||
	    asprintf(&path, "/v1/keys%s%s", a.name ? "?name=" : "",
		     a.name ? a.name : "") < 0)
		goto out;
	rc = cli_client_once(&a.co, "POST", path, body, &ans);
	if (rc != CLI_EXIT_OK)
		goto out;
	k = json_object_get(ans, "key");
	printf("key %s (keyid %s, %s) added as source %s; ",
	       cli_str_or_dash(k, "name"), cli_str_or_dash(k, "keyid"),
	       cli_str_or_dash(k, "subject"), cli_str_or_dash(k, "source"));
	cli_print_rejudged(ans);
out:
	json_decref(ans);
	json_decref(body);
	free(path);
	return rc;
}

static void print_keys(json_t *keys)
{
	json_t *k;
	size_t i;

	printf("%-20s %-8s %-20s %-30s %s\n", "NAME", "KEYID", "SOURCE",
	       "SUBJECT", "FINGERPRINT");
	json_array_foreach(keys, i, k)
		printf("%-20s %-8s %-20s %-30s %s\n",
		       cli_str_or_dash(k, "name"), cli_str_or_dash(k, "keyid"),
		       cli_str_or_dash(k, "source"),
		       cli_str_or_dash(k, "subject"),
		       cli_str_or_dash(k, "fingerprint"));
}

static int cmd_ls(int argc, char **argv)
{
	struct key_args a;
	json_t *ans;
	int rc;

	if (key_parse(argc, argv, 0, "ls [--json]", &a) < 0)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "GET", "/v1/keys", NULL, &ans);
	if (rc == CLI_EXIT_OK && a.json)
		cli_print_json(json_object_get(ans, "keys"));
	else if (rc == CLI_EXIT_OK)
		print_keys(json_object_get(ans, "keys"));
	json_decref(ans);
	return rc;
}

static int cmd_rm(int argc, char **argv)
{
	struct key_args a;
	json_t *ans = NULL;
	char *path = NULL;
	int rc = CLI_EXIT_USAGE;

	if (key_parse(argc, argv, 1, "rm NAME", &a) < 0 ||
	    !cli_name_ok(argv[optind], "key") ||
	    asprintf(&path, "/v1/keys/%s", argv[optind]) < 0)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "DELETE", path, NULL, &ans);
	if (rc == CLI_EXIT_OK) {
		printf("key %s removed; ", argv[optind]);
		cli_print_rejudged(ans);
	}
	json_decref(ans);
	free(path);
	return rc;
}

static const struct cli_command key_commands[] = {
	{ "add", cmd_add,
	  "import an X.509 certificate (PEM or DER) as a "
	  "signature key" },
	{ "ls", cmd_ls, "list the signature keys" },
	{ "rm", cmd_rm, "remove a key imported on its own" },
	{ NULL, NULL, NULL },
};

int cli_key_main(int argc, char **argv)
{
	return cli_dispatch("key", key_commands, argc, argv);
}

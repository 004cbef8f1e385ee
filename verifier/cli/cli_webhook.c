// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_webhook.c - "imatrust webhook": the endpoints that receive every
 * machine state change, over the REST API (verifier/README.md
 * "Webhooks").
 *
 *	imatrust webhook add NAME URL [--endpoint-ca FILE] [--allow-http]
 *			     [--secret-file FILE]
 *	imatrust webhook ls [--json]
 *	imatrust webhook rm NAME
 *	imatrust webhook rotate NAME [--secret-file FILE] | --finish
 *
 * add prints the secret (whsec_...) once: the verifier keeps it and shows
 * it never again. --secret-file sends one the receiver already holds.
 * --endpoint-ca is the receiver's CA: a file name in the verifier's
 * webhook_ca_dir (--ca is the verifier's, as for every command). All take --url, --ca, --token-file.
 * rotate gives an endpoint a new secret (printed once, or the one of
 * --secret-file), the old one signing beside it until rotate --finish.
 */
#define _GNU_SOURCE /* asprintf */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define SECRET_FILE_MAX 256 /* "whsec_" and the base64 of 64 bytes */

enum {
	OPT_ENDPOINT_CA = CLI_CLIENT_OPT_NEXT,
	OPT_ALLOW_HTTP,
	OPT_SECRET_FILE,
	OPT_FINISH,
};

struct webhook_args {
	struct cli_client_opts co;
	const char *endpoint_ca, *secret_file;
	int allow_http, json, finish;
};

static int webhook_parse(int argc, char **argv, int nargs, const char *usage,
			 struct webhook_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "endpoint-ca", required_argument, NULL, OPT_ENDPOINT_CA },
		{ "allow-http", no_argument, NULL, OPT_ALLOW_HTTP },
		{ "secret-file", required_argument, NULL, OPT_SECRET_FILE },
		{ "finish", no_argument, NULL, OPT_FINISH },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "j", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch == 'j')
			a->json = 1;
		else if (ch == OPT_ENDPOINT_CA)
			a->endpoint_ca = optarg;
		else if (ch == OPT_ALLOW_HTTP)
			a->allow_http = 1;
		else if (ch == OPT_SECRET_FILE)
			a->secret_file = optarg;
		else if (ch == OPT_FINISH)
			a->finish = 1;
		else
			goto usage;
	}
	if (argc - optind == nargs)
		return 0;
usage:
	fprintf(stderr, "usage: imatrust webhook %s %s\n", usage,
		CLI_CLIENT_USAGE);
	return -1;
}

/* The secret file's first line, trailing white space cut. */
static json_t *secret_json(const char *file)
{
	size_t len;
	char *text = cli_read_file(file, SECRET_FILE_MAX, &len);
	json_t *j;

	if (text == NULL)
		return NULL;
	len = strcspn(text, "\r\n");
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	j = len > 0 ? json_stringn(text, len) : NULL;
	if (j == NULL)
		cli_warnx("%s: no secret in it", file);
	free(text);
	return j;
}

static int cmd_add(int argc, char **argv)
{
	struct webhook_args a;
	json_t *body, *secret = NULL, *ans = NULL, *w;
	int rc = CLI_EXIT_USAGE;

	if (webhook_parse(argc, argv, 2,
			  "add NAME URL [--endpoint-ca FILE] "
			  "[--allow-http] [--secret-file FILE]",
			  &a) < 0 ||
	    !cli_name_ok(argv[optind], "webhook"))
		return CLI_EXIT_USAGE;
	if (a.secret_file != NULL &&
	    (secret = secret_json(a.secret_file)) == NULL)
		return CLI_EXIT_USAGE;
	body = json_pack("{s:i,s:s,s:s,s:b}", "v", 1, "name", argv[optind],
			 "url", argv[optind + 1], "allow_http", a.allow_http);
	if (body == NULL ||
	    (a.endpoint_ca != NULL &&
	     json_object_set_new(body, "ca", json_string(a.endpoint_ca)) < 0) ||
	    (secret != NULL && json_object_set(body, "secret", secret) < 0))
		goto out;
	rc = cli_client_once(&a.co, "POST", "/v1/webhooks", body, &ans);
	if (rc != CLI_EXIT_OK)
		goto out;
	w = json_object_get(ans, "webhook");
	printf("webhook %s added: %s, key id %s\n", cli_str_or_dash(w, "name"),
	       cli_str_or_dash(w, "url"), cli_str_or_dash(w, "key_id"));
	if (secret == NULL)
		printf("secret (shown this once; give it to the receiver): "
		       "%s\n",
		       cli_str_or_dash(ans, "secret"));
out:
	json_decref(ans);
	json_decref(body);
	json_decref(secret);
	return rc;
}

/* "-" for null, else the integer. */
static void print_int(json_t *v, int width)
{
	if (json_is_integer(v))
		printf("%*lld", width, (long long)json_integer_value(v));
	else
		printf("%*s", width, "-");
}

static void print_webhooks(json_t *hooks)
{
	static const struct {
		const char *key, *title;
		int width;
	} cols[] = {
		{ "pending", "PENDING", 8 },
		{ "delivered", "DELIVERED", 9 },
		{ "failed_attempts", "FAILED", 6 },
		{ "dropped", "DROPPED", 7 },
		{ "oldest_pending_age", "LAG(s)", 7 },
	};
	const size_t ncols = sizeof(cols) / sizeof(cols[0]);
	const char *err;
	json_t *w;
	size_t i, k;

	printf("%-16s %-6s", "NAME", "SOURCE");
	for (k = 0; k < ncols; k++)
		printf(" %*s", cols[k].width, cols[k].title);
	printf("  URL (LAST ERROR)\n");
	json_array_foreach(hooks, i, w) {
		printf("%-16s %-6s", cli_str_or_dash(w, "name"),
		       cli_str_or_dash(w, "source"));
		for (k = 0; k < ncols; k++) {
			putchar(' ');
			print_int(json_object_get(w, cols[k].key),
				  cols[k].width);
		}
		printf("  %s", cli_str_or_dash(w, "url"));
		err = json_string_value(json_object_get(w, "last_error"));
		if (err != NULL) { /* the receiver's words: escaped */
			fputs(" (", stdout);
			cli_print_escaped(err, strlen(err));
			putchar(')');
		}
		putchar('\n');
	}
}

static int cmd_ls(int argc, char **argv)
{
	struct webhook_args a;
	json_t *ans;
	int rc;

	if (webhook_parse(argc, argv, 0, "ls [--json]", &a) < 0)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "GET", "/v1/webhooks", NULL, &ans);
	if (rc == CLI_EXIT_OK && a.json)
		cli_print_json(json_object_get(ans, "webhooks"));
	else if (rc == CLI_EXIT_OK)
		print_webhooks(json_object_get(ans, "webhooks"));
	json_decref(ans);
	return rc;
}

static int cmd_rm(int argc, char **argv)
{
	struct webhook_args a;
	json_t *ans = NULL;
	char *path = NULL;
	int rc;

	if (webhook_parse(argc, argv, 1, "rm NAME", &a) < 0 ||
	    !cli_name_ok(argv[optind], "webhook") ||
	    asprintf(&path, "/v1/webhooks/%s", argv[optind]) < 0)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "DELETE", path, NULL, &ans);
	if (rc == CLI_EXIT_OK)
		printf("webhook %s removed with its undelivered messages\n",
		       argv[optind]);
	json_decref(ans);
	free(path);
	return rc;
}

/* What rotate did, said. */
static void print_rotated(const struct webhook_args *a, const char *name,
			  json_t *ans)
{
	if (a->finish) {
		printf("webhook %s: rotation finished; only the new secret "
		       "signs\n",
		       name);
		return;
	}
	printf("webhook %s: new key id %s; the old secret signs beside it "
	       "until imatrust webhook rotate %s --finish\n",
	       name, cli_str_or_dash(ans, "key_id"), name);
	if (a->secret_file == NULL)
		printf("secret (shown this once; give it to the receiver): "
		       "%s\n",
		       cli_str_or_dash(ans, "secret"));
}

static int cmd_rotate(int argc, char **argv)
{
	struct webhook_args a;
	json_t *body = NULL, *secret = NULL, *ans = NULL;
	char *path = NULL;
	int rc = CLI_EXIT_USAGE;

	if (webhook_parse(argc, argv, 1,
			  "rotate NAME [--secret-file FILE] | --finish",
			  &a) < 0 ||
	    !cli_name_ok(argv[optind], "webhook"))
		return CLI_EXIT_USAGE;
	if (a.finish && a.secret_file != NULL) {
		cli_warnx("--finish takes no --secret-file");
		return CLI_EXIT_USAGE;
	}
	if (a.secret_file != NULL) {
		secret = secret_json(a.secret_file);
		if (secret == NULL)
			return CLI_EXIT_USAGE;
	}
	body = json_pack("{s:i}", "v", 1);
	if (body == NULL ||
	    asprintf(&path, "/v1/webhooks/%s/rotate", argv[optind]) < 0) {
		path = NULL;
		goto out;
	}
	if ((a.finish &&
	     json_object_set_new(body, "finish", json_true()) < 0) ||
	    (secret != NULL && json_object_set(body, "secret", secret) < 0))
		goto out;
	rc = cli_client_once(&a.co, "POST", path, body, &ans);
	if (rc == CLI_EXIT_OK)
		print_rotated(&a, argv[optind], ans);
out:
	json_decref(ans);
	json_decref(body);
	json_decref(secret);
	free(path);
	return rc;
}

static const struct cli_command webhook_commands[] = {
	{ "add", cmd_add, "add an endpoint; prints its secret once" },
	{ "ls", cmd_ls, "list the endpoints with their delivery figures" },
	{ "rm", cmd_rm, "remove an endpoint added through the API" },
	{ "rotate", cmd_rotate,
	  "give an endpoint a new secret (both sign until --finish)" },
	{ NULL, NULL, NULL },
};

int cli_webhook_main(int argc, char **argv)
{
	return cli_dispatch("webhook", webhook_commands, argc, argv);
}

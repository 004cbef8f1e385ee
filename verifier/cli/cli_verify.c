// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_verify.c - one-shot verification for pipelines:
 *
 *	imatrust verify [--policy NAME] [--machine ID] [--json] BUNDLE.json
 *		POST the bundle (verifier/README.md "One-shot verification")
 *		to /v1/verify and print the verdict, the checks and the
 *		reasons. --policy and --machine set the bundle's "policy"
 *		and "machine" (the machine's enrolled AK instead of the
 *		bundle's "ak_pub"). Exit 0 trusted, 1 untrusted or failed,
 *		2 an error (bad usage or bundle, the verifier refused it,
 *		no answer).
 *
 * Takes --url, --ca, --token-file (cli_client.h). Nothing is stored by
 * the verifier.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define BUNDLE_FILE_MAX (6u << 20) /* the route's body limit */

struct verify_args {
	struct cli_client_opts co;
	const char *policy;
	const char *machine;
	const char *file;
	int json;
};

static int parse(int argc, char **argv, struct verify_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "policy", required_argument, NULL, 'p' },
		{ "machine", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "p:m:j", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch == 'p')
			a->policy = optarg;
		else if (ch == 'm')
			a->machine = optarg;
		else if (ch == 'j')
			a->json = 1;
		else
			goto usage;
	}
	if (argc - optind == 1) {
		a->file = argv[optind];
		return 0;
	}
usage:
	fprintf(stderr,
		"usage: imatrust verify [--policy NAME] "
		"[--machine ID] [--json] BUNDLE.json %s\n",
		CLI_CLIENT_USAGE);
	return -1;
}

/* The bundle file as JSON, with --policy and --machine applied. */
static json_t *load_bundle(const struct verify_args *a)
{
	json_error_t jerr;
	size_t len;
	char *text = cli_read_file(a->file, BUNDLE_FILE_MAX, &len);
	json_t *b;

	if (text == NULL)
		return NULL;
	b = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!json_is_object(b)) {
		cli_warnx("%s: not a JSON object%s%s", a->file,
			  b == NULL ? ": " : "", b == NULL ? jerr.text : "");
		json_decref(b);
		return NULL;
	}
	if (a->policy != NULL)
		json_object_set_new(b, "policy", json_string(a->policy));
	if (a->machine != NULL) {
		json_object_set_new(b, "machine", json_string(a->machine));
		json_object_del(b, "ak_pub");
	}
	return b;
}

static const char *str(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	return s != NULL ? s : "";
}

/* One reason: a record by index, path, digest; a check by its message. */
static void print_reason(json_t *r)
{
	if (strcmp(str(r, "check"), "record") == 0)
		printf("  record %lld %s %s %s: %s\n",
		       (long long)json_integer_value(
			       json_object_get(r, "index")),
		       str(r, "path"), str(r, "digest"), str(r, "verdict"),
		       str(r, "why"));
	else
		printf("  %s: %s\n", str(r, "check"),
		       json_object_get(r, "message") != NULL ?
			       str(r, "message") :
			       str(r, "why"));
}

static void print_answer(json_t *ans)
{
	json_t *checks = json_object_get(ans, "checks"), *v;
	json_t *recs = json_object_get(ans, "records");
	const char *key;
	size_t i;

	printf("verdict: %s (tnc %s, policy %s, ak %s)\n", str(ans, "verdict"),
	       str(ans, "tnc"), str(ans, "policy"), str(ans, "ak"));
	if (json_object_get(ans, "ak_note") != NULL)
		printf("note: %s\n", str(ans, "ak_note"));
	printf("checks:");
	json_object_foreach(checks, key, v)
		printf(" %s=%s", key, json_string_value(v));
	printf("\nrecords:");
	json_object_foreach(recs, key, v)
		printf(" %s=%lld", key, (long long)json_integer_value(v));
	printf("\n");
	json_array_foreach(json_object_get(ans, "reasons"), i, v)
		print_reason(v);
}

int cli_verify_main(int argc, char **argv)
{
	struct verify_args a;
	struct cli_client *c = NULL;
	json_t *bundle = NULL, *ans = NULL;
	long status = 0;
	int rc = CLI_EXIT_USAGE;

	if (parse(argc, argv, &a) < 0)
		return CLI_EXIT_USAGE;
	bundle = load_bundle(&a);
	if (bundle == NULL)
		goto out;
	c = cli_client_new(&a.co);
	if (c == NULL ||
	    cli_client_try(c, "POST", "/v1/verify", bundle, &status, &ans) < 0)
		goto out;
	if (status != 200) {
		cli_warnx("verify: %ld %s", status,
			  str(json_object_get(ans, "error"), "message"));
		goto out;
	}
	if (a.json)
		cli_print_json(ans);
	else
		print_answer(ans);
	rc = strcmp(str(ans, "verdict"), "trusted") == 0 ? CLI_EXIT_OK :
							   CLI_EXIT_MISMATCH;
out:
	json_decref(ans);
	json_decref(bundle);
	cli_client_free(c);
	return rc;
}

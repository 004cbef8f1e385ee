// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_policy.c - "imatrust policy": named policies over the REST API.
 *
 *	imatrust policy ls [--json]		NAME DEFAULT MACHINES SOURCES
 *	imatrust policy show NAME		the policy document (JSON)
 *	imatrust policy put NAME FILE.json|-	create or replace it
 *	imatrust policy rm NAME			forget it (not the default)
 *
 * put and rm re-judge every machine on the verifier and print the
 * counts. All take --url, --ca, --token-file (cli_client.h).
 */
#define _GNU_SOURCE /* asprintf */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define POLICY_FILE_MAX (1u << 20) /* the verifier's body limit */

struct policy_args {
	struct cli_client_opts co;
	int json;
};

/* Options; @nargs operands must follow. 0, or -1 after the usage. */
static int policy_parse(int argc, char **argv, int nargs, const char *usage,
			struct policy_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "j", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch != 'j')
			goto usage;
		a->json = 1;
	}
	if (argc - optind == nargs)
		return 0;
usage:
	fprintf(stderr, "usage: imatrust policy %s %s\n", usage,
		CLI_CLIENT_USAGE);
	return -1;
}

/* One call; the answer in *@ans. CLI_EXIT_OK or CLI_EXIT_MISMATCH. */
/* "a,b,c" of a JSON array of strings, into @out. */
static void joined(json_t *arr, char *out, size_t n)
{
	size_t i, used = 0;
	json_t *s;

	out[0] = '\0';
	json_array_foreach(arr, i, s) {
		int w = snprintf(out + used, n - used, "%s%s", i ? "," : "",
				 json_string_value(s));

		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
	if (used == 0 && n > 1)
		snprintf(out, n, "-");
}

static void print_policies(json_t *ans)
{
	char machines[256], sources[512];
	json_t *p;
	size_t i;

	printf("%-20s %-7s %-30s %s\n", "NAME", "DEFAULT", "MACHINES",
	       "SOURCES");
	json_array_foreach(json_object_get(ans, "policies"), i, p) {
		joined(json_object_get(p, "machines"), machines,
		       sizeof(machines));
		joined(json_object_get(p, "sources"), sources, sizeof(sources));
		printf("%-20s %-7s %-30s %s\n",
		       json_string_value(json_object_get(p, "name")),
		       json_is_true(json_object_get(p, "default")) ? "yes" :
								     "no",
		       machines, sources);
	}
}

static int cmd_ls(int argc, char **argv)
{
	struct policy_args a;
	json_t *ans;
	int rc;

	if (policy_parse(argc, argv, 0, "ls [--json]", &a) < 0)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "GET", "/v1/policies", NULL, &ans);
	if (rc == CLI_EXIT_OK && a.json)
		cli_print_json(json_object_get(ans, "policies"));
	else if (rc == CLI_EXIT_OK)
		print_policies(ans);
	json_decref(ans);
	return rc;
}

/* /v1/policies/NAME; NULL after a message when NAME cannot be one. */
static char *policy_path(const char *name)
{
	char *path;

	if (!cli_name_ok(name, "policy"))
		return NULL;
	return asprintf(&path, "/v1/policies/%s", name) < 0 ? NULL : path;
}

static int cmd_show(int argc, char **argv)
{
	struct policy_args a;
	json_t *ans, *p;
	char *path;
	int rc;

	if (policy_parse(argc, argv, 1, "show NAME", &a) < 0 ||
	    (path = policy_path(argv[optind])) == NULL)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "GET", path, NULL, &ans);
	if (rc == CLI_EXIT_OK) {
		/* the document as put takes it back: no name, no time */
		p = json_object_get(ans, "policy");
		json_object_del(p, "name");
		json_object_del(p, "updated_at");
		cli_print_json(p);
	}
	json_decref(ans);
	free(path);
	return rc;
}

/* The policy file (or stdin for "-") as JSON; NULL after a message. */
static json_t *read_policy(const char *file)
{
	json_error_t jerr;
	char *text;
	size_t len;
	json_t *j;

	if (strcmp(file, "-") == 0) {
		j = json_loadf(stdin, JSON_REJECT_DUPLICATES, &jerr);
	} else {
		text = cli_read_file(file, POLICY_FILE_MAX, &len);
		if (text == NULL)
			return NULL;
		j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
		free(text);
	}
	if (j == NULL)
		cli_warnx("%s: not JSON: %s (line %d)", file, jerr.text,
			  jerr.line);
	return j;
}

static void print_rejudged(const char *what, json_t *ans)
{
	printf("%s; ", what);
	cli_print_rejudged(ans);
}

static int cmd_put(int argc, char **argv)
{
	struct policy_args a;
	json_t *doc, *ans = NULL;
	char *path, what[128];
	int rc = CLI_EXIT_USAGE;

	if (policy_parse(argc, argv, 2, "put NAME FILE.json|-", &a) < 0 ||
	    (path = policy_path(argv[optind])) == NULL)
		return CLI_EXIT_USAGE;
	doc = read_policy(argv[optind + 1]);
	if (doc != NULL)
		rc = cli_client_once(&a.co, "PUT", path, doc, &ans);
	if (rc == CLI_EXIT_OK) {
		snprintf(what, sizeof(what), "policy %s stored", argv[optind]);
		print_rejudged(what, ans);
	}
	json_decref(ans);
	json_decref(doc);
	free(path);
	return rc;
}

static int cmd_rm(int argc, char **argv)
{
	struct policy_args a;
	json_t *ans;
	char *path, what[128];
	int rc;

	if (policy_parse(argc, argv, 1, "rm NAME", &a) < 0 ||
	    (path = policy_path(argv[optind])) == NULL)
		return CLI_EXIT_USAGE;
	rc = cli_client_once(&a.co, "DELETE", path, NULL, &ans);
	if (rc == CLI_EXIT_OK) {
		snprintf(what, sizeof(what), "policy %s removed", argv[optind]);
		print_rejudged(what, ans);
	}
	json_decref(ans);
	free(path);
	return rc;
}

static const struct cli_command policy_commands[] = {
	{ "ls", cmd_ls, "list the named policies, in the order they apply" },
	{ "show", cmd_show, "print a policy (JSON, as put takes it)" },
	{ "put", cmd_put, "create or replace a policy from FILE.json or -" },
	{ "rm", cmd_rm, "remove a policy (not the default)" },
	{ NULL, NULL, NULL },
};

int cli_policy_main(int argc, char **argv)
{
	return cli_dispatch("policy", policy_commands, argc, argv);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_whoami.c - `imatrust whoami [--json]`: the name, role, expiry and
 * last use of the token the CLI sends (GET /v1/whoami), so an operator
 * refused a write can see which role the token has before asking for
 * another.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"
#include "utc.h"

/* @key of @o, a time or null, as UTC text or @none. */
static const char *when(json_t *o, const char *key, const char *none, char *buf,
			size_t n)
{
	json_t *t = json_object_get(o, key);

	if (!json_is_integer(t))
		return none;
	return utc_text((int64_t)json_integer_value(t), buf, n);
}

static void print_whoami(json_t *ans)
{
	char e[32], u[32];

	printf("%s: role %s, expires %s, last used %s\n",
	       cli_str_or_dash(ans, "name"), cli_str_or_dash(ans, "role"),
	       when(ans, "expires_at", "never", e, sizeof(e)),
	       when(ans, "last_used", "never", u, sizeof(u)));
}

int cli_whoami_main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_client_opts co;
	struct cli_client *c;
	json_t *ans = NULL;
	int ch, json = 0, rc = CLI_EXIT_MISMATCH;

	memset(&co, 0, sizeof(co));
	while ((ch = getopt_long(argc, argv, "j", opts, NULL)) != -1) {
		if (cli_client_opt(&co, ch, optarg))
			continue;
		if (ch != 'j')
			goto usage;
		json = 1;
	}
	if (optind != argc)
		goto usage;
	c = cli_client_new(&co);
	if (c != NULL &&
	    cli_client_call(c, "GET", "/v1/whoami", NULL, &ans) == 0) {
		if (json)
			cli_print_json(ans);
		else
			print_whoami(ans);
		rc = CLI_EXIT_OK;
	}
	json_decref(ans);
	cli_client_free(c);
	return rc;
usage:
	fprintf(stderr, "usage: imatrust whoami [--json] %s\n",
		CLI_CLIENT_USAGE);
	return CLI_EXIT_USAGE;
}

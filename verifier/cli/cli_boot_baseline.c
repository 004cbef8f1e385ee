// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_boot_baseline.c - "imatrust machine ID boot-baseline approve": the
 * machine's current boot becomes its approved boot baseline (policies
 * with "baseline": "first-boot"), and every current boot is judged again.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

int cli_machine_boot_baseline(const char *id, int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_client_opts co;
	struct cli_client *c;
	char path[160];
	json_t *ans, *b;
	int ch, rc = CLI_EXIT_MISMATCH;

	memset(&co, 0, sizeof(co));
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (!cli_client_opt(&co, ch, optarg))
			goto usage;
	}
	if (optind + 1 != argc || strcmp(argv[optind], "approve") != 0)
		goto usage;
	c = cli_client_new(&co);
	if (c == NULL)
		return CLI_EXIT_MISMATCH;
	snprintf(path, sizeof(path), "/v1/machines/%s/boot-baseline", id);
	if (cli_client_call(c, "POST", path, NULL, &ans) == 0) {
		b = json_object_get(ans, "baseline");
		printf("boot baseline of %s approved: sha256 %s; ", id,
		       json_string_value(json_object_get(b, "sha256")));
		cli_print_rejudged(ans);
		json_decref(ans);
		rc = CLI_EXIT_OK;
	}
	cli_client_free(c);
	return rc;
usage:
	fprintf(stderr, "usage: imatrust machine ID boot-baseline approve %s\n",
		CLI_CLIENT_USAGE);
	return CLI_EXIT_USAGE;
}

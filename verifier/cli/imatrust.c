// SPDX-License-Identifier: GPL-2.0-only
/*
 * imatrust.c - the operator CLI: a table of command groups.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_util.h"

#ifndef IMATRUST_VERSION
#define IMATRUST_VERSION "0.1"
#endif

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("imatrust %s\n", IMATRUST_VERSION);
	return CLI_EXIT_OK;
}

static const struct cli_command top_commands[] = {
	{ "log", cli_log_main, "read, replay and check IMA measurement lists" },
	{ "boot-log", cli_boot_file_main,
	  "check a firmware event log file offline: boot-log [--json|--cel] "
	  "[--bank ALG] [--pcrs FILE] FILE [PCR=HEX...]" },
	{ "machines", cli_machines_main,
	  "list the fleet: state, TNC, reason (--watch, --boot)" },
	{ "machine", cli_machine_main,
	  "one machine, its boot and policy; machine add|rm|records ID; "
	  "machine ID boot-log; machine ID boot-baseline approve; "
	  "machine ID result [--nonce N] (signed, EAR)" },
	{ "events", cli_events_main, "a machine's events" },
	{ "records", cli_records_main,
	  "the current boot's records (--verdict V: only those)" },
	{ "wait", cli_wait_main,
	  "wait until a machine is in a state: wait ID STATE[,STATE]" },
	{ "approve", cli_approve_main,
	  "let a pending machine enroll (--ek FINGERPRINT)" },
	{ "audit", cli_audit_main, "who approved, registered, removed what" },
	{ "whoami", cli_whoami_main,
	  "the token's name, role, expiry and last use" },
	{ "ref", cli_ref_main, "import, add, list and remove references" },
	{ "policy", cli_policy_main,
	  "named policies: which sources a machine is judged by" },
	{ "key", cli_key_main, "signature keys for IMA signatures" },
	{ "webhook", cli_webhook_main,
	  "endpoints that receive every state change, with their figures" },
	{ "verify", cli_verify_main,
	  "one-shot check of an evidence bundle, nothing stored: "
	  "verify [--policy NAME] BUNDLE.json" },
	{ "api", cli_api_main,
	  "one raw GET of the operator API: api GET PATH" },
	{ "version", cmd_version, "print the version" },
	{ NULL, NULL, NULL },
};

static void usage(FILE *out, const char *group, const struct cli_command *table)
{
	const struct cli_command *c;

	fprintf(out, "usage: imatrust %s%sCOMMAND [ARGS]\n\ncommands:\n",
		group != NULL ? group : "", group != NULL ? " " : "");
	for (c = table; c->name != NULL; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->help);
}

int cli_dispatch(const char *group, const struct cli_command *table, int argc,
		 char **argv)
{
	const struct cli_command *c;

	if (argc < 2) {
		usage(stderr, group, table);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0) {
		usage(stdout, group, table);
		return CLI_EXIT_OK;
	}
	for (c = table; c->name != NULL; c++) {
		if (strcmp(c->name, argv[1]) == 0)
			return c->run(argc - 1, argv + 1);
	}
	cli_warnx("unknown command '%s%s%s'", group != NULL ? group : "",
		  group != NULL ? " " : "", argv[1]);
	usage(stderr, group, table);
	return CLI_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	return cli_dispatch(NULL, top_commands, argc, argv);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_boot_log.c - a machine's firmware event log, over the REST API:
 *
 *	imatrust machine ID boot-log [--json] [--cel] [--raw FILE]
 *
 * The default is one line per event, INDEX PCR TYPE DIGEST DESCRIPTION
 * (DIGEST: the first 16 hex digits of its sha256, else of its first
 * bank), then the replayed PCR values; --json and --cel print the JSON
 * (decoded, TCG CEL); --raw writes the log's bytes to FILE. Descriptions
 * and PCR names are the machine's text: printed escaped.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define DIGEST_SHORT 16 /* hex digits of an event digest shown */

struct boot_log_args {
	struct cli_client_opts co;
	const char *raw; /* --raw FILE */
	int json, cel;
};

static int parse(int argc, char **argv, struct boot_log_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "cel", no_argument, NULL, 'c' },
		{ "raw", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "jcr:", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch == 'j')
			a->json = 1;
		else if (ch == 'c')
			a->cel = 1;
		else if (ch == 'r')
			a->raw = optarg;
		else
			goto usage;
	}
	if (optind != argc || (a->raw != NULL && (a->json || a->cel)))
		goto usage;
	return 0;
usage:
	fprintf(stderr,
		"usage: imatrust machine ID boot-log "
		"[--json | --cel | --raw FILE] %s\n",
		CLI_CLIENT_USAGE);
	return -1;
}

static void print_text(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (s == NULL || s[0] == '\0')
		putchar('-');
	else
		cli_print_escaped(s, strlen(s));
}

/* The event's sha256 digest, else its first bank's, shortened. */
static const char *short_digest(json_t *ev, char *buf, size_t n)
{
	json_t *d = json_object_get(ev, "digests"), *v;
	const char *hex = json_string_value(json_object_get(d, "sha256"));
	const char *key;

	if (hex == NULL) {
		json_object_foreach(d, key, v) {
			hex = json_string_value(v);
			break;
		}
	}
	if (hex == NULL)
		return "-";
	snprintf(buf, n, "%.*s", DIGEST_SHORT, hex);
	/* hex digits only: anything else is the machine's text */
	return strspn(buf, "0123456789abcdef") == strlen(buf) ? buf : "?";
}

void cli_boot_log_print(json_t *log)
{
	const char *format = json_string_value(json_object_get(log, "format"));
	char d[DIGEST_SHORT + 1];
	json_t *ev, *bank, *v;
	const char *name, *idx;
	size_t i;

	/* a SHA-1-only log has no events to show: say what it is */
	if (format != NULL && strcmp(format, "legacy") == 0) {
		fputs("legacy: ", stdout);
		print_text(log, "reason");
		putchar('\n');
	}

	json_array_foreach(json_object_get(log, "events"), i, ev) {
		printf("%5lld %3lld  ",
		       (long long)json_integer_value(
			       json_object_get(ev, "index")),
		       (long long)json_integer_value(
			       json_object_get(ev, "pcr")));
		print_text(ev, "type_name");
		printf("  %s  ", short_digest(ev, d, sizeof(d)));
		print_text(ev, "description");
		putchar('\n');
	}
	/* "extended": [PCR, ..], then "pcrs": {bank: {index: hex}} */
	if (json_array_size(json_object_get(log, "extended")) > 0) {
		fputs("extended PCRs:", stdout);
		json_array_foreach(json_object_get(log, "extended"), i, ev)
			printf(" %lld", (long long)json_integer_value(ev));
		putchar('\n');
	}
	json_object_foreach(json_object_get(log, "pcrs"), name, bank) {
		json_object_foreach(bank, idx, v) {
			cli_print_escaped(name, strlen(name));
			putchar(' ');
			cli_print_escaped(idx, strlen(idx));
			putchar(' ');
			print_text(bank, idx);
			putchar('\n');
		}
	}
}

static int write_raw(struct cli_client *c, const char *path, const char *file)
{
	size_t len;
	char *body;
	FILE *f;
	int rc = -1;

	if (cli_client_get_raw(c, path, &body, &len) < 0)
		return -1;
	f = fopen(file, "wb");
	if (f == NULL) {
		cli_warnx("%s: cannot create", file);
	} else {
		rc = fwrite(body, 1, len, f) == len ? 0 : -1;
		if (fclose(f) != 0)
			rc = -1;
		if (rc < 0)
			cli_warnx("%s: write failed", file);
	}
	free(body);
	return rc;
}

int cli_machine_boot_log(const char *id, int argc, char **argv)
{
	struct boot_log_args a;
	struct cli_client *c;
	char path[256];
	json_t *log;
	int rc = CLI_EXIT_MISMATCH;

	if (parse(argc, argv, &a) < 0)
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	if (c == NULL)
		return CLI_EXIT_MISMATCH;
	snprintf(path, sizeof(path), "/v1/machines/%s/boot-log?format=%s", id,
		 a.raw != NULL ? "raw" :
		 a.cel	       ? "cel" :
				 "decoded");
	if (a.raw != NULL) {
		if (write_raw(c, path, a.raw) == 0)
			rc = CLI_EXIT_OK;
	} else if (cli_client_call(c, "GET", path, NULL, &log) == 0) {
		if (a.json || a.cel) {
			/* --cel: the CEL document itself, an array */
			cli_print_json(a.cel ? json_object_get(log, "cel") :
					       log);
		} else {
			cli_boot_log_print(log);
		}
		json_decref(log);
		rc = CLI_EXIT_OK;
	}
	cli_client_free(c);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_fleet.c - the operator's view of the fleet, over the REST API:
 *
 *	imatrust machines [--json]	every machine: ID STATE TNC LAST-SEEN
 *					REASON
 *	imatrust machine [--json] ID	one machine and its current boot
 *	imatrust events [--json] ID	a machine's events, oldest first
 *	imatrust approve ID		let a pending machine enroll
 *
 * Every command also takes --url, --ca and --token-file (cli_client.h).
 * Exit status: 0 done, 1 the verifier could not be reached or refused,
 * 2 bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define FLEET_PAGE 1000		/* rows asked per request */
#define REASON_SHORT 60		/* characters of a reason in a table */

struct fleet_args {
	struct cli_client_opts co;
	int json;
	const char *id;		/* the machine, for commands that take one */
};

/* Options of every fleet command; an ID operand when @want_id. */
static int fleet_parse(int argc, char **argv, int want_id,
		       struct fleet_args *a)
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
	if (argc - optind != want_id)
		goto usage;
	a->id = want_id ? argv[optind] : NULL;
	if (a->id != NULL && (strlen(a->id) == 0 || strlen(a->id) > 64 ||
			      strspn(a->id, "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
			      != strlen(a->id))) {
		cli_warnx("'%s' is not a machine id ([A-Za-z0-9._-], 1-64)",
			  a->id);
		return -1;
	}
	return 0;
usage:
	fprintf(stderr, "usage: imatrust %s [--json] %s%s\n", argv[0],
		CLI_CLIENT_USAGE, want_id ? " ID" : "");
	return -1;
}

static void print_json(json_t *j)
{
	json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
}

/* "12s ago", "3m ago", "never". */
static void ago(json_t *t, char *buf, size_t n)
{
	static const struct {
		long secs;
		const char *unit;
	} units[] = { { 86400, "d" }, { 3600, "h" }, { 60, "m" }, { 1, "s" } };
	long d;
	size_t i;

	if (!json_is_integer(t)) {
		snprintf(buf, n, "never");
		return;
	}
	d = (long)(time(NULL) - (time_t)json_integer_value(t));
	if (d < 0)
		d = 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]) - 1; i++) {
		if (d >= units[i].secs)
			break;
	}
	snprintf(buf, n, "%ld%s ago", d / units[i].secs, units[i].unit);
}

/* A reason in a few words: its check, verdict and path when it has them. */
static void reason_short(json_t *r, char *buf, size_t n)
{
	static const char *const keys[] = { "check", "verdict", "path",
					    "operator" };
	size_t i, o = 0;
	const char *s;
	char *dump;

	buf[0] = '\0';
	if (json_is_null(r) || r == NULL)
		return;
	for (i = 0; json_is_object(r) && i < sizeof(keys) / sizeof(keys[0]);
	     i++) {
		s = json_string_value(json_object_get(r, keys[i]));
		if (s != NULL && o < n)
			o += (size_t)snprintf(buf + o, n - o, "%s%s",
					      o ? " " : "", s);
	}
	if (o == 0) {
		dump = json_dumps(r, JSON_COMPACT | JSON_ENCODE_ANY);
		snprintf(buf, n, "%s", dump != NULL ? dump : "");
		free(dump);
	}
	if (strlen(buf) > REASON_SHORT)
		strcpy(buf + REASON_SHORT - 3, "...");
}

/* Every machine, page after page, into one array. */
static int fetch_machines(struct cli_client *c, json_t *all)
{
	char path[256], *after = NULL;
	json_t *a, *next;
	int rc = 0;

	do {
		snprintf(path, sizeof(path), "/v1/machines?limit=%d%s%s",
			 FLEET_PAGE, after ? "&after=" : "",
			 after ? after : "");
		free(after);
		after = NULL;
		if (cli_client_call(c, "GET", path, NULL, &a) < 0) {
			rc = -1;
			break;
		}
		json_array_extend(all, json_object_get(a, "machines"));
		next = json_object_get(a, "next");
		if (json_is_string(next))
			after = cli_client_escape(c, json_string_value(next));
		json_decref(a);
	} while (after != NULL);
	return rc;
}

static void print_table(json_t *all)
{
	static const char *const head[] = { "ID", "STATE", "TNC",
					    "LAST-SEEN", "REASON" };
	char cols[5][REASON_SHORT + 1];
	int w[5] = { 0 };
	size_t i, k, pass;
	json_t *m;

	for (k = 0; k < 5; k++)
		w[k] = (int)strlen(head[k]);
	/* pass 0 measures the columns, pass 1 prints */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0], head[0],
			       w[1], head[1], w[2], head[2], w[3], head[3],
			       head[4]);
		json_array_foreach(all, i, m) {
			snprintf(cols[0], sizeof(cols[0]), "%s",
				 json_string_value(json_object_get(m, "id")));
			snprintf(cols[1], sizeof(cols[1]), "%s",
				 json_string_value(json_object_get(m,
								   "state")));
			snprintf(cols[2], sizeof(cols[2]), "%s",
				 json_string_value(json_object_get(m, "tnc")));
			ago(json_object_get(m, "last_seen"), cols[3],
			    sizeof(cols[3]));
			reason_short(json_object_get(m, "state_reason"),
				     cols[4], sizeof(cols[4]));
			for (k = 0; pass == 0 && k < 4; k++) {
				if ((int)strlen(cols[k]) > w[k])
					w[k] = (int)strlen(cols[k]);
			}
			if (pass == 1)
				printf("%-*s  %-*s  %-*s  %-*s  %s\n", w[0],
				       cols[0], w[1], cols[1], w[2], cols[2],
				       w[3], cols[3], cols[4]);
		}
	}
}

int cli_machines_main(int argc, char **argv)
{
	struct fleet_args a;
	struct cli_client *c;
	json_t *all;
	int rc = CLI_EXIT_MISMATCH;

	if (fleet_parse(argc, argv, 0, &a) < 0)
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	all = json_array();
	if (c == NULL || all == NULL || fetch_machines(c, all) < 0)
		goto out;
	if (a.json)
		print_json(all);
	else
		print_table(all);
	rc = CLI_EXIT_OK;
out:
	json_decref(all);
	cli_client_free(c);
	return rc;
}

static void print_field(const char *name, json_t *v)
{
	char *s;

	if (json_is_string(v)) {
		printf("%-18s %s\n", name, json_string_value(v));
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	printf("%-18s %s\n", name, s != NULL ? s : "?");
	free(s);
}

static void print_machine(json_t *a)
{
	static const char *const mkeys[] = { "id", "state", "tnc", "approved",
					     "created_at", "last_seen",
					     "state_reason" };
	static const char *const bkeys[] = { "id", "reset_count",
					     "restart_count", "started_at",
					     "next_record_index", "pcr10" };
	json_t *m = json_object_get(a, "machine"), *b = json_object_get(a,
									"boot");
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(mkeys) / sizeof(mkeys[0]); i++)
		print_field(mkeys[i], json_object_get(m, mkeys[i]));
	if (!json_is_object(b)) {
		print_field("boot", json_null());
		return;
	}
	for (i = 0; i < sizeof(bkeys) / sizeof(bkeys[0]); i++) {
		snprintf(name, sizeof(name), "boot.%s", bkeys[i]);
		print_field(name, json_object_get(b, bkeys[i]));
	}
}

/* @method /v1/machines/ID@suffix; print the answer with @print. */
static int one_machine(int argc, char **argv, const char *method,
		       const char *suffix, void (*print)(json_t *))
{
	struct fleet_args a;
	struct cli_client *c;
	char path[256];
	json_t *ans = NULL;
	int rc = CLI_EXIT_MISMATCH;

	if (fleet_parse(argc, argv, 1, &a) < 0)
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	snprintf(path, sizeof(path), "/v1/machines/%s%s", a.id, suffix);
	if (c == NULL || cli_client_call(c, method, path, NULL, &ans) < 0)
		goto out;
	if (a.json)
		print_json(ans);
	else
		print(ans);
	rc = CLI_EXIT_OK;
out:
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

int cli_machine_main(int argc, char **argv)
{
	return one_machine(argc, argv, "GET", "",
			   print_machine);
}

static void print_approved(json_t *a)
{
	json_t *m = json_object_get(a, "machine");

	printf("%s approved by %s; state %s\n",
	       json_string_value(json_object_get(m, "id")),
	       json_string_value(json_object_get(a, "approved_by")),
	       json_string_value(json_object_get(m, "state")));
}

int cli_approve_main(int argc, char **argv)
{
	return one_machine(argc, argv, "POST", "/approve",
			   print_approved);
}

/* ID TIME KIND FROM->TO REASON */
static void print_event(json_t *e)
{
	char when[32], why[REASON_SHORT + 1], change[48] = "-";
	time_t t = (time_t)json_integer_value(json_object_get(e, "time"));
	const char *from = json_string_value(json_object_get(e, "from"));
	const char *to = json_string_value(json_object_get(e, "to"));
	struct tm tm;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	reason_short(json_object_get(e, "reason"), why, sizeof(why));
	if (from != NULL || to != NULL)
		snprintf(change, sizeof(change), "%s->%s", from ? from : "-",
			 to ? to : "-");
	printf("%-6lld %s  %-9s %-21s %s\n",
	       (long long)json_integer_value(json_object_get(e, "id")), when,
	       json_string_value(json_object_get(e, "kind")), change, why);
}

int cli_events_main(int argc, char **argv)
{
	struct fleet_args a;
	struct cli_client *c;
	json_t *all = json_array(), *ans, *next, *e;
	long long after = 0;
	char path[256];
	int rc = CLI_EXIT_MISMATCH;
	size_t i;

	if (fleet_parse(argc, argv, 1, &a) < 0) {
		json_decref(all);
		return CLI_EXIT_USAGE;
	}
	c = cli_client_new(&a.co);
	if (c == NULL || all == NULL)
		goto out;
	do {
		snprintf(path, sizeof(path),
			 "/v1/machines/%s/events?limit=%d&after=%lld", a.id,
			 FLEET_PAGE, after);
		if (cli_client_call(c, "GET", path, NULL, &ans) < 0)
			goto out;
		json_array_extend(all, json_object_get(ans, "events"));
		next = json_object_get(ans, "next");
		after = json_is_integer(next) ? json_integer_value(next) : 0;
		json_decref(ans);
	} while (after != 0);
	if (a.json)
		print_json(all);
	else
		json_array_foreach(all, i, e)
			print_event(e);
	rc = CLI_EXIT_OK;
out:
	json_decref(all);
	cli_client_free(c);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_fleet.c - the operator's view of the fleet, over the REST API:
 *
 *	imatrust machines [--json] [--boot] [--watch [--until-file F]
 *		[--footer F]]	every machine: ID STATE TNC [BOOT] LAST-SEEN
 *					EK-FINGERPRINT EK-SUBJECT REASON;
 *					--watch redraws it every second with
 *					the count of each state (and the last
 *					lines of F under it) until Ctrl-C
 *					or F of --until-file exists
 *	imatrust machine [--json] ID	one machine and its current boot
 *	imatrust machine add ID --ek FPR	pre-register: only that EK
 *					may take the id
 *	imatrust machine rm ID		remove a machine with its boots,
 *					records, events, challenges
 *	imatrust records [--json] [--verdict V] ID
 *	imatrust machine records [--json] [--verdict V] ID
 *					the current boot's records (only
 *					those of verdict V):
 *					INDEX VERDICT PATH ACCEPTED-BY
 *	imatrust machine ID boot-log [--json|--cel|--raw FILE]
 *	imatrust machine ID boot-baseline approve
 *					the boot's firmware event log
 *					(cli_boot_log.c)
 *	imatrust machine ID result [--nonce B64URL] [--json]
 *					the signed attestation result
 *					(cli_result.c)
 *	imatrust events [--json] ID	a machine's events, oldest first
 *	imatrust approve ID --ek FPR	let a pending machine enroll, if
 *					its EK has that fingerprint
 *	imatrust audit [--json] [--machine ID] [--since TIME]
 *					the audit trail, from TIME (a
 *					DATE in UTC or a DURATION ago)
 *
 * FPR is the EK fingerprint: 64 hex digits, SHA-256 of the EK's DER
 * SubjectPublicKeyInfo (imatrust machine ID shows it).
 * Every command also takes --url, --ca and --token-file (cli_client.h).
 * Exit status: 0 done, 1 the verifier could not be reached or refused,
 * 2 bad usage.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"
#include "hex.h"
#include "utc.h"

#define FLEET_PAGE 1000	      /* rows asked per request */
#define REASON_SHORT 60	      /* characters of a reason in a table */
#define SUBJECT_SHORT 40      /* characters of an EK subject in a table */
#define COLS 8		      /* columns of the machines table */
#define COL_BOOT 3	      /* shown with --boot only */
#define BOOT_CACHE_SECONDS 15 /* --watch asks a found boot log again */
#define FOOTER_LINES 14	      /* --footer: lines under the table */
#define FOOTER_MAX (1u << 20) /* bytes of a --footer file read */
#define CELL_MAX 72	      /* bytes of a cell: a whole fingerprint fits */

/* What a fleet command needs besides the client options. */
enum fleet_need {
	NEED_NONE = 0,
	NEED_ID = 1,	     /* one ID operand */
	NEED_EK = 2,	     /* --ek FPR */
	NEED_VERDICT_OK = 4, /* --verdict V is allowed */
	NEED_WATCH_OK = 8,   /* --watch, --boot, --until-file, --footer */
	NEED_SINCE_OK = 16,  /* --since TIME is allowed */
};

struct fleet_args {
	struct cli_client_opts co;
	int json;
	const char *id;	     /* the machine, for commands that take one */
	const char *ek;	     /* --ek: an EK fingerprint, checked */
	const char *machine; /* --machine: a filter */
	const char *verdict; /* --verdict: records of that verdict only */
	int watch;	     /* --watch: redraw every second */
	int boot;	     /* --boot: a BOOT column (one request a row) */
	const char *until;   /* --until-file: --watch ends once it exists */
	const char *footer;  /* --footer: its last lines under the table */
	const char *since;   /* --since: entries from that time on */
};

/* Check what @need asks of the parsed @a; 0 or -1 after a message. */
static int fleet_check(const struct fleet_args *a, unsigned int need)
{
	uint8_t fpr[HEX_FPR_SIZE];

	if (a->id != NULL && !cli_machine_id_ok(a->id)) {
		cli_warnx("'%s' is not a machine id ([A-Za-z0-9._-], 1-64)",
			  a->id);
		return -1;
	}
	if (a->machine != NULL && !cli_machine_id_ok(a->machine)) {
		cli_warnx("--machine '%s' is not a machine id", a->machine);
		return -1;
	}
	if ((need & NEED_EK) &&
	    (a->ek == NULL || hex_fpr_parse(a->ek, fpr) < 0)) {
		cli_warnx("--ek wants the EK fingerprint: 64 hex digits "
			  "(imatrust machine ID shows it)");
		return -1;
	}
	return 0;
}

/* Options of every fleet command; @need says which it requires. */
static int fleet_parse(int argc, char **argv, const char *name,
		       unsigned int need, struct fleet_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "ek", required_argument, NULL, 'e' },
		{ "machine", required_argument, NULL, 'm' },
		{ "verdict", required_argument, NULL, 'v' },
		{ "watch", no_argument, NULL, 'w' },
		{ "boot", no_argument, NULL, 'b' },
		{ "until-file", required_argument, NULL, 'u' },
		{ "footer", required_argument, NULL, 'f' },
		{ "since", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, want_id = (need & NEED_ID) != 0;

	memset(a, 0, sizeof(*a));
	while ((ch = getopt_long(argc, argv, "je:m:", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch == 'j')
			a->json = 1;
		else if (ch == 'e')
			a->ek = optarg;
		else if (ch == 'm')
			a->machine = optarg;
		else if (ch == 'v' && (need & NEED_VERDICT_OK))
			a->verdict = optarg;
		else if (ch == 'w' && (need & NEED_WATCH_OK))
			a->watch = 1;
		else if (ch == 'b' && (need & NEED_WATCH_OK))
			a->boot = 1;
		else if (ch == 'u' && (need & NEED_WATCH_OK))
			a->until = optarg;
		else if (ch == 'f' && (need & NEED_WATCH_OK))
			a->footer = optarg;
		else if (ch == 's' && (need & NEED_SINCE_OK))
			a->since = optarg;
		else
			goto usage;
	}
	if (argc - optind != want_id)
		goto usage;
	a->id = want_id ? argv[optind] : NULL;
	return fleet_check(a, need);
usage:
	fprintf(stderr, "usage: imatrust %s [--json] %s%s%s%s%s%s\n", name,
		CLI_CLIENT_USAGE,
		(need & NEED_SINCE_OK) ? " [--since TIME]" : "",
		(need & NEED_WATCH_OK) ? " [--watch [--until-file F] "
					 "[--footer F]] [--boot]" :
					 "",
		(need & NEED_VERDICT_OK) ? " [--verdict V]" : "",
		want_id ? " ID" : "", (need & NEED_EK) ? " --ek FPR" : "");
	return -1;
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

/* The cells of machine @m's row. */
static void machine_cells(json_t *m, char cols[COLS][CELL_MAX])
{
	size_t n = CELL_MAX;

	snprintf(cols[0], n, "%s", cli_str_or_dash(m, "id"));
	snprintf(cols[1], n, "%s", cli_str_or_dash(m, "state"));
	snprintf(cols[2], n, "%s", cli_str_or_dash(m, "tnc"));
	snprintf(cols[3], n, "%s", cli_str_or_dash(m, "boot"));
	ago(json_object_get(m, "last_seen"), cols[4], n);
	snprintf(cols[5], n, "%s", cli_str_or_dash(m, "ek_fpr"));
	snprintf(cols[6], n, "%s",
		 cli_str_or_dash(json_object_get(m, "ek_cert"), "subject"));
	if (strlen(cols[6]) > SUBJECT_SHORT)
		strcpy(cols[6] + SUBJECT_SHORT - 3, "...");
	reason_short(json_object_get(m, "state_reason"), cols[7],
		     REASON_SHORT + 1);
}

/* One row; column @skip (BOOT without --boot) left out. */
static void print_row(char cols[COLS][CELL_MAX], const int *w, size_t skip)
{
	size_t k;

	for (k = 0; k + 1 < COLS; k++) {
		if (k != skip)
			printf("%-*s  ", w[k], cols[k]);
	}
	printf("%s\n", cols[COLS - 1]);
}

static void print_table(json_t *all, int boot)
{
	static const char *const head[COLS] = {
		"ID",	     "STATE",	       "TNC",	     "BOOT",
		"LAST-SEEN", "EK-FINGERPRINT", "EK-SUBJECT", "REASON",
	};
	char cols[COLS][CELL_MAX];
	int w[COLS] = { 0 };
	size_t i, k, pass, skip = boot ? COLS : COL_BOOT;
	json_t *m;

	for (k = 0; k < COLS; k++)
		w[k] = (int)strlen(head[k]);
	/* pass 0 measures the columns, pass 1 prints */
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			for (k = 0; k < COLS; k++)
				snprintf(cols[k], sizeof(cols[k]), "%s",
					 head[k]);
			print_row(cols, w, skip);
		}
		json_array_foreach(all, i, m) {
			machine_cells(m, cols);
			for (k = 0; pass == 0 && k < COLS; k++) {
				if ((int)strlen(cols[k]) > w[k])
					w[k] = (int)strlen(cols[k]);
			}
			if (pass == 1)
				print_row(cols, w, skip);
		}
	}
}

/* UEFI firmware: "uefi" (any EV_EFI_* event); a verifier without that
 * fact: a SecureBoot value or a boot application. */
static int uefi_log(json_t *facts)
{
	json_t *u = json_object_get(facts, "uefi");

	if (json_is_boolean(u))
		return json_is_true(u);
	return json_is_boolean(json_object_get(facts, "secure_boot")) ||
	       json_array_size(json_object_get(facts, "applications")) > 0;
}

void cli_fleet_boot_cell(long status, json_t *ans, char *buf, size_t n)
{
	json_t *facts = json_object_get(ans, "facts");
	json_t *sb = json_object_get(facts, "secure_boot");
	const char *format = json_string_value(json_object_get(ans, "format"));

	if (status == 404)
		snprintf(buf, n, "no log");
	else if (status != 200)
		snprintf(buf, n, "log %ld", status);
	else if (format != NULL && strcmp(format, "legacy") == 0)
		snprintf(buf, n, "SHA-1 log");
	else if (!uefi_log(facts))
		snprintf(buf, n, "BIOS");
	else
		snprintf(buf, n, "UEFI SB %s",
			 !json_is_boolean(sb) ? "?" :
			 json_is_true(sb)     ? "on" :
						"off");
}

/* The BOOT cell of machine @id, from its firmware event log. */
static void boot_text(struct cli_client *c, const char *id, char *buf, size_t n)
{
	json_t *ans;
	char path[128];
	long status;

	snprintf(path, sizeof(path), "/v1/machines/%s/boot-log", id);
	if (cli_client_try(c, "GET", path, NULL, &status, &ans) < 0) {
		snprintf(buf, n, "?");
		return;
	}
	cli_fleet_boot_cell(status, ans, buf, n);
	json_decref(ans);
}

/*
 * Add "boot" to each machine of @all. @cache (machine id -> [time, text])
 * spares a --watch a request per machine and second: a log is kept for
 * BOOT_CACHE_SECONDS, "no log" asked again each time (it comes with the
 * first evidence of a boot).
 */
static void add_boot(struct cli_client *c, json_t *all, json_t *cache)
{
	char text[32];
	const char *id;
	json_t *m, *hit;
	time_t now = time(NULL);
	size_t i;

	json_array_foreach(all, i, m) {
		id = json_string_value(json_object_get(m, "id"));
		if (id == NULL)
			continue;
		hit = json_object_get(cache, id);
		if (hit != NULL &&
		    now - (time_t)json_integer_value(json_array_get(hit, 0)) <
			    BOOT_CACHE_SECONDS) {
			json_object_set(m, "boot", json_array_get(hit, 1));
			continue;
		}
		boot_text(c, id, text, sizeof(text));
		json_object_set_new(m, "boot", json_string(text));
		if (strcmp(text, "no log") != 0 && text[0] != '?')
			json_object_set_new(cache, id,
					    json_pack("[Is]", (json_int_t)now,
						      text));
	}
}

/* "trusted 2  untrusted 1": the machines of each state, in @all's order. */
static void print_counts(json_t *all)
{
	json_t *count = json_object(), *m, *v;
	const char *state, *k;
	size_t i;

	json_array_foreach(all, i, m) {
		state = cli_str_or_dash(m, "state");
		v = json_object_get(count, state);
		json_object_set_new(count, state,
				    json_integer(json_integer_value(v) + 1));
	}
	printf("%zu machines:", json_array_size(all));
	json_object_foreach(count, k, v)
		printf("  %s %lld", k, (long long)json_integer_value(v));
	putchar('\n');
	json_decref(count);
}

/* The last FOOTER_LINES lines of @path (a story a demo writes). */
static void print_footer(const char *path)
{
	char *text, *p;
	size_t len, lines = 0;

	text = cli_read_file(path, FOOTER_MAX, &len);
	if (text == NULL)
		return;
	for (p = text + len; p > text; p--) {
		if (p[-1] == '\n' && p != text + len && ++lines > FOOTER_LINES)
			break;
	}
	fwrite(p, 1, len - (size_t)(p - text), stdout);
	free(text);
}

static volatile sig_atomic_t watch_stop;

static void on_stop(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* --watch: the table every second until SIGINT/SIGTERM or --until-file. */
static int watch(const struct fleet_args *a, struct cli_client *c)
{
	struct sigaction sa;
	struct timespec second = { 1, 0 };
	json_t *cache = json_object(), *all;
	int tty = isatty(STDOUT_FILENO);
	char stamp[16];
	time_t now;
	struct tm tm;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!watch_stop) {
		all = json_array();
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "%H:%M:%S",
			 localtime_r(&now, &tm));
		if (tty)
			fputs("\033[H\033[J", stdout);
		printf("imatrust fleet  %s  (Ctrl-C ends)\n", stamp);
		if (all != NULL && fetch_machines(c, all) == 0) {
			if (a->boot)
				add_boot(c, all, cache);
			print_counts(all);
			print_table(all, a->boot);
		} else {
			printf("verifier unreachable (retrying)\n");
		}
		json_decref(all);
		if (a->footer != NULL) {
			putchar('\n');
			print_footer(a->footer);
		}
		fflush(stdout);
		if (a->until != NULL && access(a->until, F_OK) == 0)
			break;
		nanosleep(&second, NULL);
	}
	json_decref(cache);
	return CLI_EXIT_OK;
}

int cli_machines_main(int argc, char **argv)
{
	struct fleet_args a;
	struct cli_client *c;
	json_t *all;
	int rc = CLI_EXIT_MISMATCH;

	if (fleet_parse(argc, argv, argv[0], NEED_WATCH_OK, &a) < 0)
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	if (c != NULL && a.watch) {
		rc = watch(&a, c);
		cli_client_free(c);
		return rc;
	}
	all = json_array();
	if (c == NULL || all == NULL || fetch_machines(c, all) < 0)
		goto out;
	if (a.boot)
		add_boot(c, all, NULL);
	if (a.json)
		cli_print_json(all);
	else
		print_table(all, a.boot);
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
	static const char *const mkeys[] = {
		"id",	      "state",	   "tnc",	   "approved", "bank",
		"created_at", "last_seen", "state_reason", "ek_fpr"
	};
	static const char *const bkeys[] = {
		"id",	      "reset_count",	   "restart_count",
		"started_at", "next_record_index", "pcr10"
	};
	json_t *m = json_object_get(a, "machine"),
	       *b = json_object_get(a, "boot");
	json_t *cert = json_object_get(m, "ek_cert");
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(mkeys) / sizeof(mkeys[0]); i++)
		print_field(mkeys[i], json_object_get(m, mkeys[i]));
	print_field("ek_cert.subject",
		    json_is_object(cert) ? json_object_get(cert, "subject") :
					   json_null());
	print_field("ek_cert.issuer", json_is_object(cert) ?
					      json_object_get(cert, "issuer") :
					      json_null());
	print_field("policy", json_object_get(a, "policy"));
	if (!json_is_object(b)) {
		print_field("boot", json_null());
		return;
	}
	for (i = 0; i < sizeof(bkeys) / sizeof(bkeys[0]); i++) {
		snprintf(name, sizeof(name), "boot.%s", bkeys[i]);
		print_field(name, json_object_get(b, bkeys[i]));
	}
}

/* @method /v1/machines@suffix with @body; print the answer with @print. */
static int call_print(const struct fleet_args *a, const char *method,
		      const char *path, json_t *body, void (*print)(json_t *))
{
	struct cli_client *c = cli_client_new(&a->co);
	json_t *ans = NULL;
	int rc = CLI_EXIT_MISMATCH;

	if (c == NULL || cli_client_call(c, method, path, body, &ans) < 0)
		goto out;
	if (a->json)
		cli_print_json(ans);
	else
		print(ans);
	rc = CLI_EXIT_OK;
out:
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

static int show_machine(int argc, char **argv)
{
	struct fleet_args a;
	char path[256];

	if (fleet_parse(argc, argv, "machine", NEED_ID, &a) < 0)
		return CLI_EXIT_USAGE;
	snprintf(path, sizeof(path), "/v1/machines/%s", a.id);
	return call_print(&a, "GET", path, NULL, print_machine);
}

static void print_registered(json_t *a)
{
	json_t *r = json_object_get(a, "registration");

	printf("%s pre-registered for EK %s by %s\n", cli_str_or_dash(r, "id"),
	       cli_str_or_dash(r, "ek_fpr"), cli_str_or_dash(r, "operator"));
}

static int machine_add(int argc, char **argv)
{
	struct fleet_args a;
	json_t *body;
	int rc;

	if (fleet_parse(argc, argv, "machine add", NEED_ID | NEED_EK, &a) < 0)
		return CLI_EXIT_USAGE;
	body = json_pack("{s:i,s:s,s:s}", "v", 1, "id", a.id, "ek", a.ek);
	rc = call_print(&a, "POST", "/v1/machines", body, print_registered);
	json_decref(body);
	return rc;
}

static void print_removed(json_t *a)
{
	json_t *r = json_object_get(a, "removed");

	printf("%s removed: %s%s%lld boots, %lld records, %lld open "
	       "challenges; EK %s\n",
	       cli_str_or_dash(r, "id"),
	       json_is_true(json_object_get(r, "machine")) ? "machine, " : "",
	       json_is_true(json_object_get(r, "registration")) ?
		       "pre-registration, " :
		       "",
	       (long long)json_integer_value(json_object_get(r, "boots")),
	       (long long)json_integer_value(json_object_get(r, "records")),
	       (long long)json_integer_value(json_object_get(r, "enrollments")),
	       cli_str_or_dash(r, "ek_fpr"));
}

static int machine_rm(int argc, char **argv)
{
	struct fleet_args a;
	char path[256];

	if (fleet_parse(argc, argv, "machine rm", NEED_ID, &a) < 0)
		return CLI_EXIT_USAGE;
	snprintf(path, sizeof(path), "/v1/machines/%s", a.id);
	return call_print(&a, "DELETE", path, NULL, print_removed);
}

/* What accepted a record, in a few words: "deb:NAME", "key NAME". */
static void accepted_short(json_t *by, char *buf, size_t n)
{
	static const char *const keys[] = { "source", "rule", "key", "policy",
					    "check" };
	size_t i;

	snprintf(buf, n, "-");
	for (i = 0; json_is_object(by) && i < sizeof(keys) / sizeof(keys[0]);
	     i++) {
		const char *v = json_string_value(json_object_get(by, keys[i]));

		if (v == NULL)
			continue;
		if (i == 0)
			snprintf(buf, n, "%s", v);
		else
			snprintf(buf, n, "%s %s", keys[i], v);
		return;
	}
}

static void print_record(json_t *r)
{
	char by[256];

	accepted_short(json_object_get(r, "accepted_by"), by, sizeof(by));
	printf("%6lld  %-13s %s  %s\n",
	       (long long)json_integer_value(json_object_get(r, "index")),
	       cli_str_or_dash(r, "verdict"), cli_str_or_dash(r, "path"), by);
}

/* Every record of the current boot, page by page (?from= ... next). */
static int fetch_records_q(struct cli_client *c, const char *id, const char *qk,
			   const char *qv, json_t *all)
{
	json_int_t from = 0;
	char path[512];
	json_t *ans, *next;

	for (;;) {
		snprintf(path, sizeof(path),
			 "/v1/machines/%s/records?limit=%d"
			 "&from=%lld%s%s",
			 id, FLEET_PAGE, (long long)from, qk, qv);
		if (cli_client_call(c, "GET", path, NULL, &ans) < 0)
			return -1;
		json_array_extend(all, json_object_get(ans, "records"));
		next = json_object_get(ans, "next");
		from = json_integer_value(next);
		json_decref(ans);
		if (!json_is_integer(next))
			return 0;
	}
}

static int fetch_records(struct cli_client *c, const char *id,
			 const char *verdict, json_t *all)
{
	char *v = verdict != NULL ? cli_client_escape(c, verdict) : NULL;
	int rc = fetch_records_q(c, id, v != NULL ? "&verdict=" : "",
				 v != NULL ? v : "", all);

	free(v);
	return rc;
}

static int records_main(int argc, char **argv, const char *name)
{
	struct fleet_args a;
	struct cli_client *c;
	json_t *all = json_array(), *r;
	int rc = CLI_EXIT_MISMATCH;
	size_t i;

	if (fleet_parse(argc, argv, name, NEED_ID | NEED_VERDICT_OK, &a) < 0) {
		json_decref(all);
		return CLI_EXIT_USAGE;
	}
	c = cli_client_new(&a.co);
	if (c == NULL || all == NULL ||
	    fetch_records(c, a.id, a.verdict, all) < 0)
		goto out;
	if (a.json) {
		cli_print_json(all);
	} else {
		json_array_foreach(all, i, r)
			print_record(r);
	}
	rc = CLI_EXIT_OK;
out:
	json_decref(all);
	cli_client_free(c);
	return rc;
}

static int machine_records(int argc, char **argv)
{
	return records_main(argc, argv, "machine records");
}

int cli_records_main(int argc, char **argv)
{
	return records_main(argc, argv, "records");
}

/*
 * "machine add ..." and "machine rm ..." are subcommands when an operand
 * follows; "machine ID" shows a machine (use "machine -- add" for one
 * named add).
 */
int cli_machine_main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv);
	} subs[] = {
		{ "add", machine_add },
		{ "rm", machine_rm },
		{ "records", machine_records },
	};
	/* imatrust machine ID WHAT ...: commands about one machine */
	static const struct {
		const char *name;
		int (*run)(const char *id, int argc, char **argv);
	} of_one[] = {
		{ "boot-log", cli_machine_boot_log },
		{ "boot-baseline", cli_machine_boot_baseline },
		{ "result", cli_machine_result },
	};
	size_t i;

	for (i = 0; argc >= 3 && i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (strcmp(argv[1], subs[i].name) == 0)
			return subs[i].run(argc - 1, argv + 1);
	}
	for (i = 0; argc >= 3 && i < sizeof(of_one) / sizeof(of_one[0]); i++) {
		if (strcmp(argv[2], of_one[i].name) != 0)
			continue;
		if (!cli_machine_id_ok(argv[1])) {
			cli_warnx("'%s' is not a machine id ([A-Za-z0-9._-], 1-64)",
				  argv[1]);
			return CLI_EXIT_USAGE;
		}
		return of_one[i].run(argv[1], argc - 2, argv + 2);
	}
	return show_machine(argc, argv);
}

static void print_approved(json_t *a)
{
	json_t *m = json_object_get(a, "machine");

	printf("%s approved by %s for EK %s; state %s\n",
	       cli_str_or_dash(m, "id"), cli_str_or_dash(a, "approved_by"),
	       cli_str_or_dash(m, "ek_fpr"), cli_str_or_dash(m, "state"));
}

int cli_approve_main(int argc, char **argv)
{
	struct fleet_args a;
	char path[256];
	json_t *body;
	int rc;

	if (fleet_parse(argc, argv, argv[0], NEED_ID | NEED_EK, &a) < 0)
		return CLI_EXIT_USAGE;
	snprintf(path, sizeof(path), "/v1/machines/%s/approve", a.id);
	body = json_pack("{s:i,s:s}", "v", 1, "ek", a.ek);
	rc = call_print(&a, "POST", path, body, print_approved);
	json_decref(body);
	return rc;
}

/* ID TIME KIND FROM->TO REASON */
static void print_event(json_t *e)
{
	char when[UTC_TEXT_MAX], why[REASON_SHORT + 1], change[48] = "-";
	int64_t t = (int64_t)json_integer_value(json_object_get(e, "time"));
	const char *from = json_string_value(json_object_get(e, "from"));
	const char *to = json_string_value(json_object_get(e, "to"));

	utc_text(t, when, sizeof(when));
	reason_short(json_object_get(e, "reason"), why, sizeof(why));
	if (from != NULL || to != NULL)
		snprintf(change, sizeof(change), "%s->%s", from ? from : "-",
			 to ? to : "-");
	printf("%-6lld %s  %-9s %-21s %s\n",
	       (long long)json_integer_value(json_object_get(e, "id")), when,
	       json_string_value(json_object_get(e, "kind")), change, why);
}

/*
 * Every page of @prefix@query (cli_client_get_pages()), its @key items
 * printed as JSON (@json) or one by one with @print: 0, or -1.
 */
static int list_all(struct cli_client *c, int json, const char *prefix,
		    const char *query, const char *key, void (*print)(json_t *))
{
	json_t *all = json_array(), *e;
	int rc = -1;
	size_t i;

	if (all == NULL || cli_client_get_pages(c, prefix, query, key, all) < 0)
		goto out;
	if (json)
		cli_print_json(all);
	else
		json_array_foreach(all, i, e)
			print(e);
	rc = 0;
out:
	json_decref(all);
	return rc;
}

int cli_events_main(int argc, char **argv)
{
	struct fleet_args a;
	struct cli_client *c;
	char path[256];
	int rc = CLI_EXIT_MISMATCH;

	if (fleet_parse(argc, argv, argv[0], NEED_ID, &a) < 0)
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	snprintf(path, sizeof(path), "/v1/machines/%s/events", a.id);
	if (c != NULL &&
	    list_all(c, a.json, path, "", "events", print_event) == 0)
		rc = CLI_EXIT_OK;
	cli_client_free(c);
	return rc;
}

/* TIME ACTION MACHINE OPERATOR EK DETAIL; OPERATOR is "name/role" */
static void print_audit(json_t *e)
{
	const char *role = json_string_value(json_object_get(e, "role"));
	char when[UTC_TEXT_MAX], who[300], *detail;
	int64_t t = (int64_t)json_integer_value(json_object_get(e, "time"));
	json_t *d = json_object_get(e, "detail");

	utc_text(t, when, sizeof(when));
	detail = json_is_null(d) || d == NULL ?
			 NULL :
			 json_dumps(d, JSON_COMPACT | JSON_ENCODE_ANY);
	snprintf(who, sizeof(who), "%s%s%s", cli_str_or_dash(e, "operator"),
		 role != NULL ? "/" : "", role != NULL ? role : "");
	printf("%-6lld %s  %-16s %-20s %-10s %s %s\n",
	       (long long)json_integer_value(json_object_get(e, "id")), when,
	       cli_str_or_dash(e, "action"), cli_str_or_dash(e, "machine"), who,
	       cli_str_or_dash(e, "ek_fpr"), detail != NULL ? detail : "");
	free(detail);
}

/*
 * --since TIME: a DATE in UTC ("2027-01-31", "2027-01-31T12:00:00Z") or
 * a DURATION before now ("24h", "7d"); 0 or -1 after a message.
 */
static int since_of(const char *s, int64_t now, int64_t *at)
{
	int64_t d = utc_duration(s);

	*at = d > 0 ? now - d : utc_date(s);
	if (*at < 0) {
		cli_warnx("--since '%s': not a DURATION ago (24h; s, m, h, d "
			  "or w) or a DATE (2027-01-31, 2027-01-31T12:00:00Z, "
			  "UTC)",
			  s);
		return -1;
	}
	return 0;
}

int cli_audit_main(int argc, char **argv)
{
	struct fleet_args a;
	struct cli_client *c;
	char query[256], *m = NULL;
	int rc = CLI_EXIT_MISMATCH;
	int64_t since = 0;

	if (fleet_parse(argc, argv, argv[0], NEED_SINCE_OK, &a) < 0 ||
	    (a.since != NULL && since_of(a.since, time(NULL), &since) < 0))
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	if (c == NULL)
		return rc;
	if (a.machine != NULL)
		m = cli_client_escape(c, a.machine);
	snprintf(query, sizeof(query), "%s%s&since=%lld",
		 m != NULL ? "&machine=" : "", m != NULL ? m : "",
		 (long long)since);
	if (list_all(c, a.json, "/v1/audit", query, "audit", print_audit) == 0)
		rc = CLI_EXIT_OK;
	free(m);
	cli_client_free(c);
	return rc;
}

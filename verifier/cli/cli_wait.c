// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_wait.c - the CLI for scripts:
 *
 *	imatrust wait ID STATE[,STATE...] [--timeout S] [--interval S]
 *		[--ready FILE]
 *		poll GET /v1/machines/ID over one kept-alive connection until
 *		the machine's state is one of STATE. Prints two lines: the
 *		host's CLOCK_REALTIME when the answer came (seconds, 6
 *		decimals: scripts time detection with it), then the machine
 *		as compact JSON. --ready FILE is created after the first
 *		answer, so a caller starts what it times only once the poller
 *		is connected. Exit 0 reached, 1 timeout (the last answer on
 *		stderr) or the verifier refused, 2 bad usage.
 *	imatrust api GET PATH
 *		one raw GET of the operator API (the token added): the JSON
 *		answer, indented. Exit 1 on anything but 2xx.
 *
 * Both take --url, --ca, --token-file (cli_client.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"

#define WAIT_TIMEOUT_DEFAULT 120.0
#define WAIT_INTERVAL_DEFAULT 0.2
#define WAIT_INTERVAL_MIN 0.005
#define WAIT_RETRY 0.5 /* seconds after an error */

struct wait_args {
	struct cli_client_opts co;
	const char *id;
	const char *states; /* "trusted" or "trusted,stale" */
	double timeout;
	double interval;
	const char *ready;
};

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s,
			       (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Is @state one of the comma-separated @states? */
static int state_in(const char *state, const char *states)
{
	size_t n = strlen(state);
	const char *p = states;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, state, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return 0;
}

static int parse_seconds(const char *arg, const char *name, double min,
			 double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || v < min ||
	    v > 86400.0) {
		cli_warnx("%s wants seconds between %g and 86400, not '%s'",
			  name, min, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static int wait_parse(int argc, char **argv, struct wait_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "timeout", required_argument, NULL, 't' },
		{ "interval", required_argument, NULL, 'i' },
		{ "ready", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	a->timeout = WAIT_TIMEOUT_DEFAULT;
	a->interval = WAIT_INTERVAL_DEFAULT;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		if (ch == 't') {
			if (parse_seconds(optarg, "--timeout", 0, &a->timeout))
				return -1;
		} else if (ch == 'i') {
			if (parse_seconds(optarg, "--interval",
					  WAIT_INTERVAL_MIN, &a->interval))
				return -1;
		} else if (ch == 'r') {
			a->ready = optarg;
		} else {
			goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	a->id = argv[optind];
	a->states = argv[optind + 1];
	if (!cli_machine_id_ok(a->id)) {
		cli_warnx("'%s' is not a machine id ([A-Za-z0-9._-], 1-64)",
			  a->id);
		return -1;
	}
	if (a->states[0] == '\0' ||
	    strspn(a->states, "abcdefghijklmnopqrstuvwxyz,") !=
		    strlen(a->states)) {
		cli_warnx("STATE is a state or a comma list of them "
			  "(trusted,untrusted,failed,stale,pending,enrolling)");
		return -1;
	}
	return 0;
usage:
	fprintf(stderr,
		"usage: imatrust wait %s [--timeout S] "
		"[--interval S] [--ready FILE] ID STATE[,STATE...]\n",
		CLI_CLIENT_USAGE);
	return -1;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f == NULL)
		cli_warnx("--ready %s: %s", path, strerror(errno));
	else
		fclose(f);
}

int cli_wait_main(int argc, char **argv)
{
	struct wait_args a;
	struct cli_client *c;
	json_t *ans = NULL, *last = NULL;
	char path[128];
	double end, seen;
	const char *state;

	if (wait_parse(argc, argv, &a) < 0)
		return CLI_EXIT_USAGE;
	c = cli_client_new(&a.co);
	if (c == NULL)
		return CLI_EXIT_MISMATCH;
	snprintf(path, sizeof(path), "/v1/machines/%s", a.id);
	end = now_s(CLOCK_MONOTONIC) + a.timeout;
	for (;;) {
		/*
		 * An error (printed) does not end the wait: a verifier that
		 * restarts, or a machine not yet enrolled, answers later.
		 */
		if (cli_client_call(c, "GET", path, NULL, &ans) < 0) {
			if (now_s(CLOCK_MONOTONIC) + WAIT_RETRY > end)
				break;
			sleep_s(WAIT_RETRY);
			continue;
		}
		seen = now_s(CLOCK_REALTIME);
		if (a.ready != NULL) {
			touch(a.ready);
			a.ready = NULL;
		}
		json_decref(last);
		last = ans;
		state = json_string_value(
			json_object_get(json_object_get(ans, "machine"),
					"state"));
		if (state != NULL && state_in(state, a.states)) {
			printf("%.6f\n", seen);
			json_dumpf(ans, stdout, JSON_COMPACT);
			putchar('\n');
			json_decref(last);
			cli_client_free(c);
			return CLI_EXIT_OK;
		}
		if (now_s(CLOCK_MONOTONIC) + a.interval > end) {
			cli_warnx("%s: not %s after %g s (state %s)", a.id,
				  a.states, a.timeout,
				  state != NULL ? state : "?");
			json_dumpf(last, stderr, JSON_COMPACT);
			fputc('\n', stderr);
			break;
		}
		sleep_s(a.interval);
	}
	json_decref(last);
	cli_client_free(c);
	return CLI_EXIT_MISMATCH;
}

int cli_api_main(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_client_opts co = { 0 };
	struct cli_client *c;
	json_t *ans = NULL;
	int ch, rc = CLI_EXIT_MISMATCH;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (!cli_client_opt(&co, ch, optarg))
			goto usage;
	}
	if (argc - optind != 2 || strcmp(argv[optind], "GET") != 0 ||
	    argv[optind + 1][0] != '/')
		goto usage;
	c = cli_client_new(&co);
	if (c != NULL &&
	    cli_client_call(c, "GET", argv[optind + 1], NULL, &ans) == 0) {
		json_dumpf(ans, stdout,
			   JSON_INDENT(1) | JSON_PRESERVE_ORDER |
				   JSON_ENCODE_ANY);
		putchar('\n');
		rc = CLI_EXIT_OK;
	}
	json_decref(ans);
	cli_client_free(c);
	return rc;
usage:
	fprintf(stderr, "usage: imatrust api %s GET /v1/PATH\n",
		CLI_CLIENT_USAGE);
	return CLI_EXIT_USAGE;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon.c - the start-up both daemons share (see daemon.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon.h"
#include "log.h"

static void __attribute__((noreturn)) daemon_usage(const struct daemon_info *d)
{
	fprintf(stderr,
		"usage: %s [-dn] [-c FILE]%s%s\n"
		"       %s -H\n"
		"  -c FILE  configuration (default %s)\n"
		"  -d       log debug lines\n"
		"  -n       check the configuration and exit\n"
		"  -H       describe every configuration key\n",
		d->name, d->operands != NULL ? " " : "",
		d->operands != NULL ? d->operands : "", d->name,
		d->config_default);
	exit(2);
}

void daemon_options(const struct daemon_info *d, int argc, char **argv,
		    struct daemon_opts *o)
{
	int ch;

	/* journald names the unit already: no program name on its lines */
	log_init(getenv("JOURNAL_STREAM") != NULL ? NULL : d->name, 0);
	o->config = d->config_default;
	o->debug = 0;
	o->check = 0;
	/*
	 * With operands (a command), the options end at the first operand:
	 * what follows is the command's ("token add NAME --role reader").
	 */
	while ((ch = getopt(argc, argv,
			    d->operands != NULL ? "+c:dnH" : "c:dnH")) != -1) {
		switch (ch) {
		case 'c':
			o->config = optarg;
			break;
		case 'd':
			o->debug = 1;
			break;
		case 'n':
			o->check = 1;
			break;
		case 'H':
			d->print_keys(stdout);
			exit(0);
		default:
			daemon_usage(d);
		}
	}
	o->argc = argc - optind;
	o->argv = argv + optind;
	if (o->argc > 0 && d->operands == NULL)
		daemon_usage(d);
}

int daemon_log_level(const struct daemon_opts *o, const char *level)
{
	enum log_level l;

	if (log_level_parse(level, &l) < 0) {
		log_warnx("log_level '%s' is not debug, info or warning",
			  level);
		return -1;
	}
	log_setlevel(o->debug ? LOG_LEVEL_DEBUG : l);
	return 0;
}

int daemon_checked(const struct daemon_opts *o, const char *detail)
{
	printf("%s: configuration OK%s%s%s\n", o->config,
	       detail != NULL ? " (" : "", detail != NULL ? detail : "",
	       detail != NULL ? ")" : "");
	return 0;
}

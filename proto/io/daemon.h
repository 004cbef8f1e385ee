/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon.h - what both daemons' mains share: the log's program name, the
 * command line and the log level.
 *
 *	NAME [-dn] [-c FILE] [OPERANDS]
 *	NAME -H
 *
 *	-c FILE	the configuration file (default: the daemon's)
 *	-d	log debug lines, whatever log_level says
 *	-n	check the configuration and exit (0 when it is good)
 *	-H	print every configuration key with default and help, exit 0
 *
 * A bad option prints the usage and exits 2.
 */
#ifndef IMATRUST_DAEMON_H
#define IMATRUST_DAEMON_H

#include <stdio.h>

/* What differs between the daemons' command lines. */
struct daemon_info {
	const char *name;	       /* "imatrust-agent" */
	const char *config_default;    /* -c's default */
	const char *operands;	       /* usage of the operands; NULL: none */
	void (*print_keys)(FILE *out); /* -H: the config key table */
};

/* The shared options, as daemon_options() found them. */
struct daemon_opts {
	const char *config; /* -c FILE, else the default */
	int debug;	    /* -d */
	int check;	    /* -n */
	int argc;	    /* the operands after the options */
	char **argv;
};

/**
 * daemon_options() - start the log and read the command line.
 * @d: the daemon
 * @argc: main's argc
 * @argv: main's argv
 * @o: receives the options and the operands
 *
 * Log lines carry @d->name, except under journald (JOURNAL_STREAM set),
 * which names the unit itself. -H prints the keys and exits 0; a bad
 * option, or an operand when @d->operands is NULL, prints the usage and
 * exits 2.
 */
void daemon_options(const struct daemon_info *d, int argc, char **argv,
		    struct daemon_opts *o);

/**
 * daemon_log_level() - show log lines from the config's log_level up,
 * everything under -d.
 * @o: the options (-d)
 * @level: the log_level value: "debug", "info" or "warning"
 *
 * Return: 0, or -1 (logged) for another @level.
 */
int daemon_log_level(const struct daemon_opts *o, const char *level);

/**
 * daemon_checked() - the answer of -n for a good configuration: print
 * "FILE: configuration OK[ (@detail)]" on stdout.
 * @o: the options (-c)
 * @detail: what the check found worth saying, or NULL
 *
 * Return: 0, main's exit status.
 */
int daemon_checked(const struct daemon_opts *o, const char *detail);

#endif /* IMATRUST_DAEMON_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli_util.h - small helpers shared by the imatrust CLI commands.
 */
#ifndef IMATRUST_CLI_UTIL_H
#define IMATRUST_CLI_UTIL_H

#include <stddef.h>

#include <jansson.h>

/* Exit codes of every imatrust command. */
#define CLI_EXIT_OK 0	    /* done; every check passed */
#define CLI_EXIT_MISMATCH 1 /* a check failed */
#define CLI_EXIT_USAGE 2    /* bad usage or malformed input */

/**
 * cli_machine_id_ok() - is @id a machine id: 1 to 64 of [A-Za-z0-9._-]?
 * Return: 1 or 0.
 */
int cli_machine_id_ok(const char *id);

/**
 * cli_name_ok() - is @name the name of a key, policy or endpoint: 1 to 64
 * of [A-Za-z0-9._-]? When not, says so naming @what ("policy").
 * Return: 1 or 0.
 */
int cli_name_ok(const char *name, const char *what);

/**
 * cli_str_or_dash() - string member @key of @o, or "-" when it is absent,
 * null, not a string or empty: a cell of a table.
 */
const char *cli_str_or_dash(json_t *o, const char *key);

/**
 * cli_warnx() - print "imatrust: <message>" on stderr.
 * @fmt: printf-style message, without trailing newline
 */
void cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * cli_read_file() - read a whole (small) file into a malloc'ed buffer.
 * @path: file to read
 * @max: refuse files larger than this
 * @len: receives the number of bytes read
 *
 * Return: the bytes (caller frees), or NULL after printing why.
 */
char *cli_read_file(const char *path, size_t max, size_t *len);

/**
 * cli_print_escaped() - print @n bytes of @s to stdout, control bytes,
 * non-ASCII and backslashes as \\xNN, so text from a machine cannot fake
 * a line or move the terminal.
 * @s: the text (need not be NUL-terminated)
 * @n: its length
 */
void cli_print_escaped(const char *s, size_t n);

/** cli_print_json() - @j on stdout, indented by 2, its order kept. */
void cli_print_json(json_t *j);

/**
 * cli_print_rejudged() - the line of a change's re-judge: "machines
 * re-judged N, now trusted N, now untrusted N".
 * @ans: the answer of the change (rejudge_stats_json())
 */
void cli_print_rejudged(json_t *ans);

#endif /* IMATRUST_CLI_UTIL_H */

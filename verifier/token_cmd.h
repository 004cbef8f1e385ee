/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * token_cmd.h - `imatrust-verifier token add|set|list|rm` (token_cmd.c): the
 * operator tokens, on the database directly, while the daemon runs or not.
 */
#ifndef IMATRUST_TOKEN_CMD_H
#define IMATRUST_TOKEN_CMD_H

#include <stdint.h>

#include "db.h"

#define TOKEN_CMD_USAGE \
	"usage: imatrust-verifier [-c FILE] token add NAME " \
	"[--role reader|operator|admin] [--expires DURATION|DATE]\n" \
	"       imatrust-verifier [-c FILE] token set NAME " \
	"[--role reader|operator|admin] [--expires DURATION|DATE|never]\n" \
	"       imatrust-verifier [-c FILE] token list\n" \
	"       imatrust-verifier [-c FILE] token rm NAME\n"

/**
 * token_cmd_check() - are @argc/@argv ("token" first) a token command?
 * Return: 0, or 2 (the usage printed) when they are not.
 */
int token_cmd_check(int argc, char **argv);

/**
 * token_cmd_run() - run the checked command on @db at @now.
 * Return: the exit status (0, 1 a failure said on stderr, 2 usage).
 */
int token_cmd_run(struct db *db, int argc, char **argv, int64_t now);

/**
 * token_cmd_expiry() - @s as the second a token expires: a DURATION from
 * @now (a number and s, m, h, d or w: "90d") or a DATE in UTC
 * ("2027-01-31", "2027-01-31T12:00:00Z"), later than @now.
 * Return: 0 with *@at, or -1 with @why.
 */
int token_cmd_expiry(const char *s, int64_t now, int64_t *at, const char **why);

#endif /* IMATRUST_TOKEN_CMD_H */

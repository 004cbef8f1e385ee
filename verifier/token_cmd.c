// SPDX-License-Identifier: GPL-2.0-only
/*
 * token_cmd.c - `imatrust-verifier token add|set|list|rm` (token_cmd.h).
 *
 * A new token's role is operator unless --role says otherwise: the least
 * a person working the fleet needs (references, policies, approvals,
 * removals, imports), without keys and webhooks, which change who is
 * trusted to sign and who is told; those need --role admin. The tokens
 * made before roles existed became admin (schema 0021), so nothing an
 * operator did stops working.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "db_token.h"
#include "hex.h"
#include "log.h"
#include "token_cmd.h"
#include "utc.h"

#define TOKEN_BYTES 32 /* a new operator token, before hex */
#define TOKEN_DEFAULT_ROLE DB_ROLE_OPERATOR

/* The options of "token add NAME ...": role and expiry. */
struct add_opts {
	const char *name;
	enum db_token_role role;
	int role_given;
	const char *expires;
};

static int parse_add(int argc, char **argv, struct add_opts *a)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->role = TOKEN_DEFAULT_ROLE;
	if (argc < 3 || argv[2][0] == '-')
		return -1;
	a->name = argv[2];
	for (i = 3; i < argc; i++) {
		if (i + 1 >= argc)
			return -1;
		if (strcmp(argv[i], "--role") == 0) {
			if (db_token_role_parse(argv[++i], &a->role) < 0)
				return -1;
			a->role_given = 1;
		} else if (strcmp(argv[i], "--expires") == 0) {
			a->expires = argv[++i];
		} else {
			return -1;
		}
	}
	return 0;
}

int token_cmd_check(int argc, char **argv)
{
	struct add_opts a;
	int ok = 0;

	if (argc >= 2 && strcmp(argv[1], "add") == 0)
		ok = parse_add(argc, argv, &a) == 0;
	else if (argc >= 2 && strcmp(argv[1], "set") == 0)
		ok = parse_add(argc, argv, &a) == 0 &&
		     (a.role_given || a.expires != NULL);
	else if (argc == 2 && strcmp(argv[1], "list") == 0)
		ok = 1;
	else if (argc == 3 && strcmp(argv[1], "rm") == 0)
		ok = 1;
	if (!ok)
		fprintf(stderr, TOKEN_CMD_USAGE);
	return ok ? 0 : 2;
}

int token_cmd_expiry(const char *s, int64_t now, int64_t *at, const char **why)
{
	int64_t d = utc_duration(s);

	if (d > 0) {
		*at = now + d;
		return 0;
	}
	d = utc_date(s);
	if (d < 0) {
		*why = "not a DURATION (90d; s, m, h, d or w) or a DATE "
		       "(2027-01-31, 2027-01-31T12:00:00Z, UTC)";
		return -1;
	}
	if (d <= now) {
		*why = "that is not in the future";
		return -1;
	}
	*at = d;
	return 0;
}

static int token_add(struct db *db, const struct add_opts *a, int64_t now)
{
	uint8_t raw[TOKEN_BYTES];
	char token[2 * TOKEN_BYTES + 1];
	struct imt_error err;
	int64_t at = 0;
	const char *why;
	int rc = 1;

	if (a->expires != NULL &&
	    token_cmd_expiry(a->expires, now, &at, &why) < 0) {
		log_warnx("token add: --expires %s: %s", a->expires, why);
		return 2;
	}
	if (RAND_bytes(raw, sizeof(raw)) != 1) {
		log_warnx("no randomness for a token");
		return 1;
	}
	/* The token is its hex text: what the operator pastes is hashed. */
	hex_encode(raw, sizeof(raw), token);
	if (db_token_add_scoped(db, a->name, (const uint8_t *)token,
				strlen(token), a->role, at, now, &err) < 0) {
		log_warnx("token add: %s", err.msg);
	} else {
		if (!a->role_given)
			log_info("token %s: role %s, the default (--role "
				 "admin for keys and webhooks)",
				 a->name, db_token_role_name(a->role));
		printf("%s\n", token);
		rc = 0;
	}
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(token, sizeof(token));
	return rc;
}

/* "token set NAME [--role R] [--expires D|DATE|never]": the secret kept. */
static int token_set(struct db *db, const struct add_opts *a, int64_t now)
{
	struct imt_error err;
	int64_t at = -1;
	const char *why;
	int found = 0;

	if (a->expires != NULL && strcmp(a->expires, "never") == 0)
		at = 0;
	else if (a->expires != NULL &&
		 token_cmd_expiry(a->expires, now, &at, &why) < 0) {
		log_warnx("token set: --expires %s: %s", a->expires, why);
		return 2;
	}
	if (db_token_set(db, a->name, a->role_given ? a->role : DB_ROLE_NONE,
			 at, &found, &err) < 0) {
		log_warnx("token set: %s", err.msg);
		return 1;
	}
	if (!found) {
		log_warnx("no token named %s", a->name);
		return 1;
	}
	return 0;
}

/* @t as UTC text, or @none when 0. */
static const char *when(int64_t t, const char *none, char *buf, size_t n)
{
	return t == 0 ? none : utc_text(t, buf, n);
}

static int token_list(struct db *db, int64_t now)
{
	struct db_token *list = calloc(DB_TOKENS_MAX, sizeof(*list));
	char c[32], e[32], u[32];
	struct imt_error err;
	size_t n = 0, i;

	if (list == NULL ||
	    db_token_list(db, list, DB_TOKENS_MAX, &n, &err) < 0) {
		log_warnx("token list: %s", list ? err.msg : "out of memory");
		free(list);
		return 1;
	}
	printf("%-20s %-8s %-20s %-20s %s\n", "NAME", "ROLE", "CREATED",
	       "EXPIRES", "LAST USED");
	for (i = 0; i < n; i++)
		printf("%-20s %-8s %-20s %-20s %s%s\n", list[i].name,
		       db_token_role_name(list[i].role),
		       when(list[i].created_at, "-", c, sizeof(c)),
		       when(list[i].expires_at, "never", e, sizeof(e)),
		       when(list[i].last_used, "never", u, sizeof(u)),
		       list[i].expires_at != 0 && now >= list[i].expires_at ?
			       " (expired)" :
			       "");
	free(list);
	return 0;
}

int token_cmd_run(struct db *db, int argc, char **argv, int64_t now)
{
	struct imt_error err;
	struct add_opts a;
	int deleted = 0;

	if (token_cmd_check(argc, argv) != 0)
		return 2;
	if (strcmp(argv[1], "list") == 0)
		return token_list(db, now);
	if (strcmp(argv[1], "add") == 0 || strcmp(argv[1], "set") == 0) {
		parse_add(argc, argv, &a);
		return argv[1][0] == 'a' ? token_add(db, &a, now) :
					   token_set(db, &a, now);
	}
	if (db_token_delete(db, argv[2], &deleted, &err) < 0) {
		log_warnx("token rm: %s", err.msg);
		return 1;
	}
	if (!deleted) {
		log_warnx("no token named %s", argv[2]);
		return 1;
	}
	return 0;
}

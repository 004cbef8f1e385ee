/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_token.h - operator tokens (db_token.c). The conventions every function
 * follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_TOKEN_H
#define IMATRUST_DB_TOKEN_H

#include "db.h"

/*
 * What a token may do, each role everything the one before may (so a
 * route's need is met by a role >= it). The route table says which role
 * each route needs (verifier/api/routes.c).
 */
enum db_token_role {
	DB_ROLE_NONE = 0,     /* no token: the unguarded routes */
	DB_ROLE_READER = 1,   /* GET, and POST /v1/verify (stores nothing) */
	DB_ROLE_OPERATOR = 2, /* references, policies, approvals, removals */
	DB_ROLE_ADMIN = 3, /* keys, webhooks; what tokens of before 0021 are */
};

/* One stored token, without its hash. */
struct db_token {
	char name[DB_NAME_MAX + 1];
	enum db_token_role role;
	int64_t created_at;
	int64_t expires_at; /* refused from this second on; 0: never */
	int64_t last_used;  /* to the minute (db_token_touch()); 0: never */
};

/* "reader", "operator", "admin"; "none" for DB_ROLE_NONE and the rest. */
const char *db_token_role_name(enum db_token_role role);

/* db_token_role_parse() - @s as a role; -1 when it names none. */
int db_token_role_parse(const char *s, enum db_token_role *role);

/**
 * db_token_add() - store the SHA-256 of @token under @name.
 * IMT_ERR_MISMATCH when @name exists; IMT_ERR_LIMIT past DB_TOKENS_MAX.
 */
int db_token_add(struct db *db, const char *name, const uint8_t *token,
		 size_t len, int64_t now, struct imt_error *err);

/**
 * db_token_add_scoped() - db_token_add() with @role and @expires_at (the
 * second from which the token is refused; 0: never). db_token_add() is
 * this with DB_ROLE_ADMIN and no expiry: what every token was before.
 */
int db_token_add_scoped(struct db *db, const char *name, const uint8_t *token,
			size_t len, enum db_token_role role, int64_t expires_at,
			int64_t now, struct imt_error *err);

/**
 * db_token_set() - change @name's role and expiry in place, its secret
 * kept: @role DB_ROLE_NONE keeps the role, @expires_at -1 the expiry (0:
 * never). *@found = 0 or 1.
 */
int db_token_set(struct db *db, const char *name, enum db_token_role role,
		 int64_t expires_at, int *found, struct imt_error *err);

/** db_token_delete() - remove @name; *deleted = 0 or 1 (may be NULL). */
int db_token_delete(struct db *db, const char *name, int *deleted,
		    struct imt_error *err);

/**
 * db_token_check() - is @token one of the stored tokens?
 * @name: receives the matching token's name ("" when none)
 * @ok: receives 1 on a match, else 0
 *
 * Every stored hash is compared, in constant time, whatever matches. A
 * token of a size no stored token can have is simply not ok.
 */
int db_token_check(struct db *db, const uint8_t *token, size_t len,
		   char name[DB_NAME_MAX + 1], int *ok, struct imt_error *err);

/**
 * db_token_lookup() - db_token_check() that returns the whole row of the
 * matching token in @tok (zeroed when none). Whether it has expired is
 * the caller's to judge: the row says when, the caller knows now.
 */
int db_token_lookup(struct db *db, const uint8_t *token, size_t len,
		    struct db_token *tok, int *ok, struct imt_error *err);

/**
 * db_token_touch() - set @name's last_used to @now unless it is that
 * already or later. A write: the caller throttles it (auth.c).
 */
int db_token_touch(struct db *db, const char *name, int64_t now,
		   struct imt_error *err);

/**
 * db_token_list() - the stored tokens by name, at most @max (DB_TOKENS_MAX
 * holds them all) into @out; *@n receives how many.
 */
int db_token_list(struct db *db, struct db_token *out, size_t max, size_t *n,
		  struct imt_error *err);

#endif /* IMATRUST_DB_TOKEN_H */

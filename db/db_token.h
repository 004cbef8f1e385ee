/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_token.h - operator tokens (db_token.c). The conventions every function
 * follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_TOKEN_H
#define IMATRUST_DB_TOKEN_H

#include "db.h"

/**
 * db_token_add() - store the SHA-256 of @token under @name.
 * IMT_ERR_MISMATCH when @name exists; IMT_ERR_LIMIT past DB_TOKENS_MAX.
 */
int db_token_add(struct db *db, const char *name, const uint8_t *token,
		 size_t len, int64_t now, struct imt_error *err);

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

#endif /* IMATRUST_DB_TOKEN_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_token.c - operator bearer tokens, stored as SHA-256 hashes.
 *
 * A token is a high-entropy secret, so an unsalted SHA-256 is enough to
 * keep a stolen database from yielding usable tokens; a slow password
 * hash would only cost time on every request.
 */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "db_internal.h"
#include "db_token.h"

#define TOKEN_HASH_SIZE 32

static int token_hash(const uint8_t *token, size_t len,
		      uint8_t hash[TOKEN_HASH_SIZE], struct imt_error *err)
{
	unsigned int n = 0;

	if (!EVP_Digest(token, len, hash, &n, EVP_sha256(), NULL) ||
	    n != TOKEN_HASH_SIZE)
		return db_err(err, IMT_ERR_INTERNAL, "SHA-256 failed");
	return 0;
}

static int check_token(const uint8_t *token, size_t len, struct imt_error *err)
{
	return db_check_blob(token, len, DB_TOKEN_MIN, DB_TOKEN_MAX_BYTES,
			     "token", err);
}

static const char *const role_names[] = {
	[DB_ROLE_READER] = "reader",
	[DB_ROLE_OPERATOR] = "operator",
	[DB_ROLE_ADMIN] = "admin",
};

const char *db_token_role_name(enum db_token_role role)
{
	if (role < DB_ROLE_READER || role > DB_ROLE_ADMIN)
		return "none";
	return role_names[role];
}

int db_token_role_parse(const char *s, enum db_token_role *role)
{
	int r;

	for (r = DB_ROLE_READER; r <= DB_ROLE_ADMIN; r++) {
		if (s != NULL && strcmp(s, role_names[r]) == 0) {
			*role = r;
			return 0;
		}
	}
	return -1;
}

static const char sql_token_count[] = "SELECT count(*) FROM tokens";
static const char sql_token_insert[] =
	"INSERT INTO tokens (name, hash, created_at, role, expires_at) "
	"VALUES (?1, ?2, ?3, ?4, ?5)";

static int token_insert(struct db *db, const char *name,
			const uint8_t hash[TOKEN_HASH_SIZE],
			enum db_token_role role, int64_t expires_at,
			int64_t now, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_token_count, err);
	int64_t count;

	if (st == NULL)
		return -1;
	if (db_step(st) != DB_ROW) {
		db_fail(db, err, "count tokens");
		db_reset(st);
		return -1;
	}
	count = db_col_int64(st, 0);
	db_reset(st);
	if (count >= DB_TOKENS_MAX)
		return db_err(err, IMT_ERR_LIMIT, "%d tokens stored already",
			      DB_TOKENS_MAX);
	st = db_stmt(db, sql_token_insert, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	db_bind_blob(st, 2, hash, TOKEN_HASH_SIZE);
	db_bind_int64(st, 3, now);
	db_bind_text(st, 4, db_token_role_name(role));
	if (expires_at != 0)
		db_bind_int64(st, 5, expires_at);
	else
		db_bind_null(st, 5);
	if (db_step_done(db, st, err, "token") < 0) {
		if (err != NULL && err->status == IMT_ERR_MISMATCH)
			db_err(err, IMT_ERR_MISMATCH, "token %s exists", name);
		return -1;
	}
	return 0;
}

int db_token_add(struct db *db, const char *name, const uint8_t *token,
		 size_t len, int64_t now, struct imt_error *err)
{
	return db_token_add_scoped(db, name, token, len, DB_ROLE_ADMIN, 0, now,
				   err);
}

int db_token_add_scoped(struct db *db, const char *name, const uint8_t *token,
			size_t len, enum db_token_role role, int64_t expires_at,
			int64_t now, struct imt_error *err)
{
	uint8_t hash[TOKEN_HASH_SIZE];
	int rc = -1;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_str(name, DB_NAME_MAX, "token name", err) < 0 ||
	    check_token(token, len, err) < 0)
		return -1;
	if (role < DB_ROLE_READER || role > DB_ROLE_ADMIN || expires_at < 0)
		return db_bad(err, "token role or expiry out of range");
	if (token_hash(token, len, hash, err) < 0 || db_begin(db, err) < 0)
		goto out;
	if (token_insert(db, name, hash, role, expires_at, now, err) < 0) {
		db_rollback(db);
		goto out;
	}
	rc = db_commit(db, err);
out:
	OPENSSL_cleanse(hash, sizeof(hash));
	return rc;
}

static const char sql_token_set[] =
	"UPDATE tokens SET role = COALESCE(?2, role), "
	"expires_at = CASE WHEN ?3 < 0 THEN expires_at "
	"WHEN ?3 = 0 THEN NULL ELSE ?3 END "
	"WHERE name = ?1";

int db_token_set(struct db *db, const char *name, enum db_token_role role,
		 int64_t expires_at, int *found, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || found == NULL)
		return db_bad(err, "no database or result");
	if (db_check_str(name, DB_NAME_MAX, "token name", err) < 0)
		return -1;
	if (role < DB_ROLE_NONE || role > DB_ROLE_ADMIN || expires_at < -1)
		return db_bad(err, "token role or expiry out of range");
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	st = db_stmt(db, sql_token_set, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	if (role != DB_ROLE_NONE)
		db_bind_text(st, 2, db_token_role_name(role));
	else
		db_bind_null(st, 2);
	db_bind_int64(st, 3, expires_at);
	if (db_step_done(db, st, err, "set token") < 0)
		return -1;
	*found = db_changes(db) == 1;
	return 0;
}

static const char sql_token_delete[] = "DELETE FROM tokens WHERE name = ?1";

int db_token_delete(struct db *db, const char *name, int *deleted,
		    struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_str(name, DB_NAME_MAX, "token name", err) < 0)
		return -1;
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	st = db_stmt(db, sql_token_delete, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	if (db_step_done(db, st, err, "delete token") < 0)
		return -1;
	if (deleted != NULL)
		*deleted = db_changes(db) == 1;
	return 0;
}

/*
 * Walk every stored hash and compare each in constant time, remembering
 * the match without leaving the loop early: how long the check takes says
 * nothing about which token (if any) matched or how much of it did.
 */
static const char sql_token_all[] =
	"SELECT name, hash, role, created_at, expires_at, last_used "
	"FROM tokens";

/* The columns after the hash of sql_token_all's row into @tok. */
static int token_row(struct db_stmt *st, const char *n, struct db_token *tok,
		     struct imt_error *err)
{
	if (db_token_role_parse(db_col_text(st, 2), &tok->role) < 0)
		return db_err(err, IMT_ERR_INTERNAL, "corrupt token row");
	strcpy(tok->name, n);
	tok->created_at = db_col_int64(st, 3);
	tok->expires_at = db_col_int64(st, 4);
	tok->last_used = db_col_int64(st, 5);
	return 0;
}

static int token_scan(struct db *db, struct db_stmt *st,
		      const uint8_t want[TOKEN_HASH_SIZE], struct db_token *tok,
		      int *ok, struct imt_error *err)
{
	const char *n;
	int step, same;

	while ((step = db_step(st)) == DB_ROW) {
		n = db_col_text(st, 0);
		if (db_col_bytes(st, 1) != TOKEN_HASH_SIZE || n == NULL ||
		    strlen(n) > DB_NAME_MAX)
			return db_err(err, IMT_ERR_INTERNAL,
				      "corrupt token row");
		same = CRYPTO_memcmp(db_col_blob(st, 1), want,
				     TOKEN_HASH_SIZE) == 0;
		if (same) {
			if (token_row(st, n, tok, err) < 0)
				return -1;
			*ok = 1;
		}
	}
	if (step != DB_DONE)
		return db_fail(db, err, "check token");
	return 0;
}

int db_token_check(struct db *db, const uint8_t *token, size_t len,
		   char name[DB_NAME_MAX + 1], int *ok, struct imt_error *err)
{
	struct db_token tok;
	int rc;

	if (name == NULL)
		return db_bad(err, "no database or result");
	rc = db_token_lookup(db, token, len, &tok, ok, err);
	strcpy(name, tok.name);
	return rc;
}

int db_token_lookup(struct db *db, const uint8_t *token, size_t len,
		    struct db_token *tok, int *ok, struct imt_error *err)
{
	uint8_t want[TOKEN_HASH_SIZE];
	struct db_stmt *st = NULL;
	int rc = -1;

	if (tok != NULL)
		memset(tok, 0, sizeof(*tok));
	if (db == NULL || tok == NULL || ok == NULL)
		return db_bad(err, "no database or result");
	*ok = 0;
	/* A token of impossible size matches nothing: an answer, not a fault */
	if (token == NULL || len < DB_TOKEN_MIN || len > DB_TOKEN_MAX_BYTES)
		return 0;
	if (token_hash(token, len, want, err) < 0)
		goto out;
	st = db_stmt(db, sql_token_all, err);
	if (st == NULL)
		goto out;
	rc = token_scan(db, st, want, tok, ok, err);
	if (rc < 0) {
		*ok = 0;
		memset(tok, 0, sizeof(*tok));
	}
out:
	if (st != NULL)
		db_reset(st);
	OPENSSL_cleanse(want, sizeof(want));
	return rc;
}

static const char sql_token_touch[] =
	"UPDATE tokens SET last_used = ?2 WHERE name = ?1 AND "
	"(last_used IS NULL OR last_used < ?2)";

int db_token_touch(struct db *db, const char *name, int64_t now,
		   struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_str(name, DB_NAME_MAX, "token name", err) < 0)
		return -1;
	/* inside an import's transaction: the next check writes it */
	if (db->import_open)
		return 0;
	st = db_stmt(db, sql_token_touch, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	db_bind_int64(st, 2, now);
	return db_step_done(db, st, err, "token last used");
}

static const char sql_token_list[] =
	"SELECT name, hash, role, created_at, expires_at, last_used "
	"FROM tokens ORDER BY name";

int db_token_list(struct db *db, struct db_token *out, size_t max, size_t *n,
		  struct imt_error *err)
{
	struct db_stmt *st;
	const char *name;
	int step = DB_DONE, rc = 0;

	if (db == NULL || n == NULL || (out == NULL && max > 0))
		return db_bad(err, "no database or result");
	*n = 0;
	st = db_stmt(db, sql_token_list, err);
	if (st == NULL)
		return -1;
	while (rc == 0 && (step = db_step(st)) == DB_ROW) {
		name = db_col_text(st, 0);
		if (name == NULL || strlen(name) > DB_NAME_MAX)
			rc = db_err(err, IMT_ERR_INTERNAL, "corrupt token row");
		else if (*n >= max)
			rc = db_err(err, IMT_ERR_LIMIT, "more than %zu tokens",
				    max);
		else if (token_row(st, name, &out[*n], err) == 0)
			(*n)++;
		else
			rc = -1;
	}
	if (rc == 0 && step != DB_DONE)
		rc = db_fail(db, err, "list tokens");
	db_reset(st);
	return rc;
}

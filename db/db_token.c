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

static const char sql_token_count[] = "SELECT count(*) FROM tokens";
static const char sql_token_insert[] =
	"INSERT INTO tokens (name, hash, created_at) VALUES (?1, ?2, ?3)";

static int token_insert(struct db *db, const char *name,
			const uint8_t hash[TOKEN_HASH_SIZE], int64_t now,
			struct imt_error *err)
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
	uint8_t hash[TOKEN_HASH_SIZE];
	int rc = -1;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_check_str(name, DB_NAME_MAX, "token name", err) < 0 ||
	    check_token(token, len, err) < 0)
		return -1;
	if (token_hash(token, len, hash, err) < 0 || db_begin(db, err) < 0)
		goto out;
	if (token_insert(db, name, hash, now, err) < 0) {
		db_rollback(db);
		goto out;
	}
	rc = db_commit(db, err);
out:
	OPENSSL_cleanse(hash, sizeof(hash));
	return rc;
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
static const char sql_token_all[] = "SELECT name, hash FROM tokens";

static int token_scan(struct db *db, struct db_stmt *st,
		      const uint8_t want[TOKEN_HASH_SIZE],
		      char name[DB_NAME_MAX + 1], int *ok,
		      struct imt_error *err)
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
			strcpy(name, n);
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
	uint8_t want[TOKEN_HASH_SIZE];
	struct db_stmt *st = NULL;
	int rc = -1;

	if (db == NULL || name == NULL || ok == NULL)
		return db_bad(err, "no database or result");
	*ok = 0;
	name[0] = '\0';
	/* A token of impossible size matches nothing: an answer, not a fault */
	if (token == NULL || len < DB_TOKEN_MIN || len > DB_TOKEN_MAX_BYTES)
		return 0;
	if (token_hash(token, len, want, err) < 0)
		goto out;
	st = db_stmt(db, sql_token_all, err);
	if (st == NULL)
		goto out;
	rc = token_scan(db, st, want, name, ok, err);
	if (rc < 0) {
		*ok = 0;
		name[0] = '\0';
	}
out:
	if (st != NULL)
		db_reset(st);
	OPENSSL_cleanse(want, sizeof(want));
	return rc;
}

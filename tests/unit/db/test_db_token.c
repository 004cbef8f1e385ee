// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_token.c - operator tokens: stored hashed, checked in constant
 * time.
 */
#include <openssl/sha.h>

#include "db_audit.h"
#include "db_test.h"
#include "db_token.h"

#define TOK(s) ((const uint8_t *)(s)), (sizeof(s) - 1)

static int check(struct tdb *t, const uint8_t *tok, size_t len, char *name)
{
	struct imt_error err;
	int ok;

	if (db_token_check(t->db, tok, len, name, &ok, &err) < 0)
		fail_msg("check: %s", err.msg);
	return ok;
}

static void test_add_check(void **state)
{
	char name[DB_NAME_MAX + 1];
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add(t.db, "alice",
				      TOK("alice-secret-0123456789"), T_NOW,
				      &err),
			 0);
	assert_int_equal(db_token_add(t.db, "bob",
				      TOK("bob-secret-abcdefghijkl"), T_NOW,
				      &err),
			 0);
	assert_int_equal(check(&t, TOK("bob-secret-abcdefghijkl"), name), 1);
	assert_string_equal(name, "bob");
	assert_int_equal(check(&t, TOK("alice-secret-0123456789"), name), 1);
	assert_string_equal(name, "alice");
	assert_int_equal(check(&t, TOK("alice-secret-0123456788"), name), 0);
	assert_string_equal(name, "");
	/* Too short or too long to be a token: just "no". */
	assert_int_equal(check(&t, TOK("short"), name), 0);
	assert_int_equal(check(&t, NULL, 0, name), 0);

	assert_int_equal(db_token_add(t.db, "alice",
				      TOK("another-secret-0123456789"), T_NOW,
				      &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_token_add(t.db, "carol", TOK("short"), T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	tdb_remove(&t);
}

static void test_stored_hashed(void **state)
{
	static const char tok[] = "alice-secret-0123456789";
	uint8_t want[SHA256_DIGEST_LENGTH];
	struct imt_error err;
	uint8_t got[64];
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add(t.db, "alice", TOK(tok), T_NOW, &err), 0);
	SHA256((const uint8_t *)tok, sizeof(tok) - 1, want);
	assert_int_equal(tdb_blob(&t, "SELECT hash FROM tokens", got,
				  sizeof(got)),
			 sizeof(want));
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(tdb_int2(&t,
				  "SELECT count(*) FROM tokens WHERE "
				  "instr(hash, 'alice-secret') > 0",
				  "SELECT count(*) FROM tokens WHERE "
				  "position('alice-secret'::bytea in hash) "
				  "> 0"),
			 0);
	tdb_remove(&t);
}

static void test_delete_and_limit(void **state)
{
	char name[DB_NAME_MAX + 1], tok[32];
	struct imt_error err;
	struct tdb t;
	int i, deleted;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add(t.db, "alice",
				      TOK("alice-secret-0123456789"), T_NOW,
				      &err),
			 0);
	assert_int_equal(db_token_delete(t.db, "alice", &deleted, &err), 0);
	assert_int_equal(deleted, 1);
	assert_int_equal(db_token_delete(t.db, "alice", &deleted, &err), 0);
	assert_int_equal(deleted, 0);
	assert_int_equal(check(&t, TOK("alice-secret-0123456789"), name), 0);

	for (i = 0; i < DB_TOKENS_MAX; i++) {
		snprintf(name, sizeof(name), "op%d", i);
		snprintf(tok, sizeof(tok), "token-number-%08d", i);
		assert_int_equal(db_token_add(t.db, name, (uint8_t *)tok,
					      strlen(tok), T_NOW, &err),
				 0);
	}
	assert_int_equal(db_token_add(t.db, "one-more",
				      TOK("token-number-99999999"), T_NOW,
				      &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_int_equal(check(&t, TOK("token-number-00000063"), name), 1);
	assert_string_equal(name, "op63");
	tdb_remove(&t);
}

/* A token's role and expiry come back with the match; unscoped is admin. */
static void test_role_expiry(void **state)
{
	struct db_token tok;
	struct imt_error err;
	struct tdb t;
	int ok;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add_scoped(t.db, "rita",
					     TOK("rita-secret-0123456789"),
					     DB_ROLE_READER, T_NOW + 60, T_NOW,
					     &err),
			 0);
	assert_int_equal(db_token_add(t.db, "adam",
				      TOK("adam-secret-0123456789"), T_NOW,
				      &err),
			 0);
	assert_int_equal(db_token_lookup(t.db, TOK("rita-secret-0123456789"),
					 &tok, &ok, &err),
			 0);
	assert_int_equal(ok, 1);
	assert_string_equal(tok.name, "rita");
	assert_int_equal(tok.role, DB_ROLE_READER);
	assert_int_equal(tok.expires_at, T_NOW + 60);
	assert_int_equal(tok.created_at, T_NOW);
	assert_int_equal(tok.last_used, 0);
	assert_int_equal(db_token_lookup(t.db, TOK("adam-secret-0123456789"),
					 &tok, &ok, &err),
			 0);
	assert_int_equal(tok.role, DB_ROLE_ADMIN);
	assert_int_equal(tok.expires_at, 0);
	assert_int_equal(db_token_add_scoped(t.db, "x",
					     TOK("x-secret-0123456789abc"),
					     DB_ROLE_NONE, 0, T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	tdb_remove(&t);
}

static struct db_token lookup(struct tdb *t, const uint8_t *tok, size_t len)
{
	struct db_token out;
	struct imt_error err;
	int ok;

	if (db_token_lookup(t->db, tok, len, &out, &ok, &err) < 0 || !ok)
		fail_msg("lookup: %s", ok ? err.msg : "not found");
	return out;
}

/* token set: role and expiry change in place, each kept when not given. */
static void test_set(void **state)
{
	struct db_token tok;
	struct imt_error err;
	struct tdb t;
	int found = -1;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add_scoped(t.db, "rita",
					     TOK("rita-secret-0123456789"),
					     DB_ROLE_READER, T_NOW + 60, T_NOW,
					     &err),
			 0);
	assert_int_equal(db_token_set(t.db, "rita", DB_ROLE_OPERATOR, -1,
				      &found, &err),
			 0);
	assert_int_equal(found, 1);
	tok = lookup(&t, TOK("rita-secret-0123456789"));
	assert_int_equal(tok.role, DB_ROLE_OPERATOR);
	assert_int_equal(tok.expires_at, T_NOW + 60);
	assert_int_equal(db_token_set(t.db, "rita", DB_ROLE_NONE, 0, &found,
				      &err),
			 0);
	tok = lookup(&t, TOK("rita-secret-0123456789"));
	assert_int_equal(tok.role, DB_ROLE_OPERATOR);
	assert_int_equal(tok.expires_at, 0);
	assert_int_equal(db_token_set(t.db, "rita", DB_ROLE_ADMIN, T_NOW + 5,
				      &found, &err),
			 0);
	tok = lookup(&t, TOK("rita-secret-0123456789"));
	assert_int_equal(tok.role, DB_ROLE_ADMIN);
	assert_int_equal(tok.expires_at, T_NOW + 5);
	assert_int_equal(db_token_set(t.db, "nobody", DB_ROLE_READER, -1,
				      &found, &err),
			 0);
	assert_int_equal(found, 0);
	assert_int_equal(db_token_set(t.db, "rita", DB_ROLE_ADMIN + 1, -1,
				      &found, &err),
			 -1);
	tdb_remove(&t);
}

/* last_used only moves forward; the list has every token, by name. */
static void test_touch_list(void **state)
{
	struct db_token list[DB_TOKENS_MAX];
	struct imt_error err;
	struct tdb t;
	size_t n;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add_scoped(t.db, "oscar",
					     TOK("oscar-secret-0123456789"),
					     DB_ROLE_OPERATOR, 0, T_NOW, &err),
			 0);
	assert_int_equal(db_token_add(t.db, "adam",
				      TOK("adam-secret-0123456789"), T_NOW,
				      &err),
			 0);
	assert_int_equal(db_token_touch(t.db, "oscar", T_NOW + 90, &err), 0);
	assert_int_equal(db_token_touch(t.db, "oscar", T_NOW + 30, &err), 0);
	assert_int_equal(db_token_list(t.db, list, DB_TOKENS_MAX, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(list[0].name, "adam");
	assert_int_equal(list[0].role, DB_ROLE_ADMIN);
	assert_int_equal(list[0].last_used, 0);
	assert_string_equal(list[1].name, "oscar");
	assert_int_equal(list[1].role, DB_ROLE_OPERATOR);
	assert_int_equal(list[1].last_used, T_NOW + 90);
	assert_int_equal(db_token_list(t.db, list, 1, &n, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	tdb_remove(&t);
}

static int audit_role(const struct db_audit *a, void *arg)
{
	snprintf(arg, 32, "%s", a->role != NULL ? a->role : "(null)");
	return 0;
}

/* An audit entry carries the role of the token its operator names. */
static void test_audit_role(void **state)
{
	struct db_audit a = { .time = T_NOW, .action = "policy-put" };
	struct imt_error err;
	char role[32] = "";
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_token_add_scoped(t.db, "oscar",
					     TOK("oscar-secret-0123456789"),
					     DB_ROLE_OPERATOR, 0, T_NOW, &err),
			 0);
	a.op_name = "oscar";
	assert_int_equal(db_audit_add(t.db, &a, &err), 0);
	assert_int_equal(db_audit_list(t.db, NULL, 0, 1, audit_role, role,
				       &err),
			 0);
	assert_string_equal(role, "operator");
	a.op_name = NULL;
	assert_int_equal(db_audit_add(t.db, &a, &err), 0);
	assert_int_equal(db_audit_list(t.db, NULL, 1, 1, audit_role, role,
				       &err),
			 0);
	assert_string_equal(role, "(null)");
	tdb_remove(&t);
}

static void test_role_names(void **state)
{
	enum db_token_role r;

	(void)state;
	assert_int_equal(db_token_role_parse("reader", &r), 0);
	assert_int_equal(r, DB_ROLE_READER);
	assert_int_equal(db_token_role_parse("operator", &r), 0);
	assert_int_equal(r, DB_ROLE_OPERATOR);
	assert_int_equal(db_token_role_parse("admin", &r), 0);
	assert_int_equal(r, DB_ROLE_ADMIN);
	assert_int_equal(db_token_role_parse("root", &r), -1);
	assert_int_equal(db_token_role_parse(NULL, &r), -1);
	assert_string_equal(db_token_role_name(DB_ROLE_OPERATOR), "operator");
	assert_string_equal(db_token_role_name(DB_ROLE_NONE), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_check),
		cmocka_unit_test(test_stored_hashed),
		cmocka_unit_test(test_delete_and_limit),
		cmocka_unit_test(test_role_expiry),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_touch_list),
		cmocka_unit_test(test_role_names),
		cmocka_unit_test(test_audit_role),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

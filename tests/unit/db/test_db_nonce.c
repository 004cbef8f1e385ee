// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_nonce.c - quote nonces: single use, expiry, bound to a machine.
 */
#include "db_test.h"

static enum db_nonce_result consume(struct tdb *t, const char *id,
				    const uint8_t *n, size_t len, int64_t now)
{
	enum db_nonce_result res;
	struct imt_error err;

	if (db_nonce_consume(t->db, id, n, len, now, &res, &err) < 0)
		fail_msg("consume: %s", err.msg);
	return res;
}

static void test_single_use(void **state)
{
	uint8_t n[32];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(n, 0x5a, sizeof(n));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 30,
					&err), 0);
	assert_int_equal(consume(&t, "m1", n, sizeof(n), T_NOW), DB_NONCE_OK);
	assert_int_equal(consume(&t, "m1", n, sizeof(n), T_NOW),
			 DB_NONCE_USED);
	assert_int_equal(consume(&t, "m1", n, sizeof(n), T_NOW + 1),
			 DB_NONCE_USED);
	/* Issuing the same value again is refused, not a second life. */
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 60,
					&err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	n[0] ^= 1;
	assert_int_equal(consume(&t, "m1", n, sizeof(n), T_NOW),
			 DB_NONCE_UNKNOWN);
	tdb_remove(&t);
}

static void test_expiry(void **state)
{
	uint8_t a[16], b[16];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 16, T_NOW + 30, &err),
			 0);
	/* Valid while now < expires_at: the last second still counts ... */
	assert_int_equal(consume(&t, "m1", a, 16, T_NOW + 29), DB_NONCE_OK);
	assert_int_equal(db_nonce_issue(t.db, "m1", b, 16, T_NOW + 30, &err),
			 0);
	/* ... expires_at itself does not, and the failed try changes nothing */
	assert_int_equal(consume(&t, "m1", b, 16, T_NOW + 30),
			 DB_NONCE_EXPIRED);
	assert_int_equal(consume(&t, "m1", b, 16, T_NOW + 3000),
			 DB_NONCE_EXPIRED);
	assert_int_equal(tdb_int(&t, "SELECT sum(used) FROM nonces"), 0);
	tdb_remove(&t);
}

/* A machine has one nonce at a time: a new one voids the old. */
static void test_one_outstanding(void **state)
{
	uint8_t a[32], b[32], out[DB_NONCE_MAX];
	struct imt_error err;
	int64_t expires = 0;
	size_t len = 0, i;
	struct tdb t;
	int found;

	(void)state;
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err), 0);
	assert_false(found);
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 32, T_NOW + 30, &err),
			 0);
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err), 0);
	assert_true(found);
	assert_int_equal(len, 32);
	assert_memory_equal(out, a, 32);
	assert_int_equal(expires, T_NOW + 30);
	assert_int_equal(db_nonce_issue(t.db, "m1", b, 32, T_NOW + 30, &err),
			 0);
	assert_int_equal(consume(&t, "m1", a, 32, T_NOW), DB_NONCE_UNKNOWN);
	/* neither expired nor used ones are outstanding */
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW + 30, out,
					      &len, &expires, &found, &err), 0);
	assert_false(found);
	assert_int_equal(consume(&t, "m1", b, 32, T_NOW), DB_NONCE_OK);
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err), 0);
	assert_false(found);
	for (i = 0; i < 1000; i++) {
		memcpy(a, &i, sizeof(i));
		assert_int_equal(db_nonce_issue(t.db, "m1", a, 32,
						T_NOW + 30, &err), 0);
	}
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM nonces"), 1);
	tdb_remove(&t);
}

static void test_other_machine(void **state)
{
	uint8_t n[20];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(n, 7, sizeof(n));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 30,
					&err), 0);
	assert_int_equal(consume(&t, "m2", n, sizeof(n), T_NOW),
			 DB_NONCE_OTHER_MACHINE);
	/* The thief's attempt did not burn it for its owner. */
	assert_int_equal(consume(&t, "m1", n, sizeof(n), T_NOW), DB_NONCE_OK);
	assert_int_equal(consume(&t, "m2", n, sizeof(n), T_NOW),
			 DB_NONCE_OTHER_MACHINE);
	tdb_remove(&t);
}

static void test_bad_input(void **state)
{
	uint8_t n[DB_NONCE_MAX + 1] = { 0 };
	enum db_nonce_result res;
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, DB_NONCE_MIN - 1,
					T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, DB_NONCE_MAX + 1,
					T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_int_equal(db_nonce_issue(t.db, "m1", NULL, 16, T_NOW, &err),
			 -1);
	assert_int_equal(db_nonce_issue(t.db, "ghost", n, 16, T_NOW + 1,
					&err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_nonce_consume(t.db, "m1", n, 3, T_NOW, &res,
					  &err), -1);
	assert_int_equal(db_nonce_consume(t.db, "m1", n, 16, T_NOW, NULL,
					  &err), -1);
	assert_string_equal(db_nonce_result_name(DB_NONCE_EXPIRED),
			    "nonce expired");
	assert_string_equal(db_nonce_result_name((enum db_nonce_result)9),
			    "invalid");
	tdb_remove(&t);
}

static enum db_nonce_result renew(struct tdb *t, const char *id,
				  const uint8_t *n, const uint8_t *next,
				  int64_t now)
{
	enum db_nonce_result res;
	struct imt_error err;

	if (db_nonce_renew(t->db, id, n, 32, now, next, 32, now + 30, &res,
			   &err) < 0)
		fail_msg("renew: %s", err.msg);
	return res;
}

/* Consume and issue in one row write: the same rules as the two calls. */
static void test_renew(void **state)
{
	uint8_t a[32], b[32], c[32], d[32], out[DB_NONCE_MAX];
	enum db_nonce_result res;
	struct imt_error err;
	int64_t expires;
	size_t len;
	int found;
	struct tdb t;

	(void)state;
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	memset(c, 3, sizeof(c));
	memset(d, 4, sizeof(d));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 32, T_NOW + 30, &err),
			 0);
	assert_int_equal(db_nonce_issue(t.db, "m2", d, 32, T_NOW + 30, &err),
			 0);
	/* another machine's nonce, an expired one: refused, nothing moves */
	assert_int_equal(renew(&t, "m2", a, c, T_NOW), DB_NONCE_OTHER_MACHINE);
	assert_int_equal(renew(&t, "m1", a, c, T_NOW + 30), DB_NONCE_EXPIRED);
	assert_int_equal(renew(&t, "m1", a, b, T_NOW), DB_NONCE_OK);
	/* b is outstanding now, until T_NOW + 30; a is gone */
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err), 0);
	assert_int_equal(found, 1);
	assert_memory_equal(out, b, 32);
	assert_int_equal(expires, T_NOW + 30);
	assert_int_equal(renew(&t, "m1", a, c, T_NOW), DB_NONCE_UNKNOWN);
	assert_int_equal(consume(&t, "m1", a, 32, T_NOW), DB_NONCE_UNKNOWN);
	/* the next value may not be another machine's: nothing changes */
	assert_int_equal(db_nonce_renew(t.db, "m1", b, 32, T_NOW, d, 32,
					T_NOW + 30, &res, &err), -1);
	assert_int_equal(err.status, IMT_ERR_INTERNAL);
	/* inside a batch, and undone with it */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(renew(&t, "m1", b, c, T_NOW), DB_NONCE_OK);
	db_batch_abort(t.db);
	assert_int_equal(consume(&t, "m1", c, 32, T_NOW), DB_NONCE_UNKNOWN);
	assert_int_equal(renew(&t, "m1", b, c, T_NOW), DB_NONCE_OK);
	assert_int_equal(consume(&t, "m1", c, 32, T_NOW), DB_NONCE_OK);
	assert_int_equal(db_nonce_renew(t.db, "m1", c, 32, T_NOW, d, 3,
					T_NOW + 30, &res, &err), -1);
	assert_int_equal(db_nonce_renew(t.db, "m1", c, 32, T_NOW, d, 32,
					T_NOW + 30, NULL, &err), -1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_use),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_one_outstanding),
		cmocka_unit_test(test_other_machine),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_renew),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_enroll.c - credential challenges and activation.
 */
#include "db_test.h"

static struct db_challenge challenge(uint8_t fill, int chained)
{
	struct db_challenge c = { 0 };

	memset(c.secret, fill, 32);
	c.secret_len = 32;
	memset(c.ak_pub, fill, 100);
	c.ak_pub_len = 100;
	c.ak_name[0] = 0x00;
	c.ak_name[1] = 0x0b;
	memset(c.ak_name + 2, fill, 32);
	c.ak_name_len = 34;
	c.ek_chained = chained;
	c.expires_at = T_NOW + 300;
	return c;
}

static void test_put_get_replace_delete(void **state)
{
	struct db_challenge a = challenge(1, 1), b = challenge(2, 0), got;
	struct imt_error err;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_challenge_get(t.db, "m1", &got, &found, &err), 0);
	assert_int_equal(found, 0);
	assert_int_equal(db_challenge_put(t.db, "m1", &a, &err), 0);
	/* enrolling again replaces the open challenge */
	assert_int_equal(db_challenge_put(t.db, "m1", &b, &err), 0);
	assert_int_equal(db_challenge_get(t.db, "m1", &got, &found, &err), 0);
	assert_int_equal(found, 1);
	assert_memory_equal(got.secret, b.secret, 32);
	assert_int_equal(got.ak_name_len, 34);
	assert_int_equal(got.ek_chained, 0);
	assert_int_equal(got.expires_at, T_NOW + 300);
	assert_int_equal(db_challenge_delete(t.db, "m1", &err), 0);
	assert_int_equal(db_challenge_get(t.db, "m1", &got, &found, &err), 0);
	assert_int_equal(found, 0);
	/* a challenge needs a machine, and a secret of 16-64 bytes */
	assert_int_equal(db_challenge_put(t.db, "ghost", &a, &err), -1);
	a.secret_len = 8;
	assert_int_equal(db_challenge_put(t.db, "m1", &a, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	tdb_close(&t);
	unlink(t.path);
}

static void test_activate(void **state)
{
	struct db_challenge c = challenge(7, 1);
	enum db_machine_state s;
	struct db_machine m;
	struct imt_error err;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_int_equal(m.activated, 0);
	db_machine_release(&m);
	assert_int_equal(db_challenge_put(t.db, "m1", &c, &err), 0);
	assert_int_equal(db_machine_activate(t.db, "m1", &c, T_NOW, &s, &err),
			 0);
	assert_int_equal(s, DB_STATE_ENROLLING);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_int_equal(m.activated, 1);
	/* the proven AK replaces the one stored at creation */
	assert_int_equal(m.ak_pub_len, 100);
	assert_memory_equal(m.ak_name, c.ak_name, 34);
	db_machine_release(&m);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM challenges"), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events "
				     "WHERE kind = 'activated'"), 1);
	tdb_close(&t);
	unlink(t.path);
}

static void test_activate_unvouched_is_pending_until_approved(void **state)
{
	struct db_challenge c = challenge(3, 0);
	enum db_machine_state s;
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_PENDING);
	assert_int_equal(db_machine_activate(t.db, "m1", &c, T_NOW, &s, &err),
			 0);
	assert_int_equal(s, DB_STATE_PENDING);
	/* approved first, then activated: straight to enrolling */
	tdb_machine(&t, "m2", DB_STATE_PENDING);
	assert_int_equal(db_machine_approve(t.db, "m2", "ops", T_NOW, &err), 0);
	assert_int_equal(db_machine_activate(t.db, "m2", &c, T_NOW, &s, &err),
			 0);
	assert_int_equal(s, DB_STATE_ENROLLING);
	/* no such machine: nothing happens */
	assert_int_equal(db_machine_activate(t.db, "m3", &c, T_NOW, &s, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	tdb_close(&t);
	unlink(t.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_get_replace_delete),
		cmocka_unit_test(test_activate),
		cmocka_unit_test(test_activate_unvouched_is_pending_until_approved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

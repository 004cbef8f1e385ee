// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_nonce.c - quote nonces: single use, expiry, bound to a machine.
 */
#include "db_machine.h"
#include "db_nonce.h"
#include "db_test.h"

/*
 * What evidence does with nonce @n (@len bytes): db_nonce_renew() to
 * @next (32 bytes), valid 30 s from @now, the machine seen at @seen (0:
 * not seen); why not, if refused.
 */
static enum db_nonce_result renew_seen(struct tdb *t, const char *id,
				       const uint8_t *n, size_t len,
				       const uint8_t *next, int64_t now,
				       int64_t seen)
{
	enum db_nonce_result res;
	struct imt_error err;

	if (db_nonce_renew(t->db, id, n, len, now,
			   &(struct db_nonce_next){ next, 32, now + 30, seen },
			   &res, &err) < 0)
		fail_msg("renew: %s", err.msg);
	return res;
}

/* renew_seen() of evidence that does not count as seen. */
static enum db_nonce_result renew(struct tdb *t, const char *id,
				  const uint8_t *n, size_t len,
				  const uint8_t *next, int64_t now)
{
	return renew_seen(t, id, n, len, next, now, 0);
}

static void test_single_use(void **state)
{
	uint8_t n[32], next[32], other[32];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(n, 0x5a, sizeof(n));
	memset(next, 0xa5, sizeof(next));
	memset(other, 0x3c, sizeof(other));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 30,
					&err),
			 0);
	assert_int_equal(renew(&t, "m1", n, sizeof(n), next, T_NOW),
			 DB_NONCE_OK);
	/* used once: the row holds the next value from then on */
	assert_int_equal(renew(&t, "m1", n, sizeof(n), other, T_NOW),
			 DB_NONCE_UNKNOWN);
	assert_int_equal(renew(&t, "m1", n, sizeof(n), other, T_NOW + 1),
			 DB_NONCE_UNKNOWN);
	/*
	 * A row marked used (as db_nonce_consume() of earlier verifiers
	 * left them, until retention removes them) is refused as used.
	 */
	tdb_exec(&t, "UPDATE nonces SET used = 1");
	assert_int_equal(renew(&t, "m1", next, sizeof(next), other, T_NOW),
			 DB_NONCE_USED);
	assert_int_equal(renew(&t, "m1", next, sizeof(next), other, T_NOW + 1),
			 DB_NONCE_USED);
	/* Issuing the same value again is refused, not a second life. */
	assert_int_equal(db_nonce_issue(t.db, "m1", next, sizeof(next),
					T_NOW + 60, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	n[0] ^= 1;
	assert_int_equal(renew(&t, "m1", n, sizeof(n), other, T_NOW),
			 DB_NONCE_UNKNOWN);
	tdb_remove(&t);
}

static void test_expiry(void **state)
{
	uint8_t a[16], b[32], c[32];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	memset(c, 3, sizeof(c));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 16, T_NOW + 30, &err),
			 0);
	/* Valid while now < expires_at: the last second still counts ... */
	assert_int_equal(renew(&t, "m1", a, 16, b, T_NOW + 29), DB_NONCE_OK);
	/* ... expires_at itself (b's: T_NOW + 29 + 30) does not */
	assert_int_equal(renew(&t, "m1", b, 32, c, T_NOW + 59),
			 DB_NONCE_EXPIRED);
	assert_int_equal(renew(&t, "m1", b, 32, c, T_NOW + 3000),
			 DB_NONCE_EXPIRED);
	/* and the failed tries changed nothing: b is still usable before */
	assert_int_equal(renew(&t, "m1", b, 32, c, T_NOW + 58), DB_NONCE_OK);
	tdb_remove(&t);
}

/* A machine has one nonce at a time: a new one voids the old. */
static void test_one_outstanding(void **state)
{
	uint8_t a[32], b[32], c[32], out[DB_NONCE_MAX];
	struct imt_error err;
	int64_t expires = 0;
	size_t len = 0, i;
	struct tdb t;
	int found;

	(void)state;
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	memset(c, 3, sizeof(c));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err),
			 0);
	assert_false(found);
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 32, T_NOW + 30, &err),
			 0);
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err),
			 0);
	assert_true(found);
	assert_int_equal(len, 32);
	assert_memory_equal(out, a, 32);
	assert_int_equal(expires, T_NOW + 30);
	assert_int_equal(db_nonce_issue(t.db, "m1", b, 32, T_NOW + 30, &err),
			 0);
	assert_int_equal(renew(&t, "m1", a, 32, c, T_NOW), DB_NONCE_UNKNOWN);
	/* neither expired nor used ones are outstanding */
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW + 30, out, &len,
					      &expires, &found, &err),
			 0);
	assert_false(found);
	assert_int_equal(renew(&t, "m1", b, 32, c, T_NOW), DB_NONCE_OK);
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err),
			 0);
	assert_true(found);
	assert_memory_equal(out, c, 32);
	tdb_exec(&t, "UPDATE nonces SET used = 1"); /* an earlier verifier's */
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err),
			 0);
	assert_false(found);
	for (i = 0; i < 1000; i++) {
		memcpy(a, &i, sizeof(i));
		assert_int_equal(db_nonce_issue(t.db, "m1", a, 32, T_NOW + 30,
						&err),
				 0);
	}
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM nonces"), 1);
	tdb_remove(&t);
}

static void test_other_machine(void **state)
{
	uint8_t n[20], next[32], other[32], again[32];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(n, 7, sizeof(n));
	memset(again, 6, sizeof(again));
	memset(next, 8, sizeof(next));
	memset(other, 9, sizeof(other));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 30,
					&err),
			 0);
	/* m2 has none: m1's is unknown to it */
	assert_int_equal(renew(&t, "m2", n, sizeof(n), other, T_NOW),
			 DB_NONCE_UNKNOWN);
	/* The thief's attempt did not burn it for its owner ... */
	assert_int_equal(renew(&t, "m1", n, sizeof(n), next, T_NOW),
			 DB_NONCE_OK);
	/* ... whose next nonce is its own as well, while m2 has one */
	assert_int_equal(db_nonce_issue(t.db, "m2", other, sizeof(other),
					T_NOW + 30, &err),
			 0);
	assert_int_equal(renew(&t, "m2", next, sizeof(next), other, T_NOW),
			 DB_NONCE_UNKNOWN);
	assert_int_equal(renew(&t, "m1", next, sizeof(next), again, T_NOW),
			 DB_NONCE_OK);
	tdb_remove(&t);
}

/*
 * A heartbeat's renewal rewrites one page of the nonce table, however
 * large it is (0015): the row is found by its machine and stays where it
 * is, and no index holds what changes. SQLite: the WAL frames of the
 * commit; PostgreSQL: a heap-only (HOT) update, no index entry written.
 */
static void test_renew_one_page(void **state)
{
	uint8_t n[32] = { 0 }, next[32] = { 0xee, 0xee, 0xee, 0xee, 0xee };
	struct imt_error err;
	char id[16];
	struct tdb t;
	int i;

	(void)state;
	tdb_new(&t);
	for (i = 0; i < 400; i++) {
		snprintf(id, sizeof(id), "m%03d", i);
		tdb_machine(&t, id, DB_STATE_TRUSTED);
		memcpy(n, &i, sizeof(i));
		assert_int_equal(db_nonce_issue(t.db, id, n, sizeof(n),
						T_NOW + 30, &err),
				 0);
	}
	i = 200;
	memcpy(n, &i, sizeof(i));
	if (tdb_pg_uri() != NULL) {
		assert_int_equal(db_batch_begin(t.db, &err), 0);
		assert_int_equal(renew(&t, "m200", n, sizeof(n), next,
				       T_NOW + 1),
				 DB_NONCE_OK);
		assert_int_equal(tdb_int(&t, "SELECT n_tup_upd FROM "
					     "pg_stat_xact_user_tables WHERE "
					     "relname = 'nonces'"),
				 1);
		assert_int_equal(tdb_int(&t, "SELECT n_tup_hot_upd FROM "
					     "pg_stat_xact_user_tables WHERE "
					     "relname = 'nonces'"),
				 1);
		assert_int_equal(db_batch_commit(t.db, &err), 0);
	} else {
		/* (busy, frames in the WAL, frames checkpointed) */
		tdb_exec(&t, "PRAGMA wal_checkpoint(TRUNCATE)");
		assert_int_equal(renew(&t, "m200", n, sizeof(n), next,
				       T_NOW + 1),
				 DB_NONCE_OK);
		assert_int_equal(tdb_int_col(&t, "PRAGMA wal_checkpoint", NULL,
					     1),
				 1);
	}
	assert_int_equal(renew(&t, "m200", next, sizeof(next), n, T_NOW + 2),
			 DB_NONCE_OK);
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
	assert_int_equal(db_nonce_issue(t.db, "m1", n, DB_NONCE_MIN - 1, T_NOW,
					&err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, DB_NONCE_MAX + 1, T_NOW,
					&err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_int_equal(db_nonce_issue(t.db, "m1", NULL, 16, T_NOW, &err), -1);
	assert_int_equal(db_nonce_issue(t.db, "ghost", n, 16, T_NOW + 1, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_nonce_renew(t.db, "m1", n, 3, T_NOW,
					&(struct db_nonce_next){
						n, 16, T_NOW + 30, 0 },
					&res, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_nonce_renew(t.db, "m1", n, 16, T_NOW,
					&(struct db_nonce_next){
						n, 16, T_NOW + 30, 0 },
					NULL, &err),
			 -1);
	assert_string_equal(db_nonce_result_name(DB_NONCE_EXPIRED),
			    "nonce expired");
	assert_string_equal(db_nonce_result_name((enum db_nonce_result)9),
			    "invalid");
	tdb_remove(&t);
}

/* The nonce used and the next one issued in one row write. */
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
	assert_int_equal(renew(&t, "m2", a, 32, c, T_NOW), DB_NONCE_UNKNOWN);
	assert_int_equal(renew(&t, "m1", a, 32, c, T_NOW + 30),
			 DB_NONCE_EXPIRED);
	assert_int_equal(renew(&t, "m1", a, 32, b, T_NOW), DB_NONCE_OK);
	/* b is outstanding now, until T_NOW + 30; a is gone */
	assert_int_equal(db_nonce_outstanding(t.db, "m1", T_NOW, out, &len,
					      &expires, &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_memory_equal(out, b, 32);
	assert_int_equal(expires, T_NOW + 30);
	assert_int_equal(renew(&t, "m1", a, 32, c, T_NOW), DB_NONCE_UNKNOWN);
	/* inside a batch, and undone with it */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(renew(&t, "m1", b, 32, c, T_NOW), DB_NONCE_OK);
	db_batch_abort(t.db);
	assert_int_equal(renew(&t, "m1", c, 32, a, T_NOW), DB_NONCE_UNKNOWN);
	assert_int_equal(renew(&t, "m1", b, 32, c, T_NOW), DB_NONCE_OK);
	assert_int_equal(renew(&t, "m1", c, 32, a, T_NOW), DB_NONCE_OK);
	assert_int_equal(db_nonce_renew(t.db, "m1", c, 32, T_NOW,
					&(struct db_nonce_next){
						d, 3, T_NOW + 30, 0 },
					&res, &err),
			 -1);
	assert_int_equal(db_nonce_renew(t.db, "m1", c, 32, T_NOW,
					&(struct db_nonce_next){
						d, 32, T_NOW + 30, 0 },
					NULL, &err),
			 -1);
	tdb_remove(&t);
}

/* The machine's last_seen as db_machine_get() reads it. */
static int64_t seen_of(struct tdb *t, const char *id)
{
	struct imt_error err;
	struct db_machine m;
	int64_t seen;
	int found;

	if (db_machine_get(t->db, id, &m, &found, &err) < 0 || !found)
		fail_msg("db_machine_get %s", id);
	seen = m.last_seen;
	db_machine_release(&m);
	return seen;
}

static int silent_cb(const struct db_machine *m, void *arg)
{
	*(int64_t *)arg = m->last_seen;
	return 0;
}

/* db_machine_list_silent() before @before: the one machine's last_seen,
 * -1 when it is not listed. */
static int64_t silent(struct tdb *t, int64_t before)
{
	struct imt_error err;
	int64_t seen = -1;

	if (db_machine_list_silent(t->db, before, 10, silent_cb, &seen, &err) <
	    0)
		fail_msg("list silent: %s", err.msg);
	return seen;
}

/*
 * Evidence that counts as seen says so in the nonce's row, the one row a
 * heartbeat writes; every reader of last_seen sees it, and it outlives
 * the row. Evidence that does not count (seen_at 0) moves nothing.
 */
static void test_seen_in_nonce(void **state)
{
	uint8_t a[32], b[32], c[32];
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(a, 1, sizeof(a));
	memset(b, 2, sizeof(b));
	memset(c, 3, sizeof(c));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(seen_of(&t, "m1"), 0);
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 32, T_NOW + 300, &err),
			 0);
	assert_int_equal(renew(&t, "m1", a, 32, b, T_NOW), DB_NONCE_OK);
	assert_int_equal(seen_of(&t, "m1"), 0); /* not seen: no change */
	assert_int_equal(renew_seen(&t, "m1", b, 32, c, T_NOW + 5, T_NOW + 5),
			 DB_NONCE_OK);
	assert_int_equal(seen_of(&t, "m1"), T_NOW + 5);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines WHERE "
				     "last_seen IS NULL"),
			 1);
	/* a stranger's nonce request replaces the value, not the time */
	assert_int_equal(db_nonce_issue(t.db, "m1", a, 32, T_NOW + 300, &err),
			 0);
	assert_int_equal(seen_of(&t, "m1"), T_NOW + 5);
	/* silent since before +5? no; since before +6: listed, seen at +5;
	 * the first call moved +5 into the machine's row, the value the same */
	assert_int_equal(silent(&t, T_NOW + 5), -1);
	assert_int_equal(tdb_int(&t, "SELECT last_seen FROM machines"),
			 T_NOW + 5);
	assert_int_equal(silent(&t, T_NOW + 6), T_NOW + 5);
	/* the nonce row goes (retention): its time stays with the machine */
	assert_int_equal(renew_seen(&t, "m1", a, 32, c, T_NOW + 9, T_NOW + 9),
			 DB_NONCE_OK);
	tdb_exec(&t, "DELETE FROM nonces");
	assert_int_equal(seen_of(&t, "m1"), T_NOW + 9);
	assert_int_equal(silent(&t, T_NOW + 9), -1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_use),
		cmocka_unit_test(test_expiry),
		cmocka_unit_test(test_one_outstanding),
		cmocka_unit_test(test_other_machine),
		cmocka_unit_test(test_renew_one_page),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_renew),
		cmocka_unit_test(test_seen_in_nonce),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_cluster.c - what several verifiers coordinate through one
 * PostgreSQL database: one leader, one change at a time, one writer per
 * machine, and changes announced to the others. Each instance is a
 * connection of its own here. On SQLite the one process leads and the
 * locks are no-ops.
 */
#include <pthread.h>
#include <time.h>

#include "db_cluster.h"
#include "db_machine.h"
#include "db_test.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* *held of db_leader() or db_change_lock() on @db. */
static int held(int (*lock)(struct db *, int *, struct imt_error *),
		struct db *db)
{
	struct imt_error err;
	int got = -1;

	if (lock(db, &got, &err) < 0)
		fail_msg("lock: %s", err.msg);
	return got;
}

static int leads(struct db *db)
{
	return held(db_leader, db);
}

static int takes_change(struct db *db)
{
	return held(db_change_lock, db);
}

static void test_sqlite_one_process(void **state)
{
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(leads(t.db), 1);
	assert_int_equal(takes_change(t.db), 1);
	db_change_unlock(t.db);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(db_machine_lock(t.db, "m1", &err), 0);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(db_change_announce(t.db, &err), 0);
	assert_int_equal(db_changed_elsewhere(t.db), 0);
	tdb_remove(&t);
}

/* The leader keeps the lock while its session lives; then another. */
static void test_pg_leader_moves(void **state)
{
	struct db *b, *c;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	b = tdb_other(&t);
	c = tdb_other(&t);
	assert_int_equal(leads(t.db), 1);
	assert_int_equal(leads(b), 0);
	assert_int_equal(leads(t.db), 1); /* asked again: still */
	assert_int_equal(leads(c), 0);
	db_close(t.db); /* the leader dies */
	t.db = NULL;
	assert_int_equal(leads(b) + leads(c), 1);
	db_close(b);
	db_close(c);
	tdb_remove(&t);
}

static void test_pg_one_change_at_a_time(void **state)
{
	struct db *b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	b = tdb_other(&t);
	assert_int_equal(takes_change(t.db), 1);
	assert_int_equal(takes_change(b), 0);
	db_change_unlock(t.db);
	assert_int_equal(takes_change(b), 1);
	assert_int_equal(takes_change(t.db), 0);
	db_change_unlock(b);
	db_close(b);
	tdb_remove(&t);
}

struct waiter {
	struct db *db;
	const char *id;
	double waited;
	int rc;
};

static void *lock_machine(void *arg)
{
	struct waiter *w = arg;
	struct imt_error err;
	double t0 = now_s();

	w->rc = db_batch_begin(w->db, &err) < 0 ||
		db_machine_lock(w->db, w->id, &err) < 0;
	w->waited = now_s() - t0;
	db_batch_abort(w->db);
	return NULL;
}

/* A second writer of the same machine waits for the first's commit. */
static void test_pg_machine_lock(void **state)
{
	struct waiter w = { 0 };
	struct imt_error err;
	pthread_t th;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	/* not outside a transaction: it would end at once */
	assert_int_equal(db_machine_lock(t.db, "m1", &err), -1);
	w.db = tdb_other(&t);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(db_machine_lock(t.db, "m1", &err), 0);

	w.id = "m2"; /* another machine: no wait */
	lock_machine(&w);
	assert_int_equal(w.rc, 0);
	assert_true(w.waited < 0.2);

	w.id = "m1";
	assert_int_equal(pthread_create(&th, NULL, lock_machine, &w), 0);
	usleep(300000);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	pthread_join(th, NULL);
	assert_int_equal(w.rc, 0);
	assert_true(w.waited >= 0.25);
	db_close(w.db);
	tdb_remove(&t);
}

/* An announcement reaches the others once, and not its sender. */
static void test_pg_change_announced(void **state)
{
	struct imt_error err;
	struct db *b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	b = tdb_other(&t);
	assert_int_equal(db_changed_elsewhere(b), 0);
	assert_int_equal(db_change_announce(t.db, &err), 0);
	usleep(100000);
	(void)leads(b); /* the next statement reads what came */
	(void)leads(t.db);
	assert_int_equal(db_changed_elsewhere(b), 1);
	assert_int_equal(db_changed_elsewhere(b), 0);
	assert_int_equal(db_changed_elsewhere(t.db), 0);
	db_close(b);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_sqlite_one_process),
	};
	const struct CMUnitTest pg_tests[] = {
		cmocka_unit_test(test_pg_leader_moves),
		cmocka_unit_test(test_pg_one_change_at_a_time),
		cmocka_unit_test(test_pg_machine_lock),
		cmocka_unit_test(test_pg_change_announced),
	};

	/* every test here is one backend's */
	return tdb_pg_uri() == NULL ?
		       cmocka_run_group_tests_name("SQLite", sqlite_tests, NULL,
						   NULL) :
		       cmocka_run_group_tests_name("PostgreSQL", pg_tests, NULL,
						   NULL);
}

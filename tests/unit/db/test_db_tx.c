// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_tx.c - batches: many calls, one transaction, each call still
 * atomic on its own.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "db_boot.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "db_ref.h"
#include "db_test.h"

static uint8_t pcr1[DB_PCR_SHA1_SIZE], pcr256[DB_PCR_SHA256_SIZE];

/* Advance @boot by @n records starting at @from (verdict "known"). */
static int advance(struct db *db, int64_t boot, uint64_t from, size_t n,
		   struct imt_error *err)
{
	static uint8_t d[32];
	struct db_record r[8];
	struct db_boot_advance a = {
		.boot_id = boot,
		.from_index = from,
		.to_index = from + n,
		.pcr10_sha1 = pcr1,
		.pcr10_sha256 = pcr256,
		.records = r,
		.nrecords = n,
	};
	size_t i;

	assert_true(n <= 8);
	for (i = 0; i < n; i++)
		r[i] = (struct db_record){
			.index = from + i,
			.pcr = 10,
			.template = "ima-ng",
			.path = "/bin/true",
			.digest_algo = "sha256",
			.digest = d,
			.digest_len = 32,
			.verdict = DB_VERDICT_KNOWN,
		};
	return db_boot_advance(db, &a, T_NOW, err);
}

static int64_t other_int(const char *path, const char *sql)
{
	struct tdb o = { 0 };
	int64_t v;

	snprintf(o.path, sizeof(o.path), "%s", path);
	tdb_open(&o);
	v = tdb_int(&o, sql);
	tdb_close(&o);
	return v;
}

static void test_batch_groups_calls(void **state)
{
	struct imt_error err;
	struct db_boot b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(advance(t.db, b.id, 0, 4, &err), 0);
	/* A failing call is undone alone ... */
	assert_int_equal(advance(t.db, b.id, 0, 4, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_FAILED,
					      "not json", T_NOW, &err),
			 -1);
	/* ... and the batch goes on. */
	assert_int_equal(advance(t.db, b.id, 4, 4, &err), 0);
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_TRUSTED,
					      NULL, T_NOW, &err),
			 0);
	/* Another connection sees none of it yet. */
	assert_int_equal(other_int(t.path, TDB_RECORDS), 0);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(other_int(t.path, TDB_RECORDS), 8);
	assert_int_equal(other_int(t.path, "SELECT next_record_index FROM "
					   "boots"),
			 8);
	assert_int_equal(other_int(t.path, "SELECT state = 'trusted' FROM "
					   "machines"),
			 1);
	tdb_remove(&t);
}

static void test_batch_abort_and_misuse(void **state)
{
	struct db_ref_source src = { .kind = DB_SOURCE_DEB, .name = "x.deb" };
	struct imt_error err;
	struct db_boot b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(advance(t.db, b.id, 0, 4, &err), 0);
	assert_int_equal(db_batch_begin(t.db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_ref_import_begin(t.db, &src, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	db_batch_abort(t.db);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 0);
	assert_int_equal(db_batch_commit(t.db, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	db_batch_abort(t.db); /* none open: harmless */

	assert_int_equal(db_ref_import_begin(t.db, &src, T_NOW, &err), 0);
	assert_int_equal(db_batch_begin(t.db, &err), -1);
	assert_int_equal(db_ref_import_commit(t.db, &err), 0);

	/* Closing with a batch open drops it, as a crash would. */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(advance(t.db, b.id, 0, 4, &err), 0);
	tdb_close(&t);
	tdb_open(&t);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 0);
	tdb_remove(&t);
}

/* Child: one batch of ten advances, killed before or after its commit. */
static void batch_child(const char *path, int64_t boot, int commit)
{
	struct tdb c = { 0 };
	int i;

	snprintf(c.path, sizeof(c.path), "%s", path);
	if (db_open(c.path, &c.db, NULL) < 0)
		_exit(2);
	if (db_batch_begin(c.db, NULL) < 0)
		_exit(3);
	for (i = 0; i < 10; i++)
		if (advance(c.db, boot, (uint64_t)i * 8, 8, NULL) < 0)
			_exit(4);
	if (commit && db_batch_commit(c.db, NULL) < 0)
		_exit(5);
	raise(SIGKILL);
	_exit(6);
}

static void test_batch_sigkill(void **state)
{
	struct imt_error err;
	struct db_boot b;
	struct tdb t;
	int status, commit;
	pid_t pid;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	tdb_close(&t);
	for (commit = 0; commit <= 1; commit++) {
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			batch_child(t.path, b.id, commit);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		tdb_open(&t);
		assert_int_equal(tdb_int(&t, TDB_RECORDS), commit ? 80 : 0);
		assert_int_equal(tdb_int(&t, "SELECT next_record_index FROM "
					     "boots"),
				 commit ? 80 : 0);
		tdb_close(&t);
	}
	tdb_open(&t);
	tdb_remove(&t);
}

/* The same heartbeat as test_db_boot's, 100 to a batch. */
static void test_batched_heartbeat_cost(void **state)
{
	struct timespec t0, t1;
	struct imt_error err;
	struct db_boot b;
	uint8_t n[32] = { 0 };
	struct tdb t;
	uint32_t i;
	double s;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, 32, T_NOW + 60, &err),
			 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			assert_int_equal(db_batch_begin(t.db, &err), 0);
		tdb_nonce_next(&t, "m1", n, i);
		assert_int_equal(advance(t.db, b.id, 0, 0, &err), 0);
		if (i % 100 == 99)
			assert_int_equal(db_batch_commit(t.db, &err), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("2000 heartbeats in batches of 100: %.3f s, %.0f/s\n", s,
		      2000 / s);
	tdb_remove(&t);
}

/*
 * A call of one statement and no savepoint (db_nonce_issue) fails inside a
 * batch: the batch goes on (PostgreSQL would abort the batch's transaction
 * on a failed statement: db_nonce.c's PostgreSQL text does not fail).
 */
static void test_batch_failed_statement(void **state)
{
	uint8_t n[16] = { 3 };
	struct imt_error err;
	struct db_boot b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(db_nonce_issue(t.db, "nobody", n, sizeof(n), T_NOW + 9,
					&err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 9,
					&err),
			 0);
	/* m1's value again, for m1: refused, alone */
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 9,
					&err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	/* a nonce is bound to its machine's row: the same bytes for m2 are
	 * m2's own (0015) */
	assert_int_equal(db_nonce_issue(t.db, "m2", n, sizeof(n), T_NOW + 9,
					&err),
			 0);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM boots"), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM nonces"), 2);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_groups_calls),
		cmocka_unit_test(test_batch_abort_and_misuse),
		cmocka_unit_test(test_batch_sigkill),
		cmocka_unit_test(test_batched_heartbeat_cost),
		cmocka_unit_test(test_batch_failed_statement),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

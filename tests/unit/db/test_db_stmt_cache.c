// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_stmt_cache.c - a connection's prepared statements: found again
 * by their text's address after the cache grew, on both engines, and
 * refused past DB_STMT_CACHE_MAX instead of growing without end.
 */
#include <stdio.h>

#include "db_backend.h"
#include "db_test.h"

#define TEXTS 200 /* more than the library's texts: several growths */

/* Static, so each text keeps its address (the cache key) for the run. */
static char texts[TEXTS][32];

/*
 * TEXTS statements on a real connection, then each of them again: the
 * same statement (not prepared twice) and its own result, so the lookup
 * neither mixes keys nor loses one when the array moved.
 */
static void test_stmts_survive_growth(void **state)
{
	struct db_stmt *first[TEXTS];
	struct imt_error err;
	struct tdb t;
	int i, round;

	(void)state;
	tdb_new(&t);
	for (i = 0; i < TEXTS; i++)
		snprintf(texts[i], sizeof(texts[i]), "SELECT %d", 1000 + i);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < TEXTS; i++) {
			struct db_stmt *st = db_stmt(t.db, texts[i], &err);

			if (st == NULL)
				fail_msg("round %d, text %d: %s", round, i,
					 err.msg);
			if (round == 0)
				first[i] = st;
			else
				assert_ptr_equal(st, first[i]);
			assert_int_equal(db_step(st), DB_ROW);
			assert_int_equal(db_col_int64(st, 0), 1000 + i);
			db_reset(st);
		}
	}
	tdb_remove(&t);
}

/* The statements above are static: release only counts them. */
static size_t released;

static void forget(struct db_stmt *st)
{
	(void)st;
	released++;
}

/*
 * A text assembled at run time has a new address per call: the cache
 * fills and refuses the next one with IMT_ERR_LIMIT, keeping what it has.
 */
static void test_cache_refuses_past_max(void **state)
{
	static struct db_stmt stmts[DB_STMT_CACHE_MAX + 1];
	static char keys[DB_STMT_CACHE_MAX + 1];
	struct db_stmt_cache c = { 0 };
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < DB_STMT_CACHE_MAX; i++)
		assert_int_equal(db_stmt_cache_add(&c, &keys[i], &stmts[i],
						   &err),
				 0);
	assert_int_equal(db_stmt_cache_add(&c, &keys[i], &stmts[i], &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "statement cache full"));
	assert_int_equal(c.n, DB_STMT_CACHE_MAX);
	assert_null(db_stmt_cache_find(&c, &keys[DB_STMT_CACHE_MAX]));
	for (i = 0; i < DB_STMT_CACHE_MAX; i++)
		assert_ptr_equal(db_stmt_cache_find(&c, &keys[i]), &stmts[i]);
	db_stmt_cache_release(&c, forget);
	assert_int_equal(released, DB_STMT_CACHE_MAX);
	assert_int_equal(c.n, 0);
	assert_null(db_stmt_cache_find(&c, &keys[0]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stmts_survive_growth),
		cmocka_unit_test(test_cache_refuses_past_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

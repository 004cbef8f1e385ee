// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_audit.c - the audit trail over time (issue #36): retention
 * deletes entries past audit_keep (and events past event_keep), oldest
 * first and within the budget;
 * a listing starts at a time; the entries a transaction wrote are told
 * once it commits, never when it rolls back, and past the most held, the
 * loss is told.
 */
#include "db_audit.h"
#include "db_retention.h"
#include "db_test.h"

#define DAY 86400

static void add(struct tdb *t, int64_t time, const char *action,
		const char *machine)
{
	struct db_audit a = { .time = time,
			      .action = action,
			      .machine_id = machine };
	struct imt_error err;

	assert_int_equal(db_audit_add(t->db, &a, &err), 0);
}

static int count_one(const struct db_audit *a, void *arg)
{
	(void)a;
	(*(int *)arg)++;
	return 0;
}

/* Entries older than audit_keep go, a few per call; 0 keeps them all. */
static void test_audit_retention_by_age(void **state)
{
	struct db_retention r = { .keep_boots = 3, .max_rows = 2 };
	struct imt_error err;
	size_t deleted, total = 0;
	int more, calls = 0, i;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	for (i = 0; i < 5; i++)
		add(&t, T_NOW - 500 * DAY + i, "approve", "gone");
	add(&t, T_NOW - 399 * DAY, "register", "m1");
	add(&t, T_NOW, "remove", "m1");
	/* 0: forever */
	assert_int_equal(db_retention_run(t.db, &r, T_NOW, &deleted, &more,
					  &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit"), 7);
	r.audit_keep = 400 * DAY;
	do {
		assert_int_equal(db_retention_run(t.db, &r, T_NOW, &deleted,
						  &more, &err),
				 0);
		assert_true(deleted <= r.max_rows);
		total += deleted;
		assert_true(++calls < 10);
	} while (more);
	assert_int_equal(total, 5);
	assert_true(calls >= 3);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit"), 2);
	assert_int_equal(tdb_int(&t, "SELECT min(time) FROM audit"),
			 T_NOW - 399 * DAY);
	tdb_remove(&t);
}

/* Events older than event_keep go too, whichever boot they belong to. */
static void test_event_retention_by_age(void **state)
{
	struct db_retention r = { .keep_boots = 3, .max_rows = 2 };
	const char *kind = db_event_kind_name(DB_EVENT_APPROVED);
	struct imt_error err;
	size_t deleted, total = 0;
	int more, calls, i, before;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_begin(t.db, &err), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(db_event_insert(t.db, "m1",
						 T_NOW - 500 * DAY + i, kind,
						 NULL, NULL, NULL, &err),
				 0);
	assert_int_equal(db_event_insert(t.db, "m1", T_NOW - 10 * DAY, kind,
					 NULL, NULL, NULL, &err),
			 0);
	assert_int_equal(db_commit(t.db, &err), 0);
	before = (int)tdb_int(&t, "SELECT count(*) FROM events");
	/* 0: by boots and count only */
	assert_int_equal(db_retention_run(t.db, &r, T_NOW, &deleted, &more,
					  &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events"), before);
	/*
	 * The enrollment's event (now) comes first by id: it stays, and
	 * each pass looks past it at the next oldest, as the clock's
	 * passes do once a minute.
	 */
	r.event_keep = 400 * DAY;
	for (calls = 0; calls < 4; calls++) {
		assert_int_equal(db_retention_run(t.db, &r, T_NOW, &deleted,
						  &more, &err),
				 0);
		assert_true(deleted <= r.max_rows);
		total += deleted;
	}
	assert_int_equal(total, 3);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events"),
			 before - 3);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events WHERE "
				     "machine_id = 'm1' AND time < 1700000000 "
				     "- 400 * 86400"),
			 0);
	tdb_remove(&t);
}

/* A listing from a time: older entries are left out, paging goes on. */
static void test_audit_list_since(void **state)
{
	struct imt_error err;
	struct tdb t;
	int n = 0;

	(void)state;
	tdb_new(&t);
	add(&t, T_NOW - 3 * DAY, "approve", "m1");
	add(&t, T_NOW - DAY, "approve", "m2");
	add(&t, T_NOW, "remove", "m1");
	assert_int_equal(db_audit_list_since(t.db, NULL, T_NOW - DAY, 0, 10,
					     count_one, &n, &err),
			 0);
	assert_int_equal(n, 2);
	n = 0;
	assert_int_equal(db_audit_list_since(t.db, "m1", T_NOW - DAY, 0, 10,
					     count_one, &n, &err),
			 0);
	assert_int_equal(n, 1);
	n = 0;
	/* the cursor of the first page (id 2) */
	assert_int_equal(db_audit_list_since(t.db, NULL, T_NOW - DAY, 2, 10,
					     count_one, &n, &err),
			 0);
	assert_int_equal(n, 1);
	n = 0;
	assert_int_equal(db_audit_list_since(t.db, NULL, 0, 0, 10, count_one,
					     &n, &err),
			 0);
	assert_int_equal(n, 3);
	tdb_remove(&t);
}

struct told {
	int n;
	int lost;
	char actions[8][32];
	int64_t ids[8];
};

static void on_commit(const struct db_audit *a, void *arg)
{
	struct told *w = arg;

	if (a == NULL) {
		w->lost++;
		return;
	}
	assert_true(w->n < 8);
	snprintf(w->actions[w->n], sizeof(w->actions[0]), "%s", a->action);
	w->ids[w->n++] = a->id;
}

/* Told after the commit, with the id; a rolled back call is not told. */
static void test_audit_told_on_commit(void **state)
{
	struct db_audit bad = { .time = T_NOW, .action = "x" };
	struct told w = { 0 };
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	db_audit_on_commit(t.db, on_commit, &w);
	add(&t, T_NOW, "approve", "m1");
	assert_int_equal(w.n, 1);
	assert_string_equal(w.actions[0], "approve");
	assert_int_equal(w.ids[0], tdb_int(&t, "SELECT max(id) FROM audit"));
	/* a batch: told at its commit; a call undone in it is not */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	add(&t, T_NOW, "register", "m2");
	assert_int_equal(db_begin(t.db, &err), 0);
	assert_int_equal(db_audit_insert(t.db, &bad, &err), 0);
	db_rollback(t.db);
	assert_int_equal(w.n, 1);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.actions[1], "register");
	/* a transaction rolled back: nothing */
	assert_int_equal(db_begin(t.db, &err), 0);
	assert_int_equal(db_audit_insert(t.db, &bad, &err), 0);
	db_rollback(t.db);
	add(&t, T_NOW, "remove", "m2");
	assert_int_equal(w.n, 3);
	assert_string_equal(w.actions[2], "remove");
	/* a whole batch aborted: nothing */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	add(&t, T_NOW, "approve", "m3");
	db_batch_abort(t.db);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.lost, 0);
	db_audit_on_commit(t.db, NULL, NULL);
	add(&t, T_NOW, "approve", "m4");
	assert_int_equal(w.n, 3);
	tdb_remove(&t);
}

static void count_told(const struct db_audit *a, void *arg)
{
	struct told *w = arg;

	if (a == NULL)
		w->lost++;
	else
		w->n++;
}

/* Past DB_AUDIT_HELD_MAX in one transaction: those told, then a NULL. */
static void test_audit_told_past_max(void **state)
{
	struct db_audit a = { .time = T_NOW, .action = "approve" };
	struct told w = { 0 };
	struct imt_error err;
	struct tdb t;
	int i;

	(void)state;
	tdb_new(&t);
	db_audit_on_commit(t.db, count_told, &w);
	assert_int_equal(db_begin(t.db, &err), 0);
	for (i = 0; i < DB_AUDIT_HELD_MAX + 2; i++)
		assert_int_equal(db_audit_insert(t.db, &a, &err), 0);
	assert_int_equal(db_commit(t.db, &err), 0);
	assert_int_equal(w.n, DB_AUDIT_HELD_MAX);
	assert_int_equal(w.lost, 1);
	/* the next transaction starts afresh */
	add(&t, T_NOW, "remove", "m1");
	assert_int_equal(w.n, DB_AUDIT_HELD_MAX + 1);
	assert_int_equal(w.lost, 1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest common[] = {
		cmocka_unit_test(test_audit_retention_by_age),
		cmocka_unit_test(test_event_retention_by_age),
		cmocka_unit_test(test_audit_list_since),
		cmocka_unit_test(test_audit_told_on_commit),
		cmocka_unit_test(test_audit_told_past_max),
	};

	return cmocka_run_group_tests_name("all backends", common, NULL, NULL);
}

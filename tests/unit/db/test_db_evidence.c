// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_evidence.c - the evidence path's view of a machine: one
 * statement that must read what db_machine_get(), db_boot_current(),
 * db_boot_log_get() (without the bytes) and db_nonce_outstanding() read,
 * in every state those can be in, on both engines; and the plans of every
 * statement the evidence path runs, which must use keys, not scans.
 */
#include "db_boot.h"
#include "db_evidence.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "db_plan.h"
#include "db_test.h"

/* The view of @id at @now against the four reads it stands for. */
static void assert_view_agrees(struct tdb *t, const char *id, int64_t now)
{
	struct db_evidence_view v;
	struct db_machine m;
	struct db_boot boot;
	struct db_boot_log log;
	struct imt_error err;
	uint8_t nonce[DB_NONCE_MAX];
	size_t nonce_len = 0;
	int64_t expires = 0;
	int found, have_boot = 0, have_log = 0, have_nonce = 0;

	if (db_evidence_view_get(t->db, id, now, &v, &err) < 0)
		fail_msg("view: %s", err.msg);
	if (db_machine_get(t->db, id, &m, &found, &err) < 0)
		fail_msg("machine: %s", err.msg);
	assert_int_equal(v.found, found);
	if (!found) {
		db_evidence_view_release(&v);
		return;
	}
	assert_string_equal(v.m.id, m.id);
	assert_int_equal(v.m.state, m.state);
	assert_int_equal(v.m.last_seen, m.last_seen);
	assert_int_equal(v.m.activated, m.activated);
	assert_string_equal(v.m.bank, m.bank);
	assert_int_equal(v.m.ak_pub_len, m.ak_pub_len);
	assert_memory_equal(v.m.ak_pub, m.ak_pub, m.ak_pub_len);
	assert_int_equal(v.m.ak_name_len, m.ak_name_len);
	assert_int_equal(v.m.state_reason == NULL, m.state_reason == NULL);
	if (m.state_reason != NULL)
		assert_string_equal(v.m.state_reason, m.state_reason);
	db_machine_release(&m);
	if (db_boot_current(t->db, id, &boot, &have_boot, &err) < 0)
		fail_msg("boot: %s", err.msg);
	assert_int_equal(v.have_boot, have_boot);
	if (have_boot) {
		assert_int_equal(v.boot.id, boot.id);
		assert_int_equal(v.boot.reset_count, boot.reset_count);
		assert_int_equal(v.boot.next_record_index,
				 boot.next_record_index);
		assert_memory_equal(v.boot.pcr10_sha256, boot.pcr10_sha256,
				    DB_PCR_SHA256_SIZE);
		assert_int_equal(v.boot.boot_aggregate_len,
				 boot.boot_aggregate_len);
		if (db_boot_log_get(t->db, boot.id, 0, &log, &have_log, &err) <
		    0)
			fail_msg("log: %s", err.msg);
	}
	assert_int_equal(v.have_log, have_log);
	assert_null(v.log.data);
	if (have_log) {
		assert_int_equal(v.log.len, log.len);
		assert_memory_equal(v.log.sha256, log.sha256,
				    DB_BOOT_LOG_SHA256_SIZE);
	}
	if (db_nonce_outstanding(t->db, id, now, nonce, &nonce_len, &expires,
				 &have_nonce, &err) < 0)
		fail_msg("nonce: %s", err.msg);
	assert_int_equal(v.have_nonce, have_nonce);
	if (have_nonce) {
		assert_int_equal(v.nonce_len, nonce_len);
		assert_memory_equal(v.nonce, nonce, nonce_len);
		assert_int_equal(v.nonce_expires, expires);
	}
	db_evidence_view_release(&v);
}

static void test_view_agrees(void **state)
{
	uint8_t n[32], next[32], blog[3000];
	struct db_evidence_view v;
	enum db_boot_log_result res;
	enum db_nonce_result nres;
	struct imt_error err;
	struct db_boot b;
	struct tdb t;

	(void)state;
	memset(n, 0x5a, sizeof(n));
	memset(next, 0xa5, sizeof(next));
	memset(blog, 0x42, sizeof(blog));
	tdb_new(&t);
	/* no machine: not found, and nothing else said */
	assert_int_equal(db_evidence_view_get(t.db, "nobody", T_NOW, &v, &err),
			 0);
	assert_int_equal(v.found, 0);
	assert_int_equal(v.have_boot + v.have_log + v.have_nonce, 0);
	db_evidence_view_release(&v);
	assert_view_agrees(&t, "nobody", T_NOW);
	/* a machine with nothing yet */
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_view_agrees(&t, "m1", T_NOW);
	/* a nonce: outstanding, then expired */
	assert_int_equal(db_nonce_issue(t.db, "m1", n, sizeof(n), T_NOW + 30,
					&err),
			 0);
	assert_view_agrees(&t, "m1", T_NOW);
	assert_view_agrees(&t, "m1", T_NOW + 30);
	assert_view_agrees(&t, "m2", T_NOW); /* m1's is not m2's */
	/* used: the row holds the next one, seen */
	assert_int_equal(db_nonce_renew(t.db, "m1", n, sizeof(n), T_NOW,
					&(struct db_nonce_next){
						next, 32, T_NOW + 30, T_NOW },
					&nres, &err),
			 0);
	assert_int_equal(nres, DB_NONCE_OK);
	assert_view_agrees(&t, "m1", T_NOW + 1);
	/* a row marked used (earlier verifiers left them): not outstanding */
	tdb_exec(&t, "UPDATE nonces SET used = 1");
	assert_view_agrees(&t, "m1", T_NOW + 1);
	assert_int_equal(db_evidence_view_get(t.db, "m1", T_NOW + 1, &v, &err),
			 0);
	assert_int_equal(v.have_nonce, 0);
	assert_true(v.m.last_seen == T_NOW); /* its seen_at still counts */
	db_evidence_view_release(&v);
	/* boots: the latest is the current one, with or without its log */
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_view_agrees(&t, "m1", T_NOW + 1);
	assert_int_equal(db_boot_log_store(t.db, b.id, blog, sizeof(blog),
					   T_NOW, &res, &err),
			 0);
	assert_view_agrees(&t, "m1", T_NOW + 1);
	assert_int_equal(db_evidence_view_get(t.db, "m1", T_NOW + 1, &v, &err),
			 0);
	assert_int_equal(v.have_log, 1);
	assert_int_equal(v.log.len, sizeof(blog));
	db_evidence_view_release(&v);
	assert_int_equal(db_boot_start(t.db, "m1", 2, 0, T_NOW, &b, &err), 0);
	assert_view_agrees(&t, "m1", T_NOW + 1);
	assert_int_equal(db_evidence_view_get(t.db, "m1", T_NOW + 1, &v, &err),
			 0);
	assert_int_equal(v.boot.id, b.id);
	assert_int_equal(v.have_log, 0); /* the new boot has none yet */
	db_evidence_view_release(&v);
	/* a state with a reason */
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_UNTRUSTED,
					      "{\"check\":\"x\"}", T_NOW, &err),
			 0);
	assert_view_agrees(&t, "m1", T_NOW + 2);
	tdb_remove(&t);
}

/* The evidence path once: view, nonce, 50 records, view, heartbeat. */
static void run_evidence_path(struct db *db, int64_t boot)
{
	static char paths[50][32];
	static uint8_t digest[32];
	uint8_t n1[32], n2[32], n3[32], s1[DB_PCR_SHA1_SIZE],
		s256[DB_PCR_SHA256_SIZE];
	struct db_record recs[50];
	struct db_evidence_view v;
	enum db_nonce_result nres;
	struct imt_error err;
	size_t i;

	memset(n1, 1, sizeof(n1));
	memset(n2, 2, sizeof(n2));
	memset(n3, 3, sizeof(n3));
	memset(s1, 4, sizeof(s1));
	memset(s256, 5, sizeof(s256));
	for (i = 0; i < 50; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/usr/bin/p%zu", i);
		recs[i] = (struct db_record){
			.index = i,
			.pcr = 10,
			.template = "ima-ng",
			.path = paths[i],
			.digest_algo = "sha256",
			.digest = digest,
			.digest_len = 32,
			.verdict = DB_VERDICT_KNOWN,
		};
	}
	assert_int_equal(db_evidence_view_get(db, "m1", T_NOW, &v, &err), 0);
	assert_int_equal(v.have_nonce, 1);
	db_evidence_view_release(&v);
	assert_int_equal(db_nonce_renew(db, "m1", n1, 32, T_NOW,
					&(struct db_nonce_next){
						n2, 32, T_NOW + 30, T_NOW },
					&nres, &err),
			 0);
	assert_int_equal(nres, DB_NONCE_OK);
	assert_int_equal(db_boot_advance(db,
					 &(struct db_boot_advance){
						 .boot_id = boot,
						 .from_index = 0,
						 .to_index = 50,
						 .pcr10_sha1 = s1,
						 .pcr10_sha256 = s256,
						 .records = recs,
						 .nrecords = 50 },
					 T_NOW, &err),
			 0);
	assert_int_equal(db_evidence_view_get(db, "m1", T_NOW, &v, &err), 0);
	db_evidence_view_release(&v);
	/* a heartbeat that does not come with its nonce's seen time */
	assert_int_equal(db_nonce_renew(db, "m1", n2, 32, T_NOW,
					&(struct db_nonce_next){
						n3, 32, T_NOW + 30, 0 },
					&nres, &err),
			 0);
	assert_int_equal(db_boot_advance(db,
					 &(struct db_boot_advance){
						 .boot_id = boot,
						 .from_index = 50,
						 .to_index = 50,
						 .pcr10_sha1 = s1,
						 .pcr10_sha256 = s256 },
					 T_NOW + 1, &err),
			 0);
}

/*
 * No statement of the evidence path reads a whole table: a plan that
 * scans one (SQLite "SCAN t", PostgreSQL "Seq Scan" with sequential scans
 * off) or runs a subquery per row (SQLite "CORRELATED", PostgreSQL
 * "SubPlan") fails here. The tables grow with the fleet; a scan would
 * cost every evidence.
 */
static void test_evidence_plans(void **state)
{
	static struct plans p;
	enum db_boot_log_result res;
	struct imt_error err;
	struct db_boot b;
	uint8_t n1[32], blog[64];
	char id[16], before[4096];
	struct db *db;
	struct tdb t;
	int i;

	(void)state;
	memset(&p, 0, sizeof(p));
	memset(n1, 1, sizeof(n1));
	memset(blog, 6, sizeof(blog));
	tdb_new(&t);
	/* m1 last: @b is its boot, which the path advances */
	for (i = 200; i >= 1; i--) {
		snprintf(id, sizeof(id), "m%d", i);
		tdb_machine(&t, id, DB_STATE_TRUSTED);
		assert_int_equal(db_boot_start(t.db, id, 1, 0, T_NOW, &b, &err),
				 0);
		assert_int_equal(db_boot_log_store(t.db, b.id, blog,
						   sizeof(blog), T_NOW, &res,
						   &err),
				 0);
	}
	assert_int_equal(db_nonce_issue(t.db, "m1", n1, 32, T_NOW + 30, &err),
			 0);
	if (tdb_pg_uri() != NULL) {
		/* a fresh connection prepares only what the path runs */
		db = tdb_other(&t);
		pg_prepared_names(db_pg_handle(db), before, sizeof(before));
		run_evidence_path(db, b.id);
		pg_explain(db_pg_handle(db), before, 1, &p);
		db_close(db);
	} else {
		sqlite3_trace_v2(db_sqlite_handle(t.db), SQLITE_TRACE_STMT,
				 trace_sql, &p);
		run_evidence_path(t.db, b.id);
		sqlite3_trace_v2(db_sqlite_handle(t.db), 0, NULL, NULL);
		sqlite_explain(&t, &p);
	}
	/* the view, the nonce, the boot, the records, last_seen */
	assert_true(p.nplans >= 5);
	assert_plans_use_keys(p.text);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_agrees),
		cmocka_unit_test(test_evidence_plans),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

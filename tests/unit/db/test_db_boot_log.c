// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_boot_log.c - a boot's firmware event log: stored once, the same
 * again a no-op, another refused, deleted with its boot; schema 0007 on a
 * database made at 0006; a machine's boot baseline (0009): its first log
 * kept, an approval replacing it, found through a boot, gone with the
 * machine.
 */
#include "db_boot.h"
#include "db_machine.h"
#include "db_retention.h"
#include "db_test.h"

static uint8_t blog[4096];

static int64_t boot_of(struct tdb *t, const char *id, uint32_t reset)
{
	struct imt_error err;
	struct db_boot b;

	if (db_boot_start(t->db, id, reset, 0, T_NOW, &b, &err) < 0)
		fail_msg("db_boot_start: %s", err.msg);
	return b.id;
}

static void test_store_once(void **state)
{
	enum db_boot_log_result res;
	uint8_t sha[DB_BOOT_LOG_SHA256_SIZE];
	struct db_boot_log got;
	struct imt_error err;
	struct tdb t;
	int64_t boot;
	int found;

	(void)state;
	memset(blog, 0x42, sizeof(blog));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	boot = boot_of(&t, "m1", 1);
	assert_int_equal(db_boot_log_get(t.db, boot, 1, &got, &found, &err), 0);
	assert_int_equal(found, 0);

	assert_int_equal(db_boot_log_store(t.db, boot, blog, sizeof(blog),
					   T_NOW, &res, &err),
			 0);
	assert_int_equal(res, DB_BOOT_LOG_STORED);
	/* the same bytes later: nothing changes, not even the time */
	assert_int_equal(db_boot_log_store(t.db, boot, blog, sizeof(blog),
					   T_NOW + 5, &res, &err),
			 0);
	assert_int_equal(res, DB_BOOT_LOG_SAME);
	/* one byte other: refused, the first log stays */
	blog[100] ^= 1;
	assert_int_equal(db_boot_log_store(t.db, boot, blog, sizeof(blog),
					   T_NOW + 6, &res, &err),
			 0);
	assert_int_equal(res, DB_BOOT_LOG_DIFFERENT);
	/* shorter, a prefix of it: refused too */
	blog[100] ^= 1;
	assert_int_equal(db_boot_log_store(t.db, boot, blog, 100, T_NOW + 7,
					   &res, &err),
			 0);
	assert_int_equal(res, DB_BOOT_LOG_DIFFERENT);

	assert_int_equal(db_boot_log_get(t.db, boot, 0, &got, &found, &err), 0);
	assert_int_equal(found, 1);
	assert_null(got.data);
	assert_int_equal(got.len, sizeof(blog));
	assert_int_equal(got.received_at, T_NOW);
	assert_int_equal(db_boot_log_sha256(blog, sizeof(blog), sha), 0);
	assert_memory_equal(got.sha256, sha, sizeof(sha));
	assert_int_equal(db_boot_log_get(t.db, boot, 1, &got, &found, &err), 0);
	assert_non_null(got.data);
	assert_memory_equal(got.data, blog, sizeof(blog));
	db_boot_log_release(&got);
	assert_null(got.data);
	db_boot_log_release(NULL);
	tdb_remove(&t);
}

static void test_bounds(void **state)
{
	enum db_boot_log_result res;
	struct imt_error err;
	struct tdb t;
	uint8_t *big;
	int64_t boot;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	boot = boot_of(&t, "m1", 1);
	assert_int_equal(db_boot_log_store(t.db, boot, blog, 0, T_NOW, &res,
					   &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	big = calloc(1, DB_BOOT_LOG_MAX + 1);
	assert_int_equal(db_boot_log_store(t.db, boot, big, DB_BOOT_LOG_MAX + 1,
					   T_NOW, &res, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	free(big);
	/* a boot that does not exist */
	assert_int_equal(db_boot_log_store(t.db, boot + 99, blog, 10, T_NOW,
					   &res, &err),
			 -1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM boot_logs"), 0);
	tdb_remove(&t);
}

/* Retention deletes old boots: their logs go with them. */
static void test_retention(void **state)
{
	struct db_retention r = { .keep_boots = 1, .max_rows = 1000 };
	enum db_boot_log_result res;
	struct db_boot_log got;
	struct imt_error err;
	int64_t b1, b2;
	struct tdb t;
	int found, more;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	b1 = boot_of(&t, "m1", 1);
	assert_int_equal(db_boot_log_store(t.db, b1, blog, 10, T_NOW, &res,
					   &err),
			 0);
	b2 = boot_of(&t, "m1", 2);
	assert_int_equal(db_boot_log_store(t.db, b2, blog, 20, T_NOW, &res,
					   &err),
			 0);
	assert_int_equal(res, DB_BOOT_LOG_STORED); /* another boot */
	do {
		assert_int_equal(db_retention_run(t.db, &r, T_NOW, NULL, &more,
						  &err),
				 0);
	} while (more);
	assert_int_equal(db_boot_log_get(t.db, b1, 0, &got, &found, &err), 0);
	assert_int_equal(found, 0);
	assert_int_equal(db_boot_log_get(t.db, b2, 0, &got, &found, &err), 0);
	assert_int_equal(found, 1);
	assert_int_equal(got.len, 20);
	tdb_remove(&t);
}

/* A database at schema 0006 with a boot upgrades; the boot keeps going. */
static void test_upgrade_from_0006(void **state)
{
	enum db_boot_log_result res;
	struct imt_error err;
	struct tdb t;
	int64_t boot;
	sqlite3 *s;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	boot = boot_of(&t, "m1", 1);
	tdb_close(&t);
	/*
	 * 0007, 0009 and 0010 only add their tables (0010 a trigger too,
	 * 0011 triggers alone, 0012 columns of boots, 0013 a table and
	 * triggers, 0014 a column of nonces, a trigger and an index),
	 * 0008 its table and a sources table it rebuilds as it was, 0015
	 * the nonces table by machine, 0016 a trigger and the records
	 * table rebuilt (its key left out), 0017 record_chunks in place
	 * of records, 0019 columns of refs and sources, 0020 the webhook
	 * tables' triggers and outbox again, state_tnc gone, 0021 columns
	 * of tokens and audit: without them,
	 * and with the nonces and records tables as they were, this is a
	 * 0006 database
	 */
	assert_int_equal(sqlite3_open(t.path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s,
				      "ALTER TABLE tokens DROP COLUMN role;"
				      "ALTER TABLE tokens DROP COLUMN "
				      "expires_at;"
				      "ALTER TABLE tokens DROP COLUMN "
				      "last_used;"
				      "ALTER TABLE audit DROP COLUMN role;"
				      "ALTER TABLE refs DROP COLUMN since;"
				      "ALTER TABLE sources DROP COLUMN "
				      "published;"
				      "ALTER TABLE sources DROP COLUMN "
				      "withdrawn_below;"
				      "DROP TRIGGER "
				      "boots_record_chunks_delete;"
				      "DROP TABLE record_chunks;"
				      "CREATE TABLE records (boot_id INTEGER "
				      "NOT NULL REFERENCES boots(id) ON "
				      "DELETE CASCADE, idx INTEGER NOT NULL "
				      "CHECK (idx >= 0), pcr INTEGER NOT "
				      "NULL, template TEXT NOT NULL, path "
				      "TEXT NOT NULL, digest_algo TEXT NOT "
				      "NULL, digest BLOB NOT NULL, verdict "
				      "TEXT NOT NULL, sig BLOB, PRIMARY KEY "
				      "(boot_id, idx)) STRICT, WITHOUT ROWID;"
				      "CREATE INDEX records_rejudge ON "
				      "records(boot_id, idx) WHERE verdict = "
				      "'unknown' OR verdict = 'mismatch' OR "
				      "verdict = 'bad-signature';"
				      "DROP TABLE boot_logs;"
				      "DROP TABLE efi_digests;"
				      "DROP TABLE boot_baselines;"
				      "DROP TRIGGER events_webhook;"
				      "DROP TRIGGER audit_webhook;"
				      "DROP TRIGGER webhook_outbox_queued;"
				      "DROP TABLE webhook_outbox;"
				      "DROP TABLE webhooks;"
				      "ALTER TABLE boots DROP COLUMN history_from;"
				      "ALTER TABLE boots DROP COLUMN history_to;"
				      "ALTER TABLE boots DROP COLUMN history_followed;"
				      "ALTER TABLE boots DROP COLUMN history_anchor;"
				      "ALTER TABLE boots DROP COLUMN pcr10_sha384;"
				      "ALTER TABLE boots DROP COLUMN pcr10_sha512;"
				      "DROP INDEX machines_silent;"
				      "DROP TABLE nonces;"
				      "CREATE TABLE nonces (value BLOB "
				      "PRIMARY KEY, machine_id TEXT NOT "
				      "NULL REFERENCES machines(id) ON "
				      "DELETE CASCADE, expires_at INTEGER "
				      "NOT NULL, used INTEGER NOT NULL "
				      "DEFAULT 0 CHECK (used IN (0, 1))) "
				      "STRICT, WITHOUT ROWID;"
				      "CREATE INDEX nonces_expiry ON "
				      "nonces(expires_at);"
				      "CREATE UNIQUE INDEX nonces_machine "
				      "ON nonces(machine_id);"
				      "DROP TABLE reference_epoch;"
				      "DROP TRIGGER refs_epoch_insert;"
				      "DROP TRIGGER refs_epoch_update;"
				      "DROP TRIGGER refs_epoch_delete;"
				      "DROP TRIGGER sources_epoch_insert;"
				      "DROP TRIGGER sources_epoch_update;"
				      "DROP TRIGGER sources_epoch_delete;"
				      "DROP TRIGGER policy_selectors_epoch_insert;"
				      "DROP TRIGGER policy_selectors_epoch_update;"
				      "DROP TRIGGER policy_selectors_epoch_delete;"
				      "PRAGMA user_version = 6",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(s);
	tdb_open(&t);
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM boots"), 1);
	assert_int_equal(db_boot_log_store(t.db, boot, blog, 10, T_NOW, &res,
					   &err),
			 0);
	assert_int_equal(res, DB_BOOT_LOG_STORED);
	tdb_remove(&t);
}

static void test_baseline(void **state)
{
	struct db_boot_baseline b;
	struct db_removal rm;
	struct imt_error err;
	struct tdb t;
	int64_t boot;
	int found;

	(void)state;
	memset(blog, 0x42, sizeof(blog));
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	boot = boot_of(&t, "m1", 1);
	assert_int_equal(db_boot_baseline_get(t.db, "m1", 1, &b, &found, &err),
			 0);
	assert_int_equal(found, 0);
	/* the first log is kept; a later one does not replace it */
	assert_int_equal(db_boot_baseline_keep(t.db, "m1", blog, 100, T_NOW,
					       &err),
			 0);
	assert_int_equal(db_boot_baseline_keep(t.db, "m1", blog, 200, T_NOW + 9,
					       &err),
			 0);
	assert_int_equal(db_boot_baseline_of_boot(t.db, boot, 1, &b, &found,
						  &err),
			 0);
	assert_int_equal(found, 1);
	assert_int_equal(b.len, 100);
	assert_memory_equal(b.data, blog, 100);
	assert_int_equal(b.set_at, T_NOW);
	assert_string_equal(b.approved_by, "");
	db_boot_baseline_release(&b);
	/* an approval replaces it and names the operator */
	assert_int_equal(db_boot_baseline_approve(t.db, "m1", blog, 300,
						  "alice", T_NOW + 20, &err),
			 0);
	assert_int_equal(db_boot_baseline_get(t.db, "m1", 0, &b, &found, &err),
			 0);
	assert_int_equal(b.len, 300);
	assert_null(b.data);
	assert_string_equal(b.approved_by, "alice");
	assert_int_equal(b.approved_at, T_NOW + 20);
	/* bounds, as for a boot's log */
	assert_int_equal(db_boot_baseline_keep(t.db, "m1", blog, 0, T_NOW,
					       &err),
			 -1);
	/* the machine goes, its baseline with it */
	assert_int_equal(db_machine_remove(t.db, "m1", "op", T_NOW, &rm, &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM boot_baselines"), 0);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_store_once),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_baseline),
	};
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_upgrade_from_0006),
	};

	return tdb_run(tests, sqlite_tests);
}

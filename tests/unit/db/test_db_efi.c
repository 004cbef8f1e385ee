// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_efi.c - 'efi' sources (0008_efi.sql): the rebuild of sources
 * from a database at 0006 keeps every source and what hangs off it, and
 * db_efi_import()/db_efi_find().
 */
#include "db_efi.h"
#include "db_test.h"
#include "db_internal.h"

/* A file at schema 0006 with a dir-tree source, one ref, key and rule. */
static void make_0006(struct tdb *t)
{
	sqlite3 *s;
	size_t i;

	tdb_path(t);
	assert_int_equal(sqlite3_open(t->path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, "PRAGMA foreign_keys = ON", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	for (i = 0; i < db_migration_count && db_migrations[i].version <= 6;
	     i++)
		assert_int_equal(sqlite3_exec(s, db_migrations[i].sql, NULL,
					      NULL, NULL),
				 SQLITE_OK);
	assert_int_equal(sqlite3_exec(s,
				      "INSERT INTO sources (id, kind, name, imported_at, version) "
				      "VALUES (7, 'dir-tree', 'root', 5, 'v1');"
				      "INSERT INTO files (id, path) VALUES (1, '/bin/sh');"
				      "INSERT INTO digests (id, algo, value) "
				      "VALUES (1, 'sha256', x'00');"
				      "INSERT INTO refs (file_id, digest_id, source_id) "
				      "VALUES (1, 1, 7);"
				      "INSERT INTO source_rules VALUES (7, 'prefix', '/tmp/');",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_close(s), SQLITE_OK);
}

static void test_upgrade_from_0006(void **state)
{
	struct tdb t;

	(void)state;
	make_0006(&t);
	tdb_open(&t);
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	assert_int_equal(tdb_int(&t, "PRAGMA foreign_keys"), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources WHERE "
				     "id = 7 AND kind = 'dir-tree' AND "
				     "name = 'root' AND imported_at = 5 AND "
				     "version = 'v1'"),
			 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs "
				     "WHERE source_id = 7"),
			 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM source_rules"), 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sqlite_master "
				     "WHERE name IN ('sources_package', "
				     "'sources_retire')"),
			 2);
	/* the children still reference the rebuilt table: cascades work */
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sqlite_master "
				     "WHERE sql LIKE '%sources_new%'"),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM "
				     "pragma_foreign_key_check"),
			 0);
	tdb_int(&t, "DELETE FROM sources WHERE id = 7 RETURNING 0");
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM refs"), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM source_rules"), 0);
	tdb_remove(&t);
}

static const uint8_t d1[32] = { 1, 2, 3 };
static const uint8_t d2[20] = { 9 };

static void test_import_and_find(void **state)
{
	const struct db_efi_entry e[] = {
		{ "systemd-bootx64.efi", "sha256", d1, sizeof(d1) },
		{ "systemd-bootx64.efi", "sha1", d2, sizeof(d2) },
	};
	struct db_efi_hit hit;
	struct imt_error err;
	size_t added;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_efi_find(t.db, "sha256", d1, sizeof(d1), &hit,
				     &err),
			 0);
	assert_int_equal(db_efi_import(t.db, "boot", "255.4", e, 2, T_NOW,
				       &added, &err),
			 0);
	assert_int_equal(added, 2);
	assert_int_equal(db_efi_find(t.db, "sha256", d1, sizeof(d1), &hit,
				     &err),
			 1);
	assert_string_equal(hit.source, "boot");
	assert_string_equal(hit.version, "255.4");
	assert_string_equal(hit.file_name, "systemd-bootx64.efi");
	/* the bank matters: a sha256 digest is not found as sha1 */
	assert_int_equal(db_efi_find(t.db, "sha1", d1, sizeof(d2), &hit, &err),
			 0);
	assert_int_equal(db_efi_import(t.db, "boot", "255.4", e, 2, T_NOW + 1,
				       &added, &err),
			 0);
	assert_int_equal(added, 0);
	assert_int_equal(tdb_int(&t,
				 "SELECT count(*) FROM sources WHERE "
				 "kind = 'efi' AND imported_at = 1700000000"),
			 1);
	/* an IMA lookup never sees an EFI digest */
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM digests"), 0);
	tdb_int(&t, "DELETE FROM sources WHERE kind = 'efi' RETURNING 0");
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM efi_digests"), 0);
	tdb_remove(&t);
}

/* A bad entry stores nothing of the import, not even the source. */
static void test_bad_entry_stores_nothing(void **state)
{
	const struct db_efi_entry e[] = {
		{ "a.efi", "sha256", d1, sizeof(d1) },
		{ "", "sha256", d1, sizeof(d1) },
	};
	struct imt_error err;
	size_t added;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_efi_import(t.db, "x", NULL, e, 2, T_NOW, &added,
				       &err),
			 -1);
	assert_non_null(strstr(err.msg, "EFI file name"));
	assert_int_equal(db_efi_import(t.db, "", NULL, e, 1, T_NOW, &added,
				       &err),
			 -1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM sources"), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM efi_digests"), 0);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_and_find),
		cmocka_unit_test(test_bad_entry_stores_nothing),
	};
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_upgrade_from_0006),
	};

	return tdb_run(tests, sqlite_tests);
}

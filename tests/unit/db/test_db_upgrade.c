// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_upgrade.c - a database written by an older schema, with
 * adversarial rows, migrates and serves (issue #32): on both backends.
 *
 * The database is made at schema FROM_VERSION by the migration files
 * themselves (db_migrations, db_pg_migrations), not by undoing later
 * ones: 16 is the newest version the files alone reach, since 0017 has a
 * C step (records_to_chunks) that needs the library's handle. So both
 * later migrations run on the rows: 0017 packs the records into chunks,
 * 0018 rebuilds machines (SQLite) and adds the wide banks.
 *
 * The rows are what the old schema takes though the library would not
 * write them all: an id of DB_MACHINE_ID_MAX bytes with odd characters,
 * empty strings and blobs, paths that are not UTF-8, of DB_PATH_MAX bytes
 * or empty, digests of the wrong length or of an unknown algorithm, PCR
 * and counters at their limits, records at index 2^62, a nonce of the
 * wrong length, two machines' nonces of the same value (0015 made the
 * machine the key, not the value), records of a boot that is gone, audit
 * rows of a machine that is gone. After db_open() the normal API must
 * serve them: list machines, read and re-judge records, take evidence,
 * start boots. Where a row cannot be carried (a PCR no TPM has; on
 * SQLite, rows of a machine deleted with foreign keys off) the migration
 * that meets it refuses, naming the row, and the database stays at the
 * version before it. No later migration adds a uniqueness over old rows
 * (0017's key is the records' own, 0018 rebuilds indexes that were
 * there), so there is no duplicate for one to refuse.
 */
#include <jansson.h>

#include "db_audit.h"
#include "db_boot.h"
#include "db_evidence.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "db_token.h"
#include "db_webhook.h"
#include "db_test.h"

#define FROM_VERSION 16
#define IDX_FAR 4611686018427387904ull /* 2^62 */
#define NREC 300

/* The long id: odd characters, padded to exactly DB_MACHINE_ID_MAX. */
static const char *long_id(void)
{
	static char id[DB_MACHINE_ID_MAX + 1];
	size_t n;

	if (id[0] == '\0') {
		n = (size_t)snprintf(id, sizeof(id), "m:\xc3\xbc.-_@~+=,");
		memset(id + n, 'x', DB_MACHINE_ID_MAX - n);
		id[DB_MACHINE_ID_MAX] = '\0';
	}
	return id;
}

/* Run @sql on @t's database at its raw connection (no library). */
static void raw_exec(struct tdb *t, const char *sql)
{
	if (tdb_pg_uri() != NULL) {
		PGconn *pg = PQconnectdb(t->path);
		PGresult *res = PQexec(pg, sql);

		if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		    PQresultStatus(res) != PGRES_TUPLES_OK)
			fail_msg("%.60s...: %s", sql, PQerrorMessage(pg));
		PQclear(res);
		PQfinish(pg);
	} else {
		sqlite3 *s;
		char *msg = NULL;

		assert_int_equal(sqlite3_open(t->path, &s), SQLITE_OK);
		if (sqlite3_exec(s, sql, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("%.60s...: %s", sql, msg);
		sqlite3_close(s);
	}
}

/* A new database at schema @version, by the migration files alone. */
static void schema_at(struct tdb *t, int version)
{
	const struct db_migration *m = tdb_pg_uri() != NULL ? db_pg_migrations :
							      db_migrations;
	size_t i, n = tdb_pg_uri() != NULL ? db_pg_migration_count :
					     db_migration_count;

	tdb_path(t);
	if (tdb_pg_uri() != NULL)
		raw_exec(t, "SET client_min_messages = warning");
	for (i = 0; i < n && m[i].version <= version; i++) {
		if (strstr(m[i].sql, "imatrust-migration: step") != NULL)
			fail_msg("%s has a C step: not by its file", m[i].name);
		raw_exec(t, m[i].sql);
	}
	t->db = NULL;
}

/* The schema version, read at the raw connection. */
static int64_t raw_version(struct tdb *t)
{
	int64_t v;

	if (tdb_pg_uri() != NULL) {
		PGconn *pg = PQconnectdb(t->path);
		PGresult *res = PQexec(pg, "SELECT version FROM "
					   "schema_version");

		assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
		v = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		PQclear(res);
		PQfinish(pg);
		return v;
	}
	{
		sqlite3_stmt *st;
		sqlite3 *s;

		assert_int_equal(sqlite3_open(t->path, &s), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(s, "PRAGMA user_version",
						    -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_close(s);
	}
	return v;
}

/*
 * The rows, written once for both engines: B(n, hex) is a blob of n
 * bytes of hex (one byte, repeated; rows_sql() writes it), E the empty
 * blob, P(text) a path (bytea on PostgreSQL).
 */
#define B(n, hex) "{" #n ":" hex "}"
#define E "{0:00}"
#define ROWS(P, LONGPATH, ODDPATH, SERIES, SETVAL) \
	"INSERT INTO machines (id, ek_pub, ek_cert, ak_pub, ak_name, state, " \
	"state_reason, created_at, last_seen, approved, activated, bank, " \
	"rejected_at, ek_fpr) VALUES " \
	"('%1$s', " B(1, "01") ", NULL, " B(1, "02") ", " B( \
		66, \
		"0b") ", " \
		      "'trusted', '{\"check\":\"\\u00fc\\\"\\\\\"}', 0, " \
		      "9223372036854775807, 1, 1, 'sha1', 0, " B( \
			      32, \
			      "00") "), " \
				    "('m2', " B(1, "03") ", " E ", " B(1, "04") ", " B( \
					    2, \
					    "0b") ", " \
						  "'stale', '', -1, NULL, 0, 1, NULL, 9223372036854775807, NULL), " \
						  "('m3', " B(1, "05") ", NULL, " B(1, "06") ", " B( \
							  2, \
							  "0b") ", " \
								"'pending', NULL, 1700000000, NULL, 0, 0, 'sha256', 0, " B( \
									32, \
									"ff") ");" \
									      "INSERT INTO boots (id, machine_id, reset_count, restart_count, " \
									      "started_at, next_record_index, pcr10_sha1, pcr10_sha256, " \
									      "boot_aggregate, history_from, history_to, history_followed, " \
									      "history_anchor) VALUES " \
									      "(1, '%1$s', 4294967295, 4294967295, 0, 300, " B(20, "00") ", " B(32, "00") ", " B( \
										      2, \
										      "ab") ", NULL, NULL, 0, NULL), " \
											    "(2, 'm2', 0, 0, 1700000000, 4611686018427387905, " B(20, "11") ", " B(32, "11") ", NULL, 5, 9, 1, " B( \
												    32, \
												    "aa") "), " \
													  "(3, 'm3', 7, 0, 1700000000, 0, " B(20, "22") ", " B( \
														  32, \
														  "22") ", NULL, NULL, NULL, 0, NULL);" SETVAL \
															"INSERT INTO records SELECT 1, i, CASE i WHEN 9 THEN 4294967295 " \
															"ELSE 10 END, CASE i %% 3 WHEN 0 THEN 'ima-ng' WHEN 1 THEN " \
															"'ima-sig' ELSE '' END, CASE i WHEN 0 THEN " P( \
																"''") " WHEN 1 " \
																      "THEN " ODDPATH \
																      " WHEN 2 THEN " LONGPATH \
																      " WHEN 3 THEN " P("'/tmp/\xe2\x98\x83 \xf0\x9f\x99\x82'") " ELSE " P( \
																	      "'/usr/bin/p' || i") " END, CASE i WHEN 4 THEN 'md5' " \
																				   "ELSE 'sha256' END, CASE i WHEN 5 THEN " E \
																				   " WHEN 6 THEN " B(3, "01") " WHEN 7 THEN " B(64, "07") " ELSE " B( \
																					   32, \
																					   "33") " END, " \
																						 "CASE i %% 7 WHEN 0 THEN 'known' WHEN 1 THEN 'unknown' WHEN 2 " \
																						 "THEN 'mismatch' WHEN 3 THEN 'violation' WHEN 4 THEN 'excluded' " \
																						 "WHEN 5 THEN 'signed' ELSE 'bad-signature' END, CASE WHEN i = 8 " \
																						 "THEN " E \
																						 " WHEN i %% 4 = 0 THEN " B( \
																							 300, \
																							 "5a") " END FROM " SERIES \
																							       ";" \
																							       "INSERT INTO records VALUES (2, 0, 10, 'ima-ng', " P( \
																								       "'/a'") ", " \
																									       "'sha1', " B( \
																										       20, \
																										       "44") ", 'known', NULL), (2, 4611686018427387904, " \
																											     "11, 'ima-ng', " P("'/b'") ", 'sha256', " B( \
																												     32, \
																												     "55") ", " \
																													   "'unknown', NULL), (4, 0, 10, 'ima-ng', " P( \
																														   "'/orphan'") ", " \
																																"'sha256', " B( \
																																	32, \
																																	"66") ", 'unknown', NULL);" \
																																	      "INSERT INTO nonces (value, machine_id, expires_at, used, seen_at) " \
																																	      "VALUES (" B( \
																																		      32, \
																																		      "00") ", '%1$s', 9223372036854775807, 0, NULL), " \
																																			    "(" B(8, \
																																				  "08") ", 'm2', 1700000060, 0, NULL), " \
																																					"(" B(32, \
																																					      "00") ", 'm3', 1700000060, 1, 1700000000);" \
																																						    "INSERT INTO events (machine_id, boot_id, time, kind, from_state, " \
																																						    "to_state, reason) VALUES ('%1$s', 1, 0, '', NULL, NULL, " \
																																						    "'{\"a\":\"\\u0000\\u00fc\"}'), ('m2', 2, 9223372036854775807, " \
																																						    "'state', 'trusted', 'stale', NULL);" \
																																						    "INSERT INTO audit (time, operator, action, machine_id, ek_fpr, " \
																																						    "detail) VALUES (1700000000, '', 'remove', 'gone', NULL, " \
																																						    "'{\"state\":\"trusted\"}');" \
																																						    "INSERT INTO registrations (machine_id, ek_fpr, operator, " \
																																						    "created_at) VALUES ('pre:\xc3\xbc', " B( \
																																							    32, \
																																							    "ee") ", '', 0);"

#define SQ_P(text) text
static const char sql_rows_sqlite[] =
	ROWS(SQ_P,
	     "'/' || substr(replace(hex(zeroblob(2048)), '0', 'a'), 1, 4095)",
	     "CAST(x'fffe0a09' AS TEXT)",
	     "(WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
	     "WHERE i < 299) SELECT i FROM n)",
	     "");

#define PG_P(text) "convert_to(" text ", 'UTF8')"
static const char sql_rows_pg[] =
	ROWS(PG_P, "convert_to('/' || repeat('a', 4095), 'UTF8')",
	     "'\\xfffe0a09'::bytea", "generate_series(0, 299) i",
	     "SELECT setval(pg_get_serial_sequence('boots', 'id'), 3);");

/*
 * @sql with each {N:HH} (N bytes of 0xHH) written as a blob literal of
 * the engine, %1$s the long id and %% a %; to free().
 */
static char *rows_sql(const char *sql)
{
	int pg = tdb_pg_uri() != NULL;
	size_t cap = 1 << 17, n = 0;
	char *out = malloc(cap);
	unsigned int len, byte;
	int used;

	assert_non_null(out);
	while (*sql != '\0') {
		assert_true(n + 1024 < cap);
		if (strncmp(sql, "%1$s", 4) == 0) {
			n += (size_t)sprintf(out + n, "%s", long_id());
			sql += 4;
			continue;
		}
		if (strncmp(sql, "%%", 2) == 0)
			sql++;
		if (*sql != '{' ||
		    sscanf(sql, "{%u:%2x}%n", &len, &byte, &used) != 2) {
			out[n++] = *sql++;
			continue;
		}
		sql += used;
		n += (size_t)sprintf(out + n, pg ? "'\\x" : "x'");
		for (; len > 0; len--)
			n += (size_t)sprintf(out + n, "%02x", byte);
		n += (size_t)sprintf(out + n, pg ? "'::bytea" : "'");
	}
	out[n] = '\0';
	return out;
}

/* A database at FROM_VERSION holding the rows, closed. */
static void old_database(struct tdb *t, const char *more)
{
	char *sql =
		rows_sql(tdb_pg_uri() != NULL ? sql_rows_pg : sql_rows_sqlite);

	schema_at(t, FROM_VERSION);
	raw_exec(t, sql);
	if (more != NULL)
		raw_exec(t, more);
	assert_int_equal(raw_version(t), FROM_VERSION);
	free(sql);
}

/* ---- what the migrated database serves --------------------------------- */

static int count_machine(const struct db_machine *m, void *arg)
{
	const char *id = long_id();
	int *seen = arg;

	if (strcmp(m->id, id) == 0) {
		assert_int_equal(m->state, DB_STATE_TRUSTED);
		assert_int_equal(m->last_seen, INT64_MAX);
		assert_int_equal(m->ak_name_len, DB_AK_NAME_MAX);
		assert_string_equal(m->bank, "sha1");
		assert_string_equal(m->state_reason,
				    "{\"check\":\"\\u00fc\\\"\\\\\"}");
		seen[0]++;
	} else if (strcmp(m->id, "m2") == 0) {
		assert_int_equal(m->state, DB_STATE_STALE);
		assert_int_equal(m->ek_cert_len, 0);
		assert_string_equal(m->state_reason, "");
		assert_int_equal(m->created_at, -1);
		assert_int_equal(m->rejected_at, INT64_MAX);
		assert_false(m->has_ek_fpr);
		assert_string_equal(m->bank, "");
		seen[1]++;
	} else {
		assert_string_equal(m->id, "m3");
		assert_int_equal(m->state, DB_STATE_PENDING);
		seen[2]++;
	}
	return 0;
}

/* Boot 1's record @r, as the rows above wrote record r->index. */
static int check_record(int64_t boot, const struct db_record *r, void *arg)
{
	static const uint8_t odd[] = { 0xff, 0xfe, '\n', '\t', 0 };
	static const size_t dlen[] = { 32, 32, 32, 32, 32, 0, 3, 64 };
	static const char *const tpl[] = { "ima-ng", "ima-sig", "" };
	uint64_t i = r->index, *n = arg;
	char path[32];

	assert_int_equal(boot, 1);
	assert_int_equal(i, *n);
	(*n)++;
	assert_int_equal(r->pcr, i == 9 ? UINT32_MAX : 10);
	assert_string_equal(r->template, tpl[i % 3]);
	assert_string_equal(r->digest_algo, i == 4 ? "md5" : "sha256");
	assert_int_equal(r->digest_len, i < 8 ? dlen[i] : 32);
	if (r->digest_len > 0)
		assert_int_equal(r->digest[r->digest_len - 1], i == 6 ? 0x01 :
							       i == 7 ? 0x07 :
									0x33);
	assert_int_equal(r->verdict, (enum db_verdict)(i % 7));
	assert_int_equal(r->sig_len, i % 4 == 0 && i != 8 ? 300 : 0);
	snprintf(path, sizeof(path), "/usr/bin/p%llu", (unsigned long long)i);
	if (i == 0)
		assert_string_equal(r->path, "");
	else if (i == 1)
		assert_string_equal(r->path, (const char *)odd);
	else if (i == 2)
		assert_int_equal(strlen(r->path), DB_PATH_MAX);
	else if (i == 3)
		assert_string_equal(r->path,
				    "/tmp/\xe2\x98\x83 \xf0\x9f\x99\x82");
	else
		assert_string_equal(r->path, path);
	return 0;
}

static int count_record(int64_t boot, const struct db_record *r, void *arg)
{
	uint64_t *n = arg;

	(void)boot;
	(void)r;
	(*n)++;
	return 0;
}

/* How many records of @boot from @from, all or those to re-judge. */
static uint64_t records_of(struct tdb *t, int64_t boot, uint64_t from,
			   int rejudge_only)
{
	struct imt_error err;
	uint64_t n = 0;

	if (db_record_list(t->db, boot, from, DB_LIST_MAX, rejudge_only,
			   count_record, &n, &err) < 0)
		fail_msg("records of boot %lld: %s", (long long)boot, err.msg);
	return n;
}

/* The records as they were, re-judged as records of today are. */
static void check_records(struct tdb *t)
{
	struct db_verdict_update u = { 1, DB_VERDICT_KNOWN };
	uint64_t n = 0, rejudge = 0, i;
	struct imt_error err;

	assert_int_equal(db_record_list(t->db, 1, 0, DB_LIST_MAX, 0,
					check_record, &n, &err),
			 0);
	assert_int_equal(n, NREC);
	for (i = 0; i < NREC; i++)
		rejudge += i % 7 == 1 || i % 7 == 2 || i % 7 == 6;
	assert_int_equal(records_of(t, 1, 0, 1), rejudge);
	assert_int_equal(db_record_set_verdicts(t->db, 1, &u, 1, &err), 0);
	assert_int_equal(records_of(t, 1, 0, 1), rejudge - 1);
	/* boot 2: index 0 and 2^62, nothing between */
	assert_int_equal(records_of(t, 2, 0, 0), 2);
	assert_int_equal(records_of(t, 2, IDX_FAR, 0), 1);
	u = (struct db_verdict_update){ IDX_FAR, DB_VERDICT_KNOWN };
	assert_int_equal(db_record_set_verdicts(t->db, 2, &u, 1, &err), 0);
	assert_int_equal(records_of(t, 2, 0, 1), 0);
}

/* Two records of a batch, sha256, at @from. */
static int advance(struct tdb *t, int64_t boot, uint64_t from,
		   struct imt_error *err)
{
	static const uint8_t d[32] = { 0x77 };
	uint8_t s1[DB_PCR_SHA1_SIZE] = { 1 }, s256[DB_PCR_SHA256_SIZE] = { 2 };
	const struct db_record r[2] = {
		{ from, 10, "ima-ng", "/new/a", "sha256", d, 32,
		  DB_VERDICT_KNOWN, NULL, 0 },
		{ from + 1, 10, "ima-ng", "/new/b", "sha256", d, 32,
		  DB_VERDICT_UNKNOWN, NULL, 0 },
	};
	struct db_boot_advance a = {
		.boot_id = boot,
		.from_index = from,
		.to_index = from + 2,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = r,
		.nrecords = 2,
	};

	return db_boot_advance(t->db, &a, T_NOW + 1, err);
}

/* The long id's evidence: its view, its nonce used, its records stored. */
static void check_evidence(struct tdb *t)
{
	static const uint8_t zero[32], next_nonce[32] = { 0x42 };
	struct db_nonce_next next = { next_nonce, 32, T_NOW + 60, T_NOW };
	struct db_evidence_view v;
	enum db_nonce_result res;
	struct imt_error err;

	assert_int_equal(db_evidence_view_get(t->db, long_id(), T_NOW, &v,
					      &err),
			 0);
	assert_true(v.found && v.have_boot && v.have_nonce);
	assert_int_equal(v.boot.id, 1);
	assert_int_equal(v.boot.reset_count, UINT32_MAX);
	assert_int_equal(v.boot.restart_count, UINT32_MAX);
	assert_int_equal(v.boot.next_record_index, NREC);
	assert_int_equal(v.boot.boot_aggregate_len, 2);
	assert_false(v.boot.have_sha384 || v.boot.have_sha512);
	assert_int_equal(v.nonce_len, 32);
	assert_memory_equal(v.nonce, zero, 32);
	db_evidence_view_release(&v);
	assert_int_equal(db_nonce_renew(t->db, long_id(), zero, 32, T_NOW,
					&next, &res, &err),
			 0);
	assert_int_equal(res, DB_NONCE_OK);
	if (advance(t, 1, NREC, &err) < 0)
		fail_msg("advance: %s", err.msg);
	assert_int_equal(records_of(t, 1, 0, 0), NREC + 2);
}

/* m2's nonce row, 8 bytes, is no nonce: m2 is served and takes one. */
static void check_bad_nonce(struct tdb *t)
{
	static const uint8_t fresh[32] = { 0x99 };
	struct db_evidence_view v;
	struct imt_error err;

	if (db_evidence_view_get(t->db, "m2", T_NOW, &v, &err) < 0)
		fail_msg("evidence view of m2: %s", err.msg);
	assert_true(v.found && v.have_boot);
	assert_false(v.have_nonce);
	assert_int_equal(v.boot.next_record_index, IDX_FAR + 1);
	assert_int_equal(v.boot.history_from, 5);
	assert_int_equal(v.boot.history_to, 9);
	db_evidence_view_release(&v);
	if (db_nonce_issue(t->db, "m2", fresh, 32, T_NOW + 60, &err) < 0)
		fail_msg("nonce for m2: %s", err.msg);
	assert_int_equal(db_evidence_view_get(t->db, "m2", T_NOW, &v, &err), 0);
	assert_true(v.have_nonce);
	assert_memory_equal(v.nonce, fresh, 32);
	db_evidence_view_release(&v);
}

/* A new boot starts empty: no record of a boot that is gone is its. */
static void check_new_boot(struct tdb *t)
{
	struct imt_error err;
	struct db_boot b;

	if (db_boot_start(t->db, "m3", 8, 0, T_NOW, &b, &err) < 0)
		fail_msg("boot of m3: %s", err.msg);
	assert_int_equal(records_of(t, b.id, 0, 0), 0);
	if (advance(t, b.id, 0, &err) < 0)
		fail_msg("advance: %s", err.msg);
	assert_int_equal(records_of(t, b.id, 0, 0), 2);
}

static int count_event(const struct db_event *ev, void *arg)
{
	(*(int *)arg)++;
	assert_string_equal(ev->kind, "");
	assert_int_equal(ev->boot_id, 1);
	return 0;
}

static int count_audit(const struct db_audit *a, void *arg)
{
	(*(int *)arg)++;
	assert_string_equal(a->action, "remove");
	return 0;
}

static void test_old_rows_serve(void **state)
{
	struct imt_error err;
	int seen[3] = { 0 }, n = 0;
	struct tdb t;

	(void)state;
	old_database(&t, NULL);
	tdb_open(&t);
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	assert_int_equal(db_machine_list(t.db, NULL, DB_LIST_MAX, count_machine,
					 seen, &err),
			 0);
	assert_int_equal(seen[0] + seen[1] * 10 + seen[2] * 100, 111);
	check_records(&t);
	check_evidence(&t);
	check_bad_nonce(&t);
	check_new_boot(&t);
	assert_int_equal(db_event_list(t.db, long_id(), 0, 10, count_event, &n,
				       &err),
			 0);
	assert_int_equal(db_audit_list(t.db, "gone", 0, 10, count_audit, &n,
				       &err),
			 0);
	assert_int_equal(n, 2);
	tdb_remove(&t);
}

/*
 * A record of a PCR no TPM has (above 2^32 - 1) cannot be packed: 0017
 * refuses, naming it, and the database stays at FROM_VERSION.
 */
static void test_pcr_out_of_range_refused(void **state)
{
	struct db *db = (struct db *)1;
	struct imt_error err;
	struct tdb t;

	(void)state;
	old_database(&t, "UPDATE records SET pcr = 4294967296 "
			 "WHERE boot_id = 1 AND idx = 5");
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_null(db);
	print_message("refused: %s\n", err.msg);
	assert_non_null(strstr(err.msg, "boot 1 index 5"));
	assert_int_equal(raw_version(&t), FROM_VERSION);
	raw_exec(&t, "UPDATE records SET pcr = 10 WHERE boot_id = 1 AND "
		     "idx = 5");
	tdb_open(&t);
	assert_int_equal(records_of(&t, 1, 0, 0), NREC);
	tdb_remove(&t);
}

/*
 * SQLite: machine m2 deleted with foreign keys off (the sqlite3 shell's
 * default) leaves its boot, events and nonce. 0018, which rebuilds
 * machines with foreign keys off and checks them after, refuses, naming
 * a row; the database stays at 17; without those rows it migrates.
 */
static void test_rows_of_deleted_machine_refused(void **state)
{
	struct db *db = (struct db *)1;
	struct imt_error err;
	struct tdb t;

	(void)state;
	old_database(&t, "PRAGMA foreign_keys = OFF;"
			 "DELETE FROM machines WHERE id = 'm2'");
	assert_int_equal(db_open(t.path, &db, &err), -1);
	assert_null(db);
	print_message("refused: %s\n", err.msg);
	assert_non_null(strstr(err.msg, "0018_wide_banks"));
	assert_non_null(strstr(err.msg, "3 foreign key violations, the "
					"first: "));
	assert_non_null(strstr(err.msg, " refers to no machines row"));
	assert_int_equal(raw_version(&t), FROM_VERSION + 1);
	raw_exec(&t, "DELETE FROM boots WHERE machine_id = 'm2';"
		     "DELETE FROM events WHERE machine_id = 'm2';"
		     "DELETE FROM nonces WHERE machine_id = 'm2'");
	tdb_open(&t);
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	assert_int_equal(records_of(&t, 1, 0, 0), NREC);
	tdb_remove(&t);
}

struct outbox_seen {
	int n;
	int64_t seq[4];
	int stored[4];
	char id[4][32];
	char type[4][32];
};

static int outbox_cb(const struct db_webhook_message *m, void *arg)
{
	struct outbox_seen *o = arg;
	json_t *b = m->body != NULL ? json_loads(m->body, 0, NULL) : NULL;

	assert_true(o->n < 4);
	o->seq[o->n] = m->seq;
	o->stored[o->n] = m->body != NULL;
	snprintf(o->id[o->n], sizeof(o->id[0]), "%s",
		 b != NULL ? json_string_value(json_object_get(b, "id")) : "-");
	snprintf(o->type[o->n], sizeof(o->type[0]), "%s",
		 b != NULL ? json_string_value(json_object_get(b, "type")) :
			     m->type);
	json_decref(b);
	o->n++;
	return 0;
}

/*
 * Messages the triggers of 0011 composed, still undelivered, cross 0020
 * with their bodies, sent as stored; and seq goes on from the highest
 * ever given, not the highest left (the newest was delivered and pruned):
 * a message id is never given twice.
 */
static void test_outbox_kept(void **state)
{
	struct outbox_seen o = { 0 };
	struct imt_error err;
	struct tdb t;

	(void)state;
	schema_at(&t, FROM_VERSION);
	raw_exec(&t, tdb_pg_uri() != NULL ?
			     "INSERT INTO webhooks (name, url, key_id, secret, "
			     "created_at) VALUES ('nac', 'https://n/', 'k', "
			     "decode(repeat('00', 24), 'hex'), 1)" :
			     "INSERT INTO webhooks (name, url, key_id, secret, "
			     "created_at) VALUES ('nac', 'https://n/', 'k', "
			     "zeroblob(24), 1)");
	raw_exec(&t, "INSERT INTO audit (time, action, machine_id) VALUES "
		     "(5, 'pending-expired', 'p1'), "
		     "(6, 'pending-expired', 'p2'), "
		     "(7, 'pending-expired', 'p3');"
		     "DELETE FROM webhook_outbox WHERE machine_id = 'p3'");
	tdb_open(&t);
	assert_int_equal(db_webhook_due(t.db, 100, 10, outbox_cb, &o, &err), 0);
	assert_int_equal(o.n, 2);
	assert_int_equal(o.seq[0], 1);
	assert_true(o.stored[0] && o.stored[1]);
	assert_string_equal(o.id[0], "nac-1");
	assert_string_equal(o.id[1], "nac-2");
	assert_string_equal(o.type[1], "machine.removed");
	tdb_exec(&t, "INSERT INTO audit (time, action, machine_id) VALUES "
		     "(8, 'pending-expired', 'p4')");
	memset(&o, 0, sizeof(o));
	assert_int_equal(db_webhook_due(t.db, 100, 10, outbox_cb, &o, &err), 0);
	assert_int_equal(o.n, 3);
	assert_int_equal(o.seq[2], 4);
	assert_false(o.stored[2]);
	assert_string_equal(o.type[2], "machine.removed");
	tdb_remove(&t);
}

/*
 * A token stored before 0021 could do everything: it crosses as admin,
 * never expiring, never used, and its secret still matches (issue #36).
 */
#define TOK_HASH \
	"5881ac79b2d936fae6454ec261a8d54f" \
	"760143a706c0f6bd170bb4ada2bcd70e"

static void test_token_becomes_admin(void **state)
{
	static const char tok[] = "old-secret-0123456789abcdef";
	struct db_token row;
	struct imt_error err;
	struct tdb t;
	int ok = 0;

	(void)state;
	schema_at(&t, FROM_VERSION);
	/* the SHA-256 of tok, as db_token_add() stored it */
	raw_exec(&t, tdb_pg_uri() != NULL ?
			     "INSERT INTO tokens (name, hash, created_at) "
			     "VALUES ('ops', decode('" TOK_HASH
			     "', 'hex'), 7)" :
			     "INSERT INTO tokens (name, hash, created_at) "
			     "VALUES ('ops', X'" TOK_HASH "', 7)");
	tdb_open(&t);
	assert_int_equal(db_token_lookup(t.db, (const uint8_t *)tok,
					 sizeof(tok) - 1, &row, &ok, &err),
			 0);
	assert_int_equal(ok, 1);
	assert_string_equal(row.name, "ops");
	assert_int_equal(row.role, DB_ROLE_ADMIN);
	assert_int_equal(row.expires_at, 0);
	assert_int_equal(row.last_used, 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM tokens WHERE "
				     "role = 'admin' AND expires_at IS NULL"),
			 1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_rows_serve),
		cmocka_unit_test(test_pcr_out_of_range_refused),
		cmocka_unit_test(test_outbox_kept),
		cmocka_unit_test(test_token_becomes_admin),
	};
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_rows_of_deleted_machine_refused),
	};

	return tdb_run(tests, sqlite_tests);
}

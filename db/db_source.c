// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_source.c - what a reference source is: a Debian package version
 * (package, version, architecture, the SHA-256 of the .deb), when it is
 * to be retired, and the exclusion rules an import brought along.
 *
 * A source is retired by withdrawing it (db_ref_withdraw()): retire_at
 * only schedules that, so a retirement re-judges like any withdrawal.
 */
#include <string.h>

#include "db_internal.h"
#include "db_ref.h"
#include "db_source.h"

#define SQL_SOURCE_COLUMNS \
	"SELECT s.id, s.kind, s.name, s.package, s.version, s.arch, " \
	"s.content_sha256, s.imported_at, coalesce(s.retire_at, 0), " \
	"(SELECT count(*) FROM refs r WHERE r.source_id = s.id " \
	"AND r.since <= s.published AND r.generation >= s.withdrawn_below) " \
	"FROM sources s "
/*
 * A source whose first import has not finished, or that is being
 * withdrawn, is not shown (migration 0019): neither is in effect. (An
 * 'efi' source, db_efi.c, has no generations: 0.)
 */
#define SQL_SOURCE_SEEN \
	"(s.published > 0 OR s.generation = 0) " \
	"AND s.withdrawn_below <= s.generation"

static const char sql_source_get[] = SQL_SOURCE_COLUMNS
	"WHERE s.kind = ?1 AND s.name = ?2 AND " SQL_SOURCE_SEEN;
static const char sql_source_list[] = SQL_SOURCE_COLUMNS
	"WHERE (?1 < 0 OR s.kind = ?2) AND " SQL_SOURCE_SEEN " ORDER BY s.id";
static const char sql_source_due[] = SQL_SOURCE_COLUMNS
	"WHERE s.retire_at IS NOT NULL "
	"AND s.retire_at <= ?1 ORDER BY s.retire_at LIMIT 1";

static int source_rows(struct db *db, struct db_stmt *st, db_source_cb cb,
		       void *arg, int *found, struct imt_error *err)
{
	struct db_source_info si;
	int step, n = 0;

	while ((step = db_step(st)) == DB_ROW) {
		memset(&si, 0, sizeof(si));
		si.id = db_col_int64(st, 0);
		if (db_source_kind_parse(db_col_text(st, 1), &si.kind) < 0)
			continue;
		si.name = db_col_text(st, 2);
		si.package = db_col_text(st, 3);
		si.version = db_col_text(st, 4);
		si.arch = db_col_text(st, 5);
		if (db_col_bytes(st, 6) == 32)
			si.content_sha256 = db_col_blob(st, 6);
		si.imported_at = db_col_int64(st, 7);
		si.retire_at = db_col_int64(st, 8);
		si.refs = db_col_int64(st, 9);
		n++;
		if (cb != NULL && cb(&si, arg) != 0)
			break;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "sources");
	if (found != NULL)
		*found = n > 0;
	return 0;
}

int db_source_get(struct db *db, const struct db_ref_source *src,
		  db_source_cb cb, void *arg, int *found, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || src == NULL || db_source_kind_name(src->kind) == NULL)
		return db_bad(err, "no database or source");
	if (db_check_str(src->name, DB_NAME_MAX, "source name", err) < 0)
		return -1;
	st = db_stmt(db, sql_source_get, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, db_source_kind_name(src->kind));
	db_bind_text(st, 2, src->name);
	return source_rows(db, st, cb, arg, found, err);
}

int db_source_list(struct db *db, int kind, db_source_cb cb, void *arg,
		   struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	st = db_stmt(db, sql_source_list, err);
	if (st == NULL)
		return -1;
	db_bind_int(st, 1, kind);
	if (kind >= 0) {
		const char *k = db_source_kind_name((enum db_source_kind)kind);

		if (k == NULL) {
			db_reset(st);
			return db_bad(err, "unknown source kind %d", kind);
		}
		db_bind_text(st, 2, k);
	}
	return source_rows(db, st, cb, arg, NULL, err);
}

int db_source_next_due(struct db *db, int64_t now, db_source_cb cb, void *arg,
		       int *found, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || cb == NULL || found == NULL)
		return db_bad(err, "no database or callback");
	st = db_stmt(db, sql_source_due, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, now);
	return source_rows(db, st, cb, arg, found, err);
}

static const char sql_schedule_retire[] =
	"UPDATE sources SET retire_at = ?4 WHERE kind = 'deb' "
	"AND package = ?1 AND arch = ?2 AND name <> ?3 "
	"AND retire_at IS NULL";

int db_source_schedule_retire(struct db *db, const char *package,
			      const char *arch, const char *keep,
			      int64_t retire_at, size_t *n,
			      struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || package == NULL || arch == NULL || keep == NULL)
		return db_bad(err, "no database or package");
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a retirement cannot run inside an import");
	st = db_stmt(db, sql_schedule_retire, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, package);
	db_bind_text(st, 2, arch);
	db_bind_text(st, 3, keep);
	db_bind_int64(st, 4, retire_at);
	if (db_step_done(db, st, err, "schedule retirement") < 0)
		return -1;
	if (n != NULL)
		*n = (size_t)db_changes(db);
	return 0;
}

static const struct db_sql sql_rule_add = {
	.sqlite = "INSERT OR IGNORE INTO source_rules (source_id, kind, rule) "
		  "VALUES (?1, ?2, ?3)",
	.pg = "INSERT INTO source_rules (source_id, kind, rule) "
	      "VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
};

int db_source_rule_add(struct db *db, const char *kind, const char *rule,
		       struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || !db->import_open)
		return db_bad(err, "no reference import open");
	if (kind == NULL ||
	    (strcmp(kind, "prefix") != 0 && strcmp(kind, "glob") != 0 &&
	     strcmp(kind, "regex") != 0))
		return db_bad(err, "unknown rule kind");
	if (db_check_str(rule, DB_PATH_MAX, "rule", err) < 0)
		return -1;
	st = db_stmt_sql(db, &sql_rule_add, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, db->import_source);
	db_bind_text(st, 2, kind);
	db_bind_text(st, 3, rule);
	return db_step_done(db, st, err, "rule");
}

/* GLOB: imatrust_glob() on PostgreSQL (0012_baseline.sql). */
#define SQL_POLICY_RULES(match) \
	"SELECT r.kind, r.rule, s.kind || ':' || s.name FROM source_rules r " \
	"JOIN sources s ON s.id = r.source_id WHERE EXISTS (SELECT 1 " \
	"FROM policy_selectors p WHERE p.policy = ?1 AND " match " ) " \
	"ORDER BY s.id, r.kind, r.rule"
static const struct db_sql sql_policy_rules = {
	.sqlite = SQL_POLICY_RULES("s.kind || ':' || s.name GLOB p.selector"),
	.pg = SQL_POLICY_RULES("imatrust_glob(s.kind || ':' || s.name, "
			       "p.selector)"),
};

int db_policy_source_rules(struct db *db, const char *policy, db_rule_cb cb,
			   void *arg, struct imt_error *err)
{
	struct db_stmt *st;
	int step;

	if (db == NULL || policy == NULL || cb == NULL)
		return db_bad(err, "no database, policy or callback");
	st = db_stmt_sql(db, &sql_policy_rules, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, policy);
	while ((step = db_step(st)) == DB_ROW) {
		if (cb(db_col_text(st, 0), db_col_text(st, 1),
		       db_col_text(st, 2), arg) != 0)
			break;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "rules");
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_policy.c - named policies: the JSON text verifier/policy/policy.c wrote,
 * the default mark, the order machine patterns are tried in, and the
 * source selectors SQL filters references with (db_ref_lookup_policy()).
 */
#include <string.h>

#include "db_internal.h"
#include "db_policy.h"

static const char sql_count[] = "SELECT count(*) FROM policies";
static const char sql_exists[] = "SELECT 1 FROM policies WHERE name = ?1";
static const char sql_clear_default[] =
	"UPDATE policies SET is_default = 0 WHERE is_default = 1 "
	"AND name <> ?1";
static const char sql_upsert[] =
	"INSERT INTO policies (name, body, is_default, position, updated_at) "
	"VALUES (?1, ?2, ?3, (SELECT coalesce(max(position), 0) + 1 "
	"FROM policies), ?4) ON CONFLICT (name) DO UPDATE SET body = ?2, "
	"is_default = ?3, updated_at = ?4";
static const char sql_selectors_clear[] =
	"DELETE FROM policy_selectors WHERE policy = ?1";
static const struct db_sql sql_selector_add = {
	.sqlite = "INSERT OR IGNORE INTO policy_selectors (policy, selector) "
		  "VALUES (?1, ?2)",
	.pg = "INSERT INTO policy_selectors (policy, selector) "
	      "VALUES (?1, ?2) ON CONFLICT DO NOTHING",
};

static int name_exists(struct db *db, const char *name, int *found,
		       struct imt_error *err)
{
	*found = db_text_exists(db, sql_exists, name, "policy", err);
	return *found < 0 ? -1 : 0;
}

static int count_policies(struct db *db, int64_t *n, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_count, err);
	int step;

	if (st == NULL)
		return -1;
	step = db_step(st);
	*n = step == DB_ROW ? db_col_int64(st, 0) : 0;
	db_reset(st);
	return step == DB_ROW ? 0 : db_fail(db, err, "policies");
}

static int run_name(struct db *db, const char *sql, const char *name,
		    struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	return db_step_done(db, st, err, "policy");
}

static int put(struct db *db, const char *name, const char *body,
	       int is_default, const char *const *sel, size_t n, int64_t now,
	       struct imt_error *err)
{
	struct db_stmt *st;
	int64_t count;
	int found = 0;
	size_t i;

	if (name_exists(db, name, &found, err) < 0 ||
	    count_policies(db, &count, err) < 0)
		return -1;
	if (!found && count >= DB_POLICIES_MAX)
		return db_err(err, IMT_ERR_LIMIT, "%d policies at most",
			      DB_POLICIES_MAX);
	if (is_default && run_name(db, sql_clear_default, name, err) < 0)
		return -1;
	st = db_stmt(db, sql_upsert, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, body);
	db_bind_int(st, 3, is_default ? 1 : 0);
	db_bind_int64(st, 4, now);
	if (db_step_done(db, st, err, "policy") < 0 ||
	    run_name(db, sql_selectors_clear, name, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		st = db_stmt_sql(db, &sql_selector_add, err);
		if (st == NULL)
			return -1;
		db_bind_text(st, 1, name);
		db_bind_text(st, 2, sel[i]);
		if (db_step_done(db, st, err, "selector") < 0)
			return -1;
	}
	return 0;
}

int db_policy_put(struct db *db, const char *name, const char *body,
		  int is_default, const char *const *selectors, size_t n,
		  int64_t now, struct imt_error *err)
{
	size_t i;

	if (db == NULL || body == NULL || (n > 0 && selectors == NULL))
		return db_bad(err, "no database, body or selectors");
	if (db_check_str(name, DB_NAME_MAX, "policy name", err) < 0)
		return -1;
	if (n > DB_POLICIES_MAX)
		return db_err(err, IMT_ERR_LIMIT, "%d selectors at most",
			      DB_POLICIES_MAX);
	for (i = 0; i < n; i++) {
		if (db_check_str(selectors[i], DB_NAME_MAX + 32, "selector",
				 err) < 0)
			return -1;
	}
	if (db_begin(db, err) < 0)
		return -1;
	if (put(db, name, body, is_default, selectors, n, now, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

static const char sql_list[] =
	"SELECT name, body, is_default, updated_at FROM policies "
	"ORDER BY position";

int db_policy_list(struct db *db, db_policy_cb cb, void *arg,
		   struct imt_error *err)
{
	struct db_policy p;
	struct db_stmt *st;
	int step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	st = db_stmt(db, sql_list, err);
	if (st == NULL)
		return -1;
	while ((step = db_step(st)) == DB_ROW) {
		p.name = db_col_text(st, 0);
		p.body = db_col_text(st, 1);
		p.is_default = db_col_int(st, 2);
		p.updated_at = db_col_int64(st, 3);
		if (cb(&p, arg) != 0)
			break;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "policies");
	return 0;
}

static const char sql_is_default[] =
	"SELECT is_default FROM policies WHERE name = ?1";
static const char sql_delete[] = "DELETE FROM policies WHERE name = ?1";

int db_policy_delete(struct db *db, const char *name, int *found,
		     struct imt_error *err)
{
	struct db_stmt *st;
	int step, def;

	if (db == NULL || found == NULL)
		return db_bad(err, "no database");
	if (db_check_str(name, DB_NAME_MAX, "policy name", err) < 0)
		return -1;
	st = db_stmt(db, sql_is_default, err);
	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	step = db_step(st);
	def = step == DB_ROW ? db_col_int(st, 0) : 0;
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "policy");
	*found = step == DB_ROW;
	if (!*found)
		return 0;
	if (def)
		return db_err(err, IMT_ERR_MISMATCH,
			      "policy %s is the "
			      "default: make another policy the default "
			      "first",
			      name);
	return run_name(db, sql_delete, name, err);
}

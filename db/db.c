// SPDX-License-Identifier: GPL-2.0-only
/*
 * db.c - open and close the verifier database. The connection itself
 * (settings, version checks, migrations) is the backend's: db_conn_open()
 * in db_sqlite_open.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "db_ref.h"

int db_schema_version(void)
{
	return db_migrations[db_migration_count - 1].version;
}

int db_reader_version_check(int64_t version, struct imt_error *err)
{
	if (version == db_schema_version())
		return 0;
	return db_err(err, IMT_ERR_UNSUPPORTED,
		      "reader: database schema version %lld, not %d: "
		      "open the writer first",
		      (long long)version, db_schema_version());
}

static int open_as(const char *path, int reader, struct db **out,
		   struct imt_error *err)
{
	struct db *db;

	imt_error_clear(err);
	if (out == NULL)
		return db_bad(err, "no handle to fill");
	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return db_bad(err, "database path missing");
	db = calloc(1, sizeof(*db));
	if (db == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return -1;
	}
	db->reader = reader;
	if (db_conn_open(db, path, err) < 0) {
		db_close(db);
		return -1;
	}
	*out = db;
	return 0;
}

int db_open(const char *path, struct db **out, struct imt_error *err)
{
	return open_as(path, 0, out, err);
}

int db_open_reader(const char *path, struct db **out, struct imt_error *err)
{
	return open_as(path, 1, out, err);
}

int db_is_uri(const char *path)
{
	return path != NULL && (strncmp(path, "postgresql://", 13) == 0 ||
				strncmp(path, "postgres://", 11) == 0);
}

/* Copy @path to @out with every password's value replaced by "***". */
void db_path_for_log(const char *path, char *out, size_t n)
{
	const char *p = path, *auth, *at, *colon, *key;
	size_t len = 0;

	if (n == 0)
		return;
	out[0] = '\0';
	if (path == NULL)
		return;
	if (!db_is_uri(path)) {
		snprintf(out, n, "%s", path);
		return;
	}
	/* user:PASSWORD@ in the authority (before the first '/' after //) */
	auth = strstr(path, "//") + 2;
	at = strchr(auth, '@');
	if (at != NULL && at < auth + strcspn(auth, "/?")) {
		colon = memchr(auth, ':', (size_t)(at - auth));
		if (colon != NULL) {
			len += (size_t)snprintf(out, n, "%.*s:***",
						(int)(colon - path), path);
			p = at;
		}
	}
	/* password=... in the query: up to the next '&' */
	while (len < n && (key = strstr(p, "password=")) != NULL) {
		len += (size_t)snprintf(out + len, n - len, "%.*s***",
					(int)(key + 9 - p), p);
		p = key + 9 + strcspn(key + 9, "&");
	}
	if (len < n)
		snprintf(out + len, n - len, "%s", p);
}

void db_close(struct db *db)
{
	if (db == NULL)
		return;
	/* Whatever was not committed is dropped, as a crash would. */
	db_ref_import_abort(db);
	db_batch_abort(db);
	db_conn_close(db);
	db_ref_cache_free(db);
	db_audit_held_free(db);
	free(db);
}

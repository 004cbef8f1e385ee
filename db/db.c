// SPDX-License-Identifier: GPL-2.0-only
/*
 * db.c - open and close the verifier database. The connection itself
 * (settings, version checks, migrations) is the backend's: db_conn_open()
 * in db_sqlite_open.c.
 */
#include <stdlib.h>

#include "db_internal.h"

int db_schema_version(void)
{
	return db_migrations[db_migration_count - 1].version;
}

int db_open(const char *path, struct db **out, struct imt_error *err)
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
	if (db_conn_open(db, path, err) < 0) {
		db_close(db);
		return -1;
	}
	*out = db;
	return 0;
}

void db_close(struct db *db)
{
	if (db == NULL)
		return;
	/* Whatever was not committed is dropped, as a crash would. */
	db_ref_import_abort(db);
	db_batch_abort(db);
	db_conn_close(db);
	free(db);
}

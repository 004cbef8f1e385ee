// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_migration.c - running one migration's SQL, with the C steps some
 * need where SQL cannot do the work on both engines (0017 packs records).
 * The caller holds the migration's transaction and checks the version.
 */
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"

#define STEP_LINE "\n-- imatrust-migration: step "

static const struct {
	const char *name;
	int (*run)(struct db *db, struct imt_error *err);
} steps[] = {
	{ "records_to_chunks", db_records_to_chunks },
};

static int step_run(struct db *db, const struct db_migration *m,
		    const char *name, size_t len, struct imt_error *err)
{
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (strlen(steps[i].name) == len &&
		    memcmp(steps[i].name, name, len) == 0)
			return steps[i].run(db, err);
	}
	return db_err(err, IMT_ERR_INTERNAL, "%s: no step %.*s", m->name,
		      (int)len, name);
}

int db_migration_exec(struct db *db, const struct db_migration *m,
		      struct imt_error *err)
{
	const char *at = strstr(m->sql, STEP_LINE), *name, *rest;
	char *before;
	size_t len;
	int rc;

	if (at == NULL)
		return db_exec(db, m->sql, m->name, err);
	name = at + strlen(STEP_LINE);
	len = strcspn(name, "\n");
	rest = name + len;
	before = strndup(m->sql, (size_t)(at - m->sql) + 1);
	if (before == NULL)
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	rc = db_exec(db, before, m->name, err);
	free(before);
	if (rc < 0 || step_run(db, m, name, len, err) < 0)
		return -1;
	return db_migration_exec(db,
				 &(struct db_migration){ .version = m->version,
							 .name = m->name,
							 .sql = rest },
				 err);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_stmt_cache.c - the prepared statements of one connection, keyed by
 * the address of their static SQL text (db_backend.h), for both engines.
 */
#include <stdlib.h>

#include "db_backend.h"
#include "grow.h"

struct db_stmt *db_stmt_cache_find(const struct db_stmt_cache *c,
				   const char *sql)
{
	size_t i;

	/* a pointer compare each: ~170 texts, most used ones prepared first */
	for (i = 0; i < c->n; i++) {
		if (c->stmts[i]->sql == sql)
			return c->stmts[i];
	}
	return NULL;
}

int db_stmt_cache_add(struct db_stmt_cache *c, struct db_stmt *st,
		      struct imt_error *err)
{
	struct db_stmt **grown;

	if (c->n == DB_STMT_CACHE_MAX)
		return db_err(err, IMT_ERR_LIMIT, "statement cache full (%d): "
			      "a SQL text assembled at run time?",
			      DB_STMT_CACHE_MAX);
	grown = grow(c->stmts, &c->cap, (c->n + 1) * sizeof(*c->stmts),
		     64 * sizeof(*c->stmts));
	if (grown == NULL)
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	c->stmts = grown;
	c->stmts[c->n++] = st;
	return 0;
}

void db_stmt_cache_release(struct db_stmt_cache *c)
{
	free(c->stmts);
	c->stmts = NULL;
	c->n = 0;
	c->cap = 0;
}

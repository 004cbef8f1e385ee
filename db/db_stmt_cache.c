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

	/* a pointer compare per key, over one array of ~170 */
	for (i = 0; i < c->n; i++) {
		if (c->slots[i].sql == sql)
			return c->slots[i].st;
	}
	return NULL;
}

int db_stmt_cache_add(struct db_stmt_cache *c, const char *sql,
		      struct db_stmt *st, struct imt_error *err)
{
	struct db_stmt_slot *grown;

	if (c->n == DB_STMT_CACHE_MAX)
		return db_err(err, IMT_ERR_LIMIT,
			      "statement cache full (%d): "
			      "a SQL text assembled at run time?",
			      DB_STMT_CACHE_MAX);
	grown = grow(c->slots, &c->cap, (c->n + 1) * sizeof(*c->slots),
		     64 * sizeof(*c->slots));
	if (grown == NULL)
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	c->slots = grown;
	c->slots[c->n].sql = sql;
	c->slots[c->n].st = st;
	c->n++;
	return 0;
}

void db_stmt_cache_release(struct db_stmt_cache *c,
			   void (*destroy)(struct db_stmt *st))
{
	size_t i;

	for (i = 0; i < c->n; i++)
		destroy(c->slots[i].st);
	free(c->slots);
	c->slots = NULL;
	c->n = 0;
	c->cap = 0;
}

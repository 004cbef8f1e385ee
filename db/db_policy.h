/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_policy.h - named policies: JSON text, default mark, order, source
 * selectors (db_policy.c). The conventions every function follows, and the
 * limits, are db.h's.
 */
#ifndef IMATRUST_DB_POLICY_H
#define IMATRUST_DB_POLICY_H

#include "db.h"

#define DB_POLICIES_MAX 256 /* policies, and selectors per policy */

/* A stored policy; strings borrowed for the callback. */
struct db_policy {
	const char *name;
	const char *body; /* JSON text, as verifier/policy/policy.c wrote it */
	int is_default;
	int64_t updated_at;
};

typedef int (*db_policy_cb)(const struct db_policy *p, void *arg);

/**
 * db_policy_put() - create or replace policy @name with its JSON @body
 * and its source @selectors (KIND:NAME globs), in one transaction. With
 * @is_default it becomes the default policy (the former one is not any
 * more). A new policy goes after the existing ones (machine patterns are
 * tried in that order); a replaced one keeps its place.
 * IMT_ERR_LIMIT past DB_POLICIES_MAX.
 */
int db_policy_put(struct db *db, const char *name, const char *body,
		  int is_default, const char *const *selectors, size_t n,
		  int64_t now, struct imt_error *err);

/** db_policy_list() - every policy, in order. */
int db_policy_list(struct db *db, db_policy_cb cb, void *arg,
		   struct imt_error *err);

/**
 * db_policy_delete() - forget policy @name. The default policy cannot be
 * deleted (IMT_ERR_MISMATCH): make another one the default first.
 * @found: receives 1 when it existed
 */
int db_policy_delete(struct db *db, const char *name, int *found,
		     struct imt_error *err);

#endif /* IMATRUST_DB_POLICY_H */

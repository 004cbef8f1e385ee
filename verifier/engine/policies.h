/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policies.h - the named policies in force, loaded from the database.
 *
 * Judging happens under v->lock, so the set lives there too (a read
 * view, reader.c, has its own, read under its own lock): it is read
 * from the database on first use after policies_invalidate() (a policy,
 * or an import that brings exclusion rules, changed), so every judge
 * under one lock hold sees one consistent set.
 */
#ifndef IMATRUST_POLICIES_H
#define IMATRUST_POLICIES_H

#include "policy.h"
#include "verifier.h"

/**
 * policies_for() - the policy of machine @id: the first policy (in
 * order) whose machine patterns match, else the default. Never NULL:
 * when the database cannot be read the built-in default (every source)
 * stands in, and the error is logged. Call with v->lock held; valid
 * until it is released.
 */
const struct policy *policies_for(struct verifier *v, const char *id);

/**
 * policies_default() - the default policy (the one stored with "default":
 * true, else the built-in one of every source). Never NULL; v->lock held,
 * valid until it is released.
 */
const struct policy *policies_default(struct verifier *v);

/** policies_find() - the policy named @name, or NULL (v->lock held). */
const struct policy *policies_find(struct verifier *v, const char *name);

/**
 * policies_rules_fit() - would every policy that selects @source (a
 * "KIND:NAME") hold at most POLICY_RULES_MAX exclusion rules, were the
 * rules of @source @nnew? v->lock held.
 *
 * Return: 0, or -1 with @err (IMT_ERR_LIMIT naming the policy).
 */
int policies_rules_fit(struct verifier *v, const char *source, size_t nnew,
		       struct imt_error *err);

/** policies_invalidate() - read the policies again before the next use. */
void policies_invalidate(struct verifier *v);

/** policies_free() - at shutdown. */
void policies_free(struct verifier *v);

/* The configuration's or the policy's say (1 allow). */
int policies_violations_allowed(const struct verifier *v,
				const struct policy *p);
int policies_any_path_allowed(const struct verifier *v, const struct policy *p);

#endif /* IMATRUST_POLICIES_H */

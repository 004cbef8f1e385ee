// SPDX-License-Identifier: GPL-2.0-only
/*
 * policies.c - the named policies in force (see policies.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "db_policy.h"
#include "db_source.h"
#include "log.h"
#include "policies.h"

struct policy_set {
	int loaded;
	struct policy **p;
	size_t n;
	struct policy *def; /* the default: one of p[], or builtin */
	struct policy *builtin;
};

static struct policy *builtin_default(void)
{
	static const char body[] = "{\"default\":true,\"sources\":[\"*\"]}";

	return policy_parse("default", body, sizeof(body) - 1, NULL);
}

static void set_clear(struct policy_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		policy_free(s->p[i]);
	free(s->p);
	s->p = NULL;
	s->n = 0;
	s->def = s->builtin;
	s->loaded = 0;
}

static int load_one(const struct db_policy *dp, void *arg)
{
	struct policy_set *s = arg;
	struct policy **np, *p;
	struct imt_error err;

	p = policy_parse(dp->name, dp->body, strlen(dp->body), &err);
	if (p == NULL) {
		log_warnx("policy %s as stored does not parse (%s): "
			  "skipped",
			  dp->name, err.msg);
		return 0;
	}
	p->is_default = dp->is_default;
	np = realloc(s->p, (s->n + 1) * sizeof(*np));
	if (np == NULL) {
		policy_free(p);
		return 1;
	}
	s->p = np;
	s->p[s->n++] = p;
	if (p->is_default)
		s->def = p;
	return 0;
}

static int add_rule(const char *kind, const char *rule, const char *source,
		    void *arg)
{
	struct policy *p = arg;
	enum import_rule_kind k;
	struct imt_error err;

	if (policy_rule_kind_parse(kind, &k) < 0 ||
	    policy_add_rule(p, k, rule, source, &err) < 0)
		log_warnx("policy %s: rule %s:%s of %s skipped", p->name, kind,
			  rule, source);
	return 0;
}

static void load(struct verifier *v, struct policy_set *s)
{
	struct imt_error err;
	size_t i;

	set_clear(s);
	if (db_policy_list(v->db, load_one, s, &err) < 0) {
		log_warnx("reading the policies: %s; using the built-in "
			  "default",
			  err.msg);
		set_clear(s);
		return;
	}
	for (i = 0; i < s->n; i++) {
		if (db_policy_source_rules(v->db, s->p[i]->name, add_rule,
					   s->p[i], &err) < 0)
			log_warnx("reading the rules of policy %s: %s",
				  s->p[i]->name, err.msg);
	}
	s->loaded = 1;
}

static struct policy_set *set_of(struct verifier *v)
{
	struct policy_set *s = v->policies;

	if (s == NULL) {
		s = calloc(1, sizeof(*s));
		if (s == NULL)
			return NULL;
		s->builtin = builtin_default();
		s->def = s->builtin;
		v->policies = s;
	}
	cluster_sync(v);
	if (!s->loaded)
		load(v, s);
	return s;
}

int policies_rules_fit(struct verifier *v, const char *source, size_t nnew,
		       struct imt_error *err)
{
	struct policy_set *s = set_of(v);
	size_t i, j, keep;

	for (i = 0; s != NULL && i < s->n; i++) {
		const struct policy *p = s->p[i];

		if (!policy_selects(p, source))
			continue;
		for (j = keep = 0; j < p->nrules; j++)
			keep += p->rules[j].source == NULL ||
				strcmp(p->rules[j].source, source) != 0;
		if (keep + nnew > POLICY_RULES_MAX)
			return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
					     IMT_NO_POS,
					     "limit POLICY_RULES_MAX "
					     "reached: policy %s would hold %zu "
					     "exclusion rules, at most %d",
					     p->name, keep + nnew,
					     POLICY_RULES_MAX),
			       -1;
	}
	return 0;
}

const struct policy *policies_default(struct verifier *v)
{
	struct policy_set *s = set_of(v);
	static struct policy *last_resort;

	if (s != NULL)
		return s->def;
	if (last_resort == NULL)
		last_resort = builtin_default();
	return last_resort;
}

const struct policy *policies_for(struct verifier *v, const char *id)
{
	struct policy_set *s = set_of(v);
	size_t i;

	for (i = 0; s != NULL && i < s->n; i++) {
		if (policy_applies(s->p[i], id))
			return s->p[i];
	}
	return policies_default(v);
}

const struct policy *policies_find(struct verifier *v, const char *name)
{
	struct policy_set *s = set_of(v);
	size_t i;

	for (i = 0; s != NULL && i < s->n; i++) {
		if (strcmp(s->p[i]->name, name) == 0)
			return s->p[i];
	}
	return NULL;
}

void policies_invalidate(struct verifier *v)
{
	struct policy_set *s = v->policies;

	if (s != NULL)
		s->loaded = 0;
}

void policies_free(struct verifier *v)
{
	struct policy_set *s = v->policies;

	if (s == NULL)
		return;
	set_clear(s);
	policy_free(s->builtin);
	free(s);
	v->policies = NULL;
}

int policies_violations_allowed(const struct verifier *v,
				const struct policy *p)
{
	if (p != NULL && p->violations >= 0)
		return p->violations;
	return strcmp(v->cfg.violations, "allow") == 0;
}

int policies_any_path_allowed(const struct verifier *v, const struct policy *p)
{
	if (p != NULL && p->any_path >= 0)
		return p->any_path;
	return strcmp(v->cfg.any_path, "allow") == 0;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * policy.h - named policies (proto/DESIGN.md §11): which sources and
 * keys a machine's records may be accepted by, which paths are excluded,
 * and how violations, digests known for other paths and changed Debian
 * conffiles count.
 *
 *	{"machines": ["web-*"], "default": false,
 *	 "sources": ["deb:*", "key:*"],
 *	 "excludes": [{"prefix": "/var/lib/apt/"}, {"glob": "/tmp/x*"},
 *		      {"regex": "^/run/.*"}],
 *	 "violations": "allow", "any_path": "deny", "conffiles": "reference",
 *	 "history_incomplete": "refuse"}
 *
 * A policy without "violations" or "any_path" takes the configuration's.
 * "history_incomplete" rules on a boot first seen after its oldest
 * records were deleted from the machine (verifier/engine/history.h): refuse
 * (the default: untrusted) or accept (judged from the first record kept).
 * Machines are matched by id (fnmatch(3) patterns) in policy order; a
 * machine no policy names gets the default policy.
 */
#ifndef IMATRUST_POLICY_H
#define IMATRUST_POLICY_H

#include <regex.h>
#include <stddef.h>

#include <jansson.h>

#include "boot_policy.h"
#include "import.h"

#define POLICY_ITEMS_MAX 256 /* machines, sources, excludes */
/*
 * Exclusion rules of one policy, its own and those of every source it
 * selects: a record is matched against each (KEYLIME_EXCLUDES_MAX per
 * Keylime policy, a few of them).
 */
#define POLICY_RULES_MAX 4096

enum policy_conffiles {
	POLICY_CONFFILES_REFERENCE, /* a changed conffile is a mismatch */
	POLICY_CONFFILES_ANY,	    /* any digest of a conffile is fine */
};

struct policy_rule {
	enum import_rule_kind kind;
	char *text;
	char *source; /* "KIND:NAME" of an imported rule, or NULL */
	regex_t re;   /* IMPORT_RULE_REGEX only */
};

struct policy {
	char *name;
	int is_default;
	char **machines;
	size_t nmachines;
	char **sources; /* KIND:NAME globs */
	size_t nsources;
	struct policy_rule *rules;
	size_t nrules, nrules_own; /* own rules first, then imported */
	int violations; /* -1: the configuration's; 0 deny; 1 allow */
	int any_path;	/* -1, 0, 1 likewise */
	enum policy_conffiles conffiles;
	int history_accept;	 /* "history_incomplete": 0 refuse, 1 accept */
	struct boot_policy boot; /* the "boot" section (boot_policy.h) */
};

/**
 * policy_parse() - check and build policy @name from JSON @buf.
 * @err: on failure names the field ("excludes[2].regex: ...")
 *
 * Return: the policy (policy_free()), or NULL.
 */
struct policy *policy_parse(const char *name, const char *buf, size_t len,
			    struct imt_error *err);

/** policy_to_json() - the policy as stored and served (own rules only). */
json_t *policy_to_json(const struct policy *p);

/**
 * policy_add_rule() - append a rule an import brought (@source names it).
 * Return: 0, or -1 (@err) when the rule is invalid.
 */
int policy_add_rule(struct policy *p, enum import_rule_kind kind,
		    const char *text, const char *source,
		    struct imt_error *err);

/** policy_selects() - does @p trust source or key @source ("KIND:NAME")? */
int policy_selects(const struct policy *p, const char *source);

/** policy_applies() - does @p name machine @id? */
int policy_applies(const struct policy *p, const char *id);

/** policy_excluded() - the first rule of @p that excludes @path, or NULL. */
const struct policy_rule *policy_excluded(const struct policy *p,
					  const char *path);

/** policy_rule_text() - "prefix:/var/lib/apt/" into @out. */
void policy_rule_text(const struct policy_rule *r, char *out, size_t max);

/* "prefix", "glob", "regex"; -1 for another name */
const char *policy_rule_kind_name(enum import_rule_kind kind);
int policy_rule_kind_parse(const char *name, enum import_rule_kind *kind);

void policy_free(struct policy *p);

#endif /* IMATRUST_POLICY_H */

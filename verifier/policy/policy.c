// SPDX-License-Identifier: GPL-2.0-only
/*
 * policy.c - a named policy: parse and check its JSON, match machines,
 * sources and excluded paths.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "import_keylime.h"
#include "policy.h"
#include "policy_choice.h"

static const char *const rule_kinds[] = {
	[IMPORT_RULE_PREFIX] = "prefix",
	[IMPORT_RULE_GLOB] = "glob",
	[IMPORT_RULE_REGEX] = "regex",
};

#define RULE_KINDS (sizeof(rule_kinds) / sizeof(rule_kinds[0]))

const char *policy_rule_kind_name(enum import_rule_kind kind)
{
	return (size_t)kind < RULE_KINDS ? rule_kinds[kind] : NULL;
}

int policy_rule_kind_parse(const char *name, enum import_rule_kind *kind)
{
	size_t i;

	for (i = 0; name != NULL && i < RULE_KINDS; i++) {
		if (strcmp(name, rule_kinds[i]) == 0) {
			*kind = (enum import_rule_kind)i;
			return 0;
		}
	}
	return -1;
}

static int bad(struct imt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bad(struct imt_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->status = IMT_ERR_MALFORMED;
		err->record = IMT_NO_POS;
		err->offset = IMT_NO_POS;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* A list of non-empty strings of at most @max bytes. */
static int string_list(json_t *doc, const char *key, size_t max, char ***out,
		       size_t *n, struct imt_error *err)
{
	json_t *arr = json_object_get(doc, key), *it;
	size_t i;

	*out = NULL;
	*n = 0;
	if (arr == NULL)
		return 0;
	if (!json_is_array(arr))
		return bad(err, "%s: not a list of strings", key);
	if (json_array_size(arr) > POLICY_ITEMS_MAX)
		return bad(err, "%s: more than %d entries", key,
			   POLICY_ITEMS_MAX);
	*out = calloc(json_array_size(arr) + 1, sizeof(char *));
	if (*out == NULL)
		return bad(err, "out of memory");
	json_array_foreach(arr, i, it) {
		const char *s = json_string_value(it);

		if (s == NULL || s[0] == '\0' || strlen(s) > max)
			return bad(err,
				   "%s[%zu]: not a string of 1 to %zu "
				   "bytes",
				   key, i, max);
		(*out)[i] = strdup(s);
		if ((*out)[i] == NULL)
			return bad(err, "out of memory");
		*n = i + 1;
	}
	return 0;
}

static int rule_init(struct policy_rule *r, enum import_rule_kind kind,
		     const char *text, const char *source,
		     struct imt_error *err)
{
	char msg[128];
	int rc;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	if (text == NULL || text[0] == '\0' || strlen(text) > DB_PATH_MAX)
		return bad(err, "empty or too long");
	if (kind == IMPORT_RULE_REGEX) {
		/* bounded before regcomp: 'x+++...' takes it gigabytes */
		if (keylime_regex_check(text, "regex", err) < 0)
			return -1;
		rc = regcomp(&r->re, text, REG_EXTENDED);
		if (rc != 0) {
			regerror(rc, &r->re, msg, sizeof(msg));
			return bad(err, "not a POSIX extended regex: %s", msg);
		}
	}
	r->text = strdup(text);
	r->source = source != NULL ? strdup(source) : NULL;
	if (r->text == NULL || (source != NULL && r->source == NULL)) {
		if (kind == IMPORT_RULE_REGEX)
			regfree(&r->re);
		free(r->text);
		free(r->source);
		return bad(err, "out of memory");
	}
	return 0;
}

static void rule_free(struct policy_rule *r)
{
	if (r->kind == IMPORT_RULE_REGEX)
		regfree(&r->re);
	free(r->text);
	free(r->source);
}

int policy_add_rule(struct policy *p, enum import_rule_kind kind,
		    const char *text, const char *source, struct imt_error *err)
{
	struct policy_rule *nr;

	if (p->nrules >= POLICY_RULES_MAX)
		return bad(err,
			   "limit POLICY_RULES_MAX reached: more than %d "
			   "exclusion rules",
			   POLICY_RULES_MAX);
	nr = realloc(p->rules, (p->nrules + 1) * sizeof(*nr));
	if (nr == NULL)
		return bad(err, "out of memory");
	p->rules = nr;
	if (rule_init(&p->rules[p->nrules], kind, text, source, err) < 0)
		return -1;
	p->nrules++;
	return 0;
}

/* Each entry one object with exactly one of prefix, glob, regex. */
static int parse_excludes(json_t *doc, struct policy *p, struct imt_error *err)
{
	json_t *arr = json_object_get(doc, "excludes"), *it;
	enum import_rule_kind kind;
	const char *key;
	json_t *val;
	size_t i;

	if (arr == NULL)
		return 0;
	if (!json_is_array(arr) || json_array_size(arr) > POLICY_ITEMS_MAX)
		return bad(err, "excludes: not a list of at most %d rules",
			   POLICY_ITEMS_MAX);
	json_array_foreach(arr, i, it) {
		if (!json_is_object(it) || json_object_size(it) != 1)
			return bad(err,
				   "excludes[%zu]: not one of "
				   "{\"prefix\"|\"glob\"|\"regex\": TEXT}",
				   i);
		json_object_foreach(it, key, val) {
			if (policy_rule_kind_parse(key, &kind) < 0 ||
			    !json_is_string(val))
				return bad(err,
					   "excludes[%zu]: not one of "
					   "{\"prefix\"|\"glob\"|\"regex\": "
					   "TEXT}",
					   i);
			if (policy_add_rule(p, kind, json_string_value(val),
					    NULL, err) < 0) {
				char m[IMT_ERROR_MSG_MAX];

				snprintf(m, sizeof(m), "%s", err->msg);
				return bad(err, "excludes[%zu].%s: %s", i, key,
					   m);
			}
		}
	}
	p->nrules_own = p->nrules;
	return 0;
}

static const char *const known_keys[] = {
	"machines",   "default",  "sources",   "excludes",
	"violations", "any_path", "conffiles", "history_incomplete",
	"boot",	      NULL,
};

static int check_keys(json_t *doc, struct imt_error *err)
{
	const char *key;
	json_t *val;
	size_t i;

	json_object_foreach(doc, key, val) {
		for (i = 0; known_keys[i] != NULL; i++) {
			if (strcmp(known_keys[i], key) == 0)
				break;
		}
		if (known_keys[i] == NULL)
			return bad(err,
				   "%s: not a policy field (known: "
				   "machines, default, sources, excludes, "
				   "violations, any_path, conffiles, "
				   "history_incomplete, boot)",
				   key);
	}
	return 0;
}

static int parse_doc(json_t *doc, struct policy *p, struct imt_error *err)
{
	json_t *def = json_object_get(doc, "default");
	int conff, hist;

	if (!json_is_object(doc))
		return bad(err, "a policy is a JSON object");
	if (check_keys(doc, err) < 0)
		return -1;
	if (def != NULL && !json_is_boolean(def))
		return bad(err, "default: not true or false");
	p->is_default = json_is_true(def);
	if (string_list(doc, "machines", DB_NAME_MAX, &p->machines,
			&p->nmachines, err) < 0 ||
	    string_list(doc, "sources", DB_NAME_MAX + 32, &p->sources,
			&p->nsources, err) < 0 ||
	    parse_excludes(doc, p, err) < 0 ||
	    policy_choice(doc, NULL, "violations", "untrusted", "allow",
			  &p->violations, err) < 0 ||
	    policy_choice(doc, NULL, "any_path", "deny", "allow", &p->any_path,
			  err) < 0 ||
	    policy_choice(doc, NULL, "conffiles", "reference", "any", &conff,
			  err) < 0 ||
	    policy_choice(doc, NULL, "history_incomplete", "refuse", "accept",
			  &hist, err) < 0 ||
	    boot_policy_parse(json_object_get(doc, "boot"), &p->boot, err) < 0)
		return -1;
	p->conffiles = conff == 1 ? POLICY_CONFFILES_ANY :
				    POLICY_CONFFILES_REFERENCE;
	p->history_accept = hist == 1;
	return 0;
}

struct policy *policy_parse(const char *name, const char *buf, size_t len,
			    struct imt_error *err)
{
	struct policy *p = calloc(1, sizeof(*p));
	json_error_t jerr;
	json_t *doc;

	if (p == NULL) {
		bad(err, "out of memory");
		return NULL;
	}
	if (name == NULL || name[0] == '\0' || strlen(name) > DB_NAME_MAX ||
	    strchr(name, '/') != NULL) {
		bad(err, "a policy name is 1 to %d bytes without '/'",
		    DB_NAME_MAX);
		free(p);
		return NULL;
	}
	p->name = strdup(name);
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL)
		bad(err, "not JSON: %s (line %d)", jerr.text, jerr.line);
	if (p->name == NULL || doc == NULL || parse_doc(doc, p, err) < 0) {
		json_decref(doc);
		policy_free(p);
		return NULL;
	}
	json_decref(doc);
	return p;
}

static json_t *strings(char **s, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; arr != NULL && i < n; i++)
		json_array_append_new(arr, json_string(s[i]));
	return arr;
}

json_t *policy_to_json(const struct policy *p)
{
	static const char *const tri[2][2] = {
		{ "untrusted", "allow" },
		{ "deny", "allow" },
	};
	json_t *j = json_object(), *ex = json_array();
	size_t i;

	if (j == NULL || ex == NULL) {
		json_decref(j);
		json_decref(ex);
		return NULL;
	}
	json_object_set_new(j, "machines", strings(p->machines, p->nmachines));
	json_object_set_new(j, "default", json_boolean(p->is_default));
	json_object_set_new(j, "sources", strings(p->sources, p->nsources));
	for (i = 0; i < p->nrules_own; i++)
		json_array_append_new(ex, json_pack("{s:s}",
						    policy_rule_kind_name(
							    p->rules[i].kind),
						    p->rules[i].text));
	json_object_set_new(j, "excludes", ex);
	if (p->violations >= 0)
		json_object_set_new(j, "violations",
				    json_string(tri[0][p->violations]));
	if (p->any_path >= 0)
		json_object_set_new(j, "any_path",
				    json_string(tri[1][p->any_path]));
	json_object_set_new(j, "conffiles",
			    json_string(p->conffiles == POLICY_CONFFILES_ANY ?
						"any" :
						"reference"));
	json_object_set_new(j, "history_incomplete",
			    json_string(p->history_accept ? "accept" :
							    "refuse"));
	if (p->boot.present)
		json_object_set_new(j, "boot", boot_policy_to_json(&p->boot));
	return j;
}

int policy_selects(const struct policy *p, const char *source)
{
	size_t i;

	for (i = 0; p != NULL && source != NULL && i < p->nsources; i++) {
		if (fnmatch(p->sources[i], source, 0) == 0)
			return 1;
	}
	return 0;
}

int policy_applies(const struct policy *p, const char *id)
{
	size_t i;

	for (i = 0; p != NULL && id != NULL && i < p->nmachines; i++) {
		if (fnmatch(p->machines[i], id, 0) == 0)
			return 1;
	}
	return 0;
}

static int rule_matches(const struct policy_rule *r, const char *path)
{
	switch (r->kind) {
	case IMPORT_RULE_PREFIX:
		return strncmp(path, r->text, strlen(r->text)) == 0;
	case IMPORT_RULE_GLOB:
		return fnmatch(r->text, path, 0) == 0;
	case IMPORT_RULE_REGEX: {
		regmatch_t m;

		/* anchored at the start, as Keylime's re.match() */
		return regexec(&r->re, path, 1, &m, 0) == 0 && m.rm_so == 0;
	}
	}
	return 0;
}

const struct policy_rule *policy_excluded(const struct policy *p,
					  const char *path)
{
	size_t i;

	for (i = 0; p != NULL && path != NULL && i < p->nrules; i++) {
		if (rule_matches(&p->rules[i], path))
			return &p->rules[i];
	}
	return NULL;
}

void policy_rule_text(const struct policy_rule *r, char *out, size_t max)
{
	snprintf(out, max, "%s:%s", policy_rule_kind_name(r->kind), r->text);
}

static void free_strings(char **s, size_t n)
{
	size_t i;

	for (i = 0; s != NULL && i < n; i++)
		free(s[i]);
	free(s);
}

void policy_free(struct policy *p)
{
	size_t i;

	if (p == NULL)
		return;
	free(p->name);
	free_strings(p->machines, p->nmachines);
	free_strings(p->sources, p->nsources);
	for (i = 0; i < p->nrules; i++)
		rule_free(&p->rules[i]);
	free(p->rules);
	boot_policy_free(&p->boot);
	free(p);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * keylime_export.c - write references, rules and keys as a Keylime
 * runtime policy (keylime_policy_export(), declared in import_keylime.h).
 *
 * What it writes passes import_keylime() and Keylime's schema; rules are
 * translated to regexes that mean the same to Python's re.match() and to
 * regcomp(REG_EXTENDED) (keylime_regex_check()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "b64.h"
#include "hash_algo.h"
#include "hex.h"
#include "import_keylime.h"
#include "keylime_key.h"

#define WHAT_MAX 64

static const char *const export_algos[] = {
	"sha1",
	"sha256",
	"sha384",
	"sha512",
};

static int fail(struct imt_error *err, enum imt_result status, const char *what,
		const char *why)
{
	imt_error_set(err, status, IMT_NO_POS, IMT_NO_POS, "%s: %s", what, why);
	return -1;
}

/* ---- references ---- */

static int algo_ok(const struct import_ref *ref)
{
	size_t i;

	for (i = 0; i < sizeof(export_algos) / sizeof(export_algos[0]); i++)
		if (ref->algo != NULL &&
		    strcmp(ref->algo, export_algos[i]) == 0)
			return hash_algo_bank(ref->algo)->size ==
			       ref->digest_len;
	return 0;
}

/* Kernel keyrings are named ".ima", "_ima", ".builtin_trusted_keys". */
static int is_keyring(const char *name)
{
	return name[0] == '.' || name[0] == '_';
}

/* Append @hex to the list of @name in @section, unless already there. */
static int add_digest(json_t *section, const char *name, const char *hex)
{
	json_t *list = json_object_get(section, name);
	json_t *item;
	size_t i;

	if (list == NULL) {
		list = json_array();
		if (json_object_set_new(section, name, list) < 0)
			return -1;
	}
	json_array_foreach(list, i, item)
		if (strcmp(json_string_value(item), hex) == 0)
			return 0;
	return json_array_append_new(list, json_string(hex));
}

static int export_ref(json_t *doc, const struct import_ref *ref, size_t i,
		      struct imt_error *err)
{
	char hex[2 * HASH_ALGO_MAX_SIZE + 1];
	char what[WHAT_MAX];
	const char *section;

	snprintf(what, sizeof(what), "refs[%zu]", i);
	if (ref->path == NULL || ref->path[0] == '\0')
		return fail(err, IMT_ERR_MALFORMED, what, "no path or name");
	if (ref->kind == IMPORT_REF_FILE && ref->path[0] != '/')
		return fail(err, IMT_ERR_MALFORMED, what,
			    "not an absolute path");
	if (!algo_ok(ref))
		return fail(err, IMT_ERR_UNSUPPORTED, what,
			    "Keylime takes sha1, sha256, sha384 and sha512 digests of their size only");
	if (ref->kind == IMPORT_REF_FILE)
		section = "digests";
	else
		section = is_keyring(ref->path) ? "keyrings" : "ima-buf";
	hex_encode(ref->digest, ref->digest_len, hex);
	if (add_digest(json_object_get(doc, section), ref->path, hex) < 0)
		return fail(err, IMT_ERR_MALFORMED, what,
			    "the path is not UTF-8 (JSON cannot hold it)");
	return 0;
}

/* ---- rules ---- */

static const char re_special[] = ".^$|()[]{}*+?\\";

static void put_literal(char **o, char ch)
{
	if (strchr(re_special, ch) != NULL)
		*(*o)++ = '\\';
	*(*o)++ = ch;
}

/* The class at @g[*i] == '[' as fnmatch(3) reads it; 1 if there is none
 * (the '[' is then literal), -1 if it holds what Python reads otherwise. */
static int put_class(const char *g, size_t *i, char **o)
{
	size_t j = *i + 1, end;

	if (g[j] == '!' || g[j] == '^')
		j++;
	if (g[j] == ']')
		j++;
	while (g[j] != '\0' && g[j] != ']')
		j++;
	if (g[j] == '\0')
		return 1;
	end = j;
	j = *i + 1;
	*(*o)++ = '[';
	if (g[j] == '!' || g[j] == '^') {
		*(*o)++ = '^';
		j++;
	}
	for (; j < end; j++) {
		if (g[j] == '\\' || g[j] == '[')
			return -1;
		*(*o)++ = g[j];
	}
	*(*o)++ = ']';
	*i = end;
	return 0;
}

/* fnmatch(3) without flags as an anchored regex; @o holds 2*len + 4. */
static int glob_to_regex(const char *g, char *o)
{
	size_t i;
	int rc;

	*o++ = '^';
	for (i = 0; g[i] != '\0'; i++) {
		if (g[i] == '*') {
			*o++ = '.';
			*o++ = '*';
		} else if (g[i] == '?') {
			*o++ = '.';
		} else if (g[i] == '\\' && g[i + 1] != '\0') {
			put_literal(&o, g[++i]);
		} else if (g[i] == '[') {
			rc = put_class(g, &i, &o);
			if (rc < 0)
				return -1;
			if (rc > 0)
				put_literal(&o, '[');
		} else {
			put_literal(&o, g[i]);
		}
	}
	*o++ = '$';
	*o = '\0';
	return 0;
}

static void prefix_to_regex(const char *p, char *o)
{
	*o++ = '^';
	for (; *p != '\0'; p++)
		put_literal(&o, *p);
	strcpy(o, ".*");
}

static int export_rule(json_t *excludes, const struct keylime_rule *r, size_t i,
		       struct imt_error *err)
{
	char what[WHAT_MAX];
	char *re;
	int rc = -1;

	snprintf(what, sizeof(what), "rules[%zu]", i);
	if (r->rule == NULL)
		return fail(err, IMT_ERR_MALFORMED, what, "no rule");
	re = malloc(2 * strlen(r->rule) + 4);
	if (re == NULL)
		return fail(err, IMT_ERR_INTERNAL, what, "out of memory");
	if (r->kind == IMPORT_RULE_PREFIX) {
		prefix_to_regex(r->rule, re);
	} else if (r->kind == IMPORT_RULE_GLOB) {
		if (glob_to_regex(r->rule, re) < 0) {
			fail(err, IMT_ERR_UNSUPPORTED, what,
			     "a glob class [...] holding '\\' or '[' has no Keylime equivalent");
			goto out;
		}
	} else {
		strcpy(re, r->rule);
	}
	if (keylime_regex_check(re, what, err) < 0)
		goto out;
	if (json_array_append_new(excludes, json_string(re)) < 0) {
		fail(err, IMT_ERR_MALFORMED, what, "not UTF-8");
		goto out;
	}
	rc = 0;
out:
	free(re);
	return rc;
}

/* ---- keys ---- */

static int export_key(json_t *ring, const struct keylime_key *k, size_t i,
		      struct imt_error *err)
{
	char what[WHAT_MAX];
	uint8_t *spki;
	size_t len;
	uint32_t keyid;
	char *b64;

	snprintf(what, sizeof(what), "keys[%zu]", i);
	if (keylime_key_spki(k->der, k->len, &spki, &len, &keyid, what, err) <
	    0)
		return -1;
	b64 = malloc(B64_ENCODED_LEN(len) + 1);
	if (b64 == NULL) {
		free(spki);
		return fail(err, IMT_ERR_INTERNAL, what, "out of memory");
	}
	b64_encode(spki, len, b64);
	json_array_append_new(json_object_get(ring, "pubkeys"),
			      json_string(b64));
	json_array_append_new(json_object_get(ring, "keyids"),
			      json_integer(keyid));
	free(b64);
	free(spki);
	return 0;
}

/* "verification-keys": "" without keys, else one keyring's JSON. */
static int export_keys(json_t *doc, const struct keylime_export *in,
		       struct imt_error *err)
{
	json_t *ring;
	char *s;
	size_t i;

	if (in->nkeys == 0)
		return json_object_set_new(doc, "verification-keys",
					   json_string(""));
	ring = json_pack("{s:[],s:[]}", "pubkeys", "keyids");
	if (ring == NULL)
		return fail(err, IMT_ERR_INTERNAL, "keys", "out of memory");
	for (i = 0; i < in->nkeys; i++) {
		if (export_key(ring, &in->keys[i], i, err) < 0) {
			json_decref(ring);
			return -1;
		}
	}
	s = json_dumps(ring, JSON_COMPACT);
	json_decref(ring);
	if (s == NULL)
		return fail(err, IMT_ERR_INTERNAL, "keys", "out of memory");
	json_object_set_new(doc, "verification-keys", json_string(s));
	free(s);
	return 0;
}

/* ---- the policy ---- */

static json_t *skeleton(const struct keylime_export *in)
{
	const char *alg = in->log_hash_alg != NULL ? in->log_hash_alg : "sha1";
	json_t *meta = json_pack("{s:i,s:i}", "version", KEYLIME_POLICY_VERSION,
				 "generator", KEYLIME_GENERATOR_LEGACY);

	if (meta != NULL && in->timestamp != NULL)
		json_object_set_new(meta, "timestamp",
				    json_string(in->timestamp));
	return json_pack("{s:o,s:i,s:{},s:[],s:{},s:{s:[],s:s,s:n},s:{}}",
			 "meta", meta, "release", 0, "digests", "excludes",
			 "keyrings", "ima", "ignored_keyrings", "log_hash_alg",
			 alg, "dm_policy", "ima-buf");
}

static int log_hash_alg_ok(const char *alg)
{
	size_t i;

	for (i = 0; i < sizeof(export_algos) / sizeof(export_algos[0]); i++)
		if (alg == NULL || strcmp(alg, export_algos[i]) == 0)
			return 1;
	return 0;
}

char *keylime_policy_export(const struct keylime_export *in,
			    struct imt_error *err)
{
	json_t *doc;
	char *out = NULL;
	size_t i;

	if (!log_hash_alg_ok(in->log_hash_alg)) {
		fail(err, IMT_ERR_UNSUPPORTED, "log_hash_alg",
		     "not sha1, sha256, sha384 or sha512");
		return NULL;
	}
	doc = skeleton(in);
	if (doc == NULL) {
		fail(err, IMT_ERR_INTERNAL, "policy", "out of memory");
		return NULL;
	}
	for (i = 0; i < in->nrefs; i++)
		if (export_ref(doc, &in->refs[i], i, err) < 0)
			goto out;
	for (i = 0; i < in->nrules; i++)
		if (export_rule(json_object_get(doc, "excludes"), &in->rules[i],
				i, err) < 0)
			goto out;
	if (export_keys(doc, in, err) < 0)
		goto out;
	out = json_dumps(doc, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	if (out == NULL)
		fail(err, IMT_ERR_INTERNAL, "policy", "out of memory");
out:
	json_decref(doc);
	return out;
}

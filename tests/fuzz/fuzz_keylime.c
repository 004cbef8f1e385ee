// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_keylime.c - libFuzzer target: Keylime runtime policies.
 *
 * The input is a policy. What imports is exported and imported again,
 * and must come back the same: every file digest in order (repeats of a
 * path's digest dropped, as the export writes each once), every buffer
 * digest, every exclude; an export of an accepted policy never fails.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_keylime.h"

#define MAX_ITEMS 1024

struct item {
	enum import_ref_kind kind;
	char *path;
	const char *algo; /* static: the hash table's name */
	uint8_t digest[64];
	size_t digest_len;
};

struct got {
	size_t nrefs, nrules, nkeys;
	struct item refs[MAX_ITEMS];
	char *rules[MAX_ITEMS];
	enum import_rule_kind rule_kind[MAX_ITEMS];
	uint8_t *keys[MAX_ITEMS];
	size_t key_len[MAX_ITEMS];
};

static int same(const struct item *a, const struct item *b)
{
	return a->kind == b->kind && strcmp(a->path, b->path) == 0 &&
	       a->digest_len == b->digest_len &&
	       memcmp(a->digest, b->digest, a->digest_len) == 0;
}

static int on_ref(void *arg, const struct import_ref *ref,
		  struct imt_error *err)
{
	struct got *g = arg;
	struct item *it;
	size_t i;

	(void)err;
	if (g->nrefs == MAX_ITEMS)
		return 0; /* 4 KiB inputs hold fewer */
	it = &g->refs[g->nrefs];
	it->kind = ref->kind;
	it->path = strdup(ref->path);
	it->algo = ref->algo;
	memcpy(it->digest, ref->digest, ref->digest_len);
	it->digest_len = ref->digest_len;
	for (i = 0; i < g->nrefs; i++)
		if (same(&g->refs[i], it))
			break;
	if (i < g->nrefs)
		free(it->path); /* a repeat: the export drops it too */
	else
		g->nrefs++;
	return 0;
}

static int on_exclude(void *arg, enum import_rule_kind kind, const char *rule,
		      struct imt_error *err)
{
	struct got *g = arg;

	(void)err;
	/* a Keylime exclude is a regex, or a literal prefix taken as one */
	if (kind != IMPORT_RULE_REGEX && kind != IMPORT_RULE_PREFIX)
		abort();
	if (g->nrules < MAX_ITEMS) {
		g->rule_kind[g->nrules] = kind;
		g->rules[g->nrules++] = strdup(rule);
	}
	return 0;
}

static int on_key(void *arg, const uint8_t *der, size_t len,
		  struct imt_error *err)
{
	struct got *g = arg;

	(void)err;
	if (g->nkeys < MAX_ITEMS) {
		g->keys[g->nkeys] = malloc(len);
		memcpy(g->keys[g->nkeys], der, len);
		g->key_len[g->nkeys++] = len;
	}
	return 0;
}

static void got_free(struct got *g)
{
	size_t i;

	for (i = 0; i < g->nrefs; i++)
		free(g->refs[i].path);
	for (i = 0; i < g->nrules; i++)
		free(g->rules[i]);
	for (i = 0; i < g->nkeys; i++)
		free(g->keys[i]);
	free(g);
}

static int import(const uint8_t *buf, size_t len, struct got *g)
{
	struct import_sink sink = { on_ref, on_exclude, on_key, g };
	struct imt_error err;

	return import_keylime(buf, len, &sink, NULL, &err);
}

static char *export(const struct got *g)
{
	static struct import_ref refs[MAX_ITEMS];
	static struct keylime_rule rules[MAX_ITEMS];
	static struct keylime_key keys[MAX_ITEMS];
	struct keylime_export in = { refs, g->nrefs, rules, g->nrules,
				     keys, g->nkeys, NULL,  NULL };
	struct imt_error err;
	size_t i;

	for (i = 0; i < g->nrefs; i++)
		refs[i] = (struct import_ref){
			g->refs[i].kind,       g->refs[i].path,
			g->refs[i].algo,       g->refs[i].digest,
			g->refs[i].digest_len, 0
		};
	for (i = 0; i < g->nrules; i++)
		rules[i] =
			(struct keylime_rule){ g->rule_kind[i], g->rules[i] };
	for (i = 0; i < g->nkeys; i++)
		keys[i] = (struct keylime_key){ g->keys[i], g->key_len[i] };
	return keylime_policy_export(&in, &err);
}

/* Files in order; buffers as a set (the export sorts them by name kind). */
static void compare(const struct got *a, const struct got *b)
{
	size_t i, j, fa = 0, fb = 0;

	if (a->nrefs != b->nrefs || a->nrules != b->nrules ||
	    a->nkeys != b->nkeys)
		abort();
	for (i = 0; i < a->nrefs; i++) {
		if (a->refs[i].kind != IMPORT_REF_FILE)
			continue;
		while (b->refs[fb].kind != IMPORT_REF_FILE)
			fb++;
		if (!same(&a->refs[i], &b->refs[fb++]))
			abort();
		fa++;
	}
	for (i = 0; i < a->nrefs; i++) {
		if (a->refs[i].kind == IMPORT_REF_FILE)
			continue;
		for (j = 0; j < b->nrefs && !same(&a->refs[i], &b->refs[j]);
		     j++)
			;
		if (j == b->nrefs)
			abort();
	}
	for (i = 0; i < a->nrules; i++)
		if (a->rule_kind[i] != b->rule_kind[i] ||
		    strcmp(a->rules[i], b->rules[i]) != 0)
			abort();
	(void)fa;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct got *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char *s;

	if (import(data, size, a) == 0) {
		s = export(a);
		if (s == NULL)
			abort(); /* accepted, so it must export */
		if (import((const uint8_t *)s, strlen(s), b) != 0)
			abort(); /* the export must import */
		compare(a, b);
		free(s);
	}
	got_free(a);
	got_free(b);
	return 0;
}

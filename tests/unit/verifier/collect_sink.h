/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * collect_sink.h - an import sink that keeps copies of what it is given,
 * for the importers' tests.
 */
#ifndef IMATRUST_TEST_COLLECT_SINK_H
#define IMATRUST_TEST_COLLECT_SINK_H

#include <stdlib.h>
#include <string.h>

#include "import.h"

#define COLLECT_MAX 256

struct collected_ref {
	enum import_ref_kind kind;
	char path[4097];
	char algo[16];
	uint8_t digest[64];
	size_t digest_len;
};

struct collected_rule {
	enum import_rule_kind kind;
	char rule[512];
};

struct collected_key {
	uint8_t der[4096];
	size_t len;
};

struct collect {
	size_t nrefs, nrules, nkeys;
	struct collected_ref refs[COLLECT_MAX];
	struct collected_rule rules[COLLECT_MAX];
	struct collected_key keys[16];
	size_t fail_at; /* refuse the nth ref (1-based); 0: never */
};

static inline int collect_ref(void *arg, const struct import_ref *ref,
			      struct imt_error *err)
{
	struct collect *c = arg;
	struct collected_ref *r;

	if (c->nrefs >= COLLECT_MAX)
		abort();
	if (c->fail_at != 0 && c->nrefs + 1 == c->fail_at) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "sink full");
		return -1;
	}
	r = &c->refs[c->nrefs++];
	r->kind = ref->kind;
	snprintf(r->path, sizeof(r->path), "%s", ref->path);
	snprintf(r->algo, sizeof(r->algo), "%s", ref->algo);
	memcpy(r->digest, ref->digest, ref->digest_len);
	r->digest_len = ref->digest_len;
	return 0;
}

static inline int collect_exclude(void *arg, enum import_rule_kind kind,
				  const char *rule, struct imt_error *err)
{
	struct collect *c = arg;

	(void)err;
	if (c->nrules >= COLLECT_MAX)
		abort();
	c->rules[c->nrules].kind = kind;
	snprintf(c->rules[c->nrules].rule, sizeof(c->rules[0].rule), "%s",
		 rule);
	c->nrules++;
	return 0;
}

static inline int collect_key(void *arg, const uint8_t *der, size_t len,
			      struct imt_error *err)
{
	struct collect *c = arg;

	(void)err;
	if (c->nkeys >= 16 || len > sizeof(c->keys[0].der))
		abort();
	memcpy(c->keys[c->nkeys].der, der, len);
	c->keys[c->nkeys].len = len;
	c->nkeys++;
	return 0;
}

static inline struct import_sink collect_sink(struct collect *c)
{
	return (struct import_sink){ collect_ref, collect_exclude, collect_key,
				     c };
}

#endif /* IMATRUST_TEST_COLLECT_SINK_H */

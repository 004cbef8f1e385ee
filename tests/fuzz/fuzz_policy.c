// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_policy.c - libFuzzer target: named policies (PUT /v1/policies).
 *
 * The input is a policy document. What parses is serialized and parsed
 * again and must come back the same (machines, sources, rules, choices),
 * and matching a few paths and ids never fails; a regex that would make
 * regcomp() blow up must be refused before it gets there.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

static int same_strings(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++) {
		if (strcmp(a[i], b[i]) != 0)
			return 0;
	}
	return 1;
}

static int same(const struct policy *a, const struct policy *b)
{
	size_t i;

	if (a->is_default != b->is_default || a->violations != b->violations ||
	    a->any_path != b->any_path || a->conffiles != b->conffiles ||
	    a->nrules != b->nrules ||
	    !same_strings(a->machines, a->nmachines, b->machines,
			  b->nmachines) ||
	    !same_strings(a->sources, a->nsources, b->sources, b->nsources))
		return 0;
	for (i = 0; i < a->nrules; i++) {
		if (a->rules[i].kind != b->rules[i].kind ||
		    strcmp(a->rules[i].text, b->rules[i].text) != 0)
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"/usr/bin/ls", "/var/lib/apt/lists/x", "/tmp/a", "", "/",
	};
	struct imt_error err;
	struct policy *p, *q;
	char *text;
	json_t *j;
	size_t i;

	p = policy_parse("fuzz", (const char *)data, size, &err);
	if (p == NULL)
		return 0;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		(void)policy_excluded(p, paths[i]);
		(void)policy_applies(p, paths[i]);
		(void)policy_selects(p, paths[i]);
	}
	j = policy_to_json(p);
	text = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
	if (text == NULL)
		abort();
	q = policy_parse("fuzz", text, strlen(text), &err);
	if (q == NULL || !same(p, q))
		abort(); /* what the verifier stores must read back */
	policy_free(q);
	free(text);
	json_decref(j);
	policy_free(p);
	return 0;
}

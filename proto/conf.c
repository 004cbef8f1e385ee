// SPDX-License-Identifier: GPL-2.0-only
/*
 * conf.c - "key = value" configuration text against a key table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define CONF_WHY_MAX 160 /* one error reason, before "name:line: " */

/* Is @v (@n bytes) one of the '|'-separated words of @choices? */
static int conf_is_choice(const char *choices, const char *v, size_t n)
{
	const char *p = choices;

	for (;;) {
		const char *bar = strchr(p, '|');
		size_t wlen = bar != NULL ? (size_t)(bar - p) : strlen(p);

		if (wlen == n && memcmp(p, v, n) == 0)
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

static int conf_set_string(const struct conf_key *k, void *obj, const char *v,
			   size_t n, char *why, size_t whylen)
{
	char *dst = (char *)obj + k->off;

	if (n >= k->size) {
		snprintf(why, whylen, "value longer than %zu bytes",
			 k->size - 1);
		return -1;
	}
	if (memchr(v, '\0', n) != NULL) {
		snprintf(why, whylen, "NUL byte in the value");
		return -1;
	}
	if (k->choices != NULL && !conf_is_choice(k->choices, v, n)) {
		snprintf(why, whylen, "'%.*s' is not one of %s", (int)n, v,
			 k->choices);
		return -1;
	}
	memcpy(dst, v, n);
	dst[n] = '\0';
	return 0;
}

/* A repeatable key: each value is appended as one line. */
static int conf_add_line(const struct conf_key *k, void *obj, const char *v,
			 size_t n, char *why, size_t whylen)
{
	char *dst = (char *)obj + k->off;
	size_t have = strnlen(dst, k->size);

	if (n == 0 || memchr(v, '\0', n) != NULL) {
		snprintf(why, whylen, "empty value or NUL byte");
		return -1;
	}
	if (have + n + 2 > k->size) {
		snprintf(why, whylen, "'%s' lines longer than %zu bytes",
			 k->name, k->size - 1);
		return -1;
	}
	memcpy(dst + have, v, n);
	dst[have + n] = '\n';
	dst[have + n + 1] = '\0';
	return 0;
}

static int conf_set_uint(const struct conf_key *k, void *obj, const char *v,
			 size_t n, char *why, size_t whylen)
{
	char num[24], *end;
	uint64_t u;

	/* strtoull() would accept "-1", " 1" and "0x1": digits only */
	if (n == 0 || n >= sizeof(num) || v[0] < '0' || v[0] > '9') {
		snprintf(why, whylen, "'%.*s' is not a number", (int)n, v);
		return -1;
	}
	memcpy(num, v, n);
	num[n] = '\0';
	errno = 0;
	u = strtoull(num, &end, 10);
	if (errno != 0 || *end != '\0' || u < k->min || u > k->max) {
		snprintf(why, whylen, "'%s' is not a number from %llu to %llu",
			 num, (unsigned long long)k->min,
			 (unsigned long long)k->max);
		return -1;
	}
	memcpy((char *)obj + k->off, &u, sizeof(u));
	return 0;
}

static int conf_set(const struct conf_key *k, void *obj, const char *v,
		    size_t n, char *why, size_t whylen)
{
	if (k->type == CONF_STRING)
		return conf_set_string(k, obj, v, n, why, whylen);
	if (k->type == CONF_LINES)
		return conf_add_line(k, obj, v, n, why, whylen);
	return conf_set_uint(k, obj, v, n, why, whylen);
}

enum imt_result conf_defaults(const struct conf_key *keys, size_t nkeys,
			      void *obj, size_t size, struct imt_error *err)
{
	char why[CONF_WHY_MAX];
	size_t i;

	memset(obj, 0, size);
	for (i = 0; i < nkeys; i++) {
		if (keys[i].def[0] == '\0')
			continue;
		if (conf_set(&keys[i], obj, keys[i].def, strlen(keys[i].def),
			     why, sizeof(why)) < 0)
			return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
					     IMT_NO_POS, "default of '%s': %s",
					     keys[i].name, why);
	}
	return IMT_OK;
}

/* Drop spaces and tabs around [s, end), and a '\r' before the newline. */
static const char *conf_trim(const char *s, const char *end, const char **tail)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s &&
	       (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	*tail = end;
	return s;
}

static const struct conf_key *
conf_find(const struct conf_key *keys, size_t nkeys, const char *k, size_t klen)
{
	size_t i;

	for (i = 0; i < nkeys; i++) {
		if (strlen(keys[i].name) == klen &&
		    memcmp(keys[i].name, k, klen) == 0)
			return &keys[i];
	}
	return NULL;
}

/*
 * One non-blank line without its comment: "key = value".
 * @seen: bitmap of the keys set so far, updated.
 */
static int conf_line(const struct conf_key *keys, size_t nkeys, void *obj,
		     const char *line, const char *end, uint64_t *seen,
		     char *why, size_t whylen)
{
	const struct conf_key *k;
	const char *key, *kend, *v, *vend, *eq;
	uint64_t bit;

	eq = memchr(line, '=', (size_t)(end - line));
	if (eq == NULL) {
		snprintf(why, whylen, "expected \"key = value\"");
		return -1;
	}
	key = conf_trim(line, eq, &kend);
	v = conf_trim(eq + 1, end, &vend);
	k = conf_find(keys, nkeys, key, (size_t)(kend - key));
	if (k == NULL) {
		snprintf(why, whylen, "unknown key '%.*s'", (int)(kend - key),
			 key);
		return -1;
	}
	bit = UINT64_C(1) << (k - keys);
	if ((*seen & bit) && k->type != CONF_LINES) {
		snprintf(why, whylen, "'%s' set twice", k->name);
		return -1;
	}
	*seen |= bit;
	return conf_set(k, obj, v, (size_t)(vend - v), why, whylen);
}

enum imt_result conf_parse(const struct conf_key *keys, size_t nkeys, void *obj,
			   const char *name, const char *text, size_t len,
			   struct imt_error *err)
{
	const char *p = text, *end = text + len;
	char why[CONF_WHY_MAX];
	uint64_t seen = 0;
	size_t lineno = 0;

	if (nkeys > CONF_KEYS_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "%zu keys, at most %d", nkeys,
				     CONF_KEYS_MAX);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;
		const char *hash = memchr(p, '#', (size_t)(eol - p));
		const char *s, *send;

		lineno++;
		s = conf_trim(p, hash != NULL ? hash : eol, &send);
		p = nl != NULL ? nl + 1 : end;
		if (s == send)
			continue;
		if (conf_line(keys, nkeys, obj, s, send, &seen, why,
			      sizeof(why)) < 0)
			return imt_error_set(err, IMT_ERR_MALFORMED, lineno,
					     IMT_NO_POS, "%s:%zu: %s", name,
					     lineno, why);
	}
	return IMT_OK;
}

enum imt_result conf_check(const struct conf_key *keys, size_t nkeys,
			   const void *obj, struct imt_error *err)
{
	size_t i;

	for (i = 0; i < nkeys; i++) {
		if (keys[i].required && keys[i].type == CONF_STRING &&
		    ((const char *)obj + keys[i].off)[0] == '\0')
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     IMT_NO_POS,
					     "'%s' must be set (%s)",
					     keys[i].name, keys[i].help);
	}
	return IMT_OK;
}

int conf_describe(const struct conf_key *k, char *buf, size_t size)
{
	const char *def = k->def[0] != '\0' ? k->def :
			  k->required	    ? "(required)" :
					      "(unset)";

	if (k->type == CONF_UINT)
		return snprintf(buf, size, "%s = %s\n\t%s [%llu-%llu]", k->name,
				def, k->help, (unsigned long long)k->min,
				(unsigned long long)k->max);
	if (k->choices != NULL)
		return snprintf(buf, size, "%s = %s\n\t%s [%s]", k->name, def,
				k->help, k->choices);
	return snprintf(buf, size, "%s = %s\n\t%s", k->name, def, k->help);
}

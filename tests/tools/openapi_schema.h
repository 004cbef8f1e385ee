/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * openapi_schema.h - a small checker of JSON values against the schemas
 * of an OpenAPI 3.0 document (verifier/api/openapi.json), for the tests:
 * tests/unit/verifier/api/test_openapi.c and tests/tools/openapi_check.c.
 *
 * Keywords: type, nullable, enum, $ref (#/components/schemas/...),
 * allOf, required, properties, additionalProperties (false or a schema),
 * items, pattern (POSIX ERE), minLength, maxLength, minimum, maximum,
 * minItems, maxItems; description and format are ignored. Any other
 * keyword is an error, so the document cannot say more than is checked.
 */
#ifndef IMATRUST_OPENAPI_SCHEMA_H
#define IMATRUST_OPENAPI_SCHEMA_H

#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#define OAS_WHERE_MAX 256

static const char *const oas_keywords[] = {
	"type",	       "nullable", "enum",	 "$ref",
	"allOf",       "required", "properties", "additionalProperties",
	"items",       "pattern",  "minLength",	 "maxLength",
	"minimum",     "maximum",  "minItems",	 "maxItems",
	"description", "format",   NULL,
};

struct oas_ctx {
	json_t *spec;
	char why[512];
};

static inline int oas_fail(struct oas_ctx *c, const char *where,
			   const char *what)
{
	snprintf(c->why, sizeof(c->why), "%s: %s", where[0] ? where : "$",
		 what);
	return -1;
}

static inline json_t *oas_ref(struct oas_ctx *c, const char *ref)
{
	static const char prefix[] = "#/components/schemas/";

	if (strncmp(ref, prefix, sizeof(prefix) - 1) != 0)
		return NULL;
	return json_object_get(json_object_get(json_object_get(c->spec,
							       "components"),
					       "schemas"),
			       ref + sizeof(prefix) - 1);
}

static inline int oas_type_ok(const char *type, json_t *v)
{
	static const struct {
		const char *name;
		json_type a, b;
	} types[] = {
		{ "object", JSON_OBJECT, JSON_OBJECT },
		{ "array", JSON_ARRAY, JSON_ARRAY },
		{ "string", JSON_STRING, JSON_STRING },
		{ "integer", JSON_INTEGER, JSON_INTEGER },
		{ "number", JSON_INTEGER, JSON_REAL },
		{ "boolean", JSON_TRUE, JSON_FALSE },
	};
	size_t i;

	for (i = 0; v != NULL && i < sizeof(types) / sizeof(types[0]); i++) {
		if (strcmp(types[i].name, type) == 0)
			return json_typeof(v) == types[i].a ||
			       json_typeof(v) == types[i].b;
	}
	return 0;
}

static int oas_check_at(struct oas_ctx *c, json_t *schema, json_t *v,
			const char *where);

static inline int oas_check_object(struct oas_ctx *c, json_t *schema, json_t *v,
				   const char *where)
{
	json_t *props = json_object_get(schema, "properties");
	json_t *extra = json_object_get(schema, "additionalProperties");
	char sub[OAS_WHERE_MAX];
	const char *key;
	json_t *x;
	size_t i;

	json_array_foreach(json_object_get(schema, "required"), i, x) {
		if (json_object_get(v, json_string_value(x)) == NULL) {
			snprintf(sub, sizeof(sub), "missing required \"%s\"",
				 json_string_value(x));
			return oas_fail(c, where, sub);
		}
	}
	json_object_foreach(v, key, x) {
		json_t *ps = json_object_get(props, key);

		snprintf(sub, sizeof(sub), "%s.%s", where, key);
		if (ps == NULL && json_is_false(extra))
			return oas_fail(c, sub, "not in the schema");
		if (ps == NULL && json_is_object(extra))
			ps = extra;
		if (ps != NULL && oas_check_at(c, ps, x, sub) < 0)
			return -1;
	}
	return 0;
}

static inline int oas_check_string(struct oas_ctx *c, json_t *schema, json_t *v,
				   const char *where)
{
	const char *pat = json_string_value(json_object_get(schema, "pattern"));
	json_t *lo = json_object_get(schema, "minLength");
	json_t *hi = json_object_get(schema, "maxLength");
	size_t n = json_string_length(v);
	regex_t re;
	int rc;

	if ((lo != NULL && (json_int_t)n < json_integer_value(lo)) ||
	    (hi != NULL && (json_int_t)n > json_integer_value(hi)))
		return oas_fail(c, where, "length out of bounds");
	if (pat == NULL)
		return 0;
	if (regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) != 0)
		return oas_fail(c, where, "pattern does not compile");
	rc = regexec(&re, json_string_value(v), 0, NULL, 0);
	regfree(&re);
	return rc == 0 ? 0 : oas_fail(c, where, "does not match pattern");
}

static inline int oas_check_bounds(struct oas_ctx *c, json_t *schema, json_t *v,
				   const char *where)
{
	json_t *lo = json_object_get(schema, "minimum");
	json_t *hi = json_object_get(schema, "maximum");
	json_t *ilo = json_object_get(schema, "minItems");
	json_t *ihi = json_object_get(schema, "maxItems");
	double d = json_number_value(v);

	if (json_is_number(v) && ((lo && d < json_number_value(lo)) ||
				  (hi && d > json_number_value(hi))))
		return oas_fail(c, where, "number out of bounds");
	if (json_is_array(v) &&
	    ((ilo && (json_int_t)json_array_size(v) < json_integer_value(ilo)) ||
	     (ihi && (json_int_t)json_array_size(v) > json_integer_value(ihi))))
		return oas_fail(c, where, "too few or too many items");
	return 0;
}

static int oas_check_at(struct oas_ctx *c, json_t *schema, json_t *v,
			const char *where)
{
	const char *type = json_string_value(json_object_get(schema, "type"));
	const char *ref = json_string_value(json_object_get(schema, "$ref"));
	char sub[OAS_WHERE_MAX];
	const char *key;
	json_t *x, *e;
	size_t i;
	int hit = 0;

	json_object_foreach(schema, key, x) {
		for (i = 0; oas_keywords[i] && strcmp(oas_keywords[i], key);
		     i++)
			;
		if (oas_keywords[i] == NULL) {
			snprintf(sub, sizeof(sub),
				 "schema keyword \"%s\" "
				 "not supported by the checker",
				 key);
			return oas_fail(c, where, sub);
		}
	}
	if (ref != NULL) {
		x = oas_ref(c, ref);
		if (x == NULL)
			return oas_fail(c, where, "dangling $ref");
		return oas_check_at(c, x, v, where);
	}
	if (json_is_null(v) &&
	    json_is_true(json_object_get(schema, "nullable")))
		return 0;
	json_array_foreach(json_object_get(schema, "allOf"), i, x) {
		if (oas_check_at(c, x, v, where) < 0)
			return -1;
	}
	if (type != NULL && !oas_type_ok(type, v)) {
		snprintf(sub, sizeof(sub), "not of type %s", type);
		return oas_fail(c, where, sub);
	}
	x = json_object_get(schema, "enum");
	json_array_foreach(x, i, e)
		hit |= json_equal(e, v);
	if (x != NULL && !hit)
		return oas_fail(c, where, "not one of the enum values");
	if (oas_check_bounds(c, schema, v, where) < 0)
		return -1;
	if (json_is_string(v) && oas_check_string(c, schema, v, where) < 0)
		return -1;
	if (json_is_object(v) && oas_check_object(c, schema, v, where) < 0)
		return -1;
	json_array_foreach(json_is_array(v) ? v : NULL, i, e) {
		snprintf(sub, sizeof(sub), "%s[%zu]", where, i);
		if (json_object_get(schema, "items") != NULL &&
		    oas_check_at(c, json_object_get(schema, "items"), e, sub) <
			    0)
			return -1;
	}
	return 0;
}

/* Does @v match @schema? 0, or -1 with c->why naming where and why. */
static inline int oas_check(struct oas_ctx *c, json_t *schema, json_t *v)
{
	c->why[0] = '\0';
	if (schema == NULL)
		return oas_fail(c, "", "no schema");
	return oas_check_at(c, schema, v, "");
}

/* Does a concrete @path (query ignored) match template @tmpl? */
static inline int oas_path_match(const char *tmpl, const char *path)
{
	const char *t = tmpl, *p = path;

	while (*t != '\0') {
		if (*t == '{') {
			t = strchr(t, '}');
			if (t == NULL || *p == '/' || *p == '\0' || *p == '?')
				return 0;
			t++;
			while (*p != '\0' && *p != '/' && *p != '?')
				p++;
			continue;
		}
		if (*t++ != *p++)
			return 0;
	}
	return *p == '\0' || *p == '?';
}

/* The operation for @method (any case) on concrete @path, or NULL. */
static inline json_t *oas_operation(json_t *spec, const char *method,
				    const char *path)
{
	char m[16];
	const char *tmpl;
	json_t *item;
	size_t i;

	for (i = 0; method[i] != '\0' && i + 1 < sizeof(m); i++)
		m[i] = (char)((method[i] >= 'A' && method[i] <= 'Z') ?
				      method[i] + 32 :
				      method[i]);
	m[i] = '\0';
	json_object_foreach(json_object_get(spec, "paths"), tmpl, item) {
		if (oas_path_match(tmpl, path) &&
		    json_object_get(item, m) != NULL)
			return json_object_get(item, m);
	}
	return NULL;
}

/* The schema of the @status answer of @method @path as @ctype. */
static inline json_t *oas_response_schema(json_t *spec, const char *method,
					  const char *path, int status,
					  const char *ctype)
{
	char code[8];

	snprintf(code, sizeof(code), "%d", status);
	return json_object_get(
		json_object_get(json_object_get(json_object_get(json_object_get(oas_operation(spec,
											      method,
											      path),
										"responses"),
								code),
						"content"),
				ctype),
		"schema");
}

/* The schema of the request body of @method @path. */
static inline json_t *oas_request_schema(json_t *spec, const char *method,
					 const char *path)
{
	return json_object_get(
		json_object_get(json_object_get(json_object_get(oas_operation(spec,
									      method,
									      path),
								"requestBody"),
						"content"),
				"application/json"),
		"schema");
}

#endif /* IMATRUST_OPENAPI_SCHEMA_H */

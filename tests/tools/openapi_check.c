// SPDX-License-Identifier: GPL-2.0-only
/*
 * openapi_check.c - check one real answer against verifier/api/openapi.json,
 * for the shell tests:
 *
 *	openapi_check SPEC METHOD PATH STATUS [FILE]
 *
 * PATH is the concrete request path (query allowed); the body is read
 * from FILE or stdin. Exit 0 when it validates against the documented
 * schema of STATUS, 1 when not (the reason on stderr), 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "openapi_schema.h"

int main(int argc, char **argv)
{
	struct oas_ctx c = { 0 };
	json_error_t jerr;
	json_t *body, *schema;
	int rc = 1;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: openapi_check SPEC METHOD PATH STATUS "
				"[FILE]\n");
		return 2;
	}
	c.spec = json_load_file(argv[1], JSON_REJECT_DUPLICATES, &jerr);
	if (c.spec == NULL) {
		fprintf(stderr, "%s:%d: %s\n", argv[1], jerr.line, jerr.text);
		return 2;
	}
	body = argc == 6 ? json_load_file(argv[5], 0, &jerr) :
			   json_loadf(stdin, 0, &jerr);
	schema = oas_response_schema(c.spec, argv[2], argv[3], atoi(argv[4]),
				     "application/json");
	if (body == NULL)
		fprintf(stderr, "body is not JSON: %s\n", jerr.text);
	else if (schema == NULL)
		fprintf(stderr, "%s %s: status %s is not documented\n", argv[2],
			argv[3], argv[4]);
	else if (oas_check(&c, schema, body) < 0)
		fprintf(stderr, "%s %s %s: %s\n", argv[2], argv[3], argv[4],
			c.why);
	else
		rc = 0;
	json_decref(body);
	json_decref(c.spec);
	return rc;
}

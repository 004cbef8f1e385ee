// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_routes.c - the route table's guards: every route is an operator
 * route (auth_guard, 401 before a body byte) unless it is one of the
 * public routes listed here, each with the reason it may be public. A
 * route added without a guard fails here until someone writes down why.
 *
 * Every operator route names the role its token needs (issue #36): a GET
 * (and POST /v1/verify, which stores nothing) a reader, keys and webhooks
 * an admin, every other write an operator.
 *
 * "test_routes --print" prints the table as the server serves it, one
 * route a line ("METHOD PATTERN operator|public ROLE"), for
 * tests/integration/test_route_auth.sh, which walks every operator route
 * over HTTPS with no token, a wrong one, a removed one, an expired one
 * and a token of each role below the route's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "auth.h"
#include "db_token.h"
#include "verifier.h"
#include "routes.h"

static const struct {
	const char *method, *pattern, *why;
} public_routes[] = {
	{ "GET", "/", "the console's page: no data" },
	{ "GET", "/app.js", "the console's script: no data" },
	{ "GET", "/app.css", "the console's style: no data" },
	{ "GET", "/v1/health", "load balancers and agents probe it" },
	{ "GET", "/v1/metrics", "counters only, for the scraper" },
	{ "GET", "/v1/results/jwks", "the public key that signs results" },
	{ "POST", "/v1/agents", "enrollment: the TPM authenticates it" },
	{ "POST", "/v1/agents/{}/activate", "the TPM's credential answer" },
	{ "POST", "/v1/agents/{}/nonce", "a fresh nonce for the next quote" },
	{ "POST", "/v1/agents/{}/evidence", "a quote by the enrolled AK" },
};

#define N_PUBLIC (sizeof(public_routes) / sizeof(public_routes[0]))

static int listed_public(const struct http_route *r)
{
	size_t i;

	for (i = 0; i < N_PUBLIC; i++)
		if (!strcmp(r->method, public_routes[i].method) &&
		    !strcmp(r->pattern, public_routes[i].pattern))
			return 1;
	return 0;
}

/* Every unlisted route is an operator route, with auth_guard itself. */
static void test_unlisted_routes_need_a_token(void **state)
{
	const struct http_route *r;
	int operators = 0;

	(void)state;
	for (r = verifier_routes; r->method != NULL; r++) {
		if (listed_public(r))
			continue;
		if (r->guard != auth_guard)
			fail_msg("%s %s: no auth_guard and not a listed "
				 "public route",
				 r->method, r->pattern);
		operators++;
	}
	assert_true(operators >= 30);
}

/* Every listed public route exists once and carries no guard. */
static void test_public_routes_are_public(void **state)
{
	const struct http_route *r;
	size_t i;
	int found;

	(void)state;
	for (i = 0; i < N_PUBLIC; i++) {
		found = 0;
		for (r = verifier_routes; r->method != NULL; r++)
			if (!strcmp(r->method, public_routes[i].method) &&
			    !strcmp(r->pattern, public_routes[i].pattern)) {
				assert_null(r->guard);
				found++;
			}
		if (found != 1)
			fail_msg("%s %s: %d routes, want 1",
				 public_routes[i].method,
				 public_routes[i].pattern, found);
	}
}

/* The role a route should need, by the rule above. */
static enum db_token_role role_rule(const struct http_route *r)
{
	if (!strcmp(r->method, "GET") || !strcmp(r->pattern, "/v1/verify"))
		return DB_ROLE_READER;
	if (!strncmp(r->pattern, "/v1/keys", 8) ||
	    !strncmp(r->pattern, "/v1/webhooks", 12))
		return DB_ROLE_ADMIN;
	return DB_ROLE_OPERATOR;
}

/* Every operator route names its role, the rule's; a public one none. */
static void test_roles(void **state)
{
	const struct http_route *r;
	int writes = 0;

	(void)state;
	for (r = verifier_routes; r->method != NULL; r++) {
		if (r->guard == NULL) {
			assert_int_equal(r->role, DB_ROLE_NONE);
			continue;
		}
		if (r->role != (int)role_rule(r))
			fail_msg("%s %s: needs %s, want %s", r->method,
				 r->pattern, db_token_role_name(r->role),
				 db_token_role_name(role_rule(r)));
		writes += r->role > DB_ROLE_READER;
	}
	assert_true(writes >= 15);
}

static int print_table(void)
{
	const struct http_route *r;

	for (r = verifier_routes; r->method != NULL; r++)
		printf("%s %s %s %s\n", r->method, r->pattern,
		       r->guard == auth_guard ? "operator" : "public",
		       db_token_role_name(r->role));
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlisted_routes_need_a_token),
		cmocka_unit_test(test_public_routes_are_public),
		cmocka_unit_test(test_roles),
	};

	if (argc == 2 && !strcmp(argv[1], "--print"))
		return print_table();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

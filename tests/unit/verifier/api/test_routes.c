// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_routes.c - the route table's guards: every route is an operator
 * route (auth_guard, 401 before a body byte) unless it is one of the
 * public routes listed here, each with the reason it may be public. A
 * route added without a guard fails here until someone writes down why.
 *
 * "test_routes --print" prints the table as the server serves it, one
 * route a line ("METHOD PATTERN operator|public"), for
 * tests/integration/test_route_auth.sh, which walks every operator route
 * over HTTPS with no token, a wrong one and a removed one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "auth.h"
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

static int print_table(void)
{
	const struct http_route *r;

	for (r = verifier_routes; r->method != NULL; r++)
		printf("%s %s %s\n", r->method, r->pattern,
		       r->guard == auth_guard ? "operator" : "public");
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlisted_routes_need_a_token),
		cmocka_unit_test(test_public_routes_are_public),
	};

	if (argc == 2 && !strcmp(argv[1], "--print"))
		return print_table();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

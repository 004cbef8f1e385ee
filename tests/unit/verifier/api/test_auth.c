// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_auth.c - the guard of the operator routes (issue #36): a token's
 * role against the route table's, and its expiry, judged from the headers.
 * Every route of verifier_routes is tried with a reader, an operator, an
 * admin and an expired token: each passes exactly the routes its role
 * reaches, a refusal is 403 naming the role needed, an expired token is
 * 401 saying when. The walk over HTTPS is test_route_auth.sh's.
 */
#include "auth.h"
#include "db_token.h"
#include "routes.h"
#include "verifier_test.h"

#define T_READER "reader-token-0123456789abcdef0123"
#define T_OPER "operator-token-0123456789abcdef01"
#define T_OLD "expired-token-0123456789abcdef012"

static void add(struct tv *t, const char *name, const char *tok,
		enum db_token_role role, int64_t expires_at)
{
	struct imt_error err;

	if (db_token_add_scoped(t->v.db, name, (const uint8_t *)tok,
				strlen(tok), role, expires_at, TV_NOW,
				&err) < 0)
		fail_msg("db_token_add_scoped: %s", err.msg);
}

/* auth_guard() of @r with @token: the status (0: passed), the message. */
static unsigned int guard(struct tv *t, const struct http_route *r,
			  const char *token, char *msg, size_t n)
{
	struct http_request req = { 0 };
	struct http_response res = { 0 };
	char auth[128];
	json_t *j;

	snprintf(auth, sizeof(auth), "Bearer %s", token);
	req.method = r->method;
	req.path = r->pattern;
	req.authorization = auth;
	req.route = r;
	msg[0] = '\0';
	if (auth_guard(&t->v, &req, &res) == 0) {
		assert_string_not_equal(req.op_name, "");
		free(res.body);
		return 0;
	}
	j = json_loads(res.body, 0, NULL);
	snprintf(msg, n, "%s", tv_msg(j));
	json_decref(j);
	free(res.body);
	return res.status;
}

/* Each role passes the routes of its rank or below, and no other. */
static void test_roles(void **state)
{
	static const struct {
		const char *token;
		enum db_token_role role;
	} who[] = {
		{ T_READER, DB_ROLE_READER },
		{ T_OPER, DB_ROLE_OPERATOR },
		{ TV_TOKEN, DB_ROLE_ADMIN },
	};
	const struct http_route *r;
	struct tv *t = tv_new();
	char msg[512], want[512];
	int refused = 0;
	size_t i;

	(void)state;
	add(t, "rita", T_READER, DB_ROLE_READER, 0);
	add(t, "otto", T_OPER, DB_ROLE_OPERATOR, (int64_t)TV_NOW * 2);
	for (r = verifier_routes; r->method != NULL; r++) {
		if (r->guard != auth_guard)
			continue;
		for (i = 0; i < sizeof(who) / sizeof(who[0]); i++) {
			if ((int)who[i].role >= r->role) {
				if (guard(t, r, who[i].token, msg,
					  sizeof(msg)) != 0)
					fail_msg("%s %s as %s: %s", r->method,
						 r->pattern,
						 db_token_role_name(
							 who[i].role),
						 msg);
				continue;
			}
			assert_int_equal(guard(t, r, who[i].token, msg,
					       sizeof(msg)),
					 403);
			snprintf(want, sizeof(want),
				 "this token's role %s cannot %s %s: needs %s",
				 db_token_role_name(who[i].role), r->method,
				 r->pattern, db_token_role_name(r->role));
			assert_string_equal(msg, want);
			refused++;
		}
	}
	assert_true(refused >= 20);
	tv_free(t);
}

/* A guarded route that names no role needs admin: forgotten fails closed. */
static void test_no_role_needs_admin(void **state)
{
	static const struct http_route unnamed = { "POST", "/v1/new",	NULL,
						   0,	   auth_guard,	NULL,
						   0,	   DB_ROLE_NONE };
	struct tv *t = tv_new();
	char msg[512];

	(void)state;
	add(t, "otto", T_OPER, DB_ROLE_OPERATOR, 0);
	assert_int_equal(guard(t, &unnamed, T_OPER, msg, sizeof(msg)), 403);
	assert_string_equal(msg, "this token's role operator cannot POST "
				 "/v1/new: needs admin");
	assert_int_equal(guard(t, &unnamed, TV_TOKEN, msg, sizeof(msg)), 0);
	tv_free(t);
}

/* An expired token is refused every route, 401, saying since when. */
static void test_expired(void **state)
{
	const struct http_route *r;
	struct tv *t = tv_new();
	char msg[512];
	int walked = 0;

	(void)state;
	add(t, "eve", T_OLD, DB_ROLE_ADMIN, 1000000000);
	for (r = verifier_routes; r->method != NULL; r++) {
		if (r->guard != auth_guard)
			continue;
		assert_int_equal(guard(t, r, T_OLD, msg, sizeof(msg)), 401);
		assert_non_null(
			strstr(msg, "token expired at 2001-09-09T01:46:40Z"));
		walked++;
	}
	assert_true(walked >= 30);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM tokens WHERE "
				    "name = 'eve' AND last_used IS NULL",
				    NULL),
			 1);
	tv_free(t);
}

/*
 * A passing check writes last_used, then not again within the minute: the
 * stored time is the throttle.
 */
static void test_last_used(void **state)
{
	const struct http_route *r = verifier_routes;
	struct tv *t = tv_new();
	char msg[512];
	sqlite3 *db;

	(void)state;
	while (r->guard != auth_guard)
		r++;
	assert_int_equal(guard(t, r, TV_TOKEN, msg, sizeof(msg)), 0);
	assert_true(count_rows(t,
			       "SELECT last_used FROM tokens WHERE name = "
			       "'alice'",
			       NULL) >= t->v.started);
	assert_int_equal(sqlite3_open(t->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "UPDATE tokens SET last_used = 5 WHERE "
				      "name = 'alice'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(guard(t, r, TV_TOKEN, msg, sizeof(msg)), 0);
	assert_true(count_rows(t,
			       "SELECT last_used FROM tokens WHERE name = "
			       "'alice'",
			       NULL) > 5);
	tv_free(t);
}

/* GET /v1/whoami: the token's name and role, its expiry null for never. */
static void test_whoami(void **state)
{
	struct tv *t = tv_new();
	unsigned int status;
	json_t *a;

	(void)state;
	add(t, "rita", T_READER, DB_ROLE_READER, 0);
	a = tv_call(t, route_whoami, NULL, NULL, "Bearer " T_READER, &status);
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(a, "name")),
			    "rita");
	assert_string_equal(json_string_value(json_object_get(a, "role")),
			    "reader");
	assert_true(json_is_null(json_object_get(a, "expires_at")));
	json_decref(a);
	a = tv_call(t, route_whoami, NULL, NULL, TV_AUTH, &status);
	assert_string_equal(json_string_value(json_object_get(a, "role")),
			    "admin");
	json_decref(a);
	add(t, "eve", T_OLD, DB_ROLE_ADMIN, 1000000000);
	a = tv_call(t, route_whoami, NULL, NULL, "Bearer " T_OLD, &status);
	assert_int_equal(status, 401);
	json_decref(a);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_no_role_needs_admin),
		cmocka_unit_test(test_expired),
		cmocka_unit_test(test_last_used),
		cmocka_unit_test(test_whoami),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

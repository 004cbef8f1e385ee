// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_policies.c - named policies over the REST API: create,
 * replace, list in order, a bad document that stores nothing, the
 * default that cannot be deleted or lose its mark, re-judging both ways
 * with the reason naming the policy, the audit trail, the machine detail
 * naming its policy and records saying what accepted them, and 401 on
 * every new operator route without a token.
 */
#include "db_boot.h"
#include "db_machine.h"
#include "verifier_test.h"

#define D2 "0202020202020202020202020202020202020202020202020202020202020202"
#define WEB_DEB "{\"machines\":[\"web-*\"],\"sources\":[\"deb:*\"]}"
#define WEB_DIR "{\"machines\":[\"web-*\"],\"sources\":[\"dir-tree:*\"]}"

static int setup(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/usr/bin/a", 2, DB_VERDICT_KNOWN },
	};
	struct tv *t = tv_new();
	unsigned int status;
	json_t *a;

	tv_machine(t, "web-01", DB_STATE_TRUSTED);
	tv_boot(t, "web-01", recs, 2);
	a = tv_call(t, route_refs_import, NULL,
		    "{\"v\":1,\"source\":{"
		    "\"kind\":\"deb\",\"name\":\"a_1.0_amd64\"},\"refs\":[{"
		    "\"path\":\"/usr/bin/a\",\"algo\":\"sha256\",\"digest\":\"" D2
		    "\"}]}",
		    TV_AUTH, &status);
	assert_int_equal(status, 200);
	json_decref(a);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	tv_free(*state);
	return 0;
}

static json_t *put(struct tv *t, const char *name, const char *body,
		   unsigned int *status)
{
	return tv_call(t, route_policies_put, name, body, TV_AUTH, status);
}

static json_t *list(struct tv *t)
{
	unsigned int status;
	json_t *a =
		tv_call(t, route_policies_list, NULL, NULL, TV_AUTH, &status);

	assert_int_equal(status, 200);
	return a;
}

static const char *reason_of(struct tv *t, const char *id, char *buf, size_t n)
{
	struct db_machine m;
	struct imt_error err;
	int found = 0;

	if (db_machine_get(t->v.db, id, &m, &found, &err) < 0 || !found)
		fail_msg("db_machine_get %s", id);
	snprintf(buf, n, "%s", m.state_reason != NULL ? m.state_reason : "");
	db_machine_release(&m);
	return buf;
}

static void test_put_get_list(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *p;

	a = put(t, "web", WEB_DEB, &status);
	assert_int_equal(status, 201);
	assert_string_equal(json_string_value(json_object_get(a, "name")),
			    "web");
	assert_non_null(json_object_get(a, "machines_rejudged"));
	json_decref(a);
	a = put(t, "lab",
		"{\"machines\":[\"lab-*\"],\"sources\":[\"*\"],"
		"\"violations\":\"allow\"}",
		&status);
	assert_int_equal(status, 201);
	json_decref(a);
	/* a replaced policy keeps its place */
	a = put(t, "web", WEB_DIR, &status);
	assert_int_equal(status, 200);
	json_decref(a);

	a = list(t);
	p = json_object_get(a, "policies");
	assert_int_equal(json_array_size(p), 3);
	assert_string_equal(json_string_value(
				    json_object_get(json_array_get(p, 0),
						    "name")),
			    "default");
	assert_true(
		json_is_true(json_object_get(json_array_get(p, 0), "default")));
	assert_string_equal(json_string_value(
				    json_object_get(json_array_get(p, 1),
						    "name")),
			    "web");
	assert_string_equal(json_string_value(
				    json_array_get(json_object_get(json_array_get(p,
										  1),
								   "sources"),
						   0)),
			    "dir-tree:*");
	assert_string_equal(json_string_value(
				    json_object_get(json_array_get(p, 2),
						    "violations")),
			    "allow");
	json_decref(a);

	a = tv_call(t, route_policies_get, "lab", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	p = json_object_get(a, "policy");
	assert_string_equal(json_string_value(json_object_get(p, "name")),
			    "lab");
	assert_string_equal(json_string_value(
				    json_array_get(json_object_get(p,
								   "machines"),
						   0)),
			    "lab-*");
	json_decref(a);
	a = tv_call(t, route_policies_get, "nope", NULL, TV_AUTH, &status);
	assert_int_equal(status, 404);
	json_decref(a);
}

static void test_bad_policy_stores_nothing(void **state)
{
	static const struct {
		const char *body, *field;
	} bad[] = {
		{ "{\"sources\":[\"deb:*\"],\"colour\":1}", "colour" },
		{ "{\"sources\":\"deb:*\"}", "sources" },
		{ "{\"excludes\":[{\"regex\":\"(\"}]}", "excludes[0]" },
		{ "{\"violations\":\"maybe\"}", "violations" },
		{ "{\"default\":1}", "default" },
		{ "not json", "not JSON" },
	};
	struct tv *t = *state;
	unsigned int status;
	size_t i;
	json_t *a;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = put(t, "web", bad[i].body, &status);
		assert_int_equal(status, 400);
		if (strstr(tv_msg(a), bad[i].field) == NULL)
			fail_msg("%s: message '%s' does not name %s",
				 bad[i].body, tv_msg(a), bad[i].field);
		json_decref(a);
	}
	a = list(t);
	assert_int_equal(json_array_size(json_object_get(a, "policies")), 1);
	json_decref(a);
	/* a name the route would not match is refused too */
	a = put(t, "a/b", WEB_DEB, &status);
	assert_int_equal(status, 400);
	json_decref(a);
}

/* A policy that stops trusting the source takes trust back, and again. */
static void test_rejudge_both_ways(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	char reason[2048];
	json_t *a;

	assert_int_equal(tv_state(t, "web-01"), DB_STATE_TRUSTED);
	a = put(t, "web", WEB_DIR, &status);
	assert_int_equal(status, 201);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_untrusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "web-01"), DB_STATE_UNTRUSTED);
	reason_of(t, "web-01", reason, sizeof(reason));
	assert_non_null(strstr(reason, "\"policy\":\"web\""));
	assert_non_null(strstr(reason, "\"change\":\"policy\""));
	assert_non_null(strstr(reason, "/usr/bin/a"));

	a = put(t, "web", WEB_DEB, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_trusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "web-01"), DB_STATE_TRUSTED);
	reason_of(t, "web-01", reason, sizeof(reason));
	assert_non_null(strstr(reason, "\"policy\":\"web\""));

	/* deleting a policy re-judges too: web-01 falls to the default */
	a = put(t, "web", WEB_DIR, &status);
	json_decref(a);
	assert_int_equal(tv_state(t, "web-01"), DB_STATE_UNTRUSTED);
	a = tv_call(t, route_policies_delete, "web", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_trusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "web-01"), DB_STATE_TRUSTED);
}

static void test_default_stays(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	a = tv_call(t, route_policies_delete, "default", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 409);
	assert_non_null(strstr(tv_msg(a), "default"));
	json_decref(a);
	a = tv_call(t, route_policies_delete, "nope", NULL, TV_AUTH, &status);
	assert_int_equal(status, 404);
	json_decref(a);
	/* taking the mark off the default would leave none */
	a = put(t, "default", "{\"sources\":[\"deb:*\"]}", &status);
	assert_int_equal(status, 409);
	json_decref(a);
	/* another policy may become the default; then the old one can go */
	a = put(t, "strict", "{\"default\":true,\"sources\":[\"deb:*\"]}",
		&status);
	assert_int_equal(status, 201);
	json_decref(a);
	a = tv_call(t, route_policies_delete, "default", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	json_decref(a);
	a = tv_call(t, route_policies_delete, "strict", NULL, TV_AUTH, &status);
	assert_int_equal(status, 409);
	json_decref(a);
	a = list(t);
	assert_int_equal(json_array_size(json_object_get(a, "policies")), 1);
	json_decref(a);
}

static void test_audit(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *e;
	size_t i, puts = 0, dels = 0;

	json_decref(put(t, "web", WEB_DEB, &status));
	json_decref(tv_call(t, route_policies_delete, "web", NULL, TV_AUTH,
			    &status));
	a = tv_call(t, route_audit, NULL, NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	json_array_foreach(json_object_get(a, "audit"), i, e) {
		const char *act =
			json_string_value(json_object_get(e, "action"));

		if (strcmp(act, "policy-put") != 0 &&
		    strcmp(act, "policy-delete") != 0)
			continue;
		assert_string_equal(json_string_value(
					    json_object_get(e, "operator")),
				    "alice");
		assert_string_equal(json_string_value(
					    json_object_get(json_object_get(e,
									    "detail"),
							    "policy")),
				    "web");
		puts += strcmp(act, "policy-put") == 0;
		dels += strcmp(act, "policy-delete") == 0;
	}
	assert_int_equal(puts, 1);
	assert_int_equal(dels, 1);
	json_decref(a);
}

static void test_machine_policy_and_accepted_by(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *r;

	a = tv_call(t, route_machines_get, "web-01", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(a, "policy")),
			    "default");
	json_decref(a);
	json_decref(put(t, "web", WEB_DEB, &status));
	a = tv_call(t, route_machines_get, "web-01", NULL, TV_AUTH, &status);
	assert_string_equal(json_string_value(json_object_get(a, "policy")),
			    "web");
	json_decref(a);

	a = tv_call(t, route_machines_records, "web-01", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	r = json_object_get(json_array_get(json_object_get(a, "records"), 1),
			    "accepted_by");
	assert_string_equal(json_string_value(json_object_get(r, "source")),
			    "deb:a_1.0_amd64");
	r = json_object_get(json_array_get(json_object_get(a, "records"), 0),
			    "accepted_by");
	assert_non_null(json_object_get(r, "check"));
	json_decref(a);

	/* not accepted: null */
	json_decref(put(t, "web", WEB_DIR, &status));
	a = tv_call(t, route_machines_records, "web-01", NULL, TV_AUTH,
		    &status);
	r = json_array_get(json_object_get(a, "records"), 1);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")),
			    "unknown");
	assert_true(json_is_null(json_object_get(r, "accepted_by")));
	json_decref(a);
}

/* The route guard: every new operator route is 401 without a token. */
static void test_new_routes_need_a_token(void **state)
{
	static const struct {
		const char *method, *path, *body;
	} routes[] = {
		{ "GET", "/v1/policies", NULL },
		{ "GET", "/v1/policies/default", NULL },
		{ "PUT", "/v1/policies/web", WEB_DIR },
		{ "DELETE", "/v1/policies/default", NULL },
		{ "POST", "/v1/keys", "{\"v\":1,\"cert\":\"x\"}" },
		{ "GET", "/v1/keys", NULL },
		{ "DELETE", "/v1/keys/k", NULL },
		{ "GET", "/v1/sources", NULL },
		{ "GET", "/v1/sources?kind=deb", NULL },
	};
	struct tv *t = *state;
	char *text;
	long status;
	size_t i;
	json_t *a;

	tv_serve(t);
	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		status = tv_http(t, routes[i].method, routes[i].path,
				 routes[i].body, NULL, &text, NULL, 0);
		if (status != 401)
			fail_msg("%s %s: %ld without a token", routes[i].method,
				 routes[i].path, status);
		free(text);
		status = tv_http(t, routes[i].method, routes[i].path,
				 routes[i].body, "Bearer wrong", &text, NULL,
				 0);
		assert_int_equal(status, 401);
		free(text);
	}
	/* nothing changed */
	assert_int_equal(tv_state(t, "web-01"), DB_STATE_TRUSTED);
	a = tv_get(t, "GET", "/v1/policies", NULL, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "policies")), 1);
	json_decref(a);
}

static void test_sources(void **state)
{
	struct tv *t = *state;
	long status;
	json_t *a, *s;

	tv_serve(t);
	json_decref(
		tv_call(t, route_refs_import, NULL,
			"{\"v\":1,"
			"\"source\":{\"kind\":\"dir-tree\",\"name\":\"img\"},"
			"\"refs\":[]}",
			TV_AUTH, &(unsigned int){ 0 }));
	a = tv_get(t, "GET", "/v1/sources", NULL, &status);
	assert_int_equal(status, 200);
	assert_true(json_array_size(json_object_get(a, "sources")) >= 1);
	json_decref(a);
	a = tv_get(t, "GET", "/v1/sources?kind=deb", NULL, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "sources")), 1);
	s = json_array_get(json_object_get(a, "sources"), 0);
	assert_string_equal(json_string_value(json_object_get(s, "kind")),
			    "deb");
	assert_string_equal(json_string_value(json_object_get(s, "name")),
			    "a_1.0_amd64");
	assert_int_equal(json_integer_value(json_object_get(s, "refs")), 1);
	assert_true(json_is_null(json_object_get(s, "retire_at")));
	json_decref(a);
	a = tv_get(t, "GET", "/v1/sources?kind=rpm", NULL, &status);
	assert_int_equal(status, 400);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_put_get_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_policy_stores_nothing,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejudge_both_ways, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_default_stays, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_audit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_machine_policy_and_accepted_by,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_routes_need_a_token,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sources, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

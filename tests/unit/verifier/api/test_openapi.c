// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_openapi.c - verifier/api/openapi.json against the real thing: every
 * route of verifier_routes[] is documented (and nothing else), every
 * answer the handlers give validates against the documented schema of
 * its status, and the agent messages wire.c encodes validate against
 * theirs. Also the metrics text (the console's files: test_route_www.c).
 */
#include "db_boot.h"
#include "db_machine.h"
#include "db_token.h"
#include "verifier_test.h"
#include "result_key.h"
#include "result_keys.h"
#include "wire.h"
#include "../../../tools/openapi_schema.h"
#include "routes.h"

#define SPEC FIXTURE_DIR "/../../verifier/api/openapi.json"
#define D2 "0202020202020202020202020202020202020202020202020202020202020202"
/* test_fpr_of("node-p") and of "node-a" in hex */
#define FPR_P "6e6f64652d70f6f7f8f9fafbfcfdfefff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"
#define WEB_POLICY \
	"{\"machines\":[\"node-*\"],\"sources\":[\"deb:*\"]," \
	"\"excludes\":[{\"prefix\":\"/tmp/\"}],\"conffiles\":\"any\"}"
#define FPR_A "6e6f64652d61f6f7f8f9fafbfcfdfefff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"

struct fx {
	struct tv *t;
	json_t *spec;
};

static int setup(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
		{ "/usr/bin/a", 2, DB_VERDICT_KNOWN },
		{ "/usr/bin/\xff\xfe", 3, DB_VERDICT_UNKNOWN },
	};
	struct fx *f = calloc(1, sizeof(*f));
	json_error_t jerr;

	f->spec = json_load_file(SPEC, JSON_REJECT_DUPLICATES, &jerr);
	if (f->spec == NULL)
		fail_msg("%s:%d: %s", SPEC, jerr.line, jerr.text);
	f->t = tv_new();
	tv_machine(f->t, "node-a", DB_STATE_TRUSTED);
	tv_machine(f->t, "node-b", DB_STATE_UNTRUSTED);
	tv_machine(f->t, "node-p", DB_STATE_PENDING);
	tv_boot(f->t, "node-b", recs, 3);
	f->t->v.result_keys = result_keys_of(result_key_from_pkey(
		EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256")));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	result_keys_close(f->t->v.result_keys);
	tv_free(f->t);
	json_decref(f->spec);
	free(f);
	return 0;
}

/* "/v1/agents/{}/nonce" -> "/v1/agents/{id}/nonce" */
static void doc_path(const char *pattern, char *out, size_t n)
{
	size_t o = 0;

	for (; *pattern != '\0' && o + 5 < n; pattern++) {
		if (pattern[0] == '{' && pattern[1] == '}') {
			memcpy(out + o, "{id}", 4);
			o += 4;
			pattern++;
			continue;
		}
		out[o++] = *pattern;
	}
	out[o] = '\0';
}

/*
 * The role an operator route needs is documented as the route table has
 * it (x-imatrust-role), and a route above reader documents its 403.
 */
static void check_role(const struct http_route *r, const char *path, json_t *o)
{
	const char *doc =
		json_string_value(json_object_get(o, "x-imatrust-role"));

	if (r->guard == NULL) {
		if (doc != NULL)
			fail_msg("%s %s: public, documented %s", r->method,
				 path, doc);
		return;
	}
	if (doc == NULL || strcmp(doc, db_token_role_name(r->role)) != 0)
		fail_msg("%s %s: needs %s, documented %s", r->method, path,
			 db_token_role_name(r->role), doc ? doc : "none");
	if (r->role > DB_ROLE_READER &&
	    json_object_get(json_object_get(o, "responses"), "403") == NULL)
		fail_msg("%s %s: its 403 undocumented", r->method, path);
}

static void test_every_route_documented(void **state)
{
	struct fx *f = *state;
	const struct http_route *r;
	size_t routes = 0, documented = 0;
	const char *key, *m;
	char path[128], method[16];
	json_t *item, *o;
	size_t i;

	for (r = verifier_routes; r->method != NULL; r++, routes++) {
		doc_path(r->pattern, path, sizeof(path));
		for (i = 0; r->method[i] && i + 1 < sizeof(method); i++)
			method[i] = (char)(r->method[i] | 0x20);
		method[i] = '\0';
		o = json_object_get(json_object_get(json_object_get(f->spec,
								    "paths"),
						    path),
				    method);
		if (o == NULL)
			fail_msg("%s %s is not in openapi.json", r->method,
				 path);
		check_role(r, path, o);
		/* every documented answer has a schema (a 304 no body) */
		json_object_foreach(json_object_get(o, "responses"), key,
				    item) {
			if (strcmp(key, "304") != 0 &&
			    json_object_get(item, "content") == NULL)
				fail_msg("%s %s %s: no content", r->method,
					 path, key);
		}
	}
	json_object_foreach(json_object_get(f->spec, "paths"), key, item) {
		json_object_foreach(item, m, o)
			documented++;
	}
	assert_int_equal(documented, routes);
}

/* Validate one answer against the document; fail naming the case. */
static void check_answer(struct fx *f, const char *method, const char *path,
			 unsigned int status, json_t *answer)
{
	struct oas_ctx c = { .spec = f->spec };
	json_t *schema = oas_response_schema(f->spec, method, path, (int)status,
					     "application/json");

	if (schema == NULL)
		fail_msg("%s %s: status %u is not documented", method, path,
			 status);
	if (oas_check(&c, schema, answer) < 0)
		fail_msg("%s %s %u: %s", method, path, status, c.why);
}

static const struct {
	tv_handler h;
	const char *method, *path, *param, *body;
	int auth;
	unsigned int status;
} calls[] = {
	{ route_health, "GET", "/v1/health", NULL, NULL, 0, 200 },
	{ route_machines_list, "GET", "/v1/machines", NULL, NULL, 1, 200 },
	{ route_machines_list, "GET", "/v1/machines", NULL, NULL, 0, 401 },
	{ route_machines_get, "GET", "/v1/machines/node-a", "node-a", NULL, 1,
	  200 },
	{ route_machines_get, "GET", "/v1/machines/node-b", "node-b", NULL, 1,
	  200 },
	{ route_machines_get, "GET", "/v1/machines/x", "x", NULL, 1, 404 },
	{ route_results_jwks, "GET", "/v1/results/jwks", NULL, NULL, 0, 200 },
	{ route_machines_result, "GET", "/v1/machines/node-a/result", "node-a",
	  NULL, 1, 200 },
	{ route_machines_result, "GET", "/v1/machines/node-p/result", "node-p",
	  NULL, 1, 200 },
	{ route_machines_result, "GET", "/v1/machines/x/result", "x", NULL, 1,
	  404 },
	{ route_machines_result, "GET", "/v1/machines/node-a/result", "node-a",
	  NULL, 0, 401 },
	{ route_machines_events, "GET", "/v1/machines/node-b/events", "node-b",
	  NULL, 1, 200 },
	{ route_machines_events, "GET", "/v1/machines/x/events", "x", NULL, 1,
	  404 },
	{ route_machines_records, "GET", "/v1/machines/node-b/records",
	  "node-b", NULL, 1, 200 },
	{ route_machines_records, "GET", "/v1/machines/node-a/records",
	  "node-a", NULL, 1, 200 },
	{ route_machines_approve, "POST", "/v1/machines/node-p/approve",
	  "node-p", "{\"v\":1,\"ek\":\"" FPR_A "\"}", 1, 409 },
	{ route_machines_approve, "POST", "/v1/machines/node-p/approve",
	  "node-p", NULL, 1, 400 },
	{ route_machines_approve, "POST", "/v1/machines/node-p/approve",
	  "node-p", "{\"v\":1,\"ek\":\"" FPR_P "\"}", 1, 200 },
	{ route_machines_approve, "POST", "/v1/machines/x/approve", "x",
	  "{\"v\":1,\"ek\":\"" FPR_P "\"}", 1, 404 },
	{ route_machines_approve, "POST", "/v1/machines/x/approve", "x", NULL,
	  0, 401 },
	{ route_machines_add, "POST", "/v1/machines", NULL,
	  "{\"v\":1,\"id\":\"node-r\",\"ek\":\"" D2 "\"}", 1, 201 },
	{ route_machines_add, "POST", "/v1/machines", NULL,
	  "{\"v\":1,\"id\":\"node-r\",\"ek\":\"" D2 "\"}", 1, 200 },
	{ route_machines_add, "POST", "/v1/machines", NULL,
	  "{\"v\":1,\"id\":\"node-a\",\"ek\":\"" D2 "\"}", 1, 409 },
	{ route_machines_add, "POST", "/v1/machines", NULL,
	  "{\"v\":1,\"id\":\"a/b\",\"ek\":\"" D2 "\"}", 1, 400 },
	{ route_machines_add, "POST", "/v1/machines", NULL, "{}", 0, 401 },
	{ route_audit, "GET", "/v1/audit", NULL, NULL, 1, 200 },
	{ route_audit, "GET", "/v1/audit", NULL, NULL, 0, 401 },
	{ route_whoami, "GET", "/v1/whoami", NULL, NULL, 1, 200 },
	{ route_whoami, "GET", "/v1/whoami", NULL, NULL, 0, 401 },
	{ route_machines_remove, "DELETE", "/v1/machines/node-r", "node-r",
	  NULL, 1, 200 },
	{ route_machines_remove, "DELETE", "/v1/machines/node-a", "node-a",
	  NULL, 1, 200 },
	{ route_machines_remove, "DELETE", "/v1/machines/node-a", "node-a",
	  NULL, 1, 404 },
	{ route_machines_remove, "DELETE", "/v1/machines/x", "x", NULL, 0,
	  401 },
	{ route_refs_import, "POST", "/v1/references", NULL,
	  "{\"v\":1,\"source\":{\"kind\":\"deb\",\"name\":\"a.deb\"},"
	  "\"refs\":[{\"path\":\"/usr/bin/b\",\"algo\":\"sha256\","
	  "\"digest\":\"" D2 "\"}]}",
	  1, 200 },
	{ route_refs_import, "POST", "/v1/references", NULL,
	  "{\"v\":1,\"refs\":7}", 1, 400 },
	{ route_refs_list, "GET", "/v1/references", NULL, NULL, 1, 200 },
	{ route_refs_delete, "DELETE", "/v1/references", NULL,
	  "{\"v\":1,\"source\":{\"kind\":\"deb\",\"name\":\"a.deb\"}}", 1,
	  200 },
	{ route_refs_delete, "DELETE", "/v1/references", NULL, "{", 1, 400 },
	{ route_agents_nonce, "POST", "/v1/agents/ghost/nonce", "ghost", NULL,
	  0, 404 },
	{ route_sources_list, "GET", "/v1/sources", NULL, NULL, 1, 200 },
	{ route_sources_list, "GET", "/v1/sources", NULL, NULL, 0, 401 },
	{ route_policies_list, "GET", "/v1/policies", NULL, NULL, 1, 200 },
	{ route_policies_list, "GET", "/v1/policies", NULL, NULL, 0, 401 },
	{ route_policies_get, "GET", "/v1/policies/default", "default", NULL, 1,
	  200 },
	{ route_policies_get, "GET", "/v1/policies/x", "x", NULL, 1, 404 },
	{ route_policies_put, "PUT", "/v1/policies/web", "web", WEB_POLICY, 1,
	  201 },
	{ route_policies_put, "PUT", "/v1/policies/web", "web", WEB_POLICY, 1,
	  200 },
	{ route_policies_list, "GET", "/v1/policies", NULL, NULL, 1, 200 },
	{ route_policies_get, "GET", "/v1/policies/web", "web", NULL, 1, 200 },
	{ route_machines_records, "GET", "/v1/machines/node-b/records",
	  "node-b", NULL, 1, 200 },
	{ route_policies_put, "PUT", "/v1/policies/web", "web",
	  "{\"sources\":7}", 1, 400 },
	{ route_policies_put, "PUT", "/v1/policies/default", "default",
	  "{\"sources\":[\"*\"]}", 1, 409 },
	{ route_policies_put, "PUT", "/v1/policies/web", "web", WEB_POLICY, 0,
	  401 },
	{ route_policies_delete, "DELETE", "/v1/policies/default", "default",
	  NULL, 1, 409 },
	{ route_policies_delete, "DELETE", "/v1/policies/web", "web", NULL, 1,
	  200 },
	{ route_policies_delete, "DELETE", "/v1/policies/web", "web", NULL, 1,
	  404 },
	{ route_policies_delete, "DELETE", "/v1/policies/web", "web", NULL, 0,
	  401 },
	{ route_keys_list, "GET", "/v1/keys", NULL, NULL, 1, 200 },
	{ route_keys_list, "GET", "/v1/keys", NULL, NULL, 0, 401 },
	{ route_keys_add, "POST", "/v1/keys", NULL, "{\"v\":1,\"cert\":\"x\"}",
	  1, 400 },
	{ route_keys_add, "POST", "/v1/keys", NULL, "{\"v\":1,\"cert\":\"x\"}",
	  0, 401 },
	{ route_keys_delete, "DELETE", "/v1/keys/x", "x", NULL, 1, 404 },
	{ route_keys_delete, "DELETE", "/v1/keys/x", "x", NULL, 0, 401 },
	{ route_import_efi, "POST", "/v1/references/efi", NULL,
	  "{\"v\":1,\"files\":[{\"name\":\"a.efi\",\"data\":\"TVo=\"}]}", 1,
	  400 },
	{ route_import_efi, "POST", "/v1/references/efi", NULL, "{}", 0, 401 },
};

static void test_answers_match(void **state)
{
	struct fx *f = *state;
	unsigned int status;
	size_t i;
	json_t *a;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		a = tv_call(f->t, calls[i].h, calls[i].param, calls[i].body,
			    calls[i].auth ? TV_AUTH : NULL, &status);
		if (status != calls[i].status)
			fail_msg("%s %s: %u, wanted %u (%s)", calls[i].method,
				 calls[i].path, status, calls[i].status,
				 tv_msg(a));
		check_answer(f, calls[i].method, calls[i].path, status, a);
		json_decref(a);
	}
}

/* The checker itself catches what it should. */
/* A key imported, listed and deleted: its answers against the document. */
static void test_key_answers_match(void **state)
{
	struct fx *f = *state;
	unsigned int status;
	char *cert, *key, *body;
	json_t *a, *b;

	test_cert_make(&cert, &key);
	b = json_pack("{s:i,s:s,s:s}", "v", 1, "cert", cert, "name", "k1");
	body = json_dumps(b, JSON_COMPACT);
	a = tv_call(f->t, route_keys_add, NULL, body, TV_AUTH, &status);
	assert_int_equal(status, 201);
	check_answer(f, "POST", "/v1/keys", status, a);
	json_decref(a);
	a = tv_call(f->t, route_keys_add, NULL, body, TV_AUTH, &status);
	assert_int_equal(status, 409);
	check_answer(f, "POST", "/v1/keys", status, a);
	json_decref(a);
	a = tv_call(f->t, route_keys_list, NULL, NULL, TV_AUTH, &status);
	assert_int_equal(json_array_size(json_object_get(a, "keys")), 1);
	check_answer(f, "GET", "/v1/keys", status, a);
	json_decref(a);
	a = tv_call(f->t, route_keys_delete, "k1", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	check_answer(f, "DELETE", "/v1/keys/k1", status, a);
	json_decref(a);
	free(body);
	json_decref(b);
	free(cert);
	free(key);
}

static void test_checker_catches(void **state)
{
	static const char *const bad[] = {
		"{\"v\":1,\"machines\":[],\"next\":null,\"extra\":1}",
		"{\"v\":2,\"machines\":[],\"next\":null}",
		"{\"v\":1,\"machines\":[{\"id\":\"a\"}],\"next\":null}",
		"{\"v\":1,\"machines\":{},\"next\":null}",
		"{\"v\":1,\"next\":null}",
		"{\"v\":1,\"machines\":[],\"next\":\"a b\"}",
	};
	struct fx *f = *state;
	struct oas_ctx c = { .spec = f->spec };
	json_t *schema = oas_response_schema(f->spec, "GET", "/v1/machines",
					     200, "application/json"),
	       *j;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = json_loads(bad[i], 0, NULL);
		assert_int_equal(oas_check(&c, schema, j), -1);
		json_decref(j);
	}
}

static void check_wire(struct fx *f, enum wire_kind kind, const void *msg,
		       const char *name)
{
	struct oas_ctx c = { .spec = f->spec };
	struct imt_error err;
	char ref[64];
	json_t *schema, *j;
	char *text = wire_encode(kind, msg, &err);

	if (text == NULL)
		fail_msg("wire_encode %s: %s", name, err.msg);
	snprintf(ref, sizeof(ref), "#/components/schemas/%s", name);
	schema = json_pack("{s:s}", "$ref", ref);
	j = json_loads(text, 0, NULL);
	if (oas_check(&c, schema, j) < 0)
		fail_msg("%s: %s", name, c.why);
	json_decref(j);
	json_decref(schema);
	free(text);
}

/* The agent messages as wire.c writes them match their schemas. */
static void test_wire_messages_match(void **state)
{
	static uint8_t blob[40] = { 1, 2, 3 };
	struct fx *f = *state;
	struct wire_enroll en = {
		.agent = "node-1",
		.ek_pub = { blob, 40 },
		.ek_cert = { blob, 10 },
		.ak_pub = { blob, 39 },
	};
	struct wire_challenge ch = { { blob, 38 }, { blob, 37 } };
	struct wire_activate ac = { .agent = "node-1", .proof_len = 32 };
	struct wire_evidence ev = {
		.agent = "node-1",
		.nonce_len = 20,
		.quote = { blob, 40 },
		.signature = { blob, 30 },
		.first_index = 7,
		.records = { blob, 0 },
	};
	struct wire_verdict vd = { .state = "trusted",
				   .nonce_len = 20,
				   .nonce_expires = 1700000000,
				   .next_index = 9 };

	struct wire_bundle bu = { .policy = "default", .ak_pub = { blob, 39 } };

	ev.bank = hash_algo_bank("sha256");
	pcr_set_init(&ev.pcrs, ev.bank);
	ev.pcrs.present = 0x7ff;
	bu.ev = ev;
	bu.ev.agent[0] = '\0';
	bu.ev.first_index = 0;
	check_wire(f, WIRE_BUNDLE, &bu, "VerifyBundle");
	check_wire(f, WIRE_ENROLL, &en, "Enroll");
	check_wire(f, WIRE_CHALLENGE, &ch, "Challenge");
	check_wire(f, WIRE_ACTIVATE, &ac, "Activate");
	check_wire(f, WIRE_EVIDENCE, &ev, "Evidence");
	check_wire(f, WIRE_VERDICT, &vd, "Verdict");
	/* and the agent routes are documented with those schemas */
	assert_string_equal(json_string_value(
				    json_object_get(oas_request_schema(f->spec,
								       "POST",
								       "/v1/agents"),
						    "$ref")),
			    "#/components/schemas/Enroll");
	assert_string_equal(json_string_value(
				    json_object_get(oas_request_schema(f->spec,
								       "POST",
								       "/v1/agents/n/evidence"),
						    "$ref")),
			    "#/components/schemas/Evidence");
	assert_string_equal(json_string_value(
				    json_object_get(oas_response_schema(f->spec,
									"POST",
									"/v1/agents/n/evidence",
									200,
									"application/json"),
						    "$ref")),
			    "#/components/schemas/Verdict");
	assert_string_equal(json_string_value(
				    json_object_get(oas_request_schema(f->spec,
								       "POST",
								       "/v1/verify"),
						    "$ref")),
			    "#/components/schemas/VerifyBundle");
}

static void test_metrics(void **state)
{
	struct fx *f = *state;
	struct http_request req = { 0 };
	struct http_response res = { 0 };

	atomic_store(&f->t->v.metrics.records, 42);
	route_metrics(&f->t->v, &req, &res);
	assert_int_equal(res.status, 200);
	assert_string_equal(res.content_type,
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_non_null(
		strstr(res.body, "imatrust_machines{state=\"trusted\"} 1\n"));
	assert_non_null(
		strstr(res.body, "imatrust_machines{state=\"stale\"} 0\n"));
	assert_non_null(strstr(res.body, "imatrust_records_judged_total 42\n"));
	assert_non_null(strstr(res.body, "# TYPE imatrust_uptime_seconds "
					 "gauge\nimatrust_uptime_seconds "));
	free(res.body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_route_documented,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers_match, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_key_answers_match, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_checker_catches, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wire_messages_match, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_boot_log.c - GET /v1/machines/{id}/boot-log and the
 * machine detail's and listing's "boot_log": token, 404s naming why, the decoded and
 * CEL JSON, the raw bytes (NULs included) through the real HTTPS front;
 * POST /v1/machines/{id}/boot-baseline under a policy with "baseline":
 * "first-boot": another kernel's boot untrusted by rule baseline, the
 * approval trusting it again.
 */
#include "db_boot.h"
#include "db_machine.h"
#include "verifier_test.h"

#include "../../fixture.h"
#include "../../proto/eventlog_build.h"
#include "hex.h"

/* A real OVMF log (tests/fixtures/eventlog/patched-sb): NULs throughout. */
static uint8_t *blog;
static size_t blog_len;

static int setup(void **state)
{
	struct tv *t = tv_new();

	blog = fixture_read("eventlog/patched-sb/binary_bios_measurements",
			    &blog_len);
	tv_machine(t, "node-a", DB_STATE_TRUSTED);
	tv_machine(t, "node-b", DB_STATE_TRUSTED);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	free(blog);
	blog = NULL;
	tv_free(*state);
	return 0;
}

static void store_bytes(struct tv *t, const char *id, const uint8_t *buf,
			size_t len)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
	};
	enum db_boot_log_result res;
	struct imt_error err;
	int64_t boot = tv_boot(t, id, recs, 1);

	if (db_boot_log_store(t->v.db, boot, buf, len, TV_NOW + 3, &res, &err) <
	    0)
		fail_msg("db_boot_log_store: %s", err.msg);
	assert_int_equal(res, DB_BOOT_LOG_STORED);
}

static void store_log(struct tv *t, const char *id)
{
	store_bytes(t, id, blog, blog_len);
}

static void test_token_and_404(void **state)
{
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	a = tv_call(t, route_machines_boot_log, "node-a", NULL, NULL, &status);
	assert_int_equal(status, 401);
	json_decref(a);
	a = tv_call(t, route_machines_boot_log, "nobody", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 404);
	assert_non_null(strstr(tv_msg(a), "no machine \"nobody\""));
	json_decref(a);
	/* a machine without a boot, then a boot without a log */
	a = tv_call(t, route_machines_boot_log, "node-a", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 404);
	assert_non_null(strstr(tv_msg(a), "has no firmware event log"));
	json_decref(a);
	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_true(json_is_null(json_object_get(a, "boot_log")));
	json_decref(a);
}

static void test_detail_and_json(void **state)
{
	uint8_t sha[32];
	char want[65];
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *l;

	store_log(t, "node-a");
	assert_int_equal(db_boot_log_sha256(blog, blog_len, sha), 0);
	hex_encode(sha, 32, want);
	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	l = json_object_get(a, "boot_log");
	assert_true(json_is_true(json_object_get(l, "present")));
	assert_int_equal(json_integer_value(json_object_get(l, "size")),
			 blog_len);
	assert_string_equal(json_string_value(json_object_get(l, "sha256")),
			    want);
	assert_int_equal(json_integer_value(json_object_get(l, "received")),
			 TV_NOW + 3);
	json_decref(a);
	/* the other machine's log is not this one's */
	a = tv_call(t, route_machines_get, "node-b", NULL, TV_AUTH, &status);
	assert_true(json_is_null(json_object_get(a, "boot_log")));
	json_decref(a);
	/* the listing carries the same summary per row (the console's Boot
	 * column asks nothing more) */
	a = tv_call(t, route_machines_list, NULL, NULL, TV_AUTH, &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_array_size(json_object_get(a, "machines")), 2);
	l = json_object_get(json_array_get(json_object_get(a, "machines"), 0),
			    "boot_log");
	assert_string_equal(json_string_value(json_object_get(l, "sha256")),
			    want);
	assert_true(json_is_null(
		json_object_get(json_array_get(json_object_get(a, "machines"),
					       1),
				"boot_log")));
	json_decref(a);
	a = tv_call(t, route_machines_boot_log, "node-a", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	assert_true(json_array_size(json_object_get(a, "events")) > 10);
	json_decref(a);
	/* stored bytes that are no TCG log: shown as such, not as empty */
	store_bytes(t, "node-b", (const uint8_t *)"not a log", 9);
	a = tv_call(t, route_machines_boot_log, "node-b", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 422);
	assert_non_null(strstr(tv_msg(a), "does not decode"));
	json_decref(a);
}

/* A SHA-1-only log the agent sent: shown as legacy, with the reason,
 * not "its agent sent none" nor undecodable (issue 34). */
static void test_legacy_log(void **state)
{
	static struct elb l;
	struct tv *t = *state;
	unsigned int status;
	json_t *a;

	elb_reset(&l);
	elb_legacy_event(&l, 0, 0x00000008, "v", 1);
	elb_legacy_event(&l, 7, 0x00000004, "\0\0\0\0", 4);
	store_bytes(t, "node-b", l.buf, l.len);
	a = tv_call(t, route_machines_boot_log, "node-b", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(a, "format")),
			    "legacy");
	assert_non_null(strstr(json_string_value(json_object_get(a, "reason")),
			       "SHA-1-only"));
	assert_int_equal(json_integer_value(json_object_get(a, "size")),
			 (json_int_t)l.len);
	json_decref(a);
}

static void test_formats_over_https(void **state)
{
	struct tv *t = *state;
	char *text, type[128];
	json_t *a, *cel;
	long status;

	tv_serve(t);
	store_log(t, "node-a");
	status = tv_http(t, "GET", "/v1/machines/node-a/boot-log?format=raw",
			 NULL, TV_AUTH, &text, type, sizeof(type));
	assert_int_equal(status, 200);
	assert_string_equal(type, "application/octet-stream");
	/* the bytes whole, past the NULs */
	assert_memory_equal(text, blog, blog_len);
	free(text);
	a = tv_get(t, "GET", "/v1/machines/node-a/boot-log?format=cel", NULL,
		   &status);
	assert_int_equal(status, 200);
	/* CEL records: numbered from 0, the Spec ID event first, per bank */
	cel = json_array_get(json_object_get(a, "cel"), 0);
	assert_int_equal(json_integer_value(json_object_get(cel, "recnum")), 0);
	assert_string_equal(json_string_value(
				    json_object_get(cel, "content_type")),
			    "pcclient_std");
	assert_true(json_array_size(json_object_get(a, "cel")) > 10);
	json_decref(a);
	a = tv_get(t, "GET", "/v1/machines/node-a/boot-log?format=pdf", NULL,
		   &status);
	assert_int_equal(status, 400);
	assert_non_null(strstr(tv_msg(a), "format"));
	json_decref(a);
	a = tv_get(t, "GET", "/v1/machines/node-b/boot-log?format=raw", NULL,
		   &status);
	assert_int_equal(status, 404);
	json_decref(a);
}

/* A boot of @id whose stored log is fixture @name; the first one is the
 * machine's baseline, as the engine keeps it. */
static void boot_with(struct tv *t, const char *id, uint32_t reset,
		      const char *name)
{
	enum db_boot_log_result res;
	struct imt_error err;
	struct db_boot b;
	char rel[128];
	int64_t boot;
	size_t len;
	uint8_t *log;

	if (db_boot_start(t->v.db, id, reset, 0, TV_NOW, &b, &err) < 0)
		fail_msg("db_boot_start: %s", err.msg);
	boot = b.id;

	snprintf(rel, sizeof(rel), "eventlog/%s/binary_bios_measurements",
		 name);
	log = fixture_read(rel, &len);
	if (db_boot_log_store(t->v.db, boot, log, len, TV_NOW + 3, &res, &err) <
		    0 ||
	    db_boot_baseline_keep(t->v.db, id, log, len, TV_NOW + 3, &err) < 0)
		fail_msg("store: %s", err.msg);
	free(log);
}

static void test_baseline_approve(void **state)
{
	static const char policy[] =
		"{\"machines\":[\"node-*\"],\"sources\":[\"*\"],"
		"\"boot\":{\"baseline\":\"first-boot\"}}";
	struct tv *t = *state;
	unsigned int status;
	json_t *a, *r, *b;

	boot_with(t, "node-a", 1, "patched-sb");
	boot_with(t, "node-a", 2, "stock-sb"); /* a reboot, another kernel */
	a = tv_call(t, route_policies_put, "measured", policy, TV_AUTH,
		    &status);
	assert_int_equal(status, 201); /* created */
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_untrusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "node-a"), DB_STATE_UNTRUSTED);
	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	r = json_loads(json_string_value(
			       json_object_get(json_object_get(a, "machine"),
					       "state_reason")),
		       0, NULL);
	if (r == NULL) /* the reason may be served as an object */
		r = json_incref(json_object_get(json_object_get(a, "machine"),
						"state_reason"));
	assert_string_equal(json_string_value(json_object_get(r, "rule")),
			    "baseline");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 4);
	json_decref(r);
	b = json_object_get(json_object_get(a, "boot_log"), "baseline");
	assert_true(json_is_false(json_object_get(b, "current")));
	assert_true(json_is_null(json_object_get(b, "approved_by")));
	json_decref(a);

	/* no token, no machine, a machine whose boot has no log */
	a = tv_call(t, route_machines_boot_baseline, "node-a", NULL, NULL,
		    &status);
	assert_int_equal(status, 401);
	json_decref(a);
	a = tv_call(t, route_machines_boot_baseline, "nobody", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 404);
	json_decref(a);
	a = tv_call(t, route_machines_boot_baseline, "node-b", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 404);
	json_decref(a);

	/* the operator approves the new kernel's boot: trusted again */
	a = tv_call(t, route_machines_boot_baseline, "node-a", NULL, TV_AUTH,
		    &status);
	assert_int_equal(status, 200);
	assert_int_equal(json_integer_value(
				 json_object_get(a, "machines_now_trusted")),
			 1);
	json_decref(a);
	assert_int_equal(tv_state(t, "node-a"), DB_STATE_TRUSTED);
	a = tv_call(t, route_machines_get, "node-a", NULL, TV_AUTH, &status);
	b = json_object_get(json_object_get(a, "boot_log"), "baseline");
	assert_true(json_is_true(json_object_get(b, "current")));
	assert_true(json_is_string(json_object_get(b, "approved_by")));
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_token_and_404, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_detail_and_json, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_baseline_approve, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_legacy_log, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_formats_over_https, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

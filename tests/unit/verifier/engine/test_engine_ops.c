// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine_ops.c - what operators change besides identities, through
 * the engine's entry points (engine_ops.h) without HTTP: what is stored,
 * the audit entry of each change, what is refused and why, and that the
 * caches in force (policies, keyring) are read again.
 */
#include "verifier_test.h"
#include "engine.h"
#include "engine_ops.h"

#define CAUSE "{\"check\":\"rejudge\"}"

/* The audit entries of @action by alice. */
static int audits(struct tv *t, const char *action)
{
	return count_rows(t,
			  "SELECT count(*) FROM audit WHERE operator = "
			  "'alice' AND action = ?1",
			  action);
}

static struct policy *parse(const char *name, const char *doc)
{
	struct imt_error err;
	struct policy *p = policy_parse(name, doc, strlen(doc), &err);

	if (p == NULL)
		fail_msg("policy_parse %s: %s", name, err.msg);
	return p;
}

static void test_policy_put_delete(void **state)
{
	struct tv *t = tv_new();
	struct policy *p = parse("web", "{\"sources\":[\"deb:*\"]}");
	struct policy *d = parse("web", "{\"default\":true}");
	struct engine_answer ans;

	(void)state;
	assert_true(engine_policy_is_default(&t->v, "default"));
	assert_false(engine_policy_is_default(&t->v, "web"));
	engine_policy_put(&t->v, p, "{\"sources\":[\"deb:*\"]}", "alice",
			  TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CREATED);
	assert_int_equal(engine_http_status(ans.status), 201);
	/* the policies in force were read again: the new one is there */
	pthread_mutex_lock(&t->v.lock);
	assert_non_null(policies_find(&t->v, "web"));
	pthread_mutex_unlock(&t->v.lock);
	/* again, now the default: replaced, and the mark moved */
	engine_policy_put(&t->v, d, "{\"default\":true}", "alice", TV_NOW,
			  &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_true(engine_policy_is_default(&t->v, "web"));
	assert_false(engine_policy_is_default(&t->v, "default"));
	assert_int_equal(audits(t, "policy-put"), 2);
	/* the default cannot go; an unknown name is not there */
	engine_policy_delete(&t->v, "web", "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_int_equal(engine_http_status(ans.status), 409);
	assert_true(strncmp(ans.message, "delete policy: ", 15) == 0);
	engine_policy_delete(&t->v, "nope", "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_string_equal(ans.message, "no policy \"nope\"");
	assert_int_equal(audits(t, "policy-delete"), 0);
	engine_policy_delete(&t->v, "default", "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM policies", NULL),
			 1);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE "
				    "action = 'policy-delete' AND detail = ?1",
				    CAUSE),
			 1);
	policy_free(p);
	policy_free(d);
	tv_free(t);
}

static void test_key_add_delete(void **state)
{
	static const uint8_t der[] = { 0x30, 0x03, 0x02, 0x01, 0x07 };
	struct tv *t = tv_new();
	struct db_key k = {
		.name = "k1",
		.keyid = { 1, 2, 3, 4 },
		.fpr = { 9 },
		.subject = "CN=k1",
		.der = der,
		.der_len = sizeof(der),
	};
	struct engine_answer ans;

	(void)state;
	engine_key_add(&t->v, &k, "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CREATED);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM keys", NULL), 1);
	/* the same name again: refused, nothing more stored or audited */
	engine_key_add(&t->v, &k, "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_true(strncmp(ans.message, "add key: ", 9) == 0);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM keys", NULL), 1);
	assert_int_equal(audits(t, "key-add"), 1);
	engine_key_delete(&t->v, "k2", "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_int_equal(engine_http_status(ans.status), 404);
	assert_string_equal(ans.message,
			    "no key \"k2\" imported on its own (a key that "
			    "came with an import goes with it)");
	engine_key_delete(&t->v, "k1", "alice", CAUSE, TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM keys", NULL), 0);
	assert_int_equal(audits(t, "key-delete"), 1);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_put_delete),
		cmocka_unit_test(test_key_add_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

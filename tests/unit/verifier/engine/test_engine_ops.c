// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine_ops.c - what operators change besides identities, through
 * the engine's entry points (engine_ops.h) without HTTP: what is stored,
 * the audit entry of each change, what is refused and why (the default
 * policy, the webhook cap, the config file's endpoints, a machine without
 * a boot log, an EFI source without a name), that the policies in force
 * are read again, and the writer's token check.
 */
#include "db_boot.h"
#include "hash_algo.h"
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

/* Endpoint "w@i" (from the config file with @from_config). */
static void webhook(struct tv *t, int i, int from_config,
		    struct engine_answer *ans)
{
	static const uint8_t secret[32] = { 7 };
	char name[16];
	struct db_webhook_new n = {
		.name = name,
		.url = "https://nac.example/hook",
		.secret = secret,
		.secret_len = sizeof(secret),
		.key_id = "k0",
		.from_config = from_config,
		.max_pending = 10,
	};

	snprintf(name, sizeof(name), "w%d", i);
	engine_webhook_add(&t->v, &n, "alice", TV_NOW, ans);
}

static void test_webhook_cap(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	int i;

	(void)state;
	for (i = 0; i < ENGINE_WEBHOOKS_MAX; i++) {
		webhook(t, i, i == 0, &ans);
		assert_int_equal(ans.status, ENGINE_CREATED);
	}
	webhook(t, i, 0, &ans);
	assert_int_equal(ans.status, ENGINE_TOO_LARGE);
	assert_int_equal(engine_http_status(ans.status), 413);
	assert_string_equal(ans.message, "64 webhook endpoints already");
	assert_int_equal(count_rows(t, "SELECT count(*) FROM webhooks", NULL),
			 ENGINE_WEBHOOKS_MAX);
	assert_int_equal(audits(t, "webhook-add"), ENGINE_WEBHOOKS_MAX);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE detail "
				    "= ?1",
				    "{\"name\":\"w1\",\"url\":\"https://"
				    "nac.example/hook\",\"key_id\":\"k0\"}"),
			 1);
	/* a name taken is the storage's conflict */
	engine_webhook_delete(&t->v, "w1", "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	webhook(t, 2, 0, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_true(strncmp(ans.message, "add webhook: ", 13) == 0);
	tv_free(t);
}

static void test_webhook_delete(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;

	(void)state;
	webhook(t, 0, 1, &ans);
	webhook(t, 1, 0, &ans);
	engine_webhook_delete(&t->v, "w0", "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_int_equal(engine_http_status(ans.status), 409);
	assert_string_equal(ans.message,
			    "webhook \"w0\" is defined in the config file: "
			    "remove its webhook line and restart");
	engine_webhook_delete(&t->v, "w9", "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_string_equal(ans.message, "no webhook \"w9\"");
	assert_int_equal(audits(t, "webhook-delete"), 0);
	engine_webhook_delete(&t->v, "w1", "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM webhooks WHERE "
				    "name = ?1",
				    "w1"),
			 0);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE action "
				    "= 'webhook-delete' AND detail = ?1",
				    "{\"name\":\"w1\"}"),
			 1);
	tv_free(t);
}

static void test_boot_baseline(void **state)
{
	static const struct tv_record recs[] = {
		{ "boot_aggregate", 1, DB_VERDICT_EXCLUDED },
	};
	static const uint8_t log[] = "a firmware event log";
	uint8_t sha[DB_BOOT_LOG_SHA256_SIZE], want[DB_BOOT_LOG_SHA256_SIZE];
	enum db_boot_log_result r;
	struct db_boot_baseline b;
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct imt_error err;
	int64_t boot;
	int found = 0;

	(void)state;
	engine_boot_baseline(&t->v, "m1", "alice", CAUSE, TV_NOW, sha, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_int_equal(engine_http_status(ans.status), 404);
	assert_string_equal(ans.message,
			    "no machine \"m1\" with a firmware event log for "
			    "its current boot");
	/* a machine whose current boot has no log: the same */
	tv_machine(t, "m1", DB_STATE_TRUSTED);
	boot = tv_boot(t, "m1", recs, 1);
	engine_boot_baseline(&t->v, "m1", "alice", CAUSE, TV_NOW, sha, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_int_equal(audits(t, "boot-baseline"), 0);
	assert_int_equal(db_boot_log_store(t->v.db, boot, log, sizeof(log),
					   TV_NOW, &r, &err),
			 0);
	engine_boot_baseline(&t->v, "m1", "alice", CAUSE, TV_NOW + 5, sha,
			     &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(db_boot_log_sha256(log, sizeof(log), want), 0);
	assert_memory_equal(sha, want, sizeof(want));
	assert_int_equal(db_boot_baseline_get(t->v.db, "m1", 0, &b, &found,
					      &err),
			 0);
	assert_true(found);
	assert_memory_equal(b.sha256, want, sizeof(want));
	assert_string_equal(b.approved_by, "alice");
	assert_int_equal(b.approved_at, TV_NOW + 5);
	db_boot_baseline_release(&b);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE action "
				    "= 'boot-baseline' AND detail = ?1",
				    CAUSE),
			 1);
	tv_free(t);
}

static void test_efi_import(void **state)
{
	struct import_efi *imp = calloc(1, sizeof(*imp));
	struct tv *t = tv_new();
	struct engine_answer ans;
	size_t added = 9;

	(void)state;
	assert_non_null(imp);
	imp->bank[0] = hash_algo_bank("sha256");
	imp->nbanks = 1;
	snprintf(imp->file[0].name, sizeof(imp->file[0].name), "shimx64.efi");
	imp->file[0].digest[0][0] = 0xef;
	imp->nfiles = 1;
	engine_efi_import(&t->v, "shim", "15.8", imp, "alice", CAUSE, TV_NOW,
			  &added, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(added, 1);
	assert_int_equal(audits(t, "import"), 1);
	/* the same image again adds nothing, and is not audited */
	engine_efi_import(&t->v, "shim", "15.8", imp, "alice", CAUSE, TV_NOW,
			  &added, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(added, 0);
	assert_int_equal(audits(t, "import"), 1);
	/* a source without a name: refused, nothing stored */
	engine_efi_import(&t->v, "", NULL, imp, "alice", CAUSE, TV_NOW, &added,
			  &ans);
	free(imp);
	assert_int_equal(ans.status, ENGINE_MALFORMED);
	assert_int_equal(engine_http_status(ans.status), 400);
	assert_int_equal(added, 0);
	assert_true(strncmp(ans.message, "not imported: ", 14) == 0);
	assert_non_null(strstr(ans.message, "; nothing stored"));
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM sources WHERE name "
				    "= ?1",
				    ""),
			 0);
	assert_int_equal(audits(t, "import"), 1);
	tv_free(t);
}

static void test_token_check(void **state)
{
	struct tv *t = tv_new();
	struct db_token tok;
	struct imt_error err;
	char bad[] = TV_TOKEN;
	int ok = 0;

	(void)state;
	assert_int_equal(engine_token_check(&t->v, (const uint8_t *)TV_TOKEN,
					    strlen(TV_TOKEN), &tok, &ok, &err),
			 0);
	assert_true(ok);
	assert_string_equal(tok.name, "alice");
	assert_int_equal(tok.role, DB_ROLE_ADMIN);
	assert_int_equal(tok.last_used, 0);
	engine_token_touch(&t->v, "alice", 1000, 0);
	assert_int_equal(engine_token_check(&t->v, (const uint8_t *)TV_TOKEN,
					    strlen(TV_TOKEN), &tok, &ok, &err),
			 0);
	assert_int_equal(tok.last_used, 1000);
	/* a read's touch skips a held lock rather than wait for it */
	pthread_mutex_lock(&t->v.lock);
	engine_token_touch(&t->v, "alice", 2000, 1);
	pthread_mutex_unlock(&t->v.lock);
	assert_int_equal(engine_token_check(&t->v, (const uint8_t *)TV_TOKEN,
					    strlen(TV_TOKEN), &tok, &ok, &err),
			 0);
	assert_int_equal(tok.last_used, 1000);
	bad[0] ^= 1;
	assert_int_equal(engine_token_check(&t->v, (const uint8_t *)bad,
					    strlen(bad), &tok, &ok, &err),
			 0);
	assert_false(ok);
	assert_string_equal(tok.name, "");
	/* the lock is free again: a second check does not wait */
	assert_int_equal(pthread_mutex_trylock(&t->v.lock), 0);
	pthread_mutex_unlock(&t->v.lock);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_put_delete),
		cmocka_unit_test(test_key_add_delete),
		cmocka_unit_test(test_webhook_cap),
		cmocka_unit_test(test_webhook_delete),
		cmocka_unit_test(test_boot_baseline),
		cmocka_unit_test(test_efi_import),
		cmocka_unit_test(test_token_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_judge.c - a record's verdict under the references and the
 * machine's named policy.
 */
#include "db_boot.h"
#include "db_key.h"
#include "db_machine.h"
#include "db_policy.h"
#include "db_ref.h"
#include "verifier_test.h"
#include "judge.h"

#include <openssl/sha.h>

static void ref_from(struct tv *t, enum db_source_kind kind, const char *src,
		     const char *path, uint8_t fill, int conffile)
{
	struct db_ref_source s = { .kind = kind, .name = src };
	struct imt_error err;
	uint8_t d[32];
	struct db_ref_entry e = { .path = path,
				  .algo = "sha256",
				  .digest = d,
				  .digest_len = 32,
				  .conffile = conffile };

	tv_digest(fill, d);
	if (db_ref_add_entry(t->v.db, &s, &e, TV_NOW, &err) < 0)
		fail_msg("db_ref_add_entry: %s", err.msg);
}

static void ref(struct tv *t, const char *path, uint8_t fill)
{
	ref_from(t, DB_SOURCE_DIR_TREE, "test", path, fill, 0);
}

static void put_policy(struct tv *t, const char *name, const char *body)
{
	struct policy *p;
	struct imt_error err;

	p = policy_parse(name, body, strlen(body), &err);
	if (p == NULL)
		fail_msg("policy_parse: %s", err.msg);
	if (db_policy_put(t->v.db, name, body, p->is_default,
			  (const char *const *)p->sources, p->nsources, TV_NOW,
			  &err) < 0)
		fail_msg("db_policy_put: %s", err.msg);
	policy_free(p);
	policies_invalidate(&t->v);
}

static enum db_verdict judge_as(struct tv *t, const char *machine,
				const char *path, uint8_t fill, int violation)
{
	struct judge_input in = { .path = path,
				  .algo = "sha256",
				  .digest_len = 32,
				  .violation = violation };
	enum db_verdict v;
	struct imt_error err;
	uint8_t d[32];

	tv_digest(fill, d);
	in.digest = d;
	assert_int_equal(judge_record(&t->v, policies_for(&t->v, machine), &in,
				      &v, &err),
			 0);
	return v;
}

static enum db_verdict judge(struct tv *t, const char *path, uint8_t fill,
			     int violation)
{
	return judge_as(t, "m1", path, fill, violation);
}

static void test_verdicts_and_policy(void **state)
{
	struct tv *t = tv_new();
	const struct policy *p;

	(void)state;
	ref(t, "/usr/bin/a", 1);
	assert_int_equal(judge(t, "/usr/bin/a", 1, 0), DB_VERDICT_KNOWN);
	assert_int_equal(judge(t, "/usr/bin/a", 2, 0), DB_VERDICT_MISMATCH);
	assert_int_equal(judge(t, "/usr/bin/b", 9, 0), DB_VERDICT_UNKNOWN);
	/* a's digest under another name: unknown unless any_path = allow */
	assert_int_equal(judge(t, "/tmp/a-copy", 1, 0), DB_VERDICT_UNKNOWN);
	strcpy(t->v.cfg.any_path, "allow");
	assert_int_equal(judge(t, "/tmp/a-copy", 1, 0), DB_VERDICT_KNOWN);
	/* but a path with references of its own is pinned to them */
	assert_int_equal(judge(t, "/usr/bin/a", 2, 0), DB_VERDICT_MISMATCH);
	/* violations: acceptable by default, not with violations = untrusted */
	p = policies_for(&t->v, "m1");
	assert_string_equal(p->name, "default");
	assert_int_equal(judge(t, "/var/log/x", 0, 1), DB_VERDICT_VIOLATION);
	assert_true(judge_acceptable(&t->v, p, DB_VERDICT_VIOLATION));
	strcpy(t->v.cfg.violations, "untrusted");
	assert_false(judge_acceptable(&t->v, p, DB_VERDICT_VIOLATION));
	assert_true(judge_acceptable(&t->v, p, DB_VERDICT_EXCLUDED));
	assert_true(judge_acceptable(&t->v, p, DB_VERDICT_SIGNED));
	assert_false(judge_acceptable(&t->v, p, DB_VERDICT_UNKNOWN));
	assert_false(judge_acceptable(&t->v, p, DB_VERDICT_MISMATCH));
	assert_false(judge_acceptable(&t->v, p, DB_VERDICT_BAD_SIGNATURE));
	tv_free(t);
}

/* A policy trusts only the sources it selects, for the machines it names. */
static void test_named_policies_select_sources(void **state)
{
	struct tv *t = tv_new();

	(void)state;
	ref_from(t, DB_SOURCE_DEB, "hello_1.0_amd64", "/usr/bin/hello", 1, 0);
	ref_from(t, DB_SOURCE_DIR_TREE, "golden", "/usr/bin/tool", 2, 0);
	put_policy(t, "web",
		   "{\"machines\":[\"web-*\"],"
		   "\"sources\":[\"deb:*\"]}");
	/* the default policy (every source) for other machines */
	assert_int_equal(judge_as(t, "db1", "/usr/bin/tool", 2, 0),
			 DB_VERDICT_KNOWN);
	assert_string_equal(policies_for(&t->v, "web-01")->name, "web");
	assert_int_equal(judge_as(t, "web-01", "/usr/bin/hello", 1, 0),
			 DB_VERDICT_KNOWN);
	/* the golden tree is not a source of "web": unknown there */
	assert_int_equal(judge_as(t, "web-01", "/usr/bin/tool", 2, 0),
			 DB_VERDICT_UNKNOWN);
	/* a digest of an unselected source does not pin the path either */
	assert_int_equal(judge_as(t, "web-01", "/usr/bin/tool", 3, 0),
			 DB_VERDICT_UNKNOWN);
	assert_int_equal(judge_as(t, "db1", "/usr/bin/tool", 3, 0),
			 DB_VERDICT_MISMATCH);
	tv_free(t);
}

static void test_excludes_and_conffiles(void **state)
{
	struct tv *t = tv_new();
	char reason[JUDGE_REASON_MAX];
	struct judge_input in = { .path = "/etc/hello.conf",
				  .algo = "sha256",
				  .digest_len = 32 };
	uint8_t d[32];
	json_t *why;

	(void)state;
	ref_from(t, DB_SOURCE_DEB, "hello_1.0_amd64", "/etc/hello.conf", 1, 1);
	put_policy(t, "apt",
		   "{\"machines\":[\"m*\"],\"sources\":[\"deb:*\"],"
		   "\"excludes\":[{\"prefix\":\"/var/lib/apt/\"},"
		   "{\"glob\":\"/var/cache/*.bin\"},"
		   "{\"regex\":\"^/run/[a-z]+$\"}]}");
	assert_int_equal(judge(t, "/var/lib/apt/lists/x", 7, 0),
			 DB_VERDICT_EXCLUDED);
	assert_int_equal(judge(t, "/var/cache/pkgcache.bin", 7, 0),
			 DB_VERDICT_EXCLUDED);
	assert_int_equal(judge(t, "/run/abc", 7, 0), DB_VERDICT_EXCLUDED);
	assert_int_equal(judge(t, "/run/abc/d", 7, 0), DB_VERDICT_UNKNOWN);
	assert_int_equal(judge(t, "/x/var/lib/apt/", 7, 0), DB_VERDICT_UNKNOWN);
	/* the exclusion names its rule */
	tv_digest(7, d);
	in.digest = d;
	in.path = "/var/cache/pkgcache.bin";
	why = judge_explain(&t->v, policies_for(&t->v, "m1"), &in,
			    DB_VERDICT_EXCLUDED);
	assert_string_equal(json_string_value(json_object_get(why, "rule")),
			    "glob:/var/cache/*.bin");
	json_decref(why);
	/* a changed conffile: a mismatch, unless conffiles = any */
	assert_int_equal(judge(t, "/etc/hello.conf", 1, 0), DB_VERDICT_KNOWN);
	assert_int_equal(judge(t, "/etc/hello.conf", 2, 0),
			 DB_VERDICT_MISMATCH);
	put_policy(t, "apt",
		   "{\"machines\":[\"m*\"],\"sources\":[\"deb:*\"],"
		   "\"conffiles\":\"any\"}");
	assert_int_equal(judge(t, "/etc/hello.conf", 2, 0), DB_VERDICT_KNOWN);
	/* and the verdict names the package that made it a conffile */
	tv_digest(2, d);
	in.path = "/etc/hello.conf";
	why = judge_explain(&t->v, policies_for(&t->v, "m1"), &in,
			    DB_VERDICT_KNOWN);
	assert_string_equal(json_string_value(json_object_get(why, "source")),
			    "deb:hello_1.0_amd64");
	assert_true(json_is_true(json_object_get(why, "conffile")));
	json_decref(why);
	/* an unknown file's reason names the policy and says why */
	in.path = "/usr/bin/rogue";
	judge_reason(&t->v, policies_for(&t->v, "m1"), 3, &in,
		     DB_VERDICT_UNKNOWN, reason);
	assert_non_null(strstr(reason, "\"policy\":\"apt\""));
	assert_non_null(strstr(reason, "no imported package"));
	tv_free(t);
}

static void test_bad_policies_are_refused(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"sources\":\"deb:*\"}",
		"{\"sources\":[1]}",
		"{\"excludes\":[{\"prefix\":\"/a\",\"glob\":\"/b\"}]}",
		"{\"excludes\":[{\"regex\":\"(\"}]}",
		"{\"violations\":\"maybe\"}",
		"{\"nope\":1}",
		"{\"default\":\"yes\"}",
		"{\"conffiles\":1}",
		"{",
	};
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_null(policy_parse("p", bad[i], strlen(bad[i]), &err));
		assert_true(strlen(err.msg) > 0);
	}
	assert_null(policy_parse("a/b", "{}", 2, &err));
	assert_null(policy_parse("p", bad[4], strlen(bad[4]), &err));
	assert_non_null(strstr(err.msg, "excludes[0].regex"));
}

static uint8_t *fixture(const char *name, size_t *len)
{
	char path[512];
	uint8_t *buf;
	FILE *f;

	snprintf(path, sizeof(path), "%s/ima-sig/%s", FIXTURE_DIR, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	buf = malloc(1 << 16);
	assert_non_null(buf);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	return buf;
}

static void add_key(struct tv *t, const char *file, const char *name)
{
	struct keyring_cert c;
	struct imt_error err;
	uint8_t *pem;
	size_t len;

	pem = fixture(file, &len);
	if (keyring_cert_load(pem, len, 0, &c, &err) < 0)
		fail_msg("keyring_cert_load: %s", err.msg);
	c.key.name = name;
	if (db_key_add(t->v.db, &c.key, TV_NOW, &err) < 0)
		fail_msg("db_key_add: %s", err.msg);
	keyring_cert_free(&c);
	free(pem);
	keyring_invalidate(&t->v);
}

/* The sample file's sha256 and its evmctl signatures (fixtures). */
static enum db_verdict judge_signed(struct tv *t, const char *sigfile, int flip,
				    char reason[JUDGE_REASON_MAX])
{
	struct judge_input in = { .path = "/usr/bin/sample",
				  .algo = "sha256",
				  .digest_len = 32 };
	const struct policy *p = policies_for(&t->v, "m1");
	uint8_t *data, *sig, d[32];
	size_t dlen, slen;
	enum db_verdict v;
	struct imt_error err;

	data = fixture("sample", &dlen);
	SHA256(data, dlen, d);
	sig = fixture(sigfile, &slen);
	if (flip >= 0)
		sig[flip / 8] ^= (uint8_t)(1u << (flip % 8));
	in.digest = d;
	in.sig = sig;
	in.sig_len = slen;
	assert_int_equal(judge_record(&t->v, p, &in, &v, &err), 0);
	if (reason != NULL)
		judge_reason(&t->v, p, 1, &in, v, reason);
	free(data);
	free(sig);
	return v;
}

/* A signature by an imported key is enough; a bad or foreign one is not. */
static void test_ima_signatures(void **state)
{
	struct tv *t = tv_new();
	char reason[JUDGE_REASON_MAX];

	(void)state;
	/* no key yet: the signature names a key nobody imported */
	assert_int_equal(judge_signed(t, "sample.rsa-sha256.sig", -1, reason),
			 DB_VERDICT_UNKNOWN);
	assert_non_null(strstr(reason, "\"keyid\""));
	add_key(t, "rsa.pem", "lab-rsa");
	add_key(t, "ec.pem", "lab-ec");
	assert_int_equal(judge_signed(t, "sample.rsa-sha256.sig", -1, NULL),
			 DB_VERDICT_SIGNED);
	assert_int_equal(judge_signed(t, "sample.ec-sha256.sig", -1, NULL),
			 DB_VERDICT_SIGNED);
	/* a flipped bit in the signature: bad-signature, never ignored */
	assert_int_equal(judge_signed(t, "sample.rsa-sha256.sig", 8 * 20 + 3,
				      reason),
			 DB_VERDICT_BAD_SIGNATURE);
	assert_non_null(strstr(reason, "does not verify"));
	/* a key nobody imported: unknown, and the reason names its id */
	assert_int_equal(judge_signed(t, "sample.foreign-sha256.sig", -1,
				      reason),
			 DB_VERDICT_UNKNOWN);
	assert_non_null(strstr(reason, "not a key of policy default"));
	/* a policy without key:* does not trust the imported keys */
	put_policy(t, "nokeys",
		   "{\"machines\":[\"m1\"],"
		   "\"sources\":[\"deb:*\"]}");
	assert_int_equal(judge_signed(t, "sample.rsa-sha256.sig", -1, NULL),
			 DB_VERDICT_UNKNOWN);
	put_policy(t, "nokeys",
		   "{\"machines\":[\"m1\"],"
		   "\"sources\":[\"key:lab-ec\"]}");
	assert_int_equal(judge_signed(t, "sample.ec-sha256.sig", -1, NULL),
			 DB_VERDICT_SIGNED);
	assert_int_equal(judge_signed(t, "sample.rsa-sha256.sig", -1, NULL),
			 DB_VERDICT_UNKNOWN);
	tv_free(t);
}

/* ima-buf records (keys, kernel_version...) are judged by buffer refs. */
static void test_buffer_references(void **state)
{
	struct tv *t = tv_new();
	char reason[JUDGE_REASON_MAX];
	struct judge_input in = { .path = "kernel_version",
				  .algo = "sha256",
				  .digest_len = 32 };
	uint8_t d[32];

	(void)state;
	assert_int_equal(judge(t, "kernel_version", 4, 0), DB_VERDICT_UNKNOWN);
	tv_digest(4, d);
	in.digest = d;
	judge_reason(&t->v, policies_for(&t->v, "m1"), 2, &in,
		     DB_VERDICT_UNKNOWN, reason);
	assert_non_null(strstr(reason, "no buffer reference"));
	ref_from(t, DB_SOURCE_KEYLIME, "prod", "kernel_version", 4, 0);
	assert_int_equal(judge(t, "kernel_version", 4, 0), DB_VERDICT_KNOWN);
	assert_int_equal(judge(t, "kernel_version", 5, 0), DB_VERDICT_MISMATCH);
	assert_int_equal(judge(t, ".ima", 4, 0), DB_VERDICT_UNKNOWN);
	tv_free(t);
}

/* An empty event name is a record no reference names, not a 503. */
static void test_empty_name_is_unknown(void **state)
{
	struct tv *t = tv_new();

	(void)state;
	strcpy(t->v.cfg.any_path, "allow");
	assert_int_equal(judge(t, "", 1, 0), DB_VERDICT_UNKNOWN);
	tv_free(t);
}

/*
 * A record without a file digest (an ima-buf event, a template without
 * one) is unknown whatever its name: no reference and no exclusion rule
 * vouches for what no digest says.
 */
static void test_no_digest_is_unknown(void **state)
{
	struct tv *t = tv_new();
	struct judge_input in = { .path = "/var/lib/apt/lists/x" };
	struct imt_error err;
	enum db_verdict v;

	(void)state;
	ref(t, "/var/lib/apt/lists/x", 1);
	put_policy(t, "apt",
		   "{\"machines\":[\"m*\"],\"sources\":[\"*\"],"
		   "\"excludes\":[{\"prefix\":\"/var/lib/apt/\"}]}");
	assert_int_equal(judge_record(&t->v, policies_for(&t->v, "m1"), &in, &v,
				      &err),
			 0);
	assert_int_equal(v, DB_VERDICT_UNKNOWN);
	in.algo = "sha256"; /* an algorithm, but no digest */
	assert_int_equal(judge_record(&t->v, policies_for(&t->v, "m1"), &in, &v,
				      &err),
			 0);
	assert_int_equal(v, DB_VERDICT_UNKNOWN);
	tv_free(t);
}

static void test_reason_is_json_whatever_the_path(void **state)
{
	static const char bad_utf8[] = "/tmp/\xff\xfe evil\"\\";
	struct judge_input in = { .path = bad_utf8,
				  .algo = "sha256",
				  .digest_len = 32 };
	char reason[JUDGE_REASON_MAX], longpath[5000];
	struct tv *t = tv_new();
	const struct policy *p = policies_for(&t->v, "m1");
	uint8_t d[32];
	json_error_t je;
	json_t *j;

	(void)state;
	tv_digest(0xab, d);
	in.digest = d;
	judge_reason(&t->v, p, 7, &in, DB_VERDICT_UNKNOWN, reason);
	j = json_loads(reason, 0, &je);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "index")), 7);
	assert_string_equal(json_string_value(json_object_get(j, "verdict")),
			    "unknown");
	assert_non_null(strstr(json_string_value(json_object_get(j, "digest")),
			       "sha256:abab"));
	/* bytes that are not printable ASCII are spelled out, not lost */
	assert_string_equal(json_string_value(json_object_get(j, "path")),
			    "/tmp/\\xff\\xfe evil\"\\x5c");
	json_decref(j);
	/* a path longer than the reason can hold is cut, the JSON is not */
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = '\0';
	in.path = longpath;
	judge_reason(&t->v, p, 1, &in, DB_VERDICT_UNKNOWN, reason);
	j = json_loads(reason, 0, &je);
	assert_non_null(j);
	json_decref(j);
	tv_free(t);
}

static void test_boot(void **state)
{
	const struct tv_record good[] = {
		{ "/usr/bin/a", 1, DB_VERDICT_KNOWN },
		{ "/var/log/x", 0, DB_VERDICT_VIOLATION },
	};
	const struct tv_record bad[] = {
		{ "/usr/bin/a", 1, DB_VERDICT_KNOWN },
		{ "/usr/bin/evil", 5, DB_VERDICT_UNKNOWN },
	};
	char reason[JUDGE_REASON_MAX];
	struct imt_error err;
	struct tv *t = tv_new();
	const struct policy *p;
	int64_t b1, b2;
	int ok;

	(void)state;
	tv_machine(t, "m1", DB_STATE_TRUSTED);
	tv_machine(t, "m2", DB_STATE_TRUSTED);
	b1 = tv_boot(t, "m1", good, 2);
	b2 = tv_boot(t, "m2", bad, 2);
	p = policies_for(&t->v, "m1");
	assert_int_equal(judge_boot(&t->v, p, b1, 2, &ok, reason, &err), 0);
	assert_int_equal(ok, 1);
	assert_int_equal(judge_boot(&t->v, p, b2, 2, &ok, reason, &err), 0);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(reason, "/usr/bin/evil"));
	/* the violation counts once the policy says so */
	strcpy(t->v.cfg.violations, "untrusted");
	assert_int_equal(judge_boot(&t->v, p, b1, 2, &ok, reason, &err), 0);
	assert_int_equal(ok, 0);
	assert_non_null(strstr(reason, "\"violation\""));
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdicts_and_policy),
		cmocka_unit_test(test_named_policies_select_sources),
		cmocka_unit_test(test_excludes_and_conffiles),
		cmocka_unit_test(test_no_digest_is_unknown),
		cmocka_unit_test(test_bad_policies_are_refused),
		cmocka_unit_test(test_ima_signatures),
		cmocka_unit_test(test_buffer_references),
		cmocka_unit_test(test_empty_name_is_unknown),
		cmocka_unit_test(test_reason_is_json_whatever_the_path),
		cmocka_unit_test(test_boot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

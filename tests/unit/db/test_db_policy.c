// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_policy.c - named policies and their source selectors, the
 * exclusion rules of the sources a policy selects, signature keys, source
 * metadata and retirement, the fingerprints of older machines, and the
 * attestation columns: the statements the other db tests do not reach,
 * on both engines.
 */
#include "db_attest.h"
#include "db_key.h"
#include "db_machine.h"
#include "db_policy.h"
#include "db_ref.h"
#include "db_source.h"
#include "db_test.h"
#include "db_webhook.h"

struct names {
	char v[8][96];
	int n;
};

static int policy_cb(const struct db_policy *p, void *arg)
{
	struct names *l = arg;

	if (l->n < 8)
		snprintf(l->v[l->n++], sizeof(l->v[0]), "%s%s", p->name,
			 p->is_default ? "*" : "");
	return 0;
}

static int rule_cb(const char *kind, const char *rule, const char *source,
		   void *arg)
{
	struct names *l = arg;

	if (l->n < 8)
		snprintf(l->v[l->n++], sizeof(l->v[0]), "%s %s %s", source,
			 kind, rule);
	return 0;
}

static void import_with_rule(struct tdb *t, enum db_source_kind kind,
			     const char *name, const char *rule)
{
	const struct db_ref_source src = { .kind = kind, .name = name };
	uint8_t d[32] = { 1 };
	struct imt_error err;

	assert_int_equal(db_ref_import_begin(t->db, &src, T_NOW, &err), 0);
	assert_int_equal(db_ref_add(t->db, &src, "/bin/x", "sha256", d,
				    sizeof(d), T_NOW, &err),
			 0);
	assert_int_equal(db_source_rule_add(t->db, "prefix", rule, &err), 0);
	/* the same rule again is no second row */
	assert_int_equal(db_source_rule_add(t->db, "prefix", rule, &err), 0);
	assert_int_equal(db_ref_import_commit(t->db, &err), 0);
}

static void test_policies_and_rules(void **state)
{
	static const char *const sel_deb[] = { "deb:*", "deb:*" };
	static const char *const sel_some[] = { "keylime:ab?",
						"dir-tree:[r]*" };
	struct imt_error err;
	struct names l = { 0 };
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	import_with_rule(&t, DB_SOURCE_DEB, "bash_5_amd64", "/tmp/");
	import_with_rule(&t, DB_SOURCE_KEYLIME, "abc", "/var/");
	import_with_rule(&t, DB_SOURCE_KEYLIME, "abcd", "/opt/");
	import_with_rule(&t, DB_SOURCE_DIR_TREE, "root", "/home/");
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM source_rules"), 4);

	/* a selector twice is one row */
	assert_int_equal(db_policy_put(t.db, "debs", "{\"sources\":[]}", 0,
				       sel_deb, 2, T_NOW, &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM policy_selectors "
				     "WHERE policy = 'debs'"),
			 1);
	assert_int_equal(db_policy_put(t.db, "some", "{}", 1, sel_some, 2,
				       T_NOW, &err),
			 0);
	assert_int_equal(db_policy_list(t.db, policy_cb, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[0], "default");
	assert_string_equal(l.v[1], "debs");
	assert_string_equal(l.v[2], "some*");

	/* GLOB: * ? and [...] as SQLite has them */
	memset(&l, 0, sizeof(l));
	assert_int_equal(db_policy_source_rules(t.db, "debs", rule_cb, &l,
						&err),
			 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0], "deb:bash_5_amd64 prefix /tmp/");
	memset(&l, 0, sizeof(l));
	assert_int_equal(db_policy_source_rules(t.db, "some", rule_cb, &l,
						&err),
			 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[0], "keylime:abc prefix /var/");
	assert_string_equal(l.v[1], "dir-tree:root prefix /home/");

	/* the default cannot go; another can */
	assert_int_equal(db_policy_delete(t.db, "some", &found, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_policy_delete(t.db, "debs", &found, &err), 0);
	assert_int_equal(found, 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM policy_selectors "
				     "WHERE policy = 'debs'"),
			 0);
	tdb_remove(&t);
}

static int key_cb(const struct db_key *k, void *arg)
{
	struct names *l = arg;

	if (l->n < 8)
		snprintf(l->v[l->n++], sizeof(l->v[0]), "%s %s %02x%02x",
			 k->name, k->source, k->keyid[0], k->keyid[3]);
	return 0;
}

static void test_keys(void **state)
{
	static const uint8_t der[] = { 0x30, 0x03, 0x02, 0x01, 0x00 };
	struct db_key k = {
		.name = "vendor",
		.keyid = { 0xab, 0, 0, 0xcd },
		.fpr = { 9 },
		.subject = "CN=vendor",
		.der = der,
		.der_len = sizeof(der),
	};
	struct imt_error err;
	struct names l = { 0 };
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_key_add(t.db, &k, T_NOW, &err), 0);
	assert_int_equal(db_key_add(t.db, &k, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	k.name = "again";
	assert_int_equal(db_key_add(t.db, &k, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_key_list(t.db, key_cb, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0], "vendor key:vendor abcd");
	assert_int_equal(db_key_delete(t.db, "vendor", &found, &err), 0);
	assert_int_equal(found, 1);
	assert_int_equal(db_key_delete(t.db, "vendor", &found, &err), 0);
	assert_int_equal(found, 0);
	tdb_remove(&t);
}

static int source_cb(const struct db_source_info *s, void *arg)
{
	struct names *l = arg;

	if (l->n < 8)
		snprintf(l->v[l->n++], sizeof(l->v[0]), "%s %s %lld %lld",
			 s->name, s->version ? s->version : "-",
			 (long long)s->retire_at, (long long)s->refs);
	return 0;
}

static void import_deb(struct tdb *t, const char *name, const char *version)
{
	static const uint8_t sha[32] = { 0x5a };
	const struct db_source_meta meta = {
		.package = "bash",
		.version = version,
		.arch = "amd64",
		.content_sha256 = sha,
	};
	const struct db_ref_source src = {
		.kind = DB_SOURCE_DEB,
		.name = name,
		.meta = &meta,
	};
	uint8_t d[32] = { 2 };
	struct imt_error err;

	assert_int_equal(db_ref_import_begin(t->db, &src, T_NOW, &err), 0);
	assert_int_equal(db_ref_add(t->db, &src, "/bin/bash", "sha256", d,
				    sizeof(d), T_NOW, &err),
			 0);
	assert_int_equal(db_ref_import_commit(t->db, &err), 0);
}

static void test_sources_retire(void **state)
{
	const struct db_ref_source old = {
		.kind = DB_SOURCE_DEB,
		.name = "bash_5.1_amd64",
	};
	struct imt_error err;
	struct names l = { 0 };
	struct tdb t;
	size_t n;
	int found;

	(void)state;
	tdb_new(&t);
	import_deb(&t, "bash_5.1_amd64", "5.1");
	import_deb(&t, "bash_5.2_amd64", "5.2");
	assert_int_equal(db_source_schedule_retire(t.db, "bash", "amd64",
						   "bash_5.2_amd64", T_NOW + 60,
						   &n, &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(db_source_get(t.db, &old, source_cb, &l, &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(l.v[0], "bash_5.1_amd64 5.1 1700000060 1");
	memset(&l, 0, sizeof(l));
	assert_int_equal(db_source_next_due(t.db, T_NOW, source_cb, &l, &found,
					    &err),
			 0);
	assert_int_equal(found, 0);
	assert_int_equal(db_source_next_due(t.db, T_NOW + 60, source_cb, &l,
					    &found, &err),
			 0);
	assert_int_equal(found, 1);
	memset(&l, 0, sizeof(l));
	assert_int_equal(db_source_list(t.db, -1, source_cb, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.v[1], "bash_5.2_amd64 5.2 0 1");
	tdb_remove(&t);
}

/* Machines from before 0005 get their fingerprint at start. */
static void test_fill_fingerprints(void **state)
{
	char holder[DB_MACHINE_ID_MAX + 1];
	uint8_t fpr[DB_FPR_SIZE];
	struct imt_error err;
	struct db_machine m;
	int64_t cursor = 0;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "a", DB_STATE_TRUSTED);
	tdb_machine(&t, "b", DB_STATE_TRUSTED);
	tdb_machine(&t, "c", DB_STATE_TRUSTED);
	tdb_exec(&t, "UPDATE machines SET ek_fpr = NULL WHERE id <> 'a'");
	assert_int_equal(db_machine_next_unfingerprinted(t.db, &cursor, &m,
							 &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(m.id, "b");
	db_machine_release(&m);
	/* b has a's EK: a keeps it, b stays without, audited */
	test_fpr_of("a", fpr);
	assert_int_equal(db_machine_fill_fpr(t.db, "b", fpr, T_NOW, holder,
					     &err),
			 0);
	assert_string_equal(holder, "a");
	assert_int_equal(tdb_int2(&t,
				  "SELECT count(*) FROM audit WHERE "
				  "action = 'duplicate-ek' AND "
				  "json_extract(detail, '$.holder') = 'a'",
				  "SELECT count(*) FROM audit WHERE "
				  "action = 'duplicate-ek' AND "
				  "detail->>'holder' = 'a'"),
			 1);
	/* the cursor moved past b */
	assert_int_equal(db_machine_next_unfingerprinted(t.db, &cursor, &m,
							 &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(m.id, "c");
	db_machine_release(&m);
	test_fpr_of("c", fpr);
	assert_int_equal(db_machine_fill_fpr(t.db, "c", fpr, T_NOW, holder,
					     &err),
			 0);
	assert_string_equal(holder, "");
	assert_int_equal(db_machine_next_unfingerprinted(t.db, &cursor, &m,
							 &found, &err),
			 0);
	assert_int_equal(found, 0);
	tdb_remove(&t);
}

static void test_attest_columns(void **state)
{
	struct imt_error err;
	struct tdb t;
	int written;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_machine_pin_bank(t.db, "m1", "sha256", &err), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines WHERE "
				     "bank = 'sha256'"),
			 1);
	if (db_machine_note_rejected(t.db, "m1", T_NOW, 60,
				     "{\"why\":\"quote\"}", &written, &err) < 0)
		fail_msg("note rejected: %s", err.msg);
	assert_int_equal(written, 1);
	assert_int_equal(db_machine_note_rejected(t.db, "m1", T_NOW + 59, 60,
						  "{\"why\":\"quote\"}",
						  &written, &err),
			 0);
	assert_int_equal(written, 0);
	assert_int_equal(db_machine_note_rejected(t.db, "m1", T_NOW + 60, 60,
						  NULL, &written, &err),
			 0);
	assert_int_equal(written, 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events WHERE "
				     "kind = 'rejected'"),
			 2);
	tdb_remove(&t);
}

/* Where a verdict came from: the newest selected source. */
static void test_ref_origin(void **state)
{
	static const char *const sel_dir[] = { "dir-tree:*" };
	const struct db_ref_source a = { .kind = DB_SOURCE_DIR_TREE,
					 .name = "a" };
	const struct db_ref_source b = { .kind = DB_SOURCE_KEYLIME,
					 .name = "b" };
	uint8_t d1[32] = { 1 }, d2[32] = { 2 };
	struct db_ref_origin o;
	struct imt_error err;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_ref_add(t.db, &a, "/bin/x", "sha256", d1, 32, T_NOW,
				    &err),
			 0);
	assert_int_equal(db_ref_add(t.db, &b, "/bin/x", "sha256", d1, 32, T_NOW,
				    &err),
			 0);
	assert_int_equal(db_ref_add(t.db, &a, "/bin/y", "sha256", d2, 32, T_NOW,
				    &err),
			 0);
	assert_int_equal(db_policy_put(t.db, "dirs", "{}", 0, sel_dir, 1, T_NOW,
				       &err),
			 0);
	/* every source: the newest (b) */
	assert_int_equal(db_ref_origin(t.db, NULL, "/bin/x", "sha256", d1, 32,
				       0, 0, &o, &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_int_equal(o.kind, DB_SOURCE_KEYLIME);
	assert_int_equal(o.other_path, 0);
	/* the policy selects a only */
	assert_int_equal(db_ref_origin(t.db, "dirs", "/bin/x", "sha256", d1, 32,
				       0, 0, &o, &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(o.name, "a");
	/* d2 is listed for /bin/y: only with any_path */
	assert_int_equal(db_ref_origin(t.db, NULL, "/bin/x", "sha256", d2, 32,
				       0, 0, &o, &found, &err),
			 0);
	assert_int_equal(found, 0);
	assert_int_equal(db_ref_origin(t.db, NULL, "/bin/x", "sha256", d2, 32,
				       1, 0, &o, &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_int_equal(o.other_path, 1);
	assert_int_equal(db_webhook_cap(t.db, 5, &err), 0);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policies_and_rules),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_sources_retire),
		cmocka_unit_test(test_fill_fingerprints),
		cmocka_unit_test(test_attest_columns),
		cmocka_unit_test(test_ref_origin),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_enroll.c - credential challenges, activation, identities:
 * nothing of a machine exists before its proof; one id per EK; caps;
 * pre-registration; removal with its audit entry; pending expiry; the
 * migration of older databases.
 */
#include "db_audit.h"
#include "db_boot.h"
#include "db_enroll.h"
#include "db_identity.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "db_retention.h"
#include "db_test.h"

static struct db_limits_fx {
	struct db_enroll_limits lim;
	struct db_activate_opts opts;
} fx = { { 1024, 4 }, { 100, 0, NULL, DB_STATE_ENROLLING, DB_STATE_PENDING } };

/* A challenge for @id by the EK named @ek; @n makes its proof unique. */
static struct db_challenge *challenge(const char *id, const char *ek, uint8_t n,
				      int chained)
{
	static struct db_challenge cs[8];
	static unsigned int next;
	struct db_challenge *c = &cs[next++ % 8];

	memset(c, 0, sizeof(*c));
	snprintf(c->machine_id, sizeof(c->machine_id), "%s", id);
	test_fpr_of(ek, c->ek_fpr);
	memset(c->proof_hash, n, DB_PROOF_HASH_SIZE);
	c->proof_hash[0] = (uint8_t)ek[0];
	c->ek_pub_len = 8;
	memcpy(c->ek_pub, ek, strlen(ek) < 8 ? strlen(ek) : 8);
	memset(c->secret, n, 32);
	c->secret_len = 32;
	memset(c->ak_pub, n, 100);
	c->ak_pub_len = 100;
	c->ak_name[0] = 0x00;
	c->ak_name[1] = 0x0b;
	memset(c->ak_name + 2, n, 32);
	c->ak_name_len = 34;
	c->ek_chained = chained;
	c->expires_at = T_NOW + 300;
	return c;
}

static enum db_open_result open_c(struct tdb *t, const struct db_challenge *c,
				  int vouched)
{
	enum db_open_result r;
	struct imt_error err;

	if (db_challenge_open(t->db, c, vouched, &fx.lim, T_NOW, &r, &err) < 0)
		fail_msg("db_challenge_open: %s", err.msg);
	return r;
}

static enum db_activation act(struct tdb *t, const struct db_challenge *c,
			      const struct db_activate_opts *o,
			      enum db_machine_state *s)
{
	enum db_activation r;
	struct imt_error err;

	if (db_challenge_activate(t->db, c, o != NULL ? o : &fx.opts, T_NOW, &r,
				  s, &err) < 0)
		fail_msg("db_challenge_activate: %s", err.msg);
	return r;
}

static int found_c(struct tdb *t, const struct db_challenge *c, int64_t now)
{
	static struct db_challenge got;
	struct imt_error err;
	int found;

	assert_int_equal(db_challenge_find(t->db, c->machine_id, c->proof_hash,
					   now, &got, &found, &err),
			 0);
	if (found)
		assert_memory_equal(got.secret, c->secret, c->secret_len);
	return found;
}

static void test_enrollment_creates_no_machine(void **state)
{
	struct db_challenge *a = challenge("m1", "ek-a", 1, 1);
	struct db_challenge *b = challenge("m1", "ek-b", 2, 0);
	struct db_challenge wrong;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	assert_int_equal(open_c(&t, a, 1), DB_OPEN_OK);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 0);
	/* a stranger's challenge for the same id does not replace it */
	assert_int_equal(open_c(&t, b, 0), DB_OPEN_OK);
	assert_int_equal(found_c(&t, a, T_NOW), 1);
	assert_int_equal(found_c(&t, b, T_NOW), 1);
	/* found only by its proof, for its id, until it expires */
	wrong = *a;
	wrong.proof_hash[5] ^= 1;
	assert_int_equal(found_c(&t, &wrong, T_NOW), 0);
	snprintf(wrong.machine_id, sizeof(wrong.machine_id), "m2");
	memcpy(wrong.proof_hash, a->proof_hash, DB_PROOF_HASH_SIZE);
	assert_int_equal(found_c(&t, &wrong, T_NOW), 0);
	assert_int_equal(found_c(&t, a, T_NOW + 300), 0);
	tdb_remove(&t);
}

static void test_caps(void **state)
{
	static struct db_challenge first;
	struct db_challenge *c;
	struct imt_error err;
	uint64_t open = 0;
	struct tdb t;
	uint8_t i;

	(void)state;
	tdb_new(&t);
	fx.lim.max_open = 6;
	first = *challenge("x", "ek-f", 10, 0);
	/* one EK: at most max_per_ek open */
	for (i = 0; i < 4; i++)
		assert_int_equal(open_c(&t, challenge("x", "ek-f", 10 + i, 0),
					0),
				 DB_OPEN_OK);
	assert_int_equal(open_c(&t, challenge("y", "ek-f", 20, 0), 0),
			 DB_OPEN_EK_FULL);
	/* all EKs: at most max_open; an unvouched one is refused */
	assert_int_equal(open_c(&t, challenge("x", "ek-g", 30, 0), 0),
			 DB_OPEN_OK);
	assert_int_equal(open_c(&t, challenge("x", "ek-h", 31, 0), 0),
			 DB_OPEN_OK);
	assert_int_equal(open_c(&t, challenge("x", "ek-i", 32, 0), 0),
			 DB_OPEN_FULL);
	/* a vouched one takes the place of the oldest unvouched one */
	c = challenge("real", "ek-real", 40, 1);
	assert_int_equal(open_c(&t, c, 1), DB_OPEN_EVICTED);
	assert_int_equal(found_c(&t, c, T_NOW), 1);
	assert_int_equal(db_challenge_count(t.db, T_NOW, &open, &err), 0);
	assert_int_equal(open, 6);
	assert_int_equal(found_c(&t, &first, T_NOW), 0); /* evicted */
	/* expired ones make room */
	assert_int_equal(db_challenge_count(t.db, T_NOW + 300, &open, &err), 0);
	assert_int_equal(open, 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 0);
	fx.lim.max_open = 1024;
	tdb_remove(&t);
}

static void test_activate_creates(void **state)
{
	struct db_challenge *a = challenge("m1", "ek-a", 1, 1);
	struct db_challenge *a2 = challenge("m1", "ek-a", 3, 1);
	struct db_challenge *s = challenge("m1", "ek-s", 2, 0);
	enum db_machine_state st;
	struct imt_error err;
	struct db_machine m;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	open_c(&t, a, 1);
	open_c(&t, a2, 1);
	open_c(&t, s, 0);
	assert_int_equal(act(&t, a, NULL, &st), DB_ACT_CREATED);
	assert_int_equal(st, DB_STATE_ENROLLING);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_int_equal(m.activated, 1);
	assert_memory_equal(m.ek_fpr, a->ek_fpr, DB_FPR_SIZE);
	assert_memory_equal(m.ak_name, a->ak_name, 34);
	db_machine_release(&m);
	/* every challenge of that EK goes; the stranger's stays but ... */
	assert_int_equal(found_c(&t, a2, T_NOW), 0);
	assert_int_equal(found_c(&t, s, T_NOW), 1);
	/* ... cannot take the id: nothing changes */
	assert_int_equal(act(&t, s, NULL, &st), DB_ACT_ID_TAKEN);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_memory_equal(m.ak_name, a->ak_name, 34);
	db_machine_release(&m);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events WHERE "
				     "kind = 'activated'"),
			 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit WHERE "
				     "action = 'enroll' AND machine_id = 'm1'"),
			 1);
	tdb_remove(&t);
}

static void test_one_id_per_ek(void **state)
{
	struct db_challenge *a = challenge("one", "ek-a", 1, 1);
	struct db_challenge *b = challenge("two", "ek-a", 2, 1);
	struct tdb t;

	(void)state;
	tdb_new(&t);
	open_c(&t, a, 1);
	open_c(&t, b, 1);
	assert_int_equal(act(&t, a, NULL, NULL), DB_ACT_CREATED);
	assert_int_equal(act(&t, b, NULL, NULL), DB_ACT_EK_TAKEN);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 1);
	tdb_remove(&t);
}

static void test_reenroll_and_pending(void **state)
{
	struct db_challenge *a = challenge("m1", "ek-a", 1, 0);
	struct db_challenge *a2 = challenge("m1", "ek-a", 5, 0);
	struct db_activate_opts one = { 1, 0, "{\"check\":\"ek\"}",
					DB_STATE_ENROLLING, DB_STATE_PENDING };
	struct db_challenge *p = challenge("m2", "ek-p", 6, 0);
	enum db_machine_state st;
	struct imt_error err;
	struct db_machine m;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	assert_int_equal(act(&t, a, &one, &st), DB_ACT_CREATED);
	assert_int_equal(st, DB_STATE_PENDING);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_string_equal(m.state_reason, "{\"check\":\"ek\"}");
	db_machine_release(&m);
	/* the pending cap: a second unvouched machine is refused */
	assert_int_equal(act(&t, p, &one, &st), DB_ACT_PENDING_FULL);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 1);
	/* the known machine re-enrolls with its EK: new AK, still one */
	assert_int_equal(act(&t, a2, &one, &st), DB_ACT_REPLACED);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_memory_equal(m.ak_name, a2->ak_name, 34);
	db_machine_release(&m);
	tdb_remove(&t);
}

static void test_registration(void **state)
{
	struct db_challenge *r = challenge("reg", "ek-r", 1, 0);
	struct db_challenge *x = challenge("reg", "ek-x", 2, 1);
	struct db_challenge *u = challenge("free", "ek-u", 3, 1);
	struct db_activate_opts only = { 100, 1, NULL, DB_STATE_ENROLLING,
					 DB_STATE_PENDING };
	enum db_register_result res;
	struct db_registration reg;
	enum db_machine_state st;
	struct imt_error err;
	struct db_identity w;
	struct db_machine m;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "known", DB_STATE_TRUSTED);
	assert_int_equal(db_registration_add(t.db, "reg", r->ek_fpr, "alice",
					     T_NOW, &res, &err),
			 0);
	assert_int_equal(res, DB_REG_OK);
	assert_int_equal(db_registration_add(t.db, "reg", r->ek_fpr, "alice",
					     T_NOW, &res, &err),
			 0);
	assert_int_equal(res, DB_REG_EXISTS);
	assert_int_equal(db_registration_add(t.db, "reg", x->ek_fpr, "alice",
					     T_NOW, &res, &err),
			 0);
	assert_int_equal(res, DB_REG_ID_TAKEN);
	assert_int_equal(db_registration_add(t.db, "other", r->ek_fpr, "alice",
					     T_NOW, &res, &err),
			 0);
	assert_int_equal(res, DB_REG_EK_TAKEN);
	assert_int_equal(db_registration_add(t.db, "known", x->ek_fpr, "alice",
					     T_NOW, &res, &err),
			 0);
	assert_int_equal(res, DB_REG_ID_TAKEN);
	assert_int_equal(db_registration_get(t.db, "reg", &reg, &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(reg.op_name, "alice");
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit WHERE "
				     "action = 'register'"),
			 1);
	assert_int_equal(db_identity_check(t.db, "reg", x->ek_fpr, NULL, 0, &w,
					   &err),
			 0);
	assert_int_equal(w.id_registered_other, 1);
	/* another EK, even CA-chained, cannot take a pre-registered id */
	assert_int_equal(act(&t, x, NULL, &st), DB_ACT_ID_TAKEN);
	/* under registered_only an unregistered pair is refused */
	assert_int_equal(act(&t, u, &only, &st), DB_ACT_NOT_REGISTERED);
	/* the registered EK enrolls without CA: enrolling, approved */
	assert_int_equal(act(&t, r, &only, &st), DB_ACT_CREATED);
	assert_int_equal(st, DB_STATE_ENROLLING);
	assert_int_equal(db_machine_get(t.db, "reg", &m, &found, &err), 0);
	assert_int_equal(m.approved, 1);
	db_machine_release(&m);
	tdb_remove(&t);
}

static void test_remove(void **state)
{
	struct db_challenge *c = challenge("gone", "ek-z", 9, 0);
	static const uint8_t nonce[16] = { 1 };
	enum db_register_result res;
	struct db_removal rm;
	struct db_boot boot;
	struct imt_error err;
	uint8_t fpr[DB_FPR_SIZE];
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "gone", DB_STATE_TRUSTED);
	tdb_machine(&t, "stay", DB_STATE_TRUSTED);
	test_fpr_of("gone", fpr);
	assert_int_equal(db_boot_start(t.db, "gone", 1, 0, T_NOW, &boot, &err),
			 0);
	assert_int_equal(db_nonce_issue(t.db, "gone", nonce, 16, T_NOW + 9,
					&err),
			 0);
	open_c(&t, c, 0);
	assert_int_equal(db_registration_add(t.db, "gone", fpr, "alice", T_NOW,
					     &res, &err),
			 0);
	assert_int_equal(db_machine_remove(t.db, "gone", "bob", T_NOW, &rm,
					   &err),
			 0);
	assert_int_equal(rm.machine, 1);
	assert_int_equal(rm.registration, 1);
	assert_int_equal(rm.boots, 1);
	assert_int_equal(rm.enrollments, 1);
	assert_string_equal(rm.state, "trusted");
	assert_memory_equal(rm.ek_fpr, fpr, DB_FPR_SIZE);
	assert_int_equal(tdb_int(&t, "SELECT (SELECT count(*) FROM machines "
				     "WHERE id = 'gone') + (SELECT count(*) "
				     "FROM boots) + (SELECT count(*) FROM "
				     "events WHERE machine_id = 'gone') + "
				     "(SELECT count(*) FROM nonces) + (SELECT "
				     "count(*) FROM enrollments) + (SELECT "
				     "count(*) FROM registrations)"),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 1);
	/* the audit entry outlives the machine */
	assert_int_equal(tdb_int2(&t,
				  "SELECT count(*) FROM audit WHERE "
				  "action = 'remove' AND operator = 'bob' "
				  "AND machine_id = 'gone' AND "
				  "json_extract(detail, '$.boots') = 1",
				  "SELECT count(*) FROM audit WHERE "
				  "action = 'remove' AND operator = 'bob' "
				  "AND machine_id = 'gone' AND "
				  "(detail->>'boots')::int = 1"),
			 1);
	/* nothing there: nothing removed, nothing written */
	assert_int_equal(db_machine_remove(t.db, "gone", "bob", T_NOW, &rm,
					   &err),
			 0);
	assert_int_equal(rm.machine + rm.registration, 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit WHERE "
				     "action = 'remove'"),
			 1);
	tdb_remove(&t);
}

static int count_audit(const struct db_audit *a, void *arg)
{
	int *n = arg;

	(*n)++;
	assert_non_null(a->action);
	return 0;
}

static void test_pending_expiry(void **state)
{
	struct db_retention r = { 3, 0, 1000, 7 * 86400, 0, 0, 0 };
	enum db_approve_result ar;
	uint8_t fpr[DB_FPR_SIZE];
	struct db_boot boot;
	struct imt_error err;
	struct tdb t;
	int n = 0;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "old", DB_STATE_PENDING);
	tdb_machine(&t, "approved", DB_STATE_PENDING);
	tdb_machine(&t, "seen", DB_STATE_PENDING);
	tdb_machine(&t, "trusted", DB_STATE_TRUSTED);
	test_fpr_of("approved", fpr);
	assert_int_equal(db_machine_approve(t.db, "approved", fpr, "ops", T_NOW,
					    &ar, &err),
			 0);
	tdb_exec(&t, "UPDATE machines SET state = 'pending' "
		     "WHERE id = 'approved'");
	assert_int_equal(db_boot_start(t.db, "seen", 1, 0, T_NOW, &boot, &err),
			 0);
	open_c(&t, challenge("x", "ek-q", 1, 0), 0);
	/* not yet */
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 86400, NULL, NULL,
					  &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 4);
	/* a week after: only the never approved, never seen one goes */
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 7 * 86400, NULL,
					  NULL, &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 3);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines WHERE "
				     "id = 'old'"),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM enrollments"), 0);
	assert_int_equal(db_audit_list(t.db, "old", 0, 10, count_audit, &n,
				       &err),
			 0);
	assert_int_equal(n, 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit WHERE "
				     "action = 'pending-expired' AND "
				     "machine_id = 'old'"),
			 1);
	/* 0: pending machines are kept forever */
	tdb_machine(&t, "old2", DB_STATE_PENDING);
	r.pending_expire = 0;
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 700 * 86400, NULL,
					  NULL, &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines WHERE "
				     "id = 'old2'"),
			 1);
	tdb_remove(&t);
}

/* A version 2 database: one squatted id, one real machine, a duplicate. */
static void make_v2(const char *path)
{
	sqlite3 *s;
	size_t i;

	assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
	for (i = 0; i < 2; i++)
		assert_int_equal(sqlite3_exec(s, db_migrations[i].sql, NULL,
					      NULL, NULL),
				 SQLITE_OK);
	assert_int_equal(sqlite3_exec(s,
				      "INSERT INTO machines (id, ek_pub, ak_pub, ak_name, state, "
				      "created_at, activated) VALUES "
				      "('squat', x'01', x'01', x'000b', 'pending', 1, 0), "
				      "('real', x'02', x'02', x'000b', 'trusted', 2, 1), "
				      "('dup', x'02', x'03', x'000b', 'trusted', 3, 1);",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(s);
}

static void test_migration(void **state)
{
	char holder[DB_MACHINE_ID_MAX + 1];
	uint8_t fpr[DB_FPR_SIZE] = { 7 };
	struct imt_error err;
	struct db_machine m;
	int64_t cursor = 0;
	struct tdb t;
	int found;

	(void)state;
	tdb_path(&t);
	make_v2(t.path);
	tdb_open(&t);
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	/* the never activated id is freed, with an audit entry */
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 2);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit WHERE "
				     "action = 'migration-removed' AND "
				     "machine_id = 'squat'"),
			 1);
	/* fingerprints are filled by the verifier; the first keeps it */
	assert_int_equal(db_machine_next_unfingerprinted(t.db, &cursor, &m,
							 &found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(m.id, "real");
	assert_int_equal(m.has_ek_fpr, 0);
	db_machine_release(&m);
	assert_int_equal(db_machine_fill_fpr(t.db, "real", fpr, T_NOW, holder,
					     &err),
			 0);
	assert_string_equal(holder, "");
	assert_int_equal(db_machine_next_unfingerprinted(t.db, &cursor, &m,
							 &found, &err),
			 0);
	assert_string_equal(m.id, "dup");
	db_machine_release(&m);
	assert_int_equal(db_machine_fill_fpr(t.db, "dup", fpr, T_NOW, holder,
					     &err),
			 0);
	assert_string_equal(holder, "real");
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines WHERE "
				     "ek_fpr IS NULL AND id = 'dup'"),
			 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit WHERE "
				     "action = 'duplicate-ek' AND json_extract("
				     "detail, '$.holder') = 'real'"),
			 1);
	assert_int_equal(db_machine_next_unfingerprinted(t.db, &cursor, &m,
							 &found, &err),
			 0);
	assert_int_equal(found, 0);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enrollment_creates_no_machine),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_activate_creates),
		cmocka_unit_test(test_one_id_per_ek),
		cmocka_unit_test(test_reenroll_and_pending),
		cmocka_unit_test(test_registration),
		cmocka_unit_test(test_remove),
		cmocka_unit_test(test_pending_expiry),
	};
	const struct CMUnitTest sqlite_tests[] = {
		cmocka_unit_test(test_migration),
	};

	return tdb_run(tests, sqlite_tests);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine_identity.c - what operators do to identities through the
 * engine's entry points, without HTTP: engine_approve(),
 * engine_machine_add() and engine_machine_remove(), their statuses,
 * messages and audit entries.
 */
#include <sqlite3.h>

#include "verifier_test.h"
#include "engine.h"

static void test_approve(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	uint8_t fpr[DB_FPR_SIZE];

	(void)state;
	tv_machine(t, "p", DB_STATE_PENDING);
	test_fpr_of("p", fpr);
	engine_approve(&t->v, "nobody", fpr, "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_int_equal(engine_http_status(ans.status), 404);
	assert_string_equal(ans.message, "no machine \"nobody\"");
	fpr[1] ^= 1;
	engine_approve(&t->v, "p", fpr, "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_int_equal(engine_http_status(ans.status), 409);
	assert_int_equal(tv_state(t, "p"), DB_STATE_PENDING);
	fpr[1] ^= 1;
	engine_approve(&t->v, "p", fpr, "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(tv_state(t, "p"), DB_STATE_ENROLLING);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE "
				    "action = 'approve' AND machine_id = 'p' "
				    "AND operator = 'alice'",
				    NULL),
			 1);
	tv_free(t);
}

static void test_add(void **state)
{
	struct tv *t = tv_new();
	struct db_registration reg;
	struct engine_answer ans;
	uint8_t fpr[DB_FPR_SIZE], other[DB_FPR_SIZE];

	(void)state;
	test_fpr_of("host", fpr);
	engine_machine_add(&t->v, "host", fpr, "alice", TV_NOW, &reg, &ans);
	assert_int_equal(ans.status, ENGINE_CREATED);
	assert_int_equal(engine_http_status(ans.status), 201);
	assert_string_equal(reg.machine_id, "host");
	assert_memory_equal(reg.ek_fpr, fpr, DB_FPR_SIZE);
	assert_string_equal(reg.op_name, "alice");
	/* the very pair again: unchanged, 200 */
	engine_machine_add(&t->v, "host", fpr, "bob", TV_NOW + 1, &reg, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(engine_http_status(ans.status), 200);
	assert_string_equal(reg.op_name, "alice");
	/* the id with another EK, the EK under another id */
	test_fpr_of("other", other);
	engine_machine_add(&t->v, "host", other, "bob", TV_NOW, &reg, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_string_equal(ans.message, "id host has another EK (enrolled "
					 "or pre-registered): remove it first");
	engine_machine_add(&t->v, "guest", fpr, "bob", TV_NOW, &reg, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_string_equal(ans.message, "this EK is enrolled or "
					 "pre-registered under another id");
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE "
				    "action = 'register'",
				    NULL),
			 1);
	tv_free(t);
}

static void test_remove(void **state)
{
	struct tv *t = tv_new();
	struct db_registration reg;
	struct engine_answer ans;
	struct db_removal r;
	uint8_t fpr[DB_FPR_SIZE];

	(void)state;
	engine_machine_remove(&t->v, "m1", "alice", TV_NOW, &r, &ans);
	assert_int_equal(ans.status, ENGINE_UNKNOWN);
	assert_int_equal(engine_http_status(ans.status), 404);
	assert_string_equal(ans.message, "no machine or pre-registration "
					 "\"m1\"");
	tv_machine(t, "m1", DB_STATE_TRUSTED);
	engine_machine_remove(&t->v, "m1", "alice", TV_NOW, &r, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_true(r.machine);
	assert_false(r.registration);
	assert_string_equal(r.state, "trusted");
	assert_int_equal(count_rows(t, "SELECT count(*) FROM machines", NULL),
			 0);
	/* a pre-registration alone */
	test_fpr_of("host", fpr);
	engine_machine_add(&t->v, "host", fpr, "alice", TV_NOW, &reg, &ans);
	assert_int_equal(ans.status, ENGINE_CREATED);
	engine_machine_remove(&t->v, "host", "alice", TV_NOW, &r, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_false(r.machine);
	assert_true(r.registration);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE "
				    "action = 'remove'",
				    NULL),
			 2);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_approve),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

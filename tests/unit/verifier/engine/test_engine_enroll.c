// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine_enroll.c - enrollment and activation through the engine's
 * entry points, engine_enroll() and engine_activate(), without HTTP:
 * the fixture EKs and AKs (the secret a TPM would recover is read from
 * the database), an activated machine at the end of a good round, a
 * wrong proof refused, a taken id or EK, the caps, and the counters.
 */
#include <openssl/hmac.h>
#include <sqlite3.h>

#include "verifier_test.h"
#include "engine.h"
#include "enroll.h"
#include "../../fixture.h"
#include "wire.h"

#define NOW TV_NOW

struct fx {
	struct tv *t;
	uint8_t *ek, *ak;
	size_t ek_len, ak_len;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	f->t = tv_new();
	f->ek = fixture_read("tpm/ek-rsa.pub", &f->ek_len);
	f->ak = fixture_read("tpm/ak-rsa.pub", &f->ak_len);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tv_free(f->t);
	free(f->ek);
	free(f->ak);
	free(f);
	return 0;
}

/* engine_enroll() of @id with @ek (the fixture's when NULL). */
static enum engine_status enroll_ek(struct fx *f, const char *id,
				    const uint8_t *ek, struct engine_answer *a)
{
	struct wire_enroll e = { 0 };
	struct wire_challenge out = { 0 };

	snprintf(e.agent, sizeof(e.agent), "%s", id);
	e.ek_pub = (struct wire_blob){ (uint8_t *)(ek != NULL ? ek : f->ek),
				       f->ek_len };
	e.ak_pub = (struct wire_blob){ f->ak, f->ak_len };
	engine_enroll(&f->t->v, &e, NOW, &out, a);
	if (a->status == ENGINE_CREATED) {
		assert_true(out.credential.len > 0);
		assert_true(out.secret.len > 0);
	}
	wire_free(WIRE_CHALLENGE, &out);
	return a->status;
}

static enum engine_status enroll(struct fx *f, const char *id,
				 struct engine_answer *a)
{
	return enroll_ek(f, id, NULL, a);
}

static int activate(struct fx *f, const char *id, const uint8_t proof[32],
		    struct engine_answer *a)
{
	struct wire_activate m = { .proof_len = 32 };

	snprintf(m.agent, sizeof(m.agent), "%s", id);
	memcpy(m.proof, proof, 32);
	return engine_activate(&f->t->v, &m, NOW + 1, a);
}

static void test_enroll_then_activate(void **state)
{
	struct fx *f = *state;
	struct engine_answer a;
	struct db_machine m;
	struct imt_error err;
	uint8_t proof[32];
	int found = 0;

	assert_int_equal(enroll(f, "m1", &a), ENGINE_CREATED);
	assert_int_equal(engine_http_status(a.status), 201);
	assert_int_equal(atomic_load(&f->t->v.metrics.enrollments), 1);
	/* a challenge, and no machine before the proof */
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 1);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 0);
	tv_proof_of(f->t, "m1", proof);
	assert_int_equal(activate(f, "m1", proof, &a), 1);
	assert_int_equal(a.status, ENGINE_OK);
	/* no EK certificate chains: pending, an operator must approve */
	assert_string_equal(a.verdict.state, "pending");
	assert_int_equal(a.verdict.nonce_len, ENGINE_NONCE_SIZE);
	assert_int_equal(atomic_load(&f->t->v.metrics.activations), 1);
	assert_int_equal(atomic_load(&f->t->v.metrics.activations_refused), 0);
	assert_int_equal(db_machine_get(f->t->v.db, "m1", &m, &found, &err), 0);
	assert_true(found);
	assert_true(m.activated);
	assert_int_equal(m.state, DB_STATE_PENDING);
	assert_non_null(strstr(m.state_reason, "\"check\":\"ek\""));
	db_machine_release(&m);
	/* the challenge is spent: the same proof again is refused */
	assert_int_equal(activate(f, "m1", proof, &a), 0);
	assert_int_equal(a.status, ENGINE_REFUSED);
}

static void test_wrong_proof_refused(void **state)
{
	struct fx *f = *state;
	struct engine_answer a;
	uint8_t proof[32];

	assert_int_equal(enroll(f, "m1", &a), ENGINE_CREATED);
	tv_proof_of(f->t, "m1", proof);
	proof[0] ^= 1;
	assert_int_equal(activate(f, "m1", proof, &a), 0);
	assert_int_equal(a.status, ENGINE_REFUSED);
	assert_int_equal(engine_http_status(a.status), 403);
	assert_string_equal(a.message, "challenge: no open challenge of m1 "
				       "matches this proof; enroll again");
	assert_int_equal(atomic_load(&f->t->v.metrics.activations_refused), 1);
	assert_int_equal(atomic_load(&f->t->v.metrics.activations), 0);
	/* it cancels nothing and creates nothing */
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 1);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM machines",
				    NULL),
			 0);
	/* the right proof still activates */
	proof[0] ^= 1;
	assert_int_equal(activate(f, "m1", proof, &a), 1);
	assert_int_equal(a.status, ENGINE_OK);
}

static void test_taken(void **state)
{
	struct fx *f = *state;
	char fpr[ENROLL_FPR_HEX + 1], want[160];
	uint8_t proof[32], raw[DB_FPR_SIZE], ek[4096];
	struct engine_answer a;
	struct imt_error err;

	assert_int_equal(enroll(f, "one", &a), ENGINE_CREATED);
	tv_proof_of(f->t, "one", proof);
	assert_int_equal(activate(f, "one", proof, &a), 1);
	/* the EK under another id: named by its fingerprint */
	assert_int_equal(enroll(f, "two", &a), ENGINE_CONFLICT);
	assert_int_equal(engine_http_status(a.status), 409);
	assert_int_equal(enroll_fingerprint(f->ek, f->ek_len, raw, &err),
			 IMT_OK);
	enroll_fpr_hex(raw, fpr);
	snprintf(want, sizeof(want),
		 "taken: this EK (%s) is enrolled under another id", fpr);
	assert_string_equal(a.message, want);
	/* the id with another EK */
	tv_fake_ek(f->ek, f->ek_len, 1, ek);
	assert_int_equal(enroll_ek(f, "one", ek, &a), ENGINE_CONFLICT);
	assert_string_equal(a.message, "taken: agent id one belongs to a "
				       "machine with another EK");
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_taken), 2);
	assert_int_equal(atomic_load(&f->t->v.metrics.enrollments), 1);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 0);
	/* the same EK for the same id is a re-enrollment */
	assert_int_equal(enroll(f, "one", &a), ENGINE_CREATED);
}

static void test_caps(void **state)
{
	struct fx *f = *state;
	struct engine_answer a;
	uint8_t ek[4096];
	unsigned int i;

	/* the cap in all: made-up EKs, none vouched for */
	f->t->v.cfg.max_open_enrollments = 3;
	for (i = 0; i < 3; i++) {
		tv_fake_ek(f->ek, f->ek_len, i, ek);
		assert_int_equal(enroll_ek(f, "squat", ek, &a), ENGINE_CREATED);
	}
	tv_fake_ek(f->ek, f->ek_len, 3, ek);
	assert_int_equal(enroll_ek(f, "squat", ek, &a), ENGINE_BUSY);
	assert_int_equal(engine_http_status(a.status), 503);
	assert_string_equal(a.message, "enrollment: 3 challenges are open "
				       "(max_open_enrollments); try again "
				       "later");
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_cap), 1);
	assert_int_equal(count_rows(f->t,
				    "SELECT count(*) FROM enrollments "
				    "WHERE expires_at - created_at = 60",
				    NULL),
			 3);
	/* the cap of one EK */
	f->t->v.cfg.max_open_enrollments = 100;
	for (i = 0; i < f->t->v.cfg.max_enrollments_per_ek; i++)
		assert_int_equal(enroll(f, "m1", &a), ENGINE_CREATED);
	assert_int_equal(enroll(f, "m1", &a), ENGINE_LIMIT);
	assert_int_equal(engine_http_status(a.status), 429);
	assert_non_null(strstr(a.message, "max_enrollments_per_ek"));
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_ek_cap), 1);
	/* the pending cap, at activation: nothing is consumed */
	f->t->v.cfg.max_pending = 0;
	{
		uint8_t proof[32];

		tv_proof_of(f->t, "m1", proof);
		assert_int_equal(activate(f, "m1", proof, &a), 0);
		assert_int_equal(a.status, ENGINE_BUSY);
		assert_non_null(strstr(a.message, "max_pending"));
		assert_int_equal(atomic_load(
					 &f->t->v.metrics.enroll_pending_cap),
				 1);
		f->t->v.cfg.max_pending = 1;
		assert_int_equal(activate(f, "m1", proof, &a), 1);
	}
}

static void test_policy_and_bytes(void **state)
{
	struct fx *f = *state;
	struct engine_answer a;
	uint8_t ek[4096];

	snprintf(f->t->v.cfg.enroll, sizeof(f->t->v.cfg.enroll), "registered");
	assert_int_equal(enroll(f, "host", &a), ENGINE_REFUSED);
	assert_int_equal(engine_http_status(a.status), 403);
	assert_non_null(strstr(a.message, "not registered: id host with EK "));
	assert_int_equal(atomic_load(&f->t->v.metrics.enroll_unregistered), 1);
	/* an EK that is no public area: the checks' status, nothing stored */
	memset(ek, 0xff, f->ek_len);
	assert_int_equal(enroll_ek(f, "host", ek, &a), ENGINE_MALFORMED);
	assert_int_equal(engine_http_status(a.status), 400);
	assert_int_equal(count_rows(f->t, "SELECT count(*) FROM enrollments",
				    NULL),
			 0);
	assert_int_equal(atomic_load(&f->t->v.metrics.enrollments), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_enroll_then_activate),
		T(test_wrong_proof_refused),
		T(test_taken),
		T(test_caps),
		T(test_policy_and_bytes),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine_nonce.c - the nonces the verifier issues (issue #32, one
 * regression test per class of attestation CVE: predictable or repeated
 * challenges). Linked with --wrap=RAND_bytes and --wrap=db_nonce_issue
 * (Makefile): the first fails the RNG on demand, the second sees every
 * nonce engine_issue_nonce() stores and, in the million-nonce run, stands
 * in for the database so that the run measures the issuing, not SQLite.
 *
 * - 1,000,000 nonces of engine_issue_nonce(): each full length
 *   (ENGINE_NONCE_SIZE), stored as sent, no two equal, none all zero,
 *   and every bit of every byte position seen both set and clear (a
 *   nonce filled only in part, or with a constant byte, fails);
 * - a smaller count through the whole issue paths with the database:
 *   POST /nonce (engine_nonce()), the verdict (engine_verdict()) and
 *   the next nonce of accepted evidence (renew_nonce() of
 *   engine_evidence()), all distinct together;
 * - a failing RNG: each of those paths answers ENGINE_INTERNAL with no
 *   nonce, stores nothing, and the machine's outstanding nonce is still
 *   the one it had.
 */
#include "db_nonce.h"
#include "verifier_test.h"

#include <openssl/rand.h>

#include "engine_fixture.h"
#include "engine_internal.h"

#define MILLION 1000000u
#define PATH_ROUNDS 1000u /* per full path: three paths */

int __real_RAND_bytes(unsigned char *buf, int num);
int __real_db_nonce_issue(struct db *db, const char *machine_id,
			  const uint8_t *value, size_t len, int64_t expires_at,
			  struct imt_error *err);

static int rng_fails;	/* RAND_bytes fails, its buffer zeroed */
static int db_stand_in; /* db_nonce_issue() stores nothing */
static uint8_t last_stored[DB_NONCE_MAX];
static size_t last_stored_len;
static unsigned long stored_calls;

int __wrap_RAND_bytes(unsigned char *buf, int num)
{
	if (rng_fails) {
		memset(buf, 0, (size_t)num);
		return 0;
	}
	return __real_RAND_bytes(buf, num);
}

int __wrap_db_nonce_issue(struct db *db, const char *machine_id,
			  const uint8_t *value, size_t len, int64_t expires_at,
			  struct imt_error *err)
{
	stored_calls++;
	last_stored_len = len <= DB_NONCE_MAX ? len : 0;
	memcpy(last_stored, value, last_stored_len);
	if (db_stand_in)
		return 0;
	return __real_db_nonce_issue(db, machine_id, value, len, expires_at,
				     err);
}

static int cmp_nonce(const void *a, const void *b)
{
	return memcmp(a, b, ENGINE_NONCE_SIZE);
}

/*
 * @n nonces of ENGINE_NONCE_SIZE bytes: none all zero, no two equal,
 * every bit of every position both set and clear somewhere (sorts @seen).
 */
static void assert_fresh(uint8_t (*seen)[ENGINE_NONCE_SIZE], size_t n)
{
	uint8_t any[ENGINE_NONCE_SIZE] = { 0 }, all[ENGINE_NONCE_SIZE];
	static const uint8_t zero[ENGINE_NONCE_SIZE];
	size_t i, j;

	memset(all, 0xff, sizeof(all));
	for (i = 0; i < n; i++) {
		if (memcmp(seen[i], zero, ENGINE_NONCE_SIZE) == 0)
			fail_msg("nonce %zu is all zero", i);
		for (j = 0; j < ENGINE_NONCE_SIZE; j++) {
			any[j] |= seen[i][j];
			all[j] &= seen[i][j];
		}
	}
	for (j = 0; j < ENGINE_NONCE_SIZE; j++) {
		if (any[j] != 0xff || all[j] != 0)
			fail_msg("byte %zu of %zu nonces: bits never set %02x, "
				 "always set %02x",
				 j, n, 0xff & ~any[j], all[j]);
	}
	qsort(seen, n, ENGINE_NONCE_SIZE, cmp_nonce);
	for (i = 1; i < n; i++) {
		if (memcmp(seen[i - 1], seen[i], ENGINE_NONCE_SIZE) == 0)
			fail_msg("a nonce issued twice among %zu", n);
	}
}

/* One nonce of engine_issue_nonce(), full length and stored as sent. */
static void issue_one(struct tv *t, int64_t now, uint8_t *out)
{
	uint8_t nonce[DB_NONCE_MAX];
	struct engine_answer ans;
	uint64_t expires;
	size_t len = 0;

	memset(nonce, 0, sizeof(nonce));
	if (engine_issue_nonce(&t->v, "m1", now, nonce, &len, &expires, &ans) <
	    0)
		fail_msg("engine_issue_nonce: %s", ans.message);
	if (len != ENGINE_NONCE_SIZE || last_stored_len != len ||
	    memcmp(last_stored, nonce, len) != 0)
		fail_msg("nonce of %zu bytes, %zu stored or not as sent", len,
			 last_stored_len);
	memcpy(out, nonce, ENGINE_NONCE_SIZE);
}

static void test_million_nonces(void **state)
{
	uint8_t(*seen)[ENGINE_NONCE_SIZE] =
		malloc((size_t)MILLION * ENGINE_NONCE_SIZE);
	struct tv *t = tv_new();
	struct timespec a, b;
	size_t i;

	(void)state;
	assert_non_null(seen);
	clock_gettime(CLOCK_MONOTONIC, &a);
	db_stand_in = 1;
	stored_calls = 0;
	for (i = 0; i < MILLION; i++)
		issue_one(t, TV_NOW + (int64_t)i, seen[i]);
	db_stand_in = 0;
	assert_int_equal(stored_calls, MILLION);
	assert_int_equal(atomic_load(&t->v.metrics.nonces_issued), MILLION);
	assert_fresh(seen, MILLION);
	clock_gettime(CLOCK_MONOTONIC, &b);
	print_message("# %u nonces issued and compared in %.2f s\n", MILLION,
		      (double)(b.tv_sec - a.tv_sec) +
			      (double)(b.tv_nsec - a.tv_nsec) / 1e9);
	free(seen);
	tv_free(t);
}

/* The nonce @ans carries, full length, into @out. */
static void take(const uint8_t *nonce, size_t len, uint8_t *out)
{
	assert_int_equal(len, ENGINE_NONCE_SIZE);
	assert_int_equal(last_stored_len, len);
	assert_memory_equal(last_stored, nonce, len);
	memcpy(out, nonce, ENGINE_NONCE_SIZE);
}

/* POST /nonce, verdicts and accepted evidence, with the database. */
static void test_issue_paths(void **state)
{
	uint8_t(*seen)[ENGINE_NONCE_SIZE] =
		calloc(3 * PATH_ROUNDS, ENGINE_NONCE_SIZE);
	struct engine_answer ans;
	struct tv *t = tv_new();
	int64_t now = TV_NOW;
	size_t n, i;
	struct sm m;

	(void)state;
	assert_non_null(seen);
	sm_new(t, &m, "m1");
	for (i = 0; i < PATH_ROUNDS; i++, now += t->v.cfg.nonce_ttl) {
		engine_nonce(&t->v, "m1", now, &ans);
		assert_int_equal(ans.status, ENGINE_OK);
		take(ans.nonce.nonce, ans.nonce.nonce_len, seen[i]);
		engine_verdict(&t->v, "m1", now, &ans);
		assert_int_equal(ans.status, ENGINE_OK);
		take(ans.verdict.nonce, ans.verdict.nonce_len,
		     seen[PATH_ROUNDS + i]);
	}
	sm_nonce(t, &m, now);
	for (i = 0; i < PATH_ROUNDS; i++) {
		sm_send_ok(t, &m, sm_evidence(&m, NULL, 0), now, &ans);
		assert_int_equal(ans.verdict.nonce_len, ENGINE_NONCE_SIZE);
		memcpy(seen[2 * PATH_ROUNDS + i], ans.verdict.nonce,
		       ENGINE_NONCE_SIZE);
	}
	assert_string_equal(ans.verdict.state, "trusted");
	/* each path's nonces fresh, then all three together */
	for (n = 0; n < 3 * PATH_ROUNDS; n += PATH_ROUNDS)
		assert_fresh(seen + n, PATH_ROUNDS);
	assert_fresh(seen, n);
	free(seen);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* The machine's outstanding nonce is @nonce still. */
static void assert_outstanding(struct tv *t, const uint8_t *nonce, int64_t now)
{
	uint8_t value[DB_NONCE_MAX];
	struct imt_error err;
	int64_t expires;
	size_t len;
	int found;

	assert_int_equal(db_nonce_outstanding(t->v.db, "m1", now, value, &len,
					      &expires, &found, &err),
			 0);
	assert_true(found);
	assert_int_equal(len, ENGINE_NONCE_SIZE);
	assert_memory_equal(value, nonce, len);
}

/* A failing RNG: an error on every path, never a nonce, nothing stored. */
static void test_rng_failure(void **state)
{
	struct engine_answer ans;
	struct tv *t = tv_new();
	unsigned long calls;
	struct sm m;

	(void)state;
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	rng_fails = 1;
	calls = stored_calls;
	/* POST /nonce once the outstanding one is past half its life */
	engine_nonce(&t->v, "m1", TV_NOW + t->v.cfg.nonce_ttl, &ans);
	assert_int_equal(ans.status, ENGINE_INTERNAL);
	assert_int_equal(ans.nonce.nonce_len, 0);
	engine_verdict(&t->v, "m1", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_INTERNAL);
	assert_int_equal(ans.verdict.nonce_len, 0);
	/* evidence: judged, but no next nonce, so no verdict either */
	engine_evidence(&t->v, sm_evidence(&m, NULL, 0), TV_NOW, &ans);
	rng_fails = 0;
	assert_int_equal(ans.status, ENGINE_INTERNAL);
	assert_int_equal(ans.verdict.nonce_len, 0);
	assert_int_equal(stored_calls, calls);
	assert_outstanding(t, m.nonce, TV_NOW);
	assert_int_equal(atomic_load(&t->v.metrics.nonces_issued), 1);
	/* the RNG back, the same evidence is accepted */
	sm_send_ok(t, &m, &m.ev, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	soft_ak_free(&m.ak);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_million_nonces),
		cmocka_unit_test(test_issue_paths),
		cmocka_unit_test(test_rng_failure),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_rules.c - the protocol rules the agent follows: reactions to
 * status codes, nonce age, where the list resumes, sleep length, proof.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "../proto/eventlog_build.h"
#include "rules.h"

static void test_reactions(void **state)
{
	static const struct {
		long status;
		const char *message;
		enum rules_reaction want;
	} cases[] = {
		{ 200, "", RULES_GO_ON },
		{ 201, "", RULES_GO_ON },
		{ 404, "unknown agent 'x'", RULES_ENROLL },
		{ 403, "not activated: enroll first", RULES_ENROLL },
		{ 403, "challenge void: enroll again", RULES_ENROLL },
		{ 403, "pending: waiting for an operator", RULES_PENDING },
		{ 403, "forbidden", RULES_BACKOFF },
		{ 403, "", RULES_BACKOFF },
		{ 409, "id taken", RULES_CONFLICT },
		{ 400, "field 'quote': bad base64", RULES_BACKOFF },
		{ 413, "", RULES_BACKOFF },
		{ 415, "", RULES_BACKOFF },
		{ 500, "", RULES_BACKOFF },
		{ 503, "", RULES_BACKOFF },
		{ 302, "", RULES_BACKOFF },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (rules_reaction(cases[i].status, cases[i].message) !=
		    cases[i].want)
			fail_msg("%ld '%s'", cases[i].status, cases[i].message);
	}
	assert_string_equal(rules_reaction_name(RULES_PENDING), "pending");
}

static void test_error_message(void **state)
{
	const char body[] = "{\"v\":1,\"error\":{\"status\":403,"
			    "\"message\":\"pending: no CA\"}}";
	char out[64];

	(void)state;
	rules_error_message(body, strlen(body), out, sizeof(out));
	assert_string_equal(out, "pending: no CA");
	rules_error_message(body, strlen(body), out, 5);
	assert_string_equal(out, "pend");
	rules_error_message(body, 20, out, sizeof(out)); /* cut JSON */
	assert_string_equal(out, "");
	rules_error_message("<html>", 6, out, sizeof(out));
	assert_string_equal(out, "");
	rules_error_message("{\"error\":{\"message\":7}}", 23, out,
			    sizeof(out));
	assert_string_equal(out, "");
	rules_error_message(NULL, 0, out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_nonce_age(void **state)
{
	uint64_t life;

	(void)state;
	/* 30 s TTL as measured on receipt: stale after 15 s */
	life = rules_nonce_life_ms(1000030, 1000000);
	assert_int_equal(life, 30000);
	assert_int_equal(rules_nonce_stale(5000, life, 5000), 0);
	assert_int_equal(rules_nonce_stale(5000, life, 19999), 0);
	assert_int_equal(rules_nonce_stale(5000, life, 20000), 1);
	/* a clock that went backwards is no reason to trust the nonce */
	assert_int_equal(rules_nonce_stale(5000, life, 4000), 1);
	/* skew: expired already by our clock, or absurdly far away */
	assert_int_equal(rules_nonce_life_ms(999990, 1000000),
			 RULES_NONCE_LIFE_MIN_MS);
	assert_int_equal(rules_nonce_life_ms(1000001, 1000000),
			 RULES_NONCE_LIFE_MIN_MS);
	assert_int_equal(rules_nonce_life_ms(UINT64_MAX, 1000000),
			 RULES_NONCE_LIFE_MAX_MS);
	assert_int_equal(rules_nonce_life_ms(1003600, 1000000), 3600000);
	assert_int_equal(rules_nonce_stale(0, RULES_NONCE_LIFE_MIN_MS, 999), 0);
}

static void test_resume(void **state)
{
	uint64_t drop;

	(void)state;
	/* verifier took everything: go on after the batch */
	assert_int_equal(rules_resume(10, 5, 15, &drop), RULES_CONTINUE);
	assert_int_equal(drop, 0);
	/* heartbeat (empty batch) answered with the same index */
	assert_int_equal(rules_resume(15, 0, 15, &drop), RULES_CONTINUE);
	/* the quote covered 2 of 5: keep 3 */
	assert_int_equal(rules_resume(10, 5, 12, &drop), RULES_KEEP_TAIL);
	assert_int_equal(drop, 2);
	/* covered none: keep all */
	assert_int_equal(rules_resume(10, 5, 10, &drop), RULES_KEEP_TAIL);
	assert_int_equal(drop, 0);
	/* verifier restore, new boot, or ahead of us: read from there */
	assert_int_equal(rules_resume(10, 5, 0, &drop), RULES_REWIND);
	assert_int_equal(rules_resume(10, 5, 9, &drop), RULES_REWIND);
	assert_int_equal(rules_resume(10, 5, 16, &drop), RULES_REWIND);
	assert_int_equal(rules_resume(0, 0, 123, &drop), RULES_REWIND);
}

static void test_wait(void **state)
{
	(void)state;
	/* polled list: sleep until the heartbeat */
	assert_int_equal(rules_wait_ms(1, 200, 9000, 0), 9000);
	/* stock kernel: the fallback timer */
	assert_int_equal(rules_wait_ms(0, 200, 9000, 0), 200);
	assert_int_equal(rules_wait_ms(0, 200, 50, 0), 50);
	/* records the quote missed: soon, even on a polled list */
	assert_int_equal(rules_wait_ms(1, 200, 9000, 1), 200);
	assert_int_equal(rules_wait_ms(1, 200, 0, 0), 0);
}

static void test_proof(void **state)
{
	uint8_t secret[32], proof[RULES_PROOF_LEN], want[32];
	unsigned int len;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(secret); i++)
		secret[i] = (uint8_t)i;
	assert_int_equal(rules_proof(secret, sizeof(secret), "guest-1", proof),
			 0);
	HMAC(EVP_sha256(), secret, sizeof(secret),
	     (const unsigned char *)"guest-1", 7, want, &len);
	assert_memory_equal(proof, want, sizeof(want));
	/* RFC 4231 test case 2: key "Jefe" */
	assert_int_equal(rules_proof((const uint8_t *)"Jefe", 4,
				     "what do ya want for nothing?", proof),
			 0);
	assert_int_equal(proof[0], 0x5b);
	assert_int_equal(proof[31], 0x43);
}

/*
 * rules_pcr_mask(): PCRs 0-10, and every other PCR the firmware event log
 * extends (EV_NO_ACTION extends nothing); no log, a bad or a SHA-1-only
 * one: 0-10.
 */
static void test_pcr_mask(void **state)
{
	static struct elb b;

	(void)state;
	assert_int_equal(rules_pcr_mask(NULL, 0), 0x7ff);
	elb_open_default(&b);
	elb_separator(&b, 0, 0);
	elb_separator(&b, 7, 0);
	assert_int_equal(rules_pcr_mask(b.buf, b.len), 0x7ff);
	elb_event(&b, 11, 0x0000000d, ".linux", 6);
	elb_event(&b, 12, 0x0000000d, "creds", 5);
	elb_event(&b, 14, 0x0000000d, "MokList", 7);
	elb_event(&b, 15, 0x00000003, "no action", 9);
	elb_event(&b, 23, 0x0000000d, "app", 3);
	assert_int_equal(rules_pcr_mask(b.buf, b.len),
			 0x7ffu | 1u << 11 | 1u << 12 | 1u << 14 | 1u << 23);
	assert_int_equal(rules_pcr_mask(b.buf, b.len - 1), 0x7ff);
	elb_reset(&b);
	elb_legacy_event(&b, 12, 0x0000000d, "v", 1);
	assert_int_equal(rules_pcr_mask(b.buf, b.len), 0x7ff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reactions),
		cmocka_unit_test(test_error_message),
		cmocka_unit_test(test_nonce_age),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_wait),
		cmocka_unit_test(test_proof),
		cmocka_unit_test(test_pcr_mask),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

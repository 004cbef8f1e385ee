// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_boot_memo.c - the memo of firmware event log checks that passed:
 * its key covers the log, the bank and each of PCRs 0-9, and nothing it
 * holds answers for another key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "boot_memo.h"

static void quoted_pcrs(struct pcr_set *p, const char *bank)
{
	int i;

	pcr_set_init(p, hash_algo_bank(bank));
	p->present = 0x7ff; /* PCRs 0-10, as agents quote them */
	for (i = 0; i < 11; i++)
		memset(p->value[i], 0x10 + i, p->algo->size);
}

static void key_of(const uint8_t *sha, const struct pcr_set *p,
		   uint8_t key[BOOT_MEMO_KEY_SIZE])
{
	assert_int_equal(boot_memo_key(sha, p, key), 0);
}

static void test_key_covers_its_inputs(void **state)
{
	uint8_t sha[32], base[BOOT_MEMO_KEY_SIZE], k[BOOT_MEMO_KEY_SIZE];
	struct pcr_set p;
	int i;

	(void)state;
	memset(sha, 0xab, sizeof(sha));
	quoted_pcrs(&p, "sha256");
	key_of(sha, &p, base);
	key_of(sha, &p, k);
	assert_memory_equal(base, k, sizeof(k));
	/* another log */
	sha[31] ^= 1;
	key_of(sha, &p, k);
	assert_memory_not_equal(base, k, sizeof(k));
	sha[31] ^= 1;
	/* each of PCRs 0-9, down to its last byte */
	for (i = 0; i < 10; i++) {
		p.value[i][31] ^= 1;
		key_of(sha, &p, k);
		assert_memory_not_equal(base, k, sizeof(k));
		p.value[i][31] ^= 1;
	}
	/* PCR 10 (IMA's) and PCRs the quote does not select are not the
	 * boot log's business */
	p.value[10][0] ^= 1;
	p.value[11][0] ^= 1;
	key_of(sha, &p, k);
	assert_memory_equal(base, k, sizeof(k));
	p.value[11][0] ^= 1;
	/* a quote selecting PCR 11 too is another check, its value counts */
	p.present |= 1u << 11;
	key_of(sha, &p, k);
	assert_memory_not_equal(base, k, sizeof(k));
	memcpy(base, k, sizeof(k));
	p.value[11][31] ^= 1;
	key_of(sha, &p, k);
	assert_memory_not_equal(base, k, sizeof(k));
	p.value[11][31] ^= 1;
	p.present &= ~(1u << 11);
	/* the same bytes read as another bank are another check */
	p.algo = hash_algo_bank("sha384");
	key_of(sha, &p, k);
	assert_memory_not_equal(base, k, sizeof(k));
}

static void test_key_needs_pcrs_0_to_9(void **state)
{
	uint8_t sha[32] = { 0 }, k[BOOT_MEMO_KEY_SIZE];
	struct pcr_set p;
	int i;

	(void)state;
	for (i = 0; i < 10; i++) {
		quoted_pcrs(&p, "sha256");
		p.present &= ~(1u << i);
		assert_int_equal(boot_memo_key(sha, &p, k), -1);
	}
}

static void test_pass_and_evict(void **state)
{
	struct boot_memo *m = boot_memo_new();
	uint8_t a[BOOT_MEMO_KEY_SIZE], b[BOOT_MEMO_KEY_SIZE];

	(void)state;
	assert_non_null(m);
	memset(a, 0x5a, sizeof(a));
	memcpy(b, a, sizeof(b));
	b[31] ^= 1; /* same slot, another key */
	assert_int_equal(boot_memo_passed(m, a), 0);
	boot_memo_pass(m, a);
	assert_int_equal(boot_memo_passed(m, a), 1);
	assert_int_equal(boot_memo_passed(m, b), 0);
	boot_memo_pass(m, b); /* takes the slot: a is checked again */
	assert_int_equal(boot_memo_passed(m, b), 1);
	assert_int_equal(boot_memo_passed(m, a), 0);
	/* an all-zero key in an empty slot was never passed */
	memset(a, 0, sizeof(a));
	assert_int_equal(boot_memo_passed(m, a), 0);
	/* no memo: nothing passed, nothing kept */
	boot_memo_pass(NULL, b);
	assert_int_equal(boot_memo_passed(NULL, b), 0);
	boot_memo_free(m);
	boot_memo_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_covers_its_inputs),
		cmocka_unit_test(test_key_needs_pcrs_0_to_9),
		cmocka_unit_test(test_pass_and_evict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

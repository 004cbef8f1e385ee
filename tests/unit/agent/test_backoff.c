// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_backoff.c - the retry schedule: 1 s doubling to the ceiling, each
 * wait jittered within [ceiling/2, ceiling], reset after a success.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backoff.h"

static void test_schedule(void **state)
{
	static const uint32_t ceilings[] = { 1000,  2000,  4000,  8000,
					     16000, 30000, 30000, 30000 };
	struct backoff b;
	uint64_t seed;
	size_t i;

	(void)state;
	for (seed = 1; seed < 200; seed++) {
		backoff_init(&b, 30000, seed);
		for (i = 0; i < sizeof(ceilings) / sizeof(ceilings[0]); i++) {
			uint32_t w = backoff_next(&b);

			assert_in_range(w, ceilings[i] / 2, ceilings[i]);
		}
		backoff_reset(&b);
		assert_in_range(backoff_next(&b), 500, 1000);
	}
}

static void test_jitter_spreads(void **state)
{
	struct backoff a, b;
	int differ = 0, i;

	(void)state;
	backoff_init(&a, 30000, 1);
	backoff_init(&b, 30000, 2);
	for (i = 0; i < 8; i++)
		differ += backoff_next(&a) != backoff_next(&b);
	assert_true(differ >= 6);
}

static void test_small_ceiling(void **state)
{
	struct backoff b;
	int i;

	(void)state;
	backoff_init(&b, 10, 0); /* below the first step; seed 0 */
	for (i = 0; i < 5; i++)
		assert_in_range(backoff_next(&b), 500, 1000);
	backoff_init(&b, 3000, 7);
	assert_in_range(backoff_next(&b), 500, 1000);
	assert_in_range(backoff_next(&b), 1000, 2000);
	assert_in_range(backoff_next(&b), 1500, 3000);
	assert_in_range(backoff_next(&b), 1500, 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_jitter_spreads),
		cmocka_unit_test(test_small_ceiling),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_digest_set.c - the reference digest set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "digest_set.h"

static void make_digest(uint8_t *d, uint32_t i)
{
	memset(d, 0, 32);
	memcpy(d + 28, &i, 4); /* differ only in the last bytes */
}

static void test_add_contains_grow(void **state)
{
	struct digest_set *s = digest_set_new(32, 4, 0x1234);
	uint8_t d[32];
	uint32_t i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < 10000; i++) {
		make_digest(d, 2 * i);
		assert_int_equal(digest_set_add(s, d), 0);
	}
	make_digest(d, 0);
	assert_int_equal(digest_set_add(s, d), 0); /* duplicate */
	assert_int_equal(digest_set_count(s), 10000);
	for (i = 0; i < 20000; i++) {
		make_digest(d, i);
		assert_int_equal(digest_set_contains(s, d), i % 2 == 0);
	}
	digest_set_free(s);
}

static void test_bad_sizes(void **state)
{
	(void)state;
	assert_null(digest_set_new(8, 1, 0));
	assert_null(digest_set_new(65, 1, 0));
	digest_set_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_contains_grow),
		cmocka_unit_test(test_bad_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hex.c - hexadecimal encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hex.h"

static void test_round_trip(void **state)
{
	const uint8_t in[] = { 0x00, 0x7f, 0x80, 0xff, 0x0a };
	uint8_t out[8];
	char hex[11];

	(void)state;
	hex_encode(in, sizeof(in), hex);
	assert_string_equal(hex, "007f80ff0a");
	assert_int_equal(hex_decode("007F80ff0A", 10, out, sizeof(out)), 5);
	assert_memory_equal(out, in, sizeof(in));
}

static void test_bad_input(void **state)
{
	uint8_t out[2];

	(void)state;
	assert_int_equal(hex_decode("abc", 3, out, sizeof(out)), -1);
	assert_int_equal(hex_decode("zz", 2, out, sizeof(out)), -1);
	assert_int_equal(hex_decode("001122", 6, out, sizeof(out)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

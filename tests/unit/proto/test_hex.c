// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hex.c - hexadecimal encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
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

/* An EK fingerprint as operators type it: each form, and what is not. */
static void test_fpr_parse(void **state)
{
	const char *h = "00112233445566778899aabbccddeeff"
			"00112233445566778899AABBCCDDEEFF";
	char colons[3 * HEX_FPR_SIZE + 8] = "sha256:";
	uint8_t f[HEX_FPR_SIZE], want[HEX_FPR_SIZE];
	size_t i;

	(void)state;
	for (i = 0; i < HEX_FPR_SIZE; i++)
		want[i] = (uint8_t)((i % 16) * 0x11);
	assert_int_equal(hex_fpr_parse(h, f), 0);
	assert_memory_equal(f, want, HEX_FPR_SIZE);
	for (i = 0; i < HEX_FPR_SIZE; i++)
		snprintf(colons + 7 + 3 * i, 4, "%.2s:", h + 2 * i);
	colons[strlen(colons) - 1] = '\0';
	memset(f, 0, sizeof(f));
	assert_int_equal(hex_fpr_parse(colons, f), 0);
	assert_memory_equal(f, want, HEX_FPR_SIZE);
	colons[0] = 'S';
	assert_int_equal(hex_fpr_parse(colons, f), 0);
	assert_int_equal(hex_fpr_parse(NULL, f), -1);
	assert_int_equal(hex_fpr_parse("", f), -1);
	assert_int_equal(hex_fpr_parse("sha1:00", f), -1);
	/* 63 and 65 digits, a non-hex digit */
	assert_int_equal(hex_fpr_parse(h + 1, f), -1);
	snprintf(colons, sizeof(colons), "%s0", h);
	assert_int_equal(hex_fpr_parse(colons, f), -1);
	snprintf(colons, sizeof(colons), "%s", h);
	colons[10] = 'g';
	assert_int_equal(hex_fpr_parse(colons, f), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_fpr_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

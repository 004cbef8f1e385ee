// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pcr_set.c - the "INDEX HEX" PCR text format and boot_aggregate.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pcr_set.h"

static enum imt_result parse(const char *bank, const char *text,
			     struct pcr_set *set, struct imt_error *err)
{
	pcr_set_init(set, hash_algo_bank(bank));
	return pcr_set_parse_text(set, text, strlen(text), err);
}

static void test_good_text(void **state)
{
	struct pcr_set set;
	struct imt_error err;

	(void)state;
	assert_int_equal(parse("sha1",
			       "# comment\n\n0 0000000000000000000000000000000000000000\r\n"
			       "10  A02E9094971CDFACB4A38DB8C4363E21FE2E1A0A",
			       &set, &err), IMT_OK);
	assert_int_equal(set.present, (1u << 0) | (1u << 10));
	assert_int_equal(set.value[10][0], 0xa0);
	assert_int_equal(set.value[10][19], 0x0a);
}

static const struct {
	const char *text;
	const char *msg;
} bad_texts[] = {
	{ "24 00", "line 1: expected \"INDEX HEX\"" },
	{ "x 00", "line 1: expected" },
	{ "\n1 0011", "line 2: PCR 1 needs 40 hex digits" },
	{ "1 00000000000000000000000000000000000000zz", "needs 40 hex" },
	{ "1 0000000000000000000000000000000000000000 extra", "needs 40 hex" },
	{ "1 0000000000000000000000000000000000000000\n"
	  "1 0000000000000000000000000000000000000000", "line 2: PCR 1 given twice" },
	{ "99999999999999999999 00", "expected \"INDEX HEX\"" },
};

static void test_bad_text(void **state)
{
	struct pcr_set set;
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_texts) / sizeof(bad_texts[0]); i++) {
		assert_int_equal(parse("sha1", bad_texts[i].text, &set, &err),
				 IMT_ERR_MALFORMED);
		assert_non_null(strstr(err.msg, bad_texts[i].msg));
	}
}

static void test_boot_aggregate_needs_pcrs(void **state)
{
	struct pcr_set set;
	struct imt_error err;
	uint8_t out[32];
	int i;

	(void)state;
	pcr_set_init(&set, hash_algo_bank("sha256"));
	for (i = 0; i < 9; i++)
		set.present |= 1u << i;
	assert_int_equal(pcr_set_boot_aggregate(&set, out, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "PCR 9 missing"));
	set.present |= 1u << 9;
	assert_int_equal(pcr_set_boot_aggregate(&set, out, &err), IMT_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_text),
		cmocka_unit_test(test_bad_text),
		cmocka_unit_test(test_boot_aggregate_needs_pcrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

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
			       &set, &err),
			 IMT_OK);
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
	  "1 0000000000000000000000000000000000000000",
	  "line 2: PCR 1 given twice" },
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

#define H20A "3dcad0ba23f4ac1d0ab4ed8a3b2e2c66c1a86ca0"
#define H32A "a4b2c8f5d9e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3"
#define H32B "0000000000000000000000000000000000000000000000000000000000000001"

static enum imt_result vals(struct pcr_set *set, const char *text,
			    struct imt_error *err)
{
	return pcr_set_parse_values(set, text, strlen(text), err);
}

/* tpm2_pcrread's output and PCR=HEX words: only the set's bank taken. */
static void test_values(void **state)
{
	struct pcr_set set;
	struct imt_error err;
	const char *pcrread = "  sha1:\n    0 : 0x" H20A "\n"
			      "  sha256:\n    0 : 0x" H32A "\n"
			      "    7 : 0x" H32B "  # comment\n"
			      "    12: 0x" H32A "\n";

	(void)state;
	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(vals(&set, pcrread, &err), IMT_OK);
	assert_int_equal(set.present, 1u | 1u << 7 | 1u << 12);
	assert_int_equal(set.value[0][0], 0xa4);
	assert_int_equal(set.value[12][0], 0xa4);
	assert_int_equal(set.value[7][31], 1);
	pcr_set_init(&set, hash_algo_bank("sha1"));
	assert_int_equal(vals(&set, pcrread, &err), IMT_OK);
	assert_int_equal(set.present, 1u);
	assert_int_equal(set.value[0][0], 0x3d);
	/* words: bare (the set's bank), prefixed, 0x or not, on one line */
	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(vals(&set,
			      "4=" H32A " sha256:9=0x" H32B " sha1:1=" H20A,
			      &err),
			 IMT_OK);
	assert_int_equal(set.present, 1u << 4 | 1u << 9);
	/* errors: a line of neither form, a bad index, twice, a size */
	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(vals(&set, "hello", &err), IMT_ERR_MALFORMED);
	assert_int_equal(vals(&set, "24=" H32A, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "not a PCR index"));
	assert_int_equal(vals(&set, "24: " H32A, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "not a PCR index"));
	assert_int_equal(vals(&set, ": " H32A, &err), IMT_ERR_MALFORMED);
	assert_int_equal(vals(&set, "1=" H32A " 1=" H32A, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "given twice"));
	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(vals(&set, "1=" H20A, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "needs 64 hex digits"));
	assert_int_equal(vals(&set, "1=" H32A " junk", &err),
			 IMT_ERR_MALFORMED);
	/* a pcrread value line before any bank is the set's bank */
	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(vals(&set, "3 : " H32B "\n", &err), IMT_OK);
	assert_int_equal(set.present, 1u << 3);
	/* and "INDEX HEX" lines, as the fixtures' pcrs-sha256 */
	assert_int_equal(vals(&set, "5 " H32B "\n", &err), IMT_OK);
	assert_int_equal(set.present, 1u << 3 | 1u << 5);
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
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_boot_aggregate_needs_pcrs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

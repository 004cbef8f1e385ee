// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_utc.c - utc_text(): ISO 8601 in UTC, and the seconds of a time
 * gmtime_r() cannot break down; utc_duration() and utc_date(), what an
 * operator types for a token's expiry or an audit listing's start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "utc.h"

static void test_utc_text(void **state)
{
	char buf[UTC_TEXT_MAX];

	(void)state;
	assert_string_equal(utc_text(0, buf, sizeof(buf)),
			    "1970-01-01T00:00:00Z");
	assert_string_equal(utc_text(1000000000, buf, sizeof(buf)),
			    "2001-09-09T01:46:40Z");
	assert_string_equal(utc_text(INT64_MAX, buf, sizeof(buf)),
			    "9223372036854775807");
}

static void test_utc_duration(void **state)
{
	(void)state;
	assert_int_equal(utc_duration("90s"), 90);
	assert_int_equal(utc_duration("5m"), 300);
	assert_int_equal(utc_duration("24h"), 86400);
	assert_int_equal(utc_duration("7d"), 7 * 86400);
	assert_int_equal(utc_duration("2w"), 14 * 86400);
	assert_int_equal(utc_duration("36600d"), UTC_DURATION_MAX);
	assert_int_equal(utc_duration("36601d"), -1);
	assert_int_equal(utc_duration("0d"), -1);
	assert_int_equal(utc_duration("-1d"), -1);
	assert_int_equal(utc_duration("+1d"), -1);
	assert_int_equal(utc_duration("1"), -1);
	assert_int_equal(utc_duration("1dd"), -1);
	assert_int_equal(utc_duration("1y"), -1);
	assert_int_equal(utc_duration("d"), -1);
	assert_int_equal(utc_duration(NULL), -1);
}

static void test_utc_date(void **state)
{
	(void)state;
	assert_int_equal(utc_date("2001-09-09T01:46:40Z"), 1000000000);
	assert_int_equal(utc_date("2001-09-09"), 1000000000 - 6400);
	assert_int_equal(utc_date("1970-01-01"), 0);
	assert_int_equal(utc_date("2001-09-09T01:46:40"), -1);
	assert_int_equal(utc_date("2001-09-09 01:46:40Z"), -1);
	assert_int_equal(utc_date("24h"), -1);
	assert_int_equal(utc_date(""), -1);
	assert_int_equal(utc_date(NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utc_text),
		cmocka_unit_test(test_utc_duration),
		cmocka_unit_test(test_utc_date),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

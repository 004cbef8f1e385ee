// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_utc.c - utc_text(): ISO 8601 in UTC, and the seconds of a time
 * gmtime_r() cannot break down.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utc_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

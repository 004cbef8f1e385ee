// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_json_text.c - stored paths and reasons as JSON values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "json_text.h"

/* A path that is not UTF-8 keeps every valid character, and each invalid
 * byte as "\xNN" text; NULL is "". */
static void test_path(void **state)
{
	json_t *j;

	(void)state;
	j = json_path("/usr/bin/\xc3\xa9t\xe9");
	assert_non_null(j);
	assert_string_equal(json_string_value(j), "/usr/bin/\xc3\xa9t\\xe9");
	json_decref(j);
	/* an overlong form and a surrogate are invalid bytes too */
	j = json_path("\xc0\xaf\xed\xa0\x80");
	assert_string_equal(json_string_value(j), "\\xc0\\xaf\\xed\\xa0\\x80");
	json_decref(j);
	j = json_path(NULL);
	assert_string_equal(json_string_value(j), "");
	json_decref(j);
}

/* A byte shown in ASCII: itself when printable and no backslash, else
 * "\xNN". */
static void test_byte_printable(void **state)
{
	char out[4];

	(void)state;
	assert_int_equal(text_byte_printable('a', out), 1);
	assert_memory_equal(out, "a", 1);
	assert_int_equal(text_byte_printable(' ', out), 1);
	assert_int_equal(text_byte_printable('\\', out), 4);
	assert_memory_equal(out, "\\x5c", 4);
	assert_int_equal(text_byte_printable('\n', out), 4);
	assert_memory_equal(out, "\\x0a", 4);
	assert_int_equal(text_byte_printable(0x7f, out), 4);
	assert_memory_equal(out, "\\x7f", 4);
	assert_int_equal(text_byte_printable(0xe9, out), 4);
	assert_memory_equal(out, "\\xe9", 4);
}

/* A reason is its JSON value, its text when it is no JSON, null when none. */
static void test_reason(void **state)
{
	json_t *j;

	(void)state;
	j = json_reason("{\"check\":\"quote\"}");
	assert_true(json_is_object(j));
	assert_string_equal(json_string_value(json_object_get(j, "check")),
			    "quote");
	json_decref(j);
	j = json_reason("not json \xff");
	assert_string_equal(json_string_value(j), "not json \\xff");
	json_decref(j);
	j = json_reason(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_reason),
		cmocka_unit_test(test_byte_printable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

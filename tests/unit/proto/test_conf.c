// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_conf.c - the table-driven "key = value" parser: values, defaults,
 * choices, bounds and "name:line: message" errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "conf.h"

struct sample {
	char name[8];
	char mode[8];
	char path[32];
	uint64_t count;
};

static const struct conf_key keys[] = {
	CONF_STR(sample, "name", name, "anon", 0, NULL, "a short name"),
	CONF_STR(sample, "mode", mode, "fast", 0, "fast|slow", "speed"),
	CONF_STR(sample, "path", path, "", 1, NULL, "where it lives"),
	CONF_NUM(sample, "count", count, 1, 100, "10", "how many"),
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static enum imt_result parse(const char *text, size_t len, struct sample *s,
			     struct imt_error *err)
{
	assert_int_equal(conf_defaults(keys, NKEYS, s, sizeof(*s), err),
			 IMT_OK);
	return conf_parse(keys, NKEYS, s, "s.conf", text, len, err);
}

static void test_values(void **state)
{
	const char text[] = "# comment only\n"
			    "  name\t=  box1   # trailing comment\r\n"
			    "\n"
			    "mode=slow\n"
			    "path = /a b/c\n"
			    "count = 100"; /* no final newline */
	struct imt_error err;
	struct sample s;

	(void)state;
	assert_int_equal(parse(text, strlen(text), &s, &err), IMT_OK);
	assert_string_equal(s.name, "box1");
	assert_string_equal(s.mode, "slow");
	assert_string_equal(s.path, "/a b/c");
	assert_int_equal(s.count, 100);
	assert_int_equal(conf_check(keys, NKEYS, &s, &err), IMT_OK);
}

static void test_defaults_and_required(void **state)
{
	struct imt_error err;
	struct sample s;

	(void)state;
	assert_int_equal(parse("", 0, &s, &err), IMT_OK);
	assert_string_equal(s.name, "anon");
	assert_string_equal(s.mode, "fast");
	assert_int_equal(s.count, 10);
	assert_int_equal(conf_check(keys, NKEYS, &s, &err), IMT_ERR_MALFORMED);
	assert_string_equal(err.msg, "'path' must be set (where it lives)");
}

static const struct {
	const char *text;
	size_t line;
	const char *msg;
} bad[] = {
	{ "count = 0", 1, "s.conf:1: '0' is not a number from 1 to 100" },
	{ "\n\ncount = 101", 3,
	  "s.conf:3: '101' is not a number from 1 to 100" },
	{ "count = 1x", 1, "s.conf:1: '1x' is not a number from 1 to 100" },
	{ "count = -1", 1, "s.conf:1: '-1' is not a number" },
	{ "count = 0x10", 1, "s.conf:1: '0x10' is not a number from 1 to 100" },
	{ "count =", 1, "s.conf:1: '' is not a number" },
	{ "count = 99999999999999999999999", 1,
	  "s.conf:1: '99999999999999999999999' is not a number" },
	{ "colour = blue", 1, "s.conf:1: unknown key 'colour'" },
	{ "= blue", 1, "s.conf:1: unknown key ''" },
	{ "# ok\nname box", 2, "s.conf:2: expected \"key = value\"" },
	{ "name = a\nname = b", 2, "s.conf:2: 'name' set twice" },
	{ "name = 12345678", 1, "s.conf:1: value longer than 7 bytes" },
	{ "mode = medium", 1, "s.conf:1: 'medium' is not one of fast|slow" },
	{ "mode = fas", 1, "s.conf:1: 'fas' is not one of fast|slow" },
	{ "mode = fasts", 1, "s.conf:1: 'fasts' is not one of" },
};

static void test_errors(void **state)
{
	struct imt_error err;
	struct sample s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text, strlen(bad[i].text), &s,
				       &err),
				 IMT_ERR_MALFORMED);
		assert_int_equal(err.record, bad[i].line);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg,
				 bad[i].msg);
	}
}

static void test_bounded_buffer(void **state)
{
	/* the length bounds the parse: nothing past it is read */
	const char text[] = "name = ab\nname = cd";
	const char nul[] = "name = a\0b";
	struct imt_error err;
	struct sample s;

	(void)state;
	assert_int_equal(parse(text, 9, &s, &err), IMT_OK);
	assert_string_equal(s.name, "ab");
	assert_int_equal(parse(text, 8, &s, &err), IMT_OK);
	assert_string_equal(s.name, "a");
	assert_int_equal(parse(nul, sizeof(nul) - 1, &s, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "NUL byte"));
}

static void test_describe(void **state)
{
	char buf[256];

	(void)state;
	conf_describe(&keys[3], buf, sizeof(buf));
	assert_string_equal(buf, "count = 10\n\thow many [1-100]");
	conf_describe(&keys[1], buf, sizeof(buf));
	assert_string_equal(buf, "mode = fast\n\tspeed [fast|slow]");
	conf_describe(&keys[2], buf, sizeof(buf));
	assert_string_equal(buf, "path = (required)\n\twhere it lives");
}

static void test_bad_default(void **state)
{
	static const struct conf_key wrong[] = {
		CONF_NUM(sample, "count", count, 1, 5, "10", "too big"),
	};
	struct imt_error err;
	struct sample s;

	(void)state;
	assert_int_equal(conf_defaults(wrong, 1, &s, sizeof(s), &err),
			 IMT_ERR_INTERNAL);
	assert_non_null(strstr(err.msg, "default of 'count'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_defaults_and_required),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_bounded_buffer),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_bad_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_grow.c - the doubling byte buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grow.h"

/* The first allocation is @first bytes, then the capacity doubles. */
static void test_doubles(void **state)
{
	size_t cap = 0;
	char *buf, *same;

	(void)state;
	buf = grow(NULL, &cap, 10, 4096);
	assert_non_null(buf);
	assert_int_equal(cap, 4096);
	memset(buf, 'x', 4096);
	same = grow(buf, &cap, 4096, 4096);
	assert_ptr_equal(same, buf); /* fits: not reallocated */
	assert_int_equal(cap, 4096);
	buf = grow(buf, &cap, 4097, 4096);
	assert_non_null(buf);
	assert_int_equal(cap, 8192);
	assert_int_equal(buf[4095], 'x'); /* kept what it held */
	buf = grow(buf, &cap, 40000, 4096);
	assert_non_null(buf);
	assert_int_equal(cap, 65536);
	free(buf);
}

/* A size past what doubling can reach fails and leaves the buffer. */
static void test_overflow(void **state)
{
	size_t cap = 0;
	char *buf, *none;

	(void)state;
	buf = grow(NULL, &cap, 1, 16);
	assert_non_null(buf);
	buf[0] = 'k';
	none = grow(buf, &cap, SIZE_MAX, 16);
	assert_null(none);
	assert_int_equal(cap, 16);
	assert_int_equal(buf[0], 'k');
	free(buf);
	/* no start given: from one byte */
	cap = 0;
	buf = grow(NULL, &cap, 3, 0);
	assert_non_null(buf);
	assert_int_equal(cap, 4);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubles),
		cmocka_unit_test(test_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

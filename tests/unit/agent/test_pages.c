// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pages.c - pages_release() gives back exactly the whole pages of
 * the range, and pages_trim() what was written past the use: they leave
 * memory (mincore) and read as zeros, while the bytes before and after
 * them, in the range's partial pages and outside it, keep their values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "pages.h"

#define PAGES 64

/* How many of the @n pages from @p are resident. */
static size_t resident(const uint8_t *p, size_t n, size_t page)
{
	unsigned char vec[PAGES];
	size_t i, count = 0;

	assert_int_equal(mincore((void *)p, n * page, vec), 0);
	for (i = 0; i < n; i++)
		count += vec[i] & 1;
	return count;
}

static void test_release(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *buf = mmap(NULL, PAGES * page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t from = 3 * page + 100, to = 40 * page + 7, i, written;

	(void)state;
	assert_true(buf != MAP_FAILED);
	memset(buf, 0xaa, PAGES * page);
	assert_int_equal(resident(buf, PAGES, page), PAGES);
	pages_release(buf, from, to);
	/* pages 4-39 are whole in the range: gone, and zero when read */
	assert_int_equal(resident(buf + 4 * page, 36, page), 0);
	assert_int_equal(buf[4 * page], 0);
	assert_int_equal(buf[40 * page - 1], 0);
	/* the partial pages at both ends and the rest keep their bytes */
	for (i = 0; i < 4 * page; i++)
		assert_int_equal(buf[i], 0xaa);
	for (i = 40 * page; i < PAGES * page; i++)
		assert_int_equal(buf[i], 0xaa);
	/* an empty or inverted range, or one inside a page, changes none */
	memset(buf, 0xaa, PAGES * page);
	pages_release(buf, 10 * page, 10 * page);
	pages_release(buf, 20 * page, 10 * page);
	pages_release(buf, 30 * page + 1, 31 * page - 1);
	assert_int_equal(resident(buf, PAGES, page), PAGES);
	assert_int_equal(buf[10 * page], 0xaa);
	assert_int_equal(buf[30 * page + 10], 0xaa);
	/* a trim gives back what was written past the use, and says so */
	written = 50 * page;
	pages_trim(buf, 2 * page, &written);
	assert_int_equal(written, 2 * page);
	assert_int_equal(resident(buf + 2 * page, 48, page), 0);
	assert_int_equal(resident(buf, 2, page), 2);
	assert_int_equal(buf[2 * page - 1], 0xaa);
	munmap(buf, PAGES * page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

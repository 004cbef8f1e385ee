// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_ascii.c - rendering the binary list gives the kernel's own
 * ascii list, byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../fixture.h"
#include "../list_helpers.h"
#include "ima_ascii.h"

static void test_fixtures_render_as_kernel(void **state)
{
	struct ima_record recs[TEST_RECORDS_MAX];
	struct imt_error err;
	size_t k, i, len, alen, count, pos;
	uint8_t *buf;
	char *ascii, line[1024];

	(void)state;
	for (k = 0; k < IMA_FIXTURE_COUNT; k++) {
		buf = fixture_load(ima_fixtures[k],
				   "binary_runtime_measurements", &len);
		ascii = (char *)fixture_load(ima_fixtures[k],
					     "ascii_runtime_measurements",
					     &alen);
		assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err),
				 IMT_OK);
		pos = 0;
		for (i = 0; i < count; i++) {
			size_t n =
				ima_ascii_format(&recs[i], line, sizeof(line));

			assert_true(n < sizeof(line));
			assert_true(pos + n <= alen);
			assert_memory_equal(line, ascii + pos, n);
			pos += n;
		}
		assert_int_equal(pos, alen);
		free(buf);
		free(ascii);
	}
}

/* Output is cut like snprintf's, and the full length still returned. */
static void test_truncation(void **state)
{
	struct ima_record recs[TEST_RECORDS_MAX];
	struct imt_error err;
	size_t len, count, full;
	uint8_t *buf;
	char small[12];

	(void)state;
	buf = fixture_load("ima-ng-sha256", "binary_runtime_measurements",
			   &len);
	assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err), IMT_OK);
	full = ima_ascii_format(&recs[1], NULL, 0);
	assert_int_equal(ima_ascii_format(&recs[1], small, sizeof(small)),
			 full);
	assert_string_equal(small, "10 dca69540");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_render_as_kernel),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

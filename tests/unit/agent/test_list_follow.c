// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_list_follow.c - following a list that grows, with records cut in
 * half by the writer, rewinds, and the poll fallback timer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../list_helpers.h"
#include "list_follow.h"

struct growing {
	char path[64];
	FILE *out;
	uint8_t recs[32][256];
	size_t sizes[32];
};

static int setup(void **state)
{
	struct growing *g = calloc(1, sizeof(*g));
	char name[32];
	size_t i;
	int fd;

	strcpy(g->path, "/tmp/imatrust-follow-XXXXXX");
	fd = mkstemp(g->path);
	assert_true(fd >= 0);
	g->out = fdopen(fd, "w");
	for (i = 0; i < 32; i++) {
		snprintf(name, sizeof(name), "/usr/bin/tool%zu", i);
		g->sizes[i] = build_ng(g->recs[i], sizeof(g->recs[i]), name,
				       (uint8_t)i, 0);
	}
	*state = g;
	return 0;
}

static int teardown(void **state)
{
	struct growing *g = *state;

	fclose(g->out);
	unlink(g->path);
	free(g);
	return 0;
}

/* Append records [from, to) and, optionally, the first half of @to. */
static void append(struct growing *g, size_t from, size_t to, int half)
{
	size_t i;

	for (i = from; i < to; i++)
		fwrite(g->recs[i], 1, g->sizes[i], g->out);
	if (half)
		fwrite(g->recs[to], 1, g->sizes[to] / 2, g->out);
	fflush(g->out);
}

static void expect_batch(struct list_follow *f, size_t first, size_t count,
			 struct growing *g)
{
	struct list_batch b;
	size_t i, off = 0;

	assert_int_equal(list_follow_next(f, &b, NULL), IMT_OK);
	assert_int_equal(b.count, count);
	if (count == 0)
		return;
	assert_int_equal(b.first, first);
	for (i = first; i < first + count; i++) {
		assert_memory_equal(b.bytes + off, g->recs[i], g->sizes[i]);
		off += g->sizes[i];
	}
	assert_int_equal(b.len, off);
}

static void test_grows_in_pieces(void **state)
{
	struct growing *g = *state;
	struct list_follow *f = list_follow_open(g->path, NULL, NULL);

	assert_non_null(f);
	expect_batch(f, 0, 0, g);
	append(g, 0, 3, 1); /* 3 records and half of the 4th */
	expect_batch(f, 0, 3, g);
	expect_batch(f, 3, 0, g); /* the half record is held back */
	fwrite(g->recs[3] + g->sizes[3] / 2, 1, g->sizes[3] - g->sizes[3] / 2,
	       g->out);
	fflush(g->out);
	append(g, 4, 6, 0);
	expect_batch(f, 3, 3, g); /* every record exactly once */
	assert_int_equal(list_follow_position(f), 6);
	list_follow_close(f);
}

static void test_rewind(void **state)
{
	struct growing *g = *state;
	struct list_follow *f = list_follow_open(g->path, NULL, NULL);

	append(g, 0, 10, 0);
	expect_batch(f, 0, 10, g);
	/* The verifier restarted and asks again from record 4. */
	assert_int_equal(list_follow_rewind(f, 4, NULL), IMT_OK);
	expect_batch(f, 4, 6, g);
	/* ... or from a record not written yet. */
	assert_int_equal(list_follow_rewind(f, 12, NULL), IMT_OK);
	expect_batch(f, 12, 0, g);
	append(g, 10, 14, 0);
	expect_batch(f, 12, 2, g);
	list_follow_close(f);
}

/* Write records [from, to) of @g, and @half bytes of record @to, to a new
 * file at @path (a _staged file: it does not grow). */
static void write_staged(struct growing *g, char *path, size_t from, size_t to,
			 size_t half)
{
	FILE *out;
	int fd;

	strcpy(path, "/tmp/imatrust-staged-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	for (; from < to; from++)
		fwrite(g->recs[from], 1, g->sizes[from], out);
	fwrite(g->recs[to], 1, half, out);
	fclose(out);
}

/*
 * After the kernel deleted records 0-4 and staged 5-8: the staged file is
 * read first, the list numbered from 5, and nothing below it reachable.
 */
static void test_staged_then_list(void **state)
{
	struct growing *g = *state;
	struct list_follow *f;
	char staged[64];

	write_staged(g, staged, 5, 9, 0);
	append(g, 9, 11, 0);
	f = list_follow_open_at(g->path, staged, 5, NULL, NULL);
	assert_non_null(f);
	assert_int_equal(list_follow_base(f), 5);
	expect_batch(f, 5, 6, g); /* 5-8 staged, 9-10 in the list */
	append(g, 11, 13, 0);
	expect_batch(f, 11, 2, g);
	/* back into the staged records, then below what the kernel has */
	assert_int_equal(list_follow_rewind(f, 7, NULL), IMT_OK);
	expect_batch(f, 7, 6, g);
	assert_int_equal(list_follow_rewind(f, 2, NULL), IMT_OK);
	expect_batch(f, 5, 8, g);
	assert_int_equal(list_follow_position(f), 13);
	list_follow_close(f);
	unlink(staged);

	/* without a staged file: numbered from the base */
	f = list_follow_open_at(g->path, NULL, 9, NULL, NULL);
	expect_batch(f, 9, 4, g);
	list_follow_close(f);
}

/* Staged records always end on a record boundary: anything else is an
 * error, not a record glued to the list's first bytes. */
static void test_staged_cut(void **state)
{
	struct growing *g = *state;
	struct list_follow *f;
	struct list_batch b;
	struct imt_error err;
	char staged[64];

	write_staged(g, staged, 0, 2, 10);
	append(g, 3, 4, 0);
	f = list_follow_open_at(g->path, staged, 0, NULL, NULL);
	assert_int_equal(list_follow_next(f, &b, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "staged records end inside record 2"));
	list_follow_close(f);
	unlink(staged);
	assert_null(list_follow_open_at(g->path, "/nonexistent/staged", 0, NULL,
					&err));
	assert_non_null(strstr(err.msg, "/nonexistent/staged"));
}

static void test_corrupt_list(void **state)
{
	struct growing *g = *state;
	struct list_follow *f = list_follow_open(g->path, NULL, NULL);
	struct list_batch b;
	struct imt_error err;
	uint8_t bad[64] = { 99 }; /* PCR 99 */

	append(g, 0, 2, 0);
	fwrite(bad, 1, sizeof(bad), g->out);
	fflush(g->out);
	assert_int_equal(list_follow_next(f, &b, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "record 2"));
	list_follow_close(f);
}

/* Without the kernel's EPOLLPRI, poll's timeout is the fallback timer. */
static void test_wait_times_out(void **state)
{
	struct growing *g = *state;
	struct list_follow *f = list_follow_open(g->path, NULL, NULL);
	struct timespec t0, t1;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(list_follow_wait(f, 50), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 45); /* slept, did not spin */
	list_follow_close(f);
}

static void test_open_missing(void **state)
{
	struct imt_error err;

	(void)state;
	assert_null(list_follow_open("/nonexistent/list", NULL, &err));
	assert_non_null(strstr(err.msg, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grows_in_pieces, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rewind, setup, teardown),
		cmocka_unit_test_setup_teardown(test_staged_then_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_staged_cut, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wait_times_out, setup,
						teardown),
		cmocka_unit_test(test_open_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

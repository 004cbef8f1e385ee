// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_list_replay.c - the agent's replay of PCR 10: the value after each
 * record is found again (that is how a quote whose PCR 10 moved gets its
 * value), records read twice do not count twice, a gap stops it, and
 * only the newest LIST_REPLAY_RING values are kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../list_helpers.h"
#include "hash_algo.h"
#include "ima_replay.h"
#include "list_replay.h"

#define N (LIST_REPLAY_RING + 8)

struct lab {
	uint8_t rec[256];
	size_t size;
	struct ima_record parsed[N];
	uint8_t bytes[N][256];
	uint8_t after[N + 1][32]; /* PCR 10 after records [0, k) */
};

static struct lab *lab;

static int setup(void **state)
{
	const struct hash_algo *bank = hash_algo_bank("sha256");
	struct ima_replay *r = ima_replay_new(bank, NULL);
	struct ima_list_parser p;
	char name[32];
	size_t i, len;

	(void)state;
	lab = calloc(1, sizeof(*lab));
	ima_list_parser_init(&p, NULL);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "/usr/bin/t%zu", i);
		len = build_ng(lab->bytes[i], sizeof(lab->bytes[i]), name,
			       (uint8_t)i, 0);
		assert_int_equal(ima_list_next(&p, lab->bytes[i], len, 1,
					       &lab->parsed[i], NULL),
				 IMT_OK);
		memcpy(lab->after[i], ima_replay_pcr(r, 10), 32);
		assert_int_equal(ima_replay_extend(r, &lab->parsed[i], NULL),
				 IMT_OK);
	}
	memcpy(lab->after[N], ima_replay_pcr(r, 10), 32);
	ima_replay_free(r);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(lab);
	return 0;
}

static int is_value(void *arg, const uint8_t *pcr10)
{
	return memcmp(arg, pcr10, 32) == 0;
}

static struct list_replay *replay_from(uint64_t base)
{
	return list_replay_new(hash_algo_bank("sha256"), base, lab->after[base],
			       NULL);
}

static void feed(struct list_replay *lr, size_t from, size_t to)
{
	for (; from < to; from++)
		list_replay_record(lr, &lab->parsed[from]);
}

static void expect_found(struct list_replay *lr, size_t k)
{
	uint64_t at = UINT64_MAX;

	assert_non_null(list_replay_find(lr, is_value, lab->after[k], &at));
	assert_int_equal(at, k);
}

static void expect_missing(struct list_replay *lr, size_t k)
{
	uint64_t at;

	assert_null(list_replay_find(lr, is_value, lab->after[k], &at));
}

static void test_every_value(void **state)
{
	struct list_replay *lr = replay_from(0);
	size_t k;

	(void)state;
	feed(lr, 0, 5);
	for (k = 0; k <= 5; k++)
		expect_found(lr, k);
	expect_missing(lr, 6); /* not read yet */
	/* read again after a rewind: nothing moves */
	feed(lr, 2, 5);
	expect_found(lr, 5);
	feed(lr, 5, 6);
	expect_found(lr, 6);
	list_replay_free(lr);
}

/* After deleted records: from the value the export state keeps. */
static void test_from_base(void **state)
{
	struct list_replay *lr = replay_from(3);

	(void)state;
	feed(lr, 0, 3); /* below the base: ignored */
	feed(lr, 3, 7);
	expect_found(lr, 7);
	expect_found(lr, 3);
	expect_missing(lr, 2);
	list_replay_free(lr);
}

/* A record skipped means every later value would be wrong: none is given. */
static void test_gap(void **state)
{
	struct list_replay *lr = replay_from(0);

	(void)state;
	feed(lr, 0, 2);
	feed(lr, 3, 5);
	expect_missing(lr, 2);
	expect_missing(lr, 5);
	list_replay_free(lr);
}

/* The kernel deleted records the replay had not read: on from after them. */
static void test_restart_after_delete(void **state)
{
	struct list_replay *lr = replay_from(0);

	(void)state;
	feed(lr, 0, 2);
	list_replay_restart(lr, 1, lab->after[1]); /* behind: kept */
	feed(lr, 2, 3);
	expect_found(lr, 3);
	list_replay_restart(lr, 6, lab->after[6]); /* 3-5 deleted unread */
	feed(lr, 6, 8);
	expect_found(lr, 8);
	expect_missing(lr, 3);
	list_replay_restart(lr, 9, lab->after[9]); /* a gap broke it... */
	feed(lr, 10, 11);
	expect_missing(lr, 11);
	list_replay_restart(lr, 10, lab->after[10]); /* ...a restart mends */
	feed(lr, 10, 12);
	expect_found(lr, 12);
	list_replay_free(lr);
}

static void test_ring(void **state)
{
	struct list_replay *lr = replay_from(0);

	(void)state;
	feed(lr, 0, N);
	expect_found(lr, N);
	expect_found(lr, N - LIST_REPLAY_RING + 1); /* the oldest kept */
	expect_missing(lr, N - LIST_REPLAY_RING);
	expect_missing(lr, 0);
	list_replay_free(lr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_value),
		cmocka_unit_test(test_from_base),
		cmocka_unit_test(test_gap),
		cmocka_unit_test(test_restart_after_delete),
		cmocka_unit_test(test_ring),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

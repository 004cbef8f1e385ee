// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_list_export.c - the exporter's state file and what it concludes at
 * start: the count of deleted records must survive a crash on either side
 * of the delete, and PCR 10's value after them must be the replay of
 * exactly those records. (Staging and deleting themselves need the
 * kernel: tests/guest/fleet/export.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../list_helpers.h"
#include "hash_algo.h"
#include "ima_replay.h"
#include "list_export.h"

#define BOOT "5e0c41b4-7a8a-4c4f-9d27-0d7e3f1b2a10"

struct lab {
	char dir[64];
	char list[96], staged[96], state[96];
	uint8_t recs[8][256];
	size_t sizes[8];
	const struct hash_algo *bank;
};

static int setup(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	char name[32];
	size_t i;

	strcpy(l->dir, "/tmp/imatrust-export-XXXXXX");
	assert_non_null(mkdtemp(l->dir));
	snprintf(l->list, sizeof(l->list), "%s/list", l->dir);
	snprintf(l->staged, sizeof(l->staged), "%s/list_staged", l->dir);
	snprintf(l->state, sizeof(l->state), "%s/export.state", l->dir);
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "/usr/bin/tool%zu", i);
		l->sizes[i] = build_ng(l->recs[i], sizeof(l->recs[i]), name,
				       (uint8_t)i, 0);
	}
	l->bank = hash_algo_bank("sha256");
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct lab *l = *state;

	unlink(l->list);
	unlink(l->staged);
	unlink(l->state);
	rmdir(l->dir);
	free(l);
	return 0;
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

/* Records [from, to) into @path. */
static void write_records(struct lab *l, const char *path, size_t from,
			  size_t to)
{
	FILE *f = fopen(path, "w");

	for (; from < to; from++)
		fwrite(l->recs[from], 1, l->sizes[from], f);
	fclose(f);
}

/* PCR 10 of sha256 after records [0, n), computed here independently. */
static void replay_to(struct lab *l, size_t n, uint8_t *pcr)
{
	struct ima_replay *r = ima_replay_new(l->bank, NULL);
	struct ima_list_parser p;
	struct ima_record rec;
	size_t i;

	ima_list_parser_init(&p, NULL);
	for (i = 0; i < n; i++) {
		assert_int_equal(ima_list_next(&p, l->recs[i], l->sizes[i], 1,
					       &rec, NULL),
				 IMT_OK);
		assert_int_equal(ima_replay_extend(r, &rec, NULL), IMT_OK);
	}
	memcpy(pcr, ima_replay_pcr(r, 10), 32);
	ima_replay_free(r);
}

/* A state file saying records [0, deleted) are gone and @deleting more
 * were being deleted when it was written. */
static void write_state(struct lab *l, const char *boot, uint64_t deleted,
			uint64_t deleting)
{
	struct list_export x = { .bank = l->bank };
	char text[LIST_EXPORT_STATE_MAX];
	int n;

	snprintf(x.boot_id, sizeof(x.boot_id), "%s", boot);
	x.deleted = deleted;
	replay_to(l, deleted, x.pcr);
	replay_to(l, deleted + deleting, x.staged_pcr);
	n = list_export_state_format(&x, deleting, text, sizeof(text));
	assert_true(n > 0);
	write_file(l->state, text, (size_t)n);
}

static int init(struct lab *l, struct list_export *x, char *why)
{
	return list_export_init(x, l->list, l->dir, BOOT, l->bank, why, 256);
}

static void test_stock_kernel(void **state)
{
	struct lab *l = *state;
	struct list_export x;
	char why[256];

	write_records(l, l->list, 0, 2);
	assert_int_equal(init(l, &x, why), 1);
	assert_non_null(strstr(why, "list_staged"));
	assert_int_equal(access(l->state, F_OK), -1); /* nothing written */
}

static void test_fresh_boot(void **state)
{
	struct lab *l = *state;
	struct list_export x;
	uint8_t zero[32] = { 0 };
	char why[256];

	write_records(l, l->list, 0, 3);
	write_file(l->staged, "", 0);
	assert_int_equal(init(l, &x, why), 0);
	assert_int_equal(x.deleted, 0);
	assert_int_equal(x.staged, 0);
	assert_memory_equal(x.pcr, zero, 32);
	assert_int_equal(access(l->state, F_OK), 0);
	assert_string_equal(x.boot_id, BOOT);
}

/* Stopped between "A" and the delete, with no delete in flight. */
static void test_staged_left(void **state)
{
	struct lab *l = *state;
	struct list_export x;
	uint8_t want[32];
	char why[256];

	write_state(l, BOOT, 2, 0);
	write_records(l, l->staged, 2, 5);
	assert_int_equal(init(l, &x, why), 0);
	assert_int_equal(x.deleted, 2);
	assert_int_equal(x.staged, 3);
	replay_to(l, 2, want);
	assert_memory_equal(x.pcr, want, 32);
	replay_to(l, 5, want);
	assert_memory_equal(x.staged_pcr, want, 32);
}

/* Killed after writing the count and before "D" took effect. */
static void test_killed_before_delete(void **state)
{
	struct lab *l = *state;
	struct list_export x;
	uint8_t want[32];
	char why[256];

	write_state(l, BOOT, 2, 3);
	write_records(l, l->staged, 2, 5);
	assert_int_equal(init(l, &x, why), 0);
	assert_int_equal(x.deleted, 2); /* not 5: still staged */
	assert_int_equal(x.staged, 3);
	replay_to(l, 2, want);
	assert_memory_equal(x.pcr, want, 32);
}

/* Killed after "D" and before the count was written again. */
static void test_killed_after_delete(void **state)
{
	struct lab *l = *state;
	struct list_export x, again;
	uint8_t want[32];
	char why[256];

	write_state(l, BOOT, 2, 3);
	write_file(l->staged, "", 0);
	assert_int_equal(init(l, &x, why), 0);
	assert_int_equal(x.deleted, 5);
	assert_int_equal(x.staged, 0);
	replay_to(l, 5, want);
	assert_memory_equal(x.pcr, want, 32);
	/* and the conclusion is on disk: a second start agrees */
	assert_int_equal(init(l, &again, why), 0);
	assert_int_equal(again.deleted, 5);
	assert_memory_equal(again.pcr, want, 32);
}

static void test_other_boot(void **state)
{
	struct lab *l = *state;
	struct list_export x;
	char why[256];

	write_state(l, "0badb007-0000-0000-0000-000000000000", 4, 2);
	write_file(l->staged, "", 0);
	assert_int_equal(init(l, &x, why), 0);
	assert_int_equal(x.deleted, 0);
	assert_int_equal(x.staged, 0);
}

static void test_bad_state(void **state)
{
	static const char *const bad[] = {
		"boot_id " BOOT "\ndeleted 12x\n",
		"boot_id " BOOT "\nwhat 1\n",
		"boot_id " BOOT "\npcr abcd\n",	  /* not 32 bytes */
		"deleted 99999999999999999999\n", /* above 2^64 */
		"deleted\n",
	};
	struct lab *l = *state;
	struct list_export x;
	char why[256];
	size_t i;

	write_file(l->staged, "", 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(l->state, bad[i], strlen(bad[i]));
		assert_int_equal(init(l, &x, why), -1);
		assert_non_null(strstr(why, "malformed"));
	}
}

/* A staged list cut inside a record is an error, not a count. */
static void test_staged_cut(void **state)
{
	struct lab *l = *state;
	struct list_export x;
	char why[256];

	write_file(l->staged, l->recs[0], l->sizes[0] - 1);
	assert_int_equal(init(l, &x, why), -1);
	assert_non_null(strstr(why, "list_staged"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_stock_kernel),	     T(test_fresh_boot),
		T(test_staged_left),	     T(test_killed_before_delete),
		T(test_killed_after_delete), T(test_other_boot),
		T(test_bad_state),	     T(test_staged_cut),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

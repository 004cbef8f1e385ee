// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_match.c - a quote proves a prefix of the streamed batch.
 * Ground truth: the real kernel list and the PCR 10 its TPM held.
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
#include "ima_match.h"
#include "ima_replay.h"
#include "pcr_set.h"

struct fx {
	uint8_t *list;
	size_t len;
	struct ima_record recs[TEST_RECORDS_MAX];
	size_t count;
	uint8_t pcr10[32];
	const struct hash_algo *sha256;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct pcr_set set;
	size_t tlen;
	char *text;

	f->sha256 = hash_algo_bank("sha256");
	f->list = fixture_load("ima-ng-sha256", "binary_runtime_measurements",
			       &f->len);
	text = (char *)fixture_load("ima-ng-sha256", "pcrs-sha256", &tlen);
	pcr_set_init(&set, f->sha256);
	assert_int_equal(pcr_set_parse_text(&set, text, tlen, NULL), IMT_OK);
	memcpy(f->pcr10, set.value[10], 32);
	assert_int_equal(parse_all(f->list, f->len, NULL, f->recs, &f->count,
				   NULL),
			 IMT_OK);
	free(text);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	free(f->list);
	free(f);
	return 0;
}

/* The TPM's PCR 10 covers the whole real list, from all-zero. */
static void test_whole_list(void **state)
{
	struct fx *f = *state;
	struct ima_match_result res;
	uint8_t zero[32] = { 0 };

	assert_int_equal(ima_match_batch(f->sha256, zero, f->pcr10, f->list,
					 f->len, 0, NULL, &res, NULL),
			 IMT_OK);
	assert_int_equal(res.covered, 8);
	assert_int_equal(res.covered_bytes, f->len);
}

/* PCR 10 after the first @n records, replayed independently. */
static void running_after(struct fx *f, size_t n, uint8_t *out)
{
	struct ima_replay *r = ima_replay_new(f->sha256, NULL);
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(ima_replay_extend(r, &f->recs[i], NULL),
				 IMT_OK);
	memcpy(out, ima_replay_pcr(r, 10), 32);
	ima_replay_free(r);
}

/*
 * The quote was taken after record 5 but the batch holds all 8: five are
 * proven, three wait, and the next quote (the TPM's final value) proves
 * the rest from where the first round stopped.
 */
static void test_prefix_then_rest(void **state)
{
	struct fx *f = *state;
	struct ima_match_result first, second;
	uint8_t zero[32] = { 0 }, v5[32];

	running_after(f, 5, v5);
	assert_int_equal(ima_match_batch(f->sha256, zero, v5, f->list, f->len,
					 0, NULL, &first, NULL),
			 IMT_OK);
	assert_int_equal(first.covered, 5);
	assert_int_equal(first.covered_bytes, f->recs[5].offset);
	assert_memory_equal(first.pcr10, v5, 32);

	assert_int_equal(ima_match_batch(f->sha256, first.pcr10, f->pcr10,
					 f->list + first.covered_bytes,
					 f->len - first.covered_bytes, 5, NULL,
					 &second, NULL),
			 IMT_OK);
	assert_int_equal(second.covered, 3);
	assert_int_equal(first.covered_bytes + second.covered_bytes, f->len);
}

/* A quote taken before any new record proves none of them. */
static void test_quote_before_batch(void **state)
{
	struct fx *f = *state;
	struct ima_match_result res;
	uint8_t v8[32];

	running_after(f, 8, v8);
	assert_memory_equal(v8, f->pcr10, 32);
	assert_int_equal(ima_match_batch(f->sha256, v8, v8, f->list, 0, 8, NULL,
					 &res, NULL),
			 IMT_OK);
	assert_int_equal(res.covered, 0);
}

/* A quote ahead of every prefix (records missing) fails with a reason. */
static void test_no_prefix(void **state)
{
	struct fx *f = *state;
	struct ima_match_result res;
	struct imt_error err;
	uint8_t zero[32] = { 0 };

	assert_int_equal(ima_match_batch(f->sha256, zero, f->pcr10, f->list,
					 f->recs[7].offset, 0, NULL, &res,
					 &err),
			 IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "matches no prefix of records 0-6"));
}

/* Record indexes in errors are list indexes, not batch positions. */
static void test_errors_name_list_index(void **state)
{
	struct fx *f = *state;
	struct ima_match_result res;
	struct imt_error err;
	uint8_t zero[32] = { 0 }, *copy = malloc(f->len);

	memcpy(copy, f->list, f->len);
	copy[f->recs[3].offset] = 99; /* PCR 99 in record 3 */
	assert_int_equal(ima_match_batch(f->sha256, zero, f->pcr10,
					 copy + f->recs[2].offset,
					 f->len - f->recs[2].offset, 2, NULL,
					 &res, &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(err.record, 3);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_list, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_prefix_then_rest, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_quote_before_batch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_prefix, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_errors_name_list_index,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

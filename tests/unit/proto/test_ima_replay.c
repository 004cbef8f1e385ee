// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_replay.c - carrying the sha1 bank on the digests the list
 * shows (ima_replay_extend_listed()) reaches what a real 6.1 kernel's TPM
 * holds, and trusts the list where ima_replay_extend() checks it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../fixture.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "pcr_set.h"

/* Replay the list @buf into sha1 PCR 10, listed or computed. */
static enum imt_result replay_sha1(uint8_t *buf, size_t len, int listed,
				   uint8_t *pcr10)
{
	struct ima_replay *r = ima_replay_new(hash_algo_bank("sha1"), NULL);
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	enum imt_result rc = IMT_OK;
	size_t pos = 0;

	assert_non_null(r);
	ima_list_parser_init(&p, NULL);
	while (rc == IMT_OK && pos < len) {
		rc = ima_list_next(&p, buf + pos, len - pos, 1, &rec, &err);
		if (rc != IMT_OK)
			break;
		rc = listed ? ima_replay_extend_listed(r, &rec, &err) :
			      ima_replay_extend(r, &rec, &err);
		pos += rec.size;
	}
	memcpy(pcr10, ima_replay_pcr(r, IMA_MEASURE_PCR), 20);
	ima_replay_free(r);
	return rc;
}

static void tpm_sha1_pcr10(const char *dir, uint8_t *out)
{
	struct pcr_set set;
	struct imt_error err;
	size_t len;
	char *text = (char *)fixture_load(dir, "pcrs-sha1", &len);

	pcr_set_init(&set, hash_algo_bank("sha1"));
	assert_int_equal(pcr_set_parse_text(&set, text, len, &err), IMT_OK);
	assert_true(set.present & (1u << IMA_MEASURE_PCR));
	memcpy(out, set.value[IMA_MEASURE_PCR], 20);
	free(text);
}

/* Every fixture, violations included: the TPM's sha1 PCR 10 exactly. */
static void test_listed_matches_tpm(void **state)
{
	uint8_t tpm[20], listed[20], computed[20];
	size_t k, len;
	uint8_t *buf;

	(void)state;
	for (k = 0; k < IMA_FIXTURE_COUNT; k++) {
		tpm_sha1_pcr10(ima_fixtures[k], tpm);
		buf = fixture_load(ima_fixtures[k],
				   "binary_runtime_measurements", &len);
		assert_int_equal(replay_sha1(buf, len, 1, listed), IMT_OK);
		assert_int_equal(replay_sha1(buf, len, 0, computed), IMT_OK);
		assert_memory_equal(listed, tpm, 20);
		assert_memory_equal(computed, tpm, 20);
		free(buf);
	}
}

/*
 * Record 1's listed digest altered (the header is pcr, digest): the
 * computing replay refuses it, the listed one carries it on, so its PCR
 * is not the TPM's and a later quote of that bank would fail.
 */
static void test_listed_trusts_the_list(void **state)
{
	uint8_t tpm[20], listed[20], computed[20];
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t len;
	uint8_t *buf = fixture_load("ima-ng-sha256",
				    "binary_runtime_measurements", &len);

	(void)state;
	tpm_sha1_pcr10("ima-ng-sha256", tpm);
	ima_list_parser_init(&p, NULL);
	assert_int_equal(ima_list_next(&p, buf, len, 1, &rec, &err), IMT_OK);
	buf[rec.size + 4] ^= 0x01;
	assert_int_equal(replay_sha1(buf, len, 0, computed), IMT_ERR_MISMATCH);
	assert_int_equal(replay_sha1(buf, len, 1, listed), IMT_OK);
	assert_memory_not_equal(listed, tpm, 20);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed_matches_tpm),
		cmocka_unit_test(test_listed_trusts_the_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

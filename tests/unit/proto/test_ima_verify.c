// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_verify.c - replay real kernel lists against their TPM PCRs,
 * and prove that altering any bit of a record is caught.
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
#include "ima_verify.h"

#include <openssl/evp.h>

struct fixture_pcrs {
	struct pcr_set sets[2]; /* sha1, sha256 */
};

static void load_pcrs(const char *dir, struct fixture_pcrs *fp)
{
	static const char *const banks[] = { "sha1", "sha256" };
	struct imt_error err;
	char name[32];
	size_t i, len;
	char *text;

	for (i = 0; i < 2; i++) {
		pcr_set_init(&fp->sets[i], hash_algo_bank(banks[i]));
		snprintf(name, sizeof(name), "pcrs-%s", banks[i]);
		text = (char *)fixture_load(dir, name, &len);
		assert_int_equal(pcr_set_parse_text(&fp->sets[i], text, len,
						    &err),
				 IMT_OK);
		free(text);
	}
}

/* Parse (as a list of @bank, NULL: legacy) and verify @len bytes. */
static enum imt_result
verify_bank_list(const uint8_t *buf, size_t len, const struct hash_algo *bank,
		 const struct pcr_set *sets, size_t nsets,
		 struct ima_verify_report *report, struct imt_error *err);

/* Parse and verify @len bytes; the first failing status, with @err. */
static enum imt_result verify_list(const uint8_t *buf, size_t len,
				   const struct pcr_set *sets, size_t nsets,
				   struct ima_verify_report *report,
				   struct imt_error *err)
{
	return verify_bank_list(buf, len, NULL, sets, nsets, report, err);
}

static enum imt_result
verify_bank_list(const uint8_t *buf, size_t len, const struct hash_algo *bank,
		 const struct pcr_set *sets, size_t nsets,
		 struct ima_verify_report *report, struct imt_error *err)
{
	struct ima_list_parser p;
	struct ima_record rec;
	struct ima_verify *v = ima_verify_new(sets, nsets, err);
	enum imt_result rc = IMT_OK;
	size_t pos = 0;

	assert_non_null(v);
	ima_list_parser_init(&p, NULL);
	ima_list_parser_set_bank(&p, bank);
	while (rc == IMT_OK && pos < len) {
		rc = ima_list_next(&p, buf + pos, len - pos, 1, &rec, err);
		if (rc == IMT_OK)
			rc = ima_verify_record(v, &rec, err);
		pos += rec.size;
	}
	if (rc == IMT_OK)
		rc = ima_verify_finish(v, report, err);
	ima_verify_free(v);
	return rc;
}

static void test_fixtures_match_tpm(void **state)
{
	struct ima_verify_report r;
	struct fixture_pcrs fp;
	struct imt_error err;
	size_t k, len, clen;
	uint8_t *buf;
	char *count;

	(void)state;
	for (k = 0; k < IMA_FIXTURE_COUNT; k++) {
		load_pcrs(ima_fixtures[k], &fp);
		buf = fixture_load(ima_fixtures[k],
				   "binary_runtime_measurements", &len);
		assert_int_equal(verify_list(buf, len, fp.sets, 2, &r, &err),
				 IMT_OK);
		assert_true(r.banks[0].pcr_ok && r.banks[1].pcr_ok);
		assert_int_equal(r.boot_aggregate, IMA_BA_OK);
		count = (char *)fixture_load(ima_fixtures[k], "count", &clen);
		assert_int_equal(r.records, strtoul(count, NULL, 10));
		free(count);
		count = (char *)fixture_load(ima_fixtures[k], "violations",
					     &clen);
		assert_int_equal(r.violations, strtoul(count, NULL, 10));
		free(count);
		free(buf);
	}
}

/* sha1 with the 2008 template covers PCRs 0-7; 0-9 for sha256. */
static void test_boot_aggregate_pcr_range(void **state)
{
	struct ima_verify_report r;
	struct fixture_pcrs fp;
	struct imt_error err;
	size_t len;
	uint8_t *buf;

	(void)state;
	buf = fixture_load("ima-sha1", "binary_runtime_measurements", &len);
	load_pcrs("ima-sha1", &fp);
	fp.sets[0].value[8][0] ^= 1; /* not part of the sha1 aggregate */
	assert_int_equal(verify_list(buf, len, fp.sets, 2, &r, &err), IMT_OK);
	fp.sets[0].value[7][0] ^= 1;
	assert_int_equal(verify_list(buf, len, fp.sets, 2, &r, &err),
			 IMT_ERR_MISMATCH);
	assert_int_equal(r.boot_aggregate, IMA_BA_MISMATCH);
	assert_non_null(strstr(err.msg, "sha1 PCRs 0-7"));
	free(buf);

	buf = fixture_load("ima-ng-sha256", "binary_runtime_measurements",
			   &len);
	load_pcrs("ima-ng-sha256", &fp);
	fp.sets[1].value[9][31] ^= 0x80;
	assert_int_equal(verify_list(buf, len, fp.sets, 2, &r, &err),
			 IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "sha256 PCRs 0-9"));
	/* Without PCRs 0-9 the aggregate is reported as not checked. */
	fp.sets[1].present = 1u << IMA_MEASURE_PCR;
	assert_int_equal(verify_list(buf, len, fp.sets, 2, &r, &err), IMT_OK);
	assert_int_equal(r.boot_aggregate, IMA_BA_NOT_CHECKED);
	free(buf);
}

/* A wrong PCR 10 is reported with the bank's name. */
static void test_pcr10_mismatch_names_bank(void **state)
{
	struct ima_record recs[TEST_RECORDS_MAX];
	size_t count;
	struct ima_verify_report r;
	struct fixture_pcrs fp;
	struct imt_error err;
	size_t len;
	uint8_t *buf;

	(void)state;
	buf = fixture_load("ima-sig-sha256", "binary_runtime_measurements",
			   &len);
	load_pcrs("ima-sig-sha256", &fp);
	fp.sets[1].value[10][0] ^= 1;
	assert_int_equal(verify_list(buf, len, fp.sets, 2, &r, &err),
			 IMT_ERR_MISMATCH);
	assert_true(r.banks[0].pcr_ok);
	assert_false(r.banks[1].pcr_ok);
	assert_non_null(strstr(err.msg, "sha256: PCR 10"));
	/* Dropping the last record is caught the same way. */
	load_pcrs("ima-sig-sha256", &fp);
	assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err), IMT_OK);
	assert_int_equal(verify_list(buf, recs[count - 1].offset, fp.sets, 2,
				     &r, &err),
			 IMT_ERR_MISMATCH);
	free(buf);
}

/*
 * Where flipping a bit must fail, and with which reason. The name of a
 * violation record is the exception: the kernel extends 0xff for a
 * violation without hashing its template data, so those bytes are not
 * protected by any PCR (a limit of IMA itself, asserted here).
 */
enum region { R_OTHER, R_DIGEST, R_FILE_DIGEST, R_VIOLATION_NAME };

static enum region region_of(const struct ima_record *recs, size_t count,
			     const uint8_t *buf, size_t off)
{
	size_t i;

	for (i = 0; i < count; i++) {
		const struct ima_record *r = &recs[i];
		size_t d = (size_t)(r->digest - buf);
		size_t n = (size_t)((const uint8_t *)r->path - buf);

		if (off < r->offset || off >= r->offset + r->size)
			continue;
		if (off >= r->offset + 4 && off < r->offset + 24)
			return R_DIGEST;
		if (off >= d && off < d + r->digest_algo->size)
			return R_FILE_DIGEST;
		if (r->violation && off >= n && off < n + r->path_len)
			return R_VIOLATION_NAME;
		return R_OTHER;
	}
	return R_OTHER;
}

static void test_every_bit_flip_fails(void **state)
{
	struct ima_record recs[TEST_RECORDS_MAX];
	struct ima_verify_report r;
	struct fixture_pcrs fp;
	struct imt_error err;
	size_t k, len, count, bit, flips = 0, unprotected = 0;
	uint8_t *buf;

	(void)state;
	for (k = 0; k < IMA_FIXTURE_COUNT; k++) {
		load_pcrs(ima_fixtures[k], &fp);
		buf = fixture_load(ima_fixtures[k],
				   "binary_runtime_measurements", &len);
		assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err),
				 IMT_OK);
		for (bit = 0; bit < 8 * len; bit++) {
			size_t off = bit / 8;
			enum region reg = region_of(recs, count, buf, off);
			enum imt_result rc;
			int idx;

			buf[off] ^= (uint8_t)(1u << (bit % 8));
			rc = verify_list(buf, len, fp.sets, 2, &r, &err);
			buf[off] ^= (uint8_t)(1u << (bit % 8));
			flips++;
			if (reg == R_VIOLATION_NAME) {
				assert_int_equal(rc, IMT_OK);
				unprotected++;
				continue;
			}
			if (rc == IMT_OK)
				fail_msg("%s: flipping bit %zu (byte %zu) went unnoticed",
					 ima_fixtures[k], bit % 8, off);
			assert_true(rc == IMT_ERR_MALFORMED ||
				    rc == IMT_ERR_UNSUPPORTED ||
				    rc == IMT_ERR_MISMATCH);
			idx = -1;
			if (reg == R_DIGEST || reg == R_FILE_DIGEST) {
				for (idx = 0; (size_t)idx < count; idx++) {
					if (off <
					    recs[idx].offset + recs[idx].size)
						break;
				}
			}
			if (reg == R_DIGEST ||
			    (reg == R_FILE_DIGEST && !recs[idx].violation))
				assert_non_null(
					strstr(err.msg,
					       "listed template digest does not match"));
			if (reg == R_FILE_DIGEST && recs[idx].violation)
				assert_non_null(
					strstr(err.msg,
					       "violation record with a non-zero file digest"));
		}
		free(buf);
	}
	print_message("%zu bit flips, %zu in unprotected violation names\n",
		      flips, unprotected);
	assert_true(unprotected > 0 && unprotected < flips / 10);
}

/*
 * The streaming series' binary_runtime_measurements_sha256 shows each
 * record's sha256 template hash (all-0xff for violations). Rewrite the
 * real ima-ng list that way, hashing with plain OpenSSL, and check it
 * against the TPM's sha256 bank.
 */
static size_t to_sha256_list(const uint8_t *in, size_t len,
			     const struct ima_record *recs, size_t count,
			     uint8_t *out)
{
	size_t i, o = 0;

	(void)len;
	for (i = 0; i < count; i++) {
		const uint8_t *r = in + recs[i].offset;

		memcpy(out + o, r, 4);
		if (recs[i].violation)
			memset(out + o + 4, 0xff, 32);
		else
			EVP_Digest(recs[i].template_data,
				   recs[i].template_data_len, out + o + 4, NULL,
				   EVP_sha256(), NULL);
		memcpy(out + o + 36, r + 24, recs[i].size - 24);
		o += recs[i].size + 12;
	}
	return o;
}

static void test_per_bank_list(void **state)
{
	struct ima_record recs[TEST_RECORDS_MAX];
	struct ima_verify_report r;
	struct fixture_pcrs fp;
	struct imt_error err;
	size_t len, n, count;
	uint8_t *buf, *bank;
	const struct hash_algo *sha256 = hash_algo_bank("sha256");

	(void)state;
	buf = fixture_load("ima-ng-sha256", "binary_runtime_measurements",
			   &len);
	load_pcrs("ima-ng-sha256", &fp);
	assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err), IMT_OK);
	bank = malloc(len + 12 * count);
	n = to_sha256_list(buf, len, recs, count, bank);
	assert_int_equal(verify_bank_list(bank, n, sha256, &fp.sets[1], 1, &r,
					  &err),
			 IMT_OK);
	assert_int_equal(r.violations, 2);
	assert_int_equal(r.boot_aggregate, IMA_BA_OK);
	/* Read as a legacy list, the same bytes do not parse. */
	assert_int_not_equal(verify_list(bank, n, &fp.sets[1], 1, &r, &err),
			     IMT_OK);
	/* A listed sha256 digest that lies is caught without a quote. */
	bank[recs[1].offset + 12 + 4] ^= 1;
	assert_int_equal(verify_bank_list(bank, n, sha256, &fp.sets[1], 1, &r,
					  &err),
			 IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg,
			       "record 1: listed template digest "
			       "does not match its template data (sha256)"));
	free(bank);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_match_tpm),
		cmocka_unit_test(test_boot_aggregate_pcr_range),
		cmocka_unit_test(test_pcr10_mismatch_names_bank),
		cmocka_unit_test(test_every_bit_flip_fails),
		cmocka_unit_test(test_per_bank_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

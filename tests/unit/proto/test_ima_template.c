// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_template.c - every 6.1 template and field, built as the kernel
 * writes them, parses, hashes consistently and renders as the kernel does.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../list_helpers.h"
#include "ima_ascii.h"
#include "ima_replay.h"

static const uint8_t sha256_digest[32] = { 0xaa, 0xbb };

/* Build, parse and sha1-replay one record; returns the parsed record. */
static void round_trip(const char *tmpl, const struct ima_build_field *f,
		       size_t n, const struct ima_template_set *set,
		       uint8_t *buf, size_t bufsz, struct ima_record *rec)
{
	struct ima_replay *r = ima_replay_new(hash_algo_bank("sha1"), NULL);
	struct imt_error err;
	size_t len, count;

	len = ima_build_record(buf, bufsz, 10, tmpl, f, n, 0);
	assert_true(len > 0 && len <= bufsz);
	assert_int_equal(parse_all(buf, len, set, rec, &count, &err), IMT_OK);
	assert_int_equal(count, 1);
	assert_int_equal(rec->size, len);
	/* The sha1 bank rejects a record whose listed digest is wrong. */
	assert_int_equal(ima_replay_extend(r, rec, &err), IMT_OK);
	ima_replay_free(r);
}

static uint32_t dng(uint8_t *out)
{
	return ima_build_digest_ng(out, hash_algo_by_name("sha256", 6),
				   sha256_digest);
}

static void test_ima_ngv2(void **state)
{
	uint8_t buf[512], d[64];
	struct ima_build_field f[2];
	struct ima_record rec[TEST_RECORDS_MAX];
	char line[512];

	(void)state;
	/* "verity:sha256:\0" + digest */
	memcpy(d, "verity:sha256:", 14);
	d[14] = '\0';
	memcpy(d + 15, sha256_digest, 32);
	f[0] = (struct ima_build_field){ d, 47 };
	f[1] = (struct ima_build_field){ "/usr/bin/ls", 12 };
	round_trip("ima-ngv2", f, 2, NULL, buf, sizeof(buf), rec);
	assert_int_equal(rec[0].digest_type_len, 6);
	assert_memory_equal(rec[0].digest_type, "verity", 6);
	assert_string_equal(rec[0].digest_algo->name, "sha256");
	ima_ascii_format(&rec[0], line, sizeof(line));
	assert_non_null(strstr(line, " ima-ngv2 verity:sha256:aabb00"));
	assert_non_null(strstr(line, " /usr/bin/ls\n"));
}

static void test_ima_buf(void **state)
{
	uint8_t buf[512], d[64], payload[] = { 0xde, 0xad, 0xbe, 0xef };
	struct ima_build_field f[3];
	struct ima_record rec[TEST_RECORDS_MAX];
	char line[512];

	(void)state;
	f[0] = (struct ima_build_field){ d, dng(d) };
	f[1] = (struct ima_build_field){ "kexec-cmdline", 14 };
	f[2] = (struct ima_build_field){ payload, sizeof(payload) };
	round_trip("ima-buf", f, 3, NULL, buf, sizeof(buf), rec);
	assert_int_equal(rec[0].buf_len, 4);
	ima_ascii_format(&rec[0], line, sizeof(line));
	assert_non_null(strstr(line, " kexec-cmdline deadbeef\n"));
}

static void test_evm_sig(void **state)
{
	uint8_t buf[1024], d[64], sig[] = { 3, 2, 1 };
	uint8_t uid[4] = { 0xe8, 0x03 }, mode[2] = { 0xed, 0x81 };
	struct ima_build_field f[9];
	struct ima_record rec[TEST_RECORDS_MAX];
	char line[1024];

	(void)state;
	f[0] = (struct ima_build_field){ d, dng(d) };
	f[1] = (struct ima_build_field){ "/etc/shadow", 12 };
	f[2] = (struct ima_build_field){ sig, 3 };
	f[3] = (struct ima_build_field){ "security.ima", 13 };
	f[4] = (struct ima_build_field){ sig, 2 };
	f[5] = (struct ima_build_field){ sig, 1 };
	f[6] = (struct ima_build_field){ uid, 4 };
	f[7] = (struct ima_build_field){ uid, 4 };
	f[8] = (struct ima_build_field){ mode, 2 };
	round_trip("evm-sig", f, 9, NULL, buf, sizeof(buf), rec);
	assert_int_equal(rec[0].nfields, 9);
	ima_ascii_format(&rec[0], line, sizeof(line));
	assert_non_null(
		strstr(line,
		       " /etc/shadow 030201 security.ima 0302 03 1000 1000 33261\n"));
}

static void test_ima_modsig(void **state)
{
	uint8_t buf[1024], d[64], d2[80], sig[] = { 9 }, p7[] = { 0x30, 0x82 };
	struct ima_build_field f[5];
	struct ima_record rec[TEST_RECORDS_MAX];

	(void)state;
	f[0] = (struct ima_build_field){ d, dng(d) };
	f[1] = (struct ima_build_field){ "/lib/modules/x.ko", 18 };
	f[2] = (struct ima_build_field){ sig, 1 };
	f[3] = (struct ima_build_field){
		d2, ima_build_digest_ng(d2, hash_algo_by_name("sha512", 6),
					(const uint8_t[64]){ 1 })
	};
	f[4] = (struct ima_build_field){ p7, 2 };
	round_trip("ima-modsig", f, 5, NULL, buf, sizeof(buf), rec);
	/* The file digest view is d-ng's, not d-modsig's. */
	assert_string_equal(rec[0].digest_algo->name, "sha256");
}

/* A custom template of known fields, e.g. ima_template_fmt=d|n-ng. */
static void test_custom_template(void **state)
{
	struct ima_template_set set = { 0 };
	uint8_t buf[512], digest[20] = { 5 };
	struct ima_build_field f[2];
	struct ima_record rec[TEST_RECORDS_MAX];
	struct imt_error err;

	(void)state;
	assert_int_equal(ima_template_set_add(&set, "mine", "d|n-ng", &err),
			 IMT_OK);
	f[0] = (struct ima_build_field){ digest, 20 };
	f[1] = (struct ima_build_field){ "/sbin/init", 11 };
	round_trip("mine", f, 2, &set, buf, sizeof(buf), rec);
	assert_string_equal(rec[0].digest_algo->name, "sha1");
	assert_int_equal(rec[0].path_len, 10);
}

/* An unknown field is an error that names it, never a skip. */
static void test_unknown_field(void **state)
{
	struct ima_template_set set = { 0 };
	struct imt_error err;

	(void)state;
	assert_int_equal(ima_template_set_add(&set, "x", "d-ng|n-ng|bogus",
					      &err),
			 IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "unknown template field 'bogus'");
	assert_int_equal(ima_template_set_add(&set, "x", "", &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(set.count, 0);
}

/* Every built-in template of 6.1 is known by name. */
static void test_builtin_names(void **state)
{
	static const char *const names[] = {
		"ima",	     "ima-ng",	"ima-ngv2",   "ima-sig",
		"ima-sigv2", "ima-buf", "ima-modsig", "evm-sig",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_non_null(
			ima_template_lookup(NULL, names[i], strlen(names[i])));
	assert_null(ima_template_lookup(NULL, "ima-", 4));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ima_ngv2),
		cmocka_unit_test(test_ima_buf),
		cmocka_unit_test(test_evm_sig),
		cmocka_unit_test(test_ima_modsig),
		cmocka_unit_test(test_custom_template),
		cmocka_unit_test(test_unknown_field),
		cmocka_unit_test(test_builtin_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

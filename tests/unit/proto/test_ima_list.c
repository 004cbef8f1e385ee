// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_list.c - the binary list parser against real kernel output and
 * hand-built malformed lists.
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

/* Every fixture parses into the 8 records its README describes. */
static void test_fixtures_parse(void **state)
{
	static const char *const paths[] = {
		"boot_aggregate", "/data/bin/bb1",	 "/data/app.conf",
		"/data/hello.sh", "/data/bin/sha256sum", "/data/app.conf",
		"/data/hello.sh", "/data/app.conf",
	};
	struct ima_record recs[TEST_RECORDS_MAX];
	struct imt_error err;
	size_t i, k, len, count;
	uint8_t *buf;

	(void)state;
	for (k = 0; k < IMA_FIXTURE_COUNT; k++) {
		int legacy = strcmp(ima_fixtures[k], "ima-sha1") == 0;

		buf = fixture_load(ima_fixtures[k],
				   "binary_runtime_measurements", &len);
		assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err),
				 IMT_OK);
		assert_int_equal(count, 8);
		for (i = 0; i < count; i++) {
			assert_int_equal(recs[i].index, i);
			assert_int_equal(recs[i].pcr, 10);
			assert_int_equal(recs[i].path_len, strlen(paths[i]));
			assert_memory_equal(recs[i].path, paths[i],
					    strlen(paths[i]));
			assert_string_equal(recs[i].digest_algo->name,
					    legacy ? "sha1" : "sha256");
			assert_int_equal(recs[i].violation, i == 5 || i == 6);
		}
		assert_string_equal(recs[0].template_name,
				    legacy		      ? "ima" :
				    ima_fixtures[k][4] == 's' ? "ima-sig" :
								"ima-ng");
		free(buf);
	}
}

/* The ima-ng file digests are those the kernel printed in its ascii list. */
static void test_fixture_digests(void **state)
{
	static const char *const bb1 =
		"3d9f2889d6782537624a4e1a10e68a2ddd53e0ee8bac02676f27308f42ec6bf6";
	struct ima_record recs[TEST_RECORDS_MAX];
	struct imt_error err;
	size_t len, count;
	uint8_t *buf, want[32];
	unsigned int i;

	(void)state;
	for (i = 0; i < 32; i++)
		sscanf(bb1 + 2 * i, "%2hhx", &want[i]);
	buf = fixture_load("ima-ng-sha256", "binary_runtime_measurements",
			   &len);
	assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err), IMT_OK);
	assert_memory_equal(recs[1].digest, want, 32);
	free(buf);
}

/* Feeding one byte at a time yields the same records as the whole list. */
static void test_byte_at_a_time(void **state)
{
	struct ima_list_parser p;
	struct ima_record whole[TEST_RECORDS_MAX], rec;
	struct imt_error err;
	size_t k, len, count, have, pos, got, need_more;
	uint8_t *buf;

	(void)state;
	for (k = 0; k < IMA_FIXTURE_COUNT; k++) {
		buf = fixture_load(ima_fixtures[k],
				   "binary_runtime_measurements", &len);
		assert_int_equal(parse_all(buf, len, NULL, whole, &count, &err),
				 IMT_OK);
		ima_list_parser_init(&p, NULL);
		pos = got = need_more = 0;
		for (have = 1; have <= len; have++) {
			enum imt_result rc;

			/* Bytes [pos, have) are what the stream gave so far. */
			rc = ima_list_next(&p, buf + pos, have - pos,
					   have == len, &rec, &err);
			if (rc == IMT_NEED_MORE) {
				need_more++;
				continue;
			}
			assert_int_equal(rc, IMT_OK);
			assert_int_equal(rec.offset, whole[got].offset);
			assert_int_equal(rec.size, whole[got].size);
			assert_memory_equal(rec.template_digest,
					    whole[got].template_digest, 20);
			assert_int_equal(rec.path_len, whole[got].path_len);
			assert_memory_equal(rec.path, whole[got].path,
					    rec.path_len);
			pos += rec.size;
			got++;
		}
		assert_int_equal(got, count);
		assert_int_equal(pos, len);
		assert_true(need_more > 0);
		free(buf);
	}
}

/* A record split across reads is "need more" until the stream ends. */
static void test_need_more_then_truncated(void **state)
{
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	uint8_t buf[512];
	size_t n;

	(void)state;
	n = build_ng(buf, sizeof(buf), "/usr/bin/true", 0xab, 0);
	ima_list_parser_init(&p, NULL);
	assert_int_equal(ima_list_next(&p, buf, n - 1, 0, &rec, &err),
			 IMT_NEED_MORE);
	assert_int_equal(p.next_index, 0);
	assert_int_equal(ima_list_next(&p, buf, n - 1, 1, &rec, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "truncated"));
	assert_int_equal(err.record, 0);
	assert_int_equal(ima_list_next(&p, buf, n, 1, &rec, &err), IMT_OK);
	assert_int_equal(rec.size, n);
}

/* One malformed-input case: bytes to patch into a valid two-record list. */
struct bad_case {
	const char *name;
	size_t offset; /* into the second record; -1 appends */
	const uint8_t *patch;
	size_t patch_len;
	enum imt_result status;
	const char *msg;   /* substring of the error */
	size_t err_offset; /* expected error offset, within record 1 */
};

#define LE32(v) \
	(uint8_t[]) \
	{ \
		(v) & 0xff, ((v) >> 8) & 0xff, ((v) >> 16) & 0xff, \
			((v) >> 24) & 0xff \
	}

/*
 * Second record layout (ima-ng, path "/bin/x"): 0 pcr, 4 digest,
 * 24 name len (6), 28 "ima-ng", 34 data len, 38 d-ng len, 42 "sha256:\0"
 * + 32 bytes, 82 n-ng len, 86 "/bin/x\0", 93 end.
 */
static const struct bad_case bad_cases[] = {
	{ "pcr out of range", 0, LE32(24), 4, IMT_ERR_MALFORMED,
	  "PCR 24 out of range", 0 },
	{ "zero-length template name", 24, LE32(0), 4, IMT_ERR_MALFORMED,
	  "zero-length template name", 24 },
	{ "template name too long", 24, LE32(4000), 4, IMT_ERR_MALFORMED,
	  "template name length 4000", 24 },
	{ "unknown template", 28, (const uint8_t *)"ima-xx", 6,
	  IMT_ERR_UNSUPPORTED, "unknown template 'ima-xx'", 28 },
	{ "template data beyond buffer", 34, LE32(60), 4, IMT_ERR_MALFORMED,
	  "truncated", 38 },
	{ "template data over maximum", 34, LE32(0x7fffffff), 4,
	  IMT_ERR_MALFORMED, "exceeds the maximum", 34 },
	{ "field length beyond template data", 82, LE32(200), 4,
	  IMT_ERR_MALFORMED, "field 'n-ng' length 200 beyond", 82 },
	{ "unknown digest algorithm", 42, (const uint8_t *)"sha257", 6,
	  IMT_ERR_UNSUPPORTED, "unknown digest algorithm 'sha257'", 38 },
	{ "name without NUL", 92, (const uint8_t *)"y", 1, IMT_ERR_MALFORMED,
	  "not one NUL-terminated string", 82 },
	{ "trailing garbage", (size_t)-1, (const uint8_t *)"\1\2\3", 3,
	  IMT_ERR_MALFORMED, "trailing garbage: 3 bytes", 93 },
};

static void test_malformed(void **state)
{
	struct ima_record recs[TEST_RECORDS_MAX];
	struct imt_error err;
	uint8_t buf[1024];
	size_t first, second, count, i, len;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];

		first = build_ng(buf, sizeof(buf), "boot_aggregate", 1, 0);
		second = build_ng(buf + first, sizeof(buf) - first, "/bin/x", 2,
				  0);
		assert_int_equal(second, 93);
		len = first + second;
		if (c->offset == (size_t)-1) {
			memcpy(buf + len, c->patch, c->patch_len);
			len += c->patch_len;
		} else {
			memcpy(buf + first + c->offset, c->patch, c->patch_len);
		}
		print_message("case: %s\n", c->name);
		assert_int_equal(parse_all(buf, len, NULL, recs, &count, &err),
				 c->status);
		assert_non_null(strstr(err.msg, c->msg));
		assert_int_equal(err.offset, first + c->err_offset);
		if (c->offset != (size_t)-1)
			assert_int_equal(err.record, 1);
	}
}

/* An 'ima' (2008) name longer than 255 bytes is rejected by size. */
static void test_oversized_names(void **state)
{
	char longname[IMA_PATH_MAX + 8];
	struct ima_build_field f[2];
	struct imt_error err;
	uint8_t digest[20] = { 1 };
	uint8_t *buf = malloc(8192);
	size_t n, count;

	(void)state;
	memset(longname, 'a', sizeof(longname));
	longname[0] = '/';
	f[0] = (struct ima_build_field){ digest, 20 };
	f[1] = (struct ima_build_field){ longname, 256 };
	n = ima_build_record(buf, 8192, 10, "ima", f, 2, 0);
	assert_int_equal(parse_all(buf, n, NULL, NULL, &count, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "oversized name: 256 bytes"));
	f[1].len = 255;
	n = ima_build_record(buf, 8192, 10, "ima", f, 2, 0);
	assert_int_equal(parse_all(buf, n, NULL, NULL, &count, &err), IMT_OK);

	longname[IMA_PATH_MAX] = '\0';
	n = build_ng(buf, 8192, longname, 3, 0);
	assert_int_equal(parse_all(buf, n, NULL, NULL, &count, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "oversized name: 4097 bytes"));
	free(buf);
}

/* The empty name is what ima_template_fmt= writes; it parses once registered. */
static void test_registered_empty_name(void **state)
{
	struct ima_template_set set = { 0 };
	struct ima_record recs[TEST_RECORDS_MAX];
	struct ima_build_field f[3];
	struct imt_error err;
	uint8_t buf[512], dng[64], digest[32] = { 7 }, payload[3] = { 1, 2, 3 };
	size_t n, count;

	(void)state;
	f[0].data = dng;
	f[0].len = ima_build_digest_ng(dng, hash_algo_by_name("sha256", 6),
				       digest);
	f[1] = (struct ima_build_field){ "kexec-cmdline", 14 };
	f[2] = (struct ima_build_field){ payload, 3 };
	n = ima_build_record(buf, sizeof(buf), 10, "", f, 3, 0);
	assert_int_equal(parse_all(buf, n, NULL, recs, &count, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "zero-length template name"));
	assert_int_equal(ima_template_set_add(&set, "", "d-ng|n-ng|buf", &err),
			 IMT_OK);
	assert_int_equal(parse_all(buf, n, &set, recs, &count, &err), IMT_OK);
	assert_int_equal(recs[0].buf_len, 3);
	assert_memory_equal(recs[0].buf, payload, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_parse),
		cmocka_unit_test(test_fixture_digests),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_need_more_then_truncated),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_oversized_names),
		cmocka_unit_test(test_registered_empty_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

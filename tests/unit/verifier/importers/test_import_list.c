// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_list.c - golden measurement lists: the real kernel lists of
 * tests/fixtures/ima/ import with their PCRs, and every kind of mismatch
 * is refused before the sink sees anything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collect_sink.h"
#include "../../fixture.h"
#include "hex.h"
#include "ima_replay.h"
#include "import_list.h"
#include "../../list_helpers.h"

struct golden {
	uint8_t *list;
	size_t len;
	struct import_pcr pcrs[2]; /* sha1, sha256 */
};

static void load_pcrs(struct import_pcr *pcr, const char *dir, const char *bank)
{
	char name[32];
	struct imt_error err;
	uint8_t *text;
	size_t len;

	snprintf(name, sizeof(name), "pcrs-%s", bank);
	text = fixture_load(dir, name, &len);
	assert_int_equal(import_pcr_parse(pcr, bank, (char *)text, len, &err),
			 0);
	free(text);
}

static void golden_load(struct golden *g, const char *dir)
{
	g->list = fixture_load(dir, "binary_runtime_measurements", &g->len);
	load_pcrs(&g->pcrs[0], dir, "sha1");
	load_pcrs(&g->pcrs[1], dir, "sha256");
}

static int run(const struct golden *g, const struct import_pcr *pcrs, size_t n,
	       struct collect *c, struct import_list_info *info,
	       struct imt_error *err)
{
	struct import_sink sink = collect_sink(c);

	return import_list(g->list, g->len, pcrs, n, &sink, info, err);
}

/* The kernel's own ascii list names every file and digest we must give. */
static void check_against_ascii(const char *dir, const struct collect *c)
{
	char path[256], digest[160], tmpl[32], hexd[2 * 64 + 1];
	uint8_t *ascii;
	size_t len, k = 0;
	char *line, *save = NULL;

	ascii = fixture_load(dir, "ascii_runtime_measurements", &len);
	for (line = strtok_r((char *)ascii, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *colon, *hex;

		assert_int_equal(sscanf(line, "%*u %*s %31s %159s %255s", tmpl,
					digest, path),
				 3);
		colon = strchr(digest, ':');
		hex = colon != NULL ? colon + 1 : digest;
		/* boot_aggregate and violations are not references */
		if (strcmp(path, "boot_aggregate") == 0 ||
		    strspn(hex, "0") == strlen(hex))
			continue;
		assert_true(k < c->nrefs);
		assert_string_equal(c->refs[k].path, path);
		assert_int_equal(c->refs[k].kind, IMPORT_REF_FILE);
		if (colon != NULL)
			assert_memory_equal(c->refs[k].algo, digest,
					    (size_t)(colon - digest));
		else
			assert_string_equal(c->refs[k].algo, "sha1");
		hex_encode(c->refs[k].digest, c->refs[k].digest_len, hexd);
		assert_string_equal(hexd, hex);
		k++;
	}
	assert_int_equal(k, c->nrefs);
	free(ascii);
}

static void test_fixtures_import(void **state)
{
	struct import_list_info info;
	struct imt_error err;
	struct golden g;
	size_t i;

	(void)state;
	for (i = 0; i < IMA_FIXTURE_COUNT; i++) {
		struct collect *c = calloc(1, sizeof(*c));

		golden_load(&g, ima_fixtures[i]);
		assert_int_equal(run(&g, g.pcrs, 2, c, &info, &err), 0);
		assert_int_equal(info.records, 8);
		assert_int_equal(info.files, 5);
		assert_int_equal(info.buffers, 0);
		assert_int_equal(info.violations, 2);
		assert_int_equal(info.skipped, 1); /* boot_aggregate */
		assert_true(info.boot_aggregate_checked);
		check_against_ascii(ima_fixtures[i], c);
		free(g.list);
		free(c);
	}
}

/* One bank alone is enough, either of them. */
static void test_one_bank(void **state)
{
	struct import_list_info info;
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));

	(void)state;
	golden_load(&g, "ima-ng-sha256");
	assert_int_equal(run(&g, &g.pcrs[1], 1, c, &info, &err), 0);
	assert_int_equal(info.files, 5);
	assert_true(info.boot_aggregate_checked);
	c->nrefs = 0;
	/* sha1 bank: boot_aggregate is sha256 here, so it is not checked */
	assert_int_equal(run(&g, &g.pcrs[0], 1, c, &info, &err), 0);
	assert_int_equal(info.files, 5);
	assert_false(info.boot_aggregate_checked);
	free(g.list);
	free(c);
}

/* A byte changed anywhere in a record: refused, nothing reaches the sink. */
static void test_changed_byte(void **state)
{
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));
	struct ima_record recs[TEST_RECORDS_MAX];
	size_t n, off;

	(void)state;
	golden_load(&g, "ima-ng-sha256");
	assert_int_equal(parse_all(g.list, g.len, NULL, recs, &n, &err),
			 IMT_OK);
	/* the last byte of record 2's file digest (/data/app.conf) */
	off = (size_t)(recs[2].digest - g.list) + 31;
	g.list[off] ^= 1;
	assert_int_equal(run(&g, g.pcrs, 2, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "listed template digest"));
	assert_int_equal(c->nrefs, 0);
	/* and with only the sha256 bank, the sha1 check still runs */
	assert_int_equal(run(&g, &g.pcrs[1], 1, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(c->nrefs, 0);
	free(g.list);
	free(c);
}

/* The listed digest changed to agree with changed data: PCR 10 says no. */
static void test_consistent_forgery(void **state)
{
	struct ima_build_field f[2];
	const struct hash_algo *sha256 = hash_algo_bank("sha256");
	uint8_t digest[32], dng[64], rec[512];
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));
	struct ima_record recs[TEST_RECORDS_MAX];
	size_t n, sz;

	(void)state;
	golden_load(&g, "ima-ng-sha256");
	assert_int_equal(parse_all(g.list, g.len, NULL, recs, &n, &err),
			 IMT_OK);
	/* record 1, /data/bin/bb1, rebuilt with another digest */
	memset(digest, 0x5a, sizeof(digest));
	f[0].data = dng;
	f[0].len = ima_build_digest_ng(dng, sha256, digest);
	f[1].data = "/data/bin/bb1";
	f[1].len = 14;
	sz = ima_build_record(rec, sizeof(rec), 10, "ima-ng", f, 2, 0);
	assert_int_equal(sz, recs[1].size);
	memcpy(g.list + recs[1].offset, rec, sz);
	assert_int_equal(run(&g, g.pcrs, 2, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "sha1 PCR 10: the PCRs give "));
	assert_int_equal(c->nrefs, 0);
	assert_int_equal(run(&g, &g.pcrs[1], 1, c, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "sha256 PCR 10: the PCRs give "));
	assert_int_equal(c->nrefs, 0);
	free(g.list);
	free(c);
}

/* The PCRs of another boot: PCR 10 mismatch, naming bank and values. */
static void test_other_fixture_pcrs(void **state)
{
	char expect[80], got[80];
	struct import_pcr other[2];
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));

	(void)state;
	golden_load(&g, "ima-ng-sha256");
	load_pcrs(&other[0], "ima-sig-sha256", "sha1");
	load_pcrs(&other[1], "ima-sig-sha256", "sha256");
	assert_int_equal(run(&g, &other[1], 1, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	hex_encode(other[1].set.value[10], 32, expect);
	hex_encode(g.pcrs[1].set.value[10], 32, got);
	assert_non_null(strstr(err.msg, "sha256 PCR 10"));
	assert_non_null(strstr(err.msg, expect));
	assert_non_null(strstr(err.msg, got));
	assert_int_equal(c->nrefs, 0);
	free(g.list);
	free(c);
}

/* Same PCR 10, PCRs 0-9 of another boot: boot_aggregate is refused. */
static void test_boot_aggregate_mismatch(void **state)
{
	struct import_pcr mixed;
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));

	(void)state;
	golden_load(&g, "ima-ng-sha256");
	mixed = g.pcrs[1];
	mixed.set.value[0][0] ^= 1; /* another firmware */
	assert_int_equal(run(&g, &mixed, 1, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(err.record, 0);
	assert_non_null(strstr(err.msg, "sha256 boot_aggregate"));
	/* without PCRs 0-9 it is not checked */
	mixed.set.present = 1u << 10;
	assert_int_equal(run(&g, &mixed, 1, c, NULL, &err), 0);
	free(g.list);
	free(c);
}

static void test_truncated_list(void **state)
{
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));

	(void)state;
	golden_load(&g, "ima-sha1");
	g.len -= 3;
	assert_int_equal(run(&g, g.pcrs, 2, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_true(strncmp(err.msg, "list: ", 6) == 0);
	assert_int_equal(err.record, 7);
	g.len = 0;
	assert_int_equal(run(&g, g.pcrs, 2, c, NULL, &err), -1);
	assert_string_equal(err.msg, "list: empty");
	assert_int_equal(c->nrefs, 0);
	free(g.list);
	free(c);
}

static void test_banks_refused(void **state)
{
	struct import_pcr twice[2], nopcr10;
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));

	(void)state;
	golden_load(&g, "ima-ng-sha256");
	assert_int_equal(run(&g, g.pcrs, 0, c, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "0 banks given"));
	twice[0] = g.pcrs[1];
	twice[1] = g.pcrs[1];
	assert_int_equal(run(&g, twice, 2, c, NULL, &err), -1);
	assert_string_equal(err.msg, "PCRs: bank sha256 given twice");
	nopcr10 = g.pcrs[1];
	nopcr10.set.present &= ~(1u << 10);
	assert_int_equal(run(&g, &nopcr10, 1, c, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "no bank with PCR 10"));
	free(g.list);
	free(c);
}

static size_t build_buf(uint8_t *out, size_t outsz, uint32_t pcr,
			const char *name, const char *buf)
{
	const struct hash_algo *sha256 = hash_algo_bank("sha256");
	uint8_t digest[32], dng[64];
	struct ima_build_field f[3];

	memset(digest, 0xb0, sizeof(digest));
	f[0].data = dng;
	f[0].len = ima_build_digest_ng(dng, sha256, digest);
	f[1].data = name;
	f[1].len = (uint32_t)strlen(name) + 1;
	f[2].data = buf;
	f[2].len = (uint32_t)strlen(buf);
	return ima_build_record(out, outsz, pcr, "ima-buf", f, 3, 0);
}

/* The PCRs a list of our own gives, as a golden machine would show. */
static void pcrs_of(const uint8_t *list, size_t len, struct import_pcr *pcr)
{
	const struct hash_algo *sha256 = hash_algo_bank("sha256");
	struct ima_replay *r = ima_replay_new(sha256, NULL);
	struct ima_record recs[TEST_RECORDS_MAX];
	struct imt_error err;
	size_t n, i;

	assert_int_equal(parse_all(list, len, NULL, recs, &n, &err), IMT_OK);
	for (i = 0; i < n; i++)
		assert_int_equal(ima_replay_extend(r, &recs[i], &err), IMT_OK);
	pcr_set_init(&pcr->set, sha256);
	memcpy(pcr->set.value[10], ima_replay_pcr(r, 10), 32);
	pcr->set.present = 1u << 10;
	ima_replay_free(r);
}

/* ima-buf records are buffer references; relative names are skipped. */
static void test_buffers_and_names(void **state)
{
	uint8_t list[2048];
	struct import_list_info info;
	struct import_pcr pcr;
	struct imt_error err;
	struct import_sink sink;
	struct collect *c = calloc(1, sizeof(*c));
	size_t len = 0;

	(void)state;
	len += build_ng(list + len, sizeof(list) - len, "/usr/bin/true", 1, 0);
	len += build_buf(list + len, sizeof(list) - len, 10, "kexec-cmdline",
			 "root=/dev/vda ro");
	len += build_ng(list + len, sizeof(list) - len, "pipe:[4242]", 2, 0);
	len += build_ng(list + len, sizeof(list) - len, "/tmp/x", 0, 1);
	pcrs_of(list, len, &pcr);
	sink = collect_sink(c);
	assert_int_equal(import_list(list, len, &pcr, 1, &sink, &info, &err),
			 0);
	assert_int_equal(info.records, 4);
	assert_int_equal(info.files, 1);
	assert_int_equal(info.buffers, 1);
	assert_int_equal(info.skipped, 1);
	assert_int_equal(info.violations, 1);
	assert_false(info.boot_aggregate_checked);
	assert_int_equal(c->refs[0].kind, IMPORT_REF_FILE);
	assert_string_equal(c->refs[0].path, "/usr/bin/true");
	assert_int_equal(c->refs[1].kind, IMPORT_REF_BUFFER);
	assert_string_equal(c->refs[1].path, "kexec-cmdline");
	assert_string_equal(c->refs[1].algo, "sha256");
	assert_int_equal(c->refs[1].digest[0], 0xb0);
	free(c);
}

/* A record on another PCR is not proven by PCR 10: refused. */
static void test_other_pcr(void **state)
{
	uint8_t list[1024];
	struct import_pcr pcr;
	struct imt_error err;
	struct import_sink sink;
	struct collect *c = calloc(1, sizeof(*c));
	size_t len = 0;

	(void)state;
	len += build_ng(list + len, sizeof(list) - len, "/usr/bin/true", 1, 0);
	len += build_buf(list + len, sizeof(list) - len, 11, "kexec-cmdline",
			 "x");
	pcrs_of(list, len, &pcr);
	sink = collect_sink(c);
	assert_int_equal(import_list(list, len, &pcr, 1, &sink, NULL, &err),
			 -1);
	assert_string_equal(err.msg,
			    "record 1 extends PCR 11; only PCR 10 is checked");
	assert_int_equal(c->nrefs, 0);
	free(c);
}

/* A sink's refusal stops the import with its error unchanged. */
static void test_sink_error(void **state)
{
	struct imt_error err;
	struct golden g;
	struct collect *c = calloc(1, sizeof(*c));

	(void)state;
	golden_load(&g, "ima-sig-sha256");
	c->fail_at = 3;
	assert_int_equal(run(&g, g.pcrs, 2, c, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_string_equal(err.msg, "sink full");
	assert_int_equal(c->nrefs, 2);
	free(g.list);
	free(c);
}

static void test_pcr_parse_errors(void **state)
{
	static const char bad_hex[] = "0 00\n10 zz\n";
	static const char no10[] =
		"0 0000000000000000000000000000000000000000\n";
	struct import_pcr pcr;
	struct imt_error err;

	(void)state;
	assert_int_equal(import_pcr_parse(&pcr, "md5", no10, sizeof(no10) - 1,
					  &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "\"md5\" is not a bank"));
	assert_int_equal(import_pcr_parse(&pcr, "sha1", bad_hex,
					  sizeof(bad_hex) - 1, &err),
			 -1);
	assert_int_equal(err.record, 1);
	assert_true(strncmp(err.msg, "sha1 PCRs: line 1: ", 19) == 0);
	assert_int_equal(import_pcr_parse(&pcr, "sha1", no10, sizeof(no10) - 1,
					  &err),
			 -1);
	assert_string_equal(err.msg,
			    "sha1 PCRs: no PCR 10, the one the list must give");
	/* a sha1 file read as sha256: every value has the wrong size */
	{
		uint8_t *text;
		size_t len;

		text = fixture_load("ima-sha1", "pcrs-sha1", &len);
		assert_int_equal(import_pcr_parse(&pcr, "sha256", (char *)text,
						  len, &err),
				 -1);
		assert_non_null(strstr(err.msg, "needs 64 hex digits"));
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_import),
		cmocka_unit_test(test_one_bank),
		cmocka_unit_test(test_changed_byte),
		cmocka_unit_test(test_consistent_forgery),
		cmocka_unit_test(test_other_fixture_pcrs),
		cmocka_unit_test(test_boot_aggregate_mismatch),
		cmocka_unit_test(test_truncated_list),
		cmocka_unit_test(test_banks_refused),
		cmocka_unit_test(test_buffers_and_names),
		cmocka_unit_test(test_other_pcr),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_pcr_parse_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_boot_baseline.c - a boot against its machine's baseline, on the
 * real OVMF logs of tests/fixtures/eventlog/: the same boot passes, the
 * stock kernel after the patched one is named by PCR 4, its event and
 * both digests, Secure Boot turned off by a PCR of the firmware's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "../../fixture.h"
#include "../../proto/eventlog_build.h"
#include "boot_baseline.h"

/* pesign -h of the kernels (tests/fixtures/eventlog/README.md) */
#define PATCHED \
	"sha256:59ac6c5bfd601a7b1a44488e74eeb5eb1312c77fd27786d55067574f0091ce54"

struct log {
	uint8_t *buf;
	size_t len;
};

static struct log load(const char *name)
{
	char rel[128];
	struct log l;

	snprintf(rel, sizeof(rel), "eventlog/%s/binary_bios_measurements",
		 name);
	l.buf = fixture_read(rel, &l.len);
	return l;
}

/* boot_baseline_judge() of boot @now against baseline @then. */
static int judge(const char *now, const char *then, const char *by,
		 json_t **reason)
{
	struct log a = load(now), b = load(then);
	struct imt_error err;
	char text[1024] = "";
	int rc;

	rc = boot_baseline_judge("p", a.buf, a.len, b.buf, b.len, by, text,
				 sizeof(text), &err);
	free(a.buf);
	free(b.buf);
	if (rc < 0)
		fail_msg("boot_baseline_judge: %s", err.msg);
	*reason = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	if (rc == 0)
		assert_non_null(*reason);
	return rc;
}

static const char *field(json_t *r, const char *key)
{
	return json_string_value(json_object_get(r, key));
}

static void test_same_boot(void **state)
{
	json_t *r;

	(void)state;
	assert_int_equal(judge("patched-sb", "patched-sb", "", &r), 1);
	assert_int_equal(judge("seabios", "seabios", "", &r), 1);
}

static void test_other_kernel(void **state)
{
	json_t *r;

	(void)state;
	assert_int_equal(judge("stock-sb", "patched-sb", "", &r), 0);
	assert_string_equal(field(r, "check"), "boot");
	assert_string_equal(field(r, "rule"), "baseline");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 4);
	assert_string_equal(field(r, "type"),
			    "EV_EFI_BOOT_SERVICES_APPLICATION");
	/* the baseline's event was the patched kernel, this one is not */
	assert_string_equal(field(r, "baseline_digest"), PATCHED);
	assert_string_not_equal(field(r, "digest"), PATCHED);
	assert_true(json_integer_value(json_object_get(r, "event")) > 0);
	/* what each event says: the image's device path, the same file */
	assert_non_null(strstr(field(r, "description"), "linux.efi"));
	assert_non_null(strstr(field(r, "baseline_description"), "linux.efi"));
	assert_null(json_object_get(r, "baseline_event"));
	assert_non_null(strstr(field(r, "why"), "not yet approved"));
	assert_null(json_object_get(r, "approved_by"));
	json_decref(r);
	/* an approved baseline says so, and by whom */
	assert_int_equal(judge("patched-sb", "stock-sb", "alice", &r), 0);
	assert_string_equal(field(r, "approved_by"), "alice");
	assert_non_null(strstr(field(r, "why"), "approved by an operator"));
	json_decref(r);
}

static void test_secure_boot_off(void **state)
{
	json_t *r;
	json_int_t pcr;

	(void)state;
	assert_int_equal(judge("patched-nosb", "patched-sb", "", &r), 0);
	pcr = json_integer_value(json_object_get(r, "pcr"));
	/* the firmware's PCRs (0-7) see setup mode before the kernel does */
	assert_true(pcr >= 0 && pcr <= 7);
	assert_non_null(field(r, "digest"));
	json_decref(r);
	/* SeaBIOS against OVMF: PCR 0 already */
	assert_int_equal(judge("seabios", "patched-sb", "", &r), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 0);
	json_decref(r);
}

/* Boot logs of PCRs 0, 1 and 7 (sha256 only): a BootOrder and a dbx of
 * @n entries of @hash; @more adds a Boot0003 option to PCR 1. */
static void var_log(struct elb *b, const char *order, size_t olen, size_t n,
		    int more)
{
	static const uint16_t alg[] = { 0x000b };
	static const uint16_t size[] = { 32 };
	static const uint8_t sha256_type[16] = {
		0x26, 0x16, 0xc4, 0xc1, 0x4c, 0x50, 0x92, 0x40,
		0xac, 0xa9, 0x41, 0xf9, 0x36, 0x93, 0x43, 0x28,
	};
	uint8_t hash[32];
	struct elb d;

	memset(hash, 0x5e, sizeof(hash));
	elb_open(b, alg, size, 1);
	elb_event(b, 0, 0x80000008, "fw",
		  2); /* EV_EFI_PLATFORM_FIRMWARE_BLOB */
	elb_reset(&d);
	elb_variable(&d, elb_guid_global, "BootOrder", order, olen);
	elb_event(b, 1, 0x80000002, d.buf, (uint32_t)d.len);
	if (more) {
		elb_reset(&d);
		elb_variable(&d, elb_guid_global, "Timeout", "\0\0", 2);
		elb_event(b, 1, 0x80000002, d.buf, (uint32_t)d.len);
	}
	elb_reset(&d);
	if (n > 0)
		elb_siglist(&d, sha256_type, hash, sizeof(hash), n);
	{
		struct elb v;

		elb_reset(&v);
		elb_variable(&v, elb_guid_db, "dbx", d.buf, d.len);
		elb_event(b, 7, 0x80000001, v.buf, (uint32_t)v.len);
	}
	elb_separator(b, 7, 0);
}

static int judge_elb(const struct elb *now, const struct elb *then, json_t **r)
{
	struct imt_error err;
	char text[1024];
	int rc;

	rc = boot_baseline_judge("p", now->buf, now->len, then->buf, then->len,
				 "alice", text, sizeof(text), &err);
	if (rc < 0)
		fail_msg("boot_baseline_judge: %s", err.msg);
	*r = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	return rc;
}

/* Another boot order: PCR 1, the BootOrder event, both orders named. */
static void test_boot_order(void **state)
{
	static struct elb now, then;
	json_t *r;

	(void)state;
	var_log(&then, "\1\0\0\0\2\0", 6, 0, 0);
	var_log(&now, "\2\0\1\0\0\0", 6, 0, 0);
	assert_int_equal(judge_elb(&then, &then, &r), 1);
	assert_int_equal(judge_elb(&now, &then, &r), 0);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 1);
	assert_int_equal(json_integer_value(json_object_get(r, "event")), 2);
	assert_string_equal(field(r, "type"), "EV_EFI_VARIABLE_BOOT");
	assert_string_equal(field(r, "description"),
			    "BootOrder = 0002,0001,0000");
	assert_string_equal(field(r, "baseline_description"),
			    "BootOrder = 0001,0000,0002");
	assert_string_not_equal(field(r, "digest"),
				field(r, "baseline_digest"));
	assert_string_equal(field(r, "approved_by"), "alice");
	json_decref(r);
}

/* An entry appended to dbx: PCR 7, its event, "dbx: 1 entry" against
 * the baseline's empty dbx. */
static void test_dbx(void **state)
{
	static struct elb now, then;
	json_t *r;

	(void)state;
	var_log(&then, "\1\0", 2, 0, 0);
	var_log(&now, "\1\0", 2, 1, 0);
	assert_int_equal(judge_elb(&now, &then, &r), 0);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 7);
	assert_string_equal(field(r, "type"), "EV_EFI_VARIABLE_DRIVER_CONFIG");
	assert_string_equal(field(r, "description"), "dbx: 1 entry");
	assert_string_equal(field(r, "baseline_description"), "dbx: 0 entries");
	json_decref(r);
}

/* An event fewer or more in PCR 1: the missing one is named from the
 * side that has it. */
static void test_event_missing(void **state)
{
	static struct elb now, then;
	json_t *r;

	(void)state;
	var_log(&then, "\1\0", 2, 0, 1);
	var_log(&now, "\1\0", 2, 0, 0);
	assert_int_equal(judge_elb(&now, &then, &r), 0);
	assert_null(json_object_get(r, "event"));
	assert_int_equal(json_integer_value(
				 json_object_get(r, "baseline_event")),
			 3);
	assert_string_equal(field(r, "baseline_description"),
			    "Timeout (2 bytes)");
	assert_non_null(strstr(field(r, "why"), "this boot lacks"));
	json_decref(r);
	assert_int_equal(judge_elb(&then, &now, &r), 0);
	assert_int_equal(json_integer_value(json_object_get(r, "event")), 3);
	assert_null(json_object_get(r, "baseline_digest"));
	assert_non_null(strstr(field(r, "why"), "the baseline lacks"));
	json_decref(r);
}

/* A reason that would not fit drops the descriptions, never the JSON. */
static void test_reason_fits(void **state)
{
	static struct elb now, then;
	struct imt_error err;
	char full[1024], small[1024];
	json_t *r;

	(void)state;
	var_log(&then, "\1\0", 2, 0, 0);
	var_log(&now, "\1\0", 2, 1, 0);
	assert_int_equal(boot_baseline_judge("p", now.buf, now.len, then.buf,
					     then.len, "", full, sizeof(full),
					     &err),
			 0);
	/* one byte short of the whole text and its NUL */
	assert_int_equal(boot_baseline_judge("p", now.buf, now.len, then.buf,
					     then.len, "", small, strlen(full),
					     &err),
			 0);
	r = json_loads(small, 0, NULL);
	assert_non_null(r);
	assert_null(json_object_get(r, "baseline_description"));
	assert_string_equal(field(r, "description"), "dbx: 1 entry");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 7);
	json_decref(r);
	/* too small for anything: still JSON, the check and rule */
	assert_int_equal(boot_baseline_judge("p", now.buf, now.len, then.buf,
					     then.len, "", small, 100, &err),
			 0);
	r = json_loads(small, 0, NULL);
	assert_non_null(r);
	assert_string_equal(field(r, "rule"), "baseline");
	json_decref(r);
}

static void test_bad_log(void **state)
{
	struct log a = load("patched-sb");
	struct imt_error err;
	char text[256];

	(void)state;
	assert_int_equal(boot_baseline_judge("p", a.buf, a.len,
					     (const uint8_t *)"junk", 4, "",
					     text, sizeof(text), &err),
			 -1);
	free(a.buf);
}

/* A SHA-1-only first log is no baseline: the next boot is refused,
 * naming why, not an error. */
static void test_legacy_baseline(void **state)
{
	static struct elb l;
	struct log a = load("patched-sb");
	struct imt_error err;
	char text[1024];
	json_t *r;

	(void)state;
	elb_reset(&l);
	elb_legacy_event(&l, 0, 0x00000008, "v", 1);
	assert_int_equal(boot_baseline_judge("p", a.buf, a.len, l.buf, l.len,
					     "", text, sizeof(text), &err),
			 0);
	r = json_loads(text, 0, NULL);
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "rule")),
			    "baseline");
	assert_non_null(strstr(json_string_value(json_object_get(r, "why")),
			       "SHA-1-only"));
	json_decref(r);
	free(a.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_boot),
		cmocka_unit_test(test_other_kernel),
		cmocka_unit_test(test_secure_boot_off),
		cmocka_unit_test(test_boot_order),
		cmocka_unit_test(test_dbx),
		cmocka_unit_test(test_event_missing),
		cmocka_unit_test(test_reason_fits),
		cmocka_unit_test(test_bad_log),
		cmocka_unit_test(test_legacy_baseline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

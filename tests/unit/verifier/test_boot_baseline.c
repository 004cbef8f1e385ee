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

#include "../fixture.h"
#include "../proto/eventlog_build.h"
#include "boot_baseline.h"

/* pesign -h of the kernels (tests/fixtures/eventlog/README.md) */
#define PATCHED "sha256:59ac6c5bfd601a7b1a44488e74eeb5eb1312c77fd27786d55067574f0091ce54"

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

static void test_bad_log(void **state)
{
	struct log a = load("patched-sb");
	struct imt_error err;
	char text[256];

	(void)state;
	assert_int_equal(boot_baseline_judge("p", a.buf, a.len,
					     (const uint8_t *)"junk", 4, "",
					     text, sizeof(text), &err), -1);
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
					     "", text, sizeof(text), &err), 0);
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
		cmocka_unit_test(test_bad_log),
		cmocka_unit_test(test_legacy_baseline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

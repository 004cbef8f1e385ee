// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_boot_policy.c - a named policy's "boot" section against the real
 * OVMF and SeaBIOS logs of tests/fixtures/eventlog/.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "boot_policy.h"
#include "../fixture.h"
#include "hex.h"

/* pesign -h of the patched kernel booted in patched-sb (its README). */
#define KERNEL_SB "59ac6c5bfd601a7b1a44488e74eeb5eb1312c77fd27786d55067574f0091ce54"

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

static void parse(const char *text, struct boot_policy *bp)
{
	struct imt_error err;
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	memset(bp, 0, sizeof(*bp));
	if (boot_policy_parse(j, bp, &err) < 0)
		fail_msg("boot_policy_parse: %s", err.msg);
	json_decref(j);
}

/* The reference lookup: *ctx is the one digest (hex) that is known. */
static int known_one(void *ctx, const char *algo, const uint8_t *digest,
		     size_t len, char *source, size_t source_len)
{
	char hex[2 * 64 + 1];

	hex_encode(digest, len, hex);
	snprintf(source, source_len, "efi:test");
	return strcmp(algo, "sha256") == 0 && strcmp(hex, ctx) == 0;
}

static int known_all(void *ctx, const char *algo, const uint8_t *digest,
		     size_t len, char *source, size_t source_len)
{
	(void)ctx;
	(void)algo;
	(void)digest;
	(void)len;
	snprintf(source, source_len, "efi:test");
	return 1;
}

/* boot_policy_judge() of @policy on log @name; *reason kept for checks. */
static int judge(const char *policy, const char *name,
		 boot_policy_app_known known, void *ctx, json_t **reason)
{
	struct boot_policy bp;
	struct imt_error err;
	char text[2048] = "";
	struct log l = { NULL, 0 };
	int rc;

	parse(policy, &bp);
	if (name != NULL)
		l = load(name);
	rc = boot_policy_judge(&bp, "p", l.buf, l.len, known, ctx, text,
			       sizeof(text), &err);
	assert_int_not_equal(rc, -1);
	*reason = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	if (rc == 0)
		assert_non_null(*reason);
	boot_policy_free(&bp);
	free(l.buf);
	return rc;
}

static const char *field(json_t *r, const char *key)
{
	return json_string_value(json_object_get(r, key));
}

static void test_secure_boot(void **state)
{
	json_t *r;

	(void)state;
	assert_int_equal(judge("{\"secure_boot\":\"required\"}", "patched-sb",
			       known_all, NULL, &r), 1);
	assert_int_equal(judge("{\"secure_boot\":\"required\"}",
			       "patched-nosb", known_all, NULL, &r), 0);
	assert_string_equal(field(r, "rule"), "secure_boot");
	assert_string_equal(field(r, "check"), "boot");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 7);
	assert_non_null(strstr(field(r, "why"), "off"));
	json_decref(r);
	/* SeaBIOS measures no SecureBoot variable */
	assert_int_equal(judge("{\"secure_boot\":\"required\"}", "seabios",
			       known_all, NULL, &r), 0);
	assert_non_null(strstr(field(r, "why"), "not measured"));
	json_decref(r);
	/* "any" rules nothing */
	assert_int_equal(judge("{\"secure_boot\":\"any\"}", "patched-nosb",
			       known_all, NULL, &r), 1);
}

/* The application rule names PCR 4, the event, the digest and the path. */
static void test_applications(void **state)
{
	json_t *r;
	char want[80];

	(void)state;
	assert_int_equal(judge("{\"applications\":\"references\"}",
			       "patched-sb", known_all, NULL, &r), 1);
	/* only the kernel known: systemd-boot, the first one, is not */
	assert_int_equal(judge("{\"applications\":\"references\"}",
			       "patched-sb", known_one, KERNEL_SB, &r), 0);
	assert_string_equal(field(r, "rule"), "applications");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 4);
	assert_string_equal(field(r, "type"),
			    "EV_EFI_BOOT_SERVICES_APPLICATION");
	assert_non_null(strstr(field(r, "path"), "BOOTX64.EFI"));
	assert_true(json_integer_value(json_object_get(r, "event")) > 0);
	json_decref(r);
	/* the stock kernel's log: its kernel is not the referenced one */
	assert_int_equal(judge("{\"applications\":\"references\"}",
			       "stock-sb", known_one, KERNEL_SB, &r), 0);
	snprintf(want, sizeof(want), "sha256:%s", KERNEL_SB);
	assert_string_not_equal(field(r, "digest"), want);
	json_decref(r);
}

static void test_certificates(void **state)
{
	json_t *r;
	char policy[256];
	const char *digest;

	(void)state;
	/* a db list without the lab's db certificate */
	assert_int_equal(judge("{\"db\":[\"" KERNEL_SB "\"]}", "patched-sb",
			       known_all, NULL, &r), 0);
	assert_string_equal(field(r, "rule"), "db");
	assert_non_null(strstr(field(r, "subject"), "imatrust lab db"));
	digest = field(r, "digest");
	assert_int_equal(strlen(digest), 64);
	/* listing the digest the violation named accepts it */
	snprintf(policy, sizeof(policy), "{\"db\":[\"%s\"]}", digest);
	json_decref(r);
	assert_int_equal(judge(policy, "patched-sb", known_all, NULL, &r), 1);
	/* setup mode: db is empty, so every entry is listed */
	assert_int_equal(judge(policy, "patched-nosb", known_all, NULL, &r), 1);
}

static void test_cmdline(void **state)
{
	json_t *r;

	(void)state;
	/* the fixture's command line, bound through PCR 9's tag */
	assert_int_equal(judge("{\"cmdline\":[\"*imatrust.run=/capture-guest\"]}",
			       "patched-sb", known_all, NULL, &r), 1);
	assert_int_equal(judge("{\"cmdline\":[\"* quiet *\"]}", "patched-sb",
			       known_all, NULL, &r), 0);
	assert_string_equal(field(r, "rule"), "cmdline");
	assert_non_null(strstr(field(r, "cmdline"), "console=ttyS0"));
	json_decref(r);
	/* SeaBIOS: no command line in the log at all */
	assert_int_equal(judge("{\"cmdline\":[\"*\"]}", "seabios", known_all,
			       NULL, &r), 0);
	assert_non_null(strstr(field(r, "why"), "bound"));
	json_decref(r);
}

static void test_no_log(void **state)
{
	json_t *r;

	(void)state;
	assert_int_equal(judge("{\"log\":\"required\"}", NULL, known_all,
			       NULL, &r), 0);
	assert_string_equal(field(r, "rule"), "log");
	json_decref(r);
	assert_int_equal(judge("{\"log\":\"optional\","
			       "\"secure_boot\":\"required\"}", NULL,
			       known_all, NULL, &r), 1);
}

/* A bad section is refused naming the field; a good one round-trips. */
static void test_parse(void **state)
{
	static const char *const bad[] = {
		"{\"secureboot\":\"required\"}",
		"{\"secure_boot\":true}",
		"{\"db\":[\"abc\"]}",
		"{\"db\":\"" KERNEL_SB "\"}",
		"{\"cmdline\":[]}",
		"{\"applications\":\"all\"}",
		"{\"baseline\":\"first\"}",
		"[]",
	};
	static const char *const name[] = {
		"boot.secureboot", "boot.secure_boot", "boot.db[0]", "boot.db",
		"boot.cmdline", "boot.applications", "boot.baseline", "boot:",
	};
	const char *good = "{\"applications\":\"references\",\"cmdline\":"
			   "[\"a*\"],\"db\":[\"" KERNEL_SB "\"],\"log\":"
			   "\"required\",\"secure_boot\":\"required\","
			   "\"baseline\":\"first-boot\"}";
	struct boot_policy bp;
	struct imt_error err;
	json_t *j, *back;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		j = json_loads(bad[i], 0, NULL);
		assert_non_null(j);
		memset(&bp, 0, sizeof(bp));
		assert_int_equal(boot_policy_parse(j, &bp, &err), -1);
		assert_non_null(strstr(err.msg, name[i]));
		boot_policy_free(&bp);
		json_decref(j);
	}
	parse(good, &bp);
	back = boot_policy_to_json(&bp);
	j = json_loads(good, 0, NULL);
	assert_true(json_equal(j, back));
	json_decref(j);
	json_decref(back);
	boot_policy_free(&bp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secure_boot),
		cmocka_unit_test(test_applications),
		cmocka_unit_test(test_certificates),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_no_log),
		cmocka_unit_test(test_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

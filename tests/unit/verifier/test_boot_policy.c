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
#include "../proto/eventlog_build.h"
#include "hex.h"
#include "tcg_log.h"

/* pesign -h of the patched kernel booted in patched-sb (its README). */
#define KERNEL_SB \
	"59ac6c5bfd601a7b1a44488e74eeb5eb1312c77fd27786d55067574f0091ce54"

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

/* boot_policy_judge() of @policy on @log; *reason kept for checks. */
static int judge_log(const char *policy, const uint8_t *log, size_t len,
		     boot_policy_app_known known, void *ctx, json_t **reason)
{
	struct boot_policy bp;
	struct imt_error err;
	char text[2048] = "";
	int rc;

	parse(policy, &bp);
	rc = boot_policy_judge(&bp, "p", log, len, known, ctx, text,
			       sizeof(text), &err);
	assert_int_not_equal(rc, -1);
	*reason = rc == 0 ? json_loads(text, 0, NULL) : NULL;
	if (rc == 0)
		assert_non_null(*reason);
	boot_policy_free(&bp);
	return rc;
}

/* boot_policy_judge() of @policy on log @name; *reason kept for checks. */
static int judge(const char *policy, const char *name,
		 boot_policy_app_known known, void *ctx, json_t **reason)
{
	struct log l = { NULL, 0 };
	int rc;

	if (name != NULL)
		l = load(name);
	rc = judge_log(policy, l.buf, l.len, known, ctx, reason);
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
			       known_all, NULL, &r),
			 1);
	assert_int_equal(judge("{\"secure_boot\":\"required\"}", "patched-nosb",
			       known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "secure_boot");
	assert_string_equal(field(r, "check"), "boot");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 7);
	assert_non_null(strstr(field(r, "why"), "off"));
	json_decref(r);
	/* SeaBIOS measures no SecureBoot variable */
	assert_int_equal(judge("{\"secure_boot\":\"required\"}", "seabios",
			       known_all, NULL, &r),
			 0);
	assert_non_null(strstr(field(r, "why"), "not measured"));
	json_decref(r);
	/* "any" rules nothing */
	assert_int_equal(judge("{\"secure_boot\":\"any\"}", "patched-nosb",
			       known_all, NULL, &r),
			 1);
}

/* The application rule names PCR 4, the event, the digest and the path. */
static void test_applications(void **state)
{
	json_t *r;
	char want[80];

	(void)state;
	assert_int_equal(judge("{\"applications\":\"references\"}",
			       "patched-sb", known_all, NULL, &r),
			 1);
	/* only the kernel known: systemd-boot, the first one, is not */
	assert_int_equal(judge("{\"applications\":\"references\"}",
			       "patched-sb", known_one, KERNEL_SB, &r),
			 0);
	assert_string_equal(field(r, "rule"), "applications");
	assert_int_equal(json_integer_value(json_object_get(r, "pcr")), 4);
	assert_string_equal(field(r, "type"),
			    "EV_EFI_BOOT_SERVICES_APPLICATION");
	assert_non_null(strstr(field(r, "path"), "BOOTX64.EFI"));
	assert_true(json_integer_value(json_object_get(r, "event")) > 0);
	json_decref(r);
	/* the stock kernel's log: its kernel is not the referenced one */
	assert_int_equal(judge("{\"applications\":\"references\"}", "stock-sb",
			       known_one, KERNEL_SB, &r),
			 0);
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
			       known_all, NULL, &r),
			 0);
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
			       "patched-sb", known_all, NULL, &r),
			 1);
	assert_int_equal(judge("{\"cmdline\":[\"* quiet *\"]}", "patched-sb",
			       known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "cmdline");
	assert_non_null(strstr(field(r, "cmdline"), "console=ttyS0"));
	json_decref(r);
	/* SeaBIOS: no command line in the log at all */
	assert_int_equal(judge("{\"cmdline\":[\"*\"]}", "seabios", known_all,
			       NULL, &r),
			 0);
	assert_non_null(strstr(field(r, "why"), "bound"));
	json_decref(r);
}

static void test_no_log(void **state)
{
	json_t *r;

	(void)state;
	assert_int_equal(judge("{\"log\":\"required\"}", NULL, known_all, NULL,
			       &r),
			 0);
	assert_string_equal(field(r, "rule"), "log");
	json_decref(r);
	assert_int_equal(judge("{\"log\":\"optional\","
			       "\"secure_boot\":\"required\"}",
			       NULL, known_all, NULL, &r),
			 1);
}

/* A real dbx of hundreds of entries (460 on the public logs) is read
 * whole: a revocation past the 64th is found; past the maximum the rule
 * still refuses, saying so. */
static void test_large_dbx(void **state)
{
	static struct elb b, d, l;
	uint8_t a32[32], b32[32];
	char policy[128], hex[65];
	json_t *r;

	(void)state;
	memset(a32, 0xaa, sizeof(a32));
	memset(b32, 0xbb, sizeof(b32));
	hex_encode(b32, 32, hex);
	snprintf(policy, sizeof(policy), "{\"dbx\":[\"%s\"]}", hex);
	elb_reset(&l);
	elb_siglist(&l, elb_guid_sha256, a32, 32, 459);
	elb_siglist(&l, elb_guid_sha256, b32, 32, 1);
	elb_open_default(&b);
	elb_reset(&d);
	elb_variable(&d, elb_guid_db, "dbx", l.buf, l.len);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, d.buf, (uint32_t)d.len);
	assert_int_equal(judge_log(policy, b.buf, b.len, known_all, NULL, &r),
			 1);
	elb_reset(&l);
	elb_siglist(&l, elb_guid_sha256, a32, 32, BOOT_FACTS_CERTS_MAX);
	elb_siglist(&l, elb_guid_sha256, b32, 32, 1);
	elb_open_default(&b);
	elb_reset(&d);
	elb_variable(&d, elb_guid_db, "dbx", l.buf, l.len);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, d.buf, (uint32_t)d.len);
	assert_int_equal(judge_log(policy, b.buf, b.len, known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "dbx");
	assert_non_null(strstr(field(r, "why"), "more than the"));
	json_decref(r);
}

/* A SHA-1-only TCG 1.2 log: no usable log, or refused by legacy_log. */
static void test_legacy_log(void **state)
{
	static struct elb b;
	json_t *r;

	(void)state;
	elb_reset(&b);
	elb_legacy_event(&b, 0, EV_S_CRTM_VERSION, "v", 1);
	elb_legacy_event(&b, 7, EV_SEPARATOR, "\0\0\0\0", 4);
	/* default "allow": as no log, so "optional" passes even with rules
	 * a log would have to satisfy */
	assert_int_equal(judge_log("{\"log\":\"optional\"}", b.buf, b.len,
				   known_all, NULL, &r),
			 1);
	assert_int_equal(judge_log("{\"legacy_log\":\"allow\","
				   "\"secure_boot\":\"required\"}",
				   b.buf, b.len, known_all, NULL, &r),
			 1);
	assert_int_equal(judge_log("{\"log\":\"required\"}", b.buf, b.len,
				   known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "log");
	assert_non_null(strstr(field(r, "why"), "SHA-1-only"));
	json_decref(r);
	assert_int_equal(judge_log("{\"legacy_log\":\"refuse\"}", b.buf, b.len,
				   known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "legacy_log");
	assert_non_null(strstr(field(r, "why"), "SHA-1-only"));
	json_decref(r);
	/* "refuse" says nothing of a crypto-agile log or of none */
	assert_int_equal(judge("{\"legacy_log\":\"refuse\"}", "patched-sb",
			       known_all, NULL, &r),
			 1);
	assert_int_equal(judge("{\"legacy_log\":\"refuse\"}", NULL, known_all,
			       NULL, &r),
			 1);
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
		"{\"legacy_log\":\"yes\"}",
		"[]",
		"{\"pcrs\":{\"10\":[\"" KERNEL_SB "\"]}}",
		"{\"pcrs\":{\"012\":[\"" KERNEL_SB "\"]}}",
		"{\"pcrs\":{\"24\":[\"" KERNEL_SB "\"]}}",
		"{\"pcrs\":{\"12\":[]}}",
		"{\"pcrs\":{\"12\":[\"abc\"]}}",
		"{\"pcrs\":[]}",
	};
	static const char *const name[] = {
		"boot.secureboot", "boot.secure_boot", "boot.db[0]",
		"boot.db",	   "boot.cmdline",     "boot.applications",
		"boot.baseline",   "boot.legacy_log",  "boot:",
		"boot.pcrs.10",	   "boot.pcrs.012",    "boot.pcrs.24",
		"boot.pcrs.12",	   "boot.pcrs.12[0]",  "boot.pcrs",
	};
	const char *good = "{\"applications\":\"references\",\"cmdline\":"
			   "[\"a*\"],\"db\":[\"" KERNEL_SB "\"],\"log\":"
			   "\"required\",\"secure_boot\":\"required\","
			   "\"baseline\":\"first-boot\","
			   "\"legacy_log\":\"refuse\","
			   "\"pcrs\":{\"12\":[\"" KERNEL_SB
			   "\"],\"23\":[\"" KERNEL_SB "\",\"" KERNEL_SB "\"]}}";
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

/* XOR @mask into byte @back from the end of event @index's data. */
static void flip(struct log *l, size_t index, size_t back, uint8_t mask)
{
	struct tcg_log t;
	struct tcg_event ev;

	assert_int_equal(tcg_log_open(&t, l->buf, l->len, NULL), IMT_OK);
	do
		assert_int_equal(tcg_log_next(&t, &ev, NULL), IMT_OK);
	while (ev.index < index);
	l->buf[ev.data - l->buf + ev.len - 1 - back] ^= mask;
}

static int num(json_t *r, const char *key)
{
	return (int)json_integer_value(json_object_get(r, key));
}

/* The reason names the event the fact is unknown by. */
static void assert_names(json_t *r, const char *rule, int event,
			 const char *type, const char *variable)
{
	char want[32];

	assert_string_equal(field(r, "rule"), rule);
	assert_int_equal(num(r, "event"), event);
	assert_int_equal(num(r, "pcr"), 7);
	assert_string_equal(field(r, "type"), type);
	if (variable != NULL)
		assert_string_equal(field(r, "variable"), variable);
	assert_non_null(strstr(field(r, "why"), "unknown"));
	snprintf(want, sizeof(want), "event %d (PCR 7, ", event);
	assert_non_null(strstr(field(r, "why"), want));
}

/*
 * Issue 34: SecureBoot's data byte of the Secure-Boot-off log made 1,
 * every digest kept (so the replay still matches the quote): refused,
 * naming the event; a policy that needs no Secure Boot fact passes.
 */
static void test_forged_secure_boot(void **state)
{
	struct log l = load("patched-nosb");
	json_t *r;

	(void)state;
	flip(&l, 4, 0, 1);
	assert_int_equal(judge_log("{\"secure_boot\":\"required\"}", l.buf,
				   l.len, known_all, NULL, &r),
			 0);
	assert_names(r, "secure_boot", 4, "EV_EFI_VARIABLE_DRIVER_CONFIG",
		     "SecureBoot");
	assert_non_null(strstr(field(r, "why"), "does not hash to its sha1 "
						"digest"));
	json_decref(r);
	assert_int_equal(judge_log("{\"secure_boot\":\"any\",\"db\":[]}", l.buf,
				   l.len, known_all, NULL, &r),
			 1);
	free(l.buf);
}

/* The lab's certificate in variable @v of patched-sb, as hex. */
static void lab_cert(enum boot_var v, char *hex)
{
	static struct boot_facts f;
	struct log l = load("patched-sb");
	struct imt_error err;

	assert_int_equal(boot_facts_extract(l.buf, l.len, &f, &err), IMT_OK);
	assert_int_equal(f.vars[v].count, 1);
	hex_encode(f.vars[v].certs[0].sha256, 32, hex);
	free(l.buf);
}

/* PK, KEK, db: one byte of the certificate changed, digests kept. */
static void test_forged_certificates(void **state)
{
	static const char *const key[] = { "pk", "kek", "db" };
	static const char *const name[] = { "PK", "KEK", "db" };
	char policy[128], hex[65];
	struct log l;
	json_t *r;
	int v;

	(void)state;
	for (v = 0; v < 3; v++) {
		lab_cert((enum boot_var)v, hex);
		snprintf(policy, sizeof(policy), "{\"%s\":[\"%s\"]}", key[v],
			 hex);
		assert_int_equal(judge(policy, "patched-sb", known_all, NULL,
				       &r),
				 1);
		l = load("patched-sb");
		flip(&l, 5 + (size_t)v, 40, 1);
		assert_int_equal(judge_log(policy, l.buf, l.len, known_all,
					   NULL, &r),
				 0);
		assert_names(r, key[v], 5 + v, "EV_EFI_VARIABLE_DRIVER_CONFIG",
			     name[v]);
		json_decref(r);
		free(l.buf);
	}
}

/*
 * dbx (no data in these logs) renamed by one byte: it is not measured by
 * name, and unknown by the unbound event; an empty dbx list needs it.
 */
static void test_forged_dbx(void **state)
{
	struct log l = load("patched-sb");
	json_t *r;

	(void)state;
	assert_int_equal(judge_log("{\"dbx\":[]}", l.buf, l.len, known_all,
				   NULL, &r),
			 1);
	flip(&l, 8, 1, 1);
	assert_int_equal(judge_log("{\"dbx\":[]}", l.buf, l.len, known_all,
				   NULL, &r),
			 0);
	assert_names(r, "dbx", 8, "EV_EFI_VARIABLE_DRIVER_CONFIG", "dby");
	json_decref(r);
	free(l.buf);
}

/* A separator's value changed: the "log" rule refuses, naming it. */
static void test_forged_separator(void **state)
{
	struct log l = load("patched-nosb");
	json_t *r;

	(void)state;
	flip(&l, 9, 0, 1);
	assert_int_equal(judge_log("{\"secure_boot\":\"any\"}", l.buf, l.len,
				   known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "log");
	assert_int_equal(num(r, "event"), 9);
	assert_int_equal(num(r, "pcr"), 7);
	assert_string_equal(field(r, "type"), "EV_SEPARATOR");
	assert_non_null(strstr(field(r, "why"), "does not hash"));
	json_decref(r);
	free(l.buf);
}

/* The command line of PCR 12 changed by one character. */
static void test_forged_cmdline(void **state)
{
	struct log l = load("patched-sb");
	json_t *r;

	(void)state;
	flip(&l, 26, 2, 1);
	assert_int_equal(judge_log("{\"cmdline\":[\"*\"]}", l.buf, l.len,
				   known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "cmdline");
	assert_non_null(strstr(field(r, "why"), "bound"));
	json_decref(r);
	free(l.buf);
}

/*
 * The "log" rule names the event that broke it, not the first event
 * flagged for any reason (here an undecodable db before it), and a
 * variable rule on a variable not measured refuses (an event relabelled
 * to a type not read would hide it).
 */
static void test_log_rule_names_its_event(void **state)
{
	static struct elb b, d;
	json_t *r;

	(void)state;
	elb_open_default(&b);
	elb_reset(&d);
	elb_variable(&d, elb_guid_db, "db", "junk", 4);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, d.buf, (uint32_t)d.len);
	elb_separator(&b, 0, 0);
	elb_separator(&b, 1, 0);
	elb_reset(&d);
	elb_variable(&d, elb_guid_global, "Boot0000", "x", 1);
	/* PCR 1 takes boot variables after its separator (real firmware
	 * tries the next boot option); PCR 0 does not */
	elb_event(&b, 1, EV_EFI_VARIABLE_BOOT, d.buf, (uint32_t)d.len);
	elb_event(&b, 1, EV_EFI_HANDOFF_TABLES, "smbios", 6);
	assert_int_equal(judge_log("{\"log\":\"required\"}", b.buf, b.len,
				   known_all, NULL, &r),
			 1);
	elb_event(&b, 0, EV_EFI_VARIABLE_BOOT, d.buf, (uint32_t)d.len);
	assert_int_equal(judge_log("{\"log\":\"required\"}", b.buf, b.len,
				   known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "log");
	assert_int_equal(num(r, "event"), 6);
	assert_int_equal(num(r, "pcr"), 0);
	assert_string_equal(field(r, "type"), "EV_EFI_VARIABLE_BOOT");
	assert_non_null(strstr(field(r, "why"), "after its PCR's separator"));
	json_decref(r);
	/* the undecodable db is unknown to a db rule */
	elb_open_default(&b);
	elb_reset(&d);
	elb_variable(&d, elb_guid_db, "db", "junk", 4);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, d.buf, (uint32_t)d.len);
	assert_int_equal(judge_log("{\"db\":[]}", b.buf, b.len, known_all, NULL,
				   &r),
			 0);
	assert_string_equal(field(r, "rule"), "db");
	assert_int_equal(num(r, "event"), 1);
	assert_non_null(strstr(field(r, "why"), "does not decode"));
	json_decref(r);
	/* SeaBIOS measures no db: a db rule cannot hold */
	assert_int_equal(judge("{\"db\":[]}", "seabios", known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "db");
	assert_non_null(strstr(field(r, "why"), "not measured"));
	json_decref(r);
}

/* sha256 PCR 12 of the OVMF fixtures: systemd-boot's command line. */
#define PCR12_OVMF \
	"6dcf04defde400e2ca19c324df9ddbf3b6b32607685c6a195dcf51e6c25351df"

/*
 * "pcrs": a PCR the log extends replays to a listed sha256 value, or the
 * rule names the PCR and its value; a PCR the log does not extend (13
 * here) is a violation, since the log proves nothing of it.
 */
static void test_pcr_values(void **state)
{
	json_t *r;

	(void)state;
	assert_int_equal(judge("{\"pcrs\":{\"12\":[\"" KERNEL_SB
			       "\",\"" PCR12_OVMF "\"]}}",
			       "patched-sb", known_all, NULL, &r),
			 1);
	assert_int_equal(judge("{\"pcrs\":{\"12\":[\"" KERNEL_SB "\"]}}",
			       "patched-sb", known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "pcrs");
	assert_int_equal(num(r, "pcr"), 12);
	assert_string_equal(field(r, "digest"), PCR12_OVMF);
	assert_non_null(strstr(field(r, "why"), "PCR 12 replays to sha256"));
	json_decref(r);
	assert_int_equal(judge("{\"pcrs\":{\"13\":[\"" KERNEL_SB "\"]}}",
			       "patched-sb", known_all, NULL, &r),
			 0);
	assert_int_equal(num(r, "pcr"), 13);
	assert_non_null(strstr(field(r, "why"), "does not extend PCR 13"));
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_secure_boot),
		cmocka_unit_test(test_applications),
		cmocka_unit_test(test_certificates),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_no_log),
		cmocka_unit_test(test_legacy_log),
		cmocka_unit_test(test_large_dbx),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_forged_secure_boot),
		cmocka_unit_test(test_forged_certificates),
		cmocka_unit_test(test_forged_dbx),
		cmocka_unit_test(test_forged_separator),
		cmocka_unit_test(test_forged_cmdline),
		cmocka_unit_test(test_log_rule_names_its_event),
		cmocka_unit_test(test_pcr_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

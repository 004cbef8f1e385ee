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
#include "../../fixture.h"
#include "../../proto/eventlog_build.h"
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
		"{\"uki\":[]}",
		"{\"uki\":[{\".linux\":\"" KERNEL_SB "\"}]}",
		"{\"uki\":[{\"name\":\"a\",\"linux\":\"" KERNEL_SB "\"}]}",
		"{\"uki\":[{\"name\":\"a\",\".linux\":\"ab\"}]}",
		"{\"sbat_level\":{\"grub\":\"3\"}}",
		"{\"sbat_level\":{\"a,b\":3}}",
		"{\"authorities\":[\"ab\"]}",
	};
	static const char *const name[] = {
		"boot.secureboot",
		"boot.secure_boot",
		"boot.db[0]",
		"boot.db",
		"boot.cmdline",
		"boot.applications",
		"boot.baseline",
		"boot.legacy_log",
		"boot:",
		"boot.pcrs.10",
		"boot.pcrs.012",
		"boot.pcrs.24",
		"boot.pcrs.12",
		"boot.pcrs.12[0]",
		"boot.pcrs",
		"boot.uki:",
		"boot.uki[0]:",
		"boot.uki[0].linux",
		"boot.uki[0].linux: not 64",
		"boot.sbat_level.grub",
		"boot.sbat_level.a,b",
		"boot.authorities[0]",
	};
	const char *good = "{\"applications\":\"references\",\"cmdline\":"
			   "[\"a*\"],\"db\":[\"" KERNEL_SB "\"],\"log\":"
			   "\"required\",\"secure_boot\":\"required\","
			   "\"baseline\":\"first-boot\","
			   "\"legacy_log\":\"refuse\","
			   "\"pcrs\":{\"12\":[\"" KERNEL_SB
			   "\"],\"23\":[\"" KERNEL_SB "\",\"" KERNEL_SB "\"]},"
			   "\"uki\":[{\"name\":\"d\",\".linux\":\"" KERNEL_SB
			   "\",\".cmdline\":\"" KERNEL_SB "\"}],"
			   "\"sbat_level\":{\"sbat\":2023012900,\"grub\":3},"
			   "\"authorities\":[\"" KERNEL_SB "\"]}";
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

static struct elb lb, vd;

/* shim's vendor GUID (SbatLevel, Shim). */
static const uint8_t guid_shim[16] = {
	0x50, 0xab, 0x5d, 0x60, 0x46, 0xe0, 0x00, 0x43,
	0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23,
};

static void add_var(uint32_t type, const uint8_t *guid, const char *name,
		    const void *data, size_t len)
{
	elb_reset(&vd);
	elb_variable(&vd, guid, name, data, len);
	elb_event(&lb, 7, type, vd.buf, (uint32_t)vd.len);
}

static const char *const uki_names[] = { ".linux", ".osrel", ".cmdline",
					 ".initrd" };
static const char *const uki_contents[] = { "MZkernel", "ID=debian\n",
					    "root=/dev/vda2 ro",
					    "initrd-bytes" };
static char uki_hex[4][65];

/*
 * A UKI boot (SecureBoot, PCR 7's separator, the four sections as
 * events 3-10) in lb; uki_hex[] the sections' sha256.
 */
static void uki_log(void)
{
	uint8_t md[32];
	size_t i;

	elb_open_default(&lb);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	elb_separator(&lb, 7, 0);
	for (i = 0; i < 4; i++) {
		elb_uki_section(&lb, uki_names[i], uki_contents[i],
				strlen(uki_contents[i]));
		EVP_Digest(uki_contents[i], strlen(uki_contents[i]), md, NULL,
			   EVP_sha256(), NULL);
		hex_encode(md, 32, uki_hex[i]);
	}
}

/* {"uki":[{"name":NAME, the sections of uki_hex[] but @skip, @extra}]}. */
static void uki_entry(char *out, size_t n, const char *name, int skip,
		      const char *extra)
{
	size_t i, k;

	k = (size_t)snprintf(out, n, "{\"name\":\"%s\"", name);
	for (i = 0; i < 4; i++) {
		if ((int)i != skip)
			k += (size_t)snprintf(out + k, n - k, ",\"%s\":\"%s\"",
					      uki_names[i], uki_hex[i]);
	}
	snprintf(out + k, n - k, "%s}", extra);
}

static void assert_uki_reason(json_t *r, int event, const char *section,
			      const char *uki, const char *why)
{
	assert_string_equal(field(r, "rule"), "uki");
	assert_int_equal(num(r, "pcr"), 11);
	if (event > 0)
		assert_int_equal(num(r, "event"), event);
	if (section != NULL)
		assert_string_equal(field(r, "section"), section);
	if (uki != NULL)
		assert_string_equal(field(r, "uki"), uki);
	if (strstr(field(r, "why"), why) == NULL)
		fail_msg("why: %s, not %s", field(r, "why"), why);
}

/*
 * "uki": the PCR 11 sections match one allowed UKI entirely; otherwise
 * the first section that differs from the closest allowed UKI is named.
 */
static void test_uki(void **state)
{
	char a[1024], b2[1024], pol[2200], why[256];
	json_t *r;

	(void)state;
	uki_log();
	uki_entry(a, sizeof(a), "debian-6.1", -1, "");
	snprintf(pol, sizeof(pol), "{\"uki\":[%s]}", a);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 1);
	/* another command line: debian-6.1 is the closest of the two */
	memcpy(strstr(a, uki_hex[2]), "00", 2);
	uki_entry(b2, sizeof(b2), "old", 0, ",\".linux\":\"" KERNEL_SB "\"");
	memcpy(strstr(b2, uki_hex[2]), "00", 2);
	snprintf(pol, sizeof(pol), "{\"uki\":[%s,%s]}", b2, a);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_uki_reason(r, 8, ".cmdline", "debian-6.1", "the UKI's .cmdline");
	snprintf(why, sizeof(why),
		 "is %s (event 8), not the allowed "
		 "debian-6.1's 00%s",
		 uki_hex[2], uki_hex[2] + 2);
	assert_uki_reason(r, 8, NULL, NULL, why);
	assert_string_equal(field(r, "digest"), uki_hex[2]);
	json_decref(r);
	/* a section the allowed UKI has not; one it has that is missing */
	uki_entry(a, sizeof(a), "no-initrd", 3, "");
	snprintf(pol, sizeof(pol), "{\"uki\":[%s]}", a);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_uki_reason(r, 10, ".initrd", "no-initrd",
			  "the UKI has a section .initrd");
	json_decref(r);
	uki_entry(a, sizeof(a), "dtb", -1, ",\".dtb\":\"" KERNEL_SB "\"");
	snprintf(pol, sizeof(pol), "{\"uki\":[%s]}", a);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_uki_reason(r, 0, ".dtb", "dtb",
			  "the UKI lacks the allowed dtb's section .dtb");
	json_decref(r);
	/* no stub events at all */
	elb_open_default(&lb);
	elb_separator(&lb, 7, 0);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_uki_reason(r, 0, NULL, NULL, "no UKI sections in PCR 11");
	json_decref(r);
}

/*
 * Forged twin: the .cmdline name event's data changed by one byte,
 * digests kept (the replay still matches): the section's name is
 * unknown and the "uki" rule refuses, naming the event.
 */
static void test_forged_uki(void **state)
{
	struct log l;
	char a[1024], pol[1100];
	json_t *r;

	(void)state;
	uki_log();
	uki_entry(a, sizeof(a), "debian-6.1", -1, "");
	snprintf(pol, sizeof(pol), "{\"uki\":[%s]}", a);
	l.buf = lb.buf;
	l.len = lb.len;
	flip(&l, 7, 3, 1); /* ".cmdline" -> ".cmdlind" */
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_uki_reason(r, 7, NULL, NULL,
			  "A UKI section's name is unknown: event 7 (PCR 11, "
			  "EV_IPL) does not hash to its sha1 digest");
	assert_string_equal(field(r, "type"), "EV_IPL");
	json_decref(r);
	/* a rule that needs no UKI fact is not affected */
	assert_int_equal(judge_log("{\"secure_boot\":\"required\"}", lb.buf,
				   lb.len, known_all, NULL, &r),
			 1);
}

static const char sbat_text[] = "sbat,1,2023012900\nshim,2\ngrub,3\n"
				"grub.debian,4\n";

/* SbatLevel (event 1) and shim's vendor certificate (event 2) in lb. */
static void shim_log(const uint8_t *der, size_t dlen)
{
	elb_open_default(&lb);
	add_var(EV_EFI_VARIABLE_AUTHORITY, guid_shim, "SbatLevel", sbat_text,
		strlen(sbat_text));
	add_var(EV_EFI_VARIABLE_AUTHORITY, guid_shim, "Shim", der, dlen);
}

static void assert_sbat(const char *policy, const char *why)
{
	json_t *r;

	assert_int_equal(judge_log(policy, lb.buf, lb.len, known_all, NULL, &r),
			 why == NULL);
	if (why == NULL)
		return;
	assert_string_equal(field(r, "rule"), "sbat_level");
	assert_int_equal(num(r, "pcr"), 7);
	if (strstr(field(r, "why"), why) == NULL)
		fail_msg("why: %s, not %s", field(r, "why"), why);
	json_decref(r);
}

/*
 * "sbat_level": each component listed revoked at least to its generation
 * ("sbat": the date); the forged twin (one byte of SbatLevel's data
 * changed, digests kept) refuses as unknown, naming the event.
 */
static void test_sbat_level(void **state)
{
	struct log l;
	uint8_t *der;
	size_t dlen;

	(void)state;
	der = fixture_read("ima-sig/rsa.der", &dlen);
	shim_log(der, dlen);
	assert_sbat("{\"sbat_level\":{\"sbat\":2023012900,\"shim\":2,"
		    "\"grub\":3,\"grub.debian\":4}}",
		    NULL);
	assert_sbat("{\"sbat_level\":{\"grub\":4}}",
		    "SbatLevel (event 1) has grub at generation 3, the "
		    "policy asks for 4");
	assert_sbat("{\"sbat_level\":{\"sbat\":2024010900}}",
		    "has sbat at generation 2023012900");
	assert_sbat("{\"sbat_level\":{\"fwupd\":1}}",
		    "has no fwupd entry, the policy asks for generation 1");
	assert_sbat("{\"sbat_level\":{\"grub.debia\":1}}", "no grub.debia");
	l.buf = lb.buf;
	l.len = lb.len;
	flip(&l, 1, 1, 1); /* "grub.debian,4" -> "grub.debian,5" */
	assert_sbat("{\"sbat_level\":{\"grub\":1}}",
		    "SbatLevel is unknown: event 1 (PCR 7, "
		    "EV_EFI_VARIABLE_AUTHORITY, SbatLevel) does not hash to "
		    "its sha1 digest");
	elb_open_default(&lb);
	elb_separator(&lb, 7, 0);
	assert_sbat("{\"sbat_level\":{\"grub\":1}}",
		    "SbatLevel is not measured");
	free(der);
}

/* "authorities": every authority entry listed, none unknown. */
static void test_authorities(void **state)
{
	char pol[256], hex[65];
	uint8_t *der, md[32];
	struct log l;
	size_t dlen;
	json_t *r;

	(void)state;
	der = fixture_read("ima-sig/rsa.der", &dlen);
	EVP_Digest(der, dlen, md, NULL, EVP_sha256(), NULL);
	hex_encode(md, 32, hex);
	shim_log(der, dlen);
	snprintf(pol, sizeof(pol), "{\"authorities\":[\"%s\"]}", hex);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 1);
	assert_int_equal(judge_log("{\"authorities\":[\"" KERNEL_SB "\"]}",
				   lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_string_equal(field(r, "rule"), "authorities");
	assert_int_equal(num(r, "event"), 2);
	assert_string_equal(field(r, "digest"), hex);
	json_decref(r);
	l.buf = lb.buf;
	l.len = lb.len;
	flip(&l, 2, 40, 1);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_names(r, "authorities", 2, "EV_EFI_VARIABLE_AUTHORITY", "Shim");
	json_decref(r);
	elb_open_default(&lb);
	elb_separator(&lb, 7, 0);
	assert_int_equal(judge_log(pol, lb.buf, lb.len, known_all, NULL, &r),
			 0);
	assert_non_null(strstr(field(r, "why"), "no authority is measured"));
	json_decref(r);
	free(der);
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
		cmocka_unit_test(test_uki),
		cmocka_unit_test(test_forged_uki),
		cmocka_unit_test(test_sbat_level),
		cmocka_unit_test(test_authorities),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

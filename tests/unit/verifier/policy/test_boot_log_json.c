// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_boot_log_json.c - the decoded and CEL JSON views of an event log:
 * names the CLI relies on, unknown and undecodable events shown, not
 * dropped, attacker bytes kept valid UTF-8, real logs whole.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../fixture.h"
#include "../../proto/eventlog_build.h"
#include "boot_log_json.h"
#include "tcg_log.h"

static struct elb b, d;

static json_t *event_at(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "events"), i);
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static void test_decoded_shape(void **state)
{
	static const uint8_t bad16[] = { 0x00, 0xd8, 'x', 0, 0, 0 };
	struct imt_error err;
	json_t *doc, *ev, *spec;
	char *text;

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 0, EV_S_CRTM_VERSION, bad16, sizeof(bad16));
	elb_event(&b, 1, 0x13371337, "\xff\xfe", 2);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, "short", 5);
	elb_reset(&d);
	elb_variable(&d, elb_guid_global, "SecureBoot", "\1", 1);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, d.buf, (uint32_t)d.len);
	elb_separator(&b, 4, 1);
	doc = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	assert_non_null(doc);
	spec = json_object_get(doc, "spec");
	assert_string_equal(str_of(spec, "version"), "2.0");
	assert_int_equal(json_integer_value(
				 json_object_get(spec, "uintn_size")),
			 2);
	assert_string_equal(json_string_value(
				    json_array_get(json_object_get(spec,
								   "banks"),
						   1)),
			    "sha256");
	assert_int_equal(json_array_size(json_object_get(doc, "events")), 6);
	ev = event_at(doc, 1);
	/* A lone surrogate: U+FFFD, and the JSON stays valid. */
	assert_string_equal(str_of(json_object_get(ev, "data"), "text"),
			    "\xef\xbf\xbdx");
	ev = event_at(doc, 2);
	assert_string_equal(str_of(ev, "type_name"), "0x13371337");
	assert_string_equal(str_of(ev, "data_hex"), "fffe");
	assert_string_equal(str_of(ev, "description"),
			    "no decoder for this event type");
	assert_int_equal(json_integer_value(json_object_get(ev, "size")), 2);
	assert_non_null(str_of(json_object_get(ev, "digests"), "sha1"));
	ev = event_at(doc, 3);
	assert_string_equal(str_of(ev, "data_hex"), "73686f7274");
	assert_non_null(strstr(str_of(ev, "description"), "undecodable: "));
	assert_null(json_object_get(ev, "data"));
	ev = event_at(doc, 4);
	assert_string_equal(str_of(ev, "description"), "SecureBoot = 1");
	assert_true(json_is_true(
		json_object_get(json_object_get(doc, "facts"), "secure_boot")));
	ev = json_object_get(json_object_get(doc, "facts"), "flags");
	assert_string_equal(json_string_value(json_array_get(ev, 0)),
			    "separator_error");
	assert_non_null(
		str_of(json_object_get(json_object_get(doc, "pcrs"), "sha256"),
		       "9"));
	text = json_dumps(doc, 0);
	assert_non_null(text);
	free(text);
	json_decref(doc);
}

static void test_cel(void **state)
{
	struct imt_error err;
	json_t *doc, *rec, *dg, *content;

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 4, EV_EFI_ACTION, "go", 2);
	doc = boot_log_json(b.buf, b.len, BOOT_LOG_CEL, &err);
	assert_non_null(doc);
	assert_int_equal(json_array_size(doc), 2);
	rec = json_array_get(doc, 1);
	assert_int_equal(json_integer_value(json_object_get(rec, "recnum")), 1);
	assert_int_equal(json_integer_value(json_object_get(rec, "pcr")), 4);
	assert_string_equal(str_of(rec, "content_type"), "pcclient_std");
	dg = json_array_get(json_object_get(rec, "digests"), 1);
	assert_string_equal(str_of(dg, "hashAlg"), "sha256");
	assert_int_equal(strlen(str_of(dg, "digest")), 64);
	assert_string_equal(str_of(json_array_get(json_object_get(rec,
								  "digests"),
						  0),
				   "hashAlg"),
			    "sha1");
	content = json_object_get(rec, "content");
	assert_int_equal(json_integer_value(
				 json_object_get(content, "event_type")),
			 EV_EFI_ACTION);
	assert_string_equal(str_of(content, "event_data"), "Z28=");
	json_decref(doc);
}

static void test_bad_log(void **state)
{
	struct imt_error err;

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 4, EV_EFI_ACTION, "go", 2);
	assert_null(boot_log_json(b.buf, b.len - 1, BOOT_LOG_DECODED, &err));
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_null(boot_log_json(b.buf, b.len - 1, BOOT_LOG_CEL, &err));
	assert_null(boot_log_json(b.buf, 10, BOOT_LOG_DECODED, &err));
}

/* A SHA-1-only TCG 1.2 log: shown as such, with why it counts for
 * nothing, not refused as undecodable (the CLI said "sent none"). */
static void test_legacy_log(void **state)
{
	struct imt_error err;
	json_t *j, *f;

	(void)state;
	elb_reset(&b);
	elb_legacy_event(&b, 0, 0x00000008, "v", 1);
	j = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "format")),
			    "legacy");
	assert_non_null(strstr(json_string_value(json_object_get(j, "reason")),
			       "SHA-1-only"));
	assert_int_equal(json_array_size(json_object_get(j, "events")), 0);
	assert_true(json_is_null(json_object_get(j, "facts")));
	assert_int_equal(json_integer_value(json_object_get(j, "size")),
			 (json_int_t)b.len);
	json_decref(j);
	assert_null(boot_log_json(b.buf, b.len, BOOT_LOG_CEL, &err));
	/* a crypto-agile log says so, and whether it is UEFI's */
	elb_open_default(&b);
	elb_separator(&b, 0, 0xffffffffu);
	j = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "format")),
			    "crypto-agile");
	assert_true(json_is_false(
		json_object_get(json_object_get(j, "facts"), "uefi")));
	json_decref(j);
	elb_event(&b, 5, EV_EFI_ACTION, "Exit Boot Services Invocation", 29);
	j = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	assert_true(json_is_true(
		json_object_get(json_object_get(j, "facts"), "uefi")));
	json_decref(j);
	/* each flag names its own first event, not the first flagged */
	elb_separator(&b, 1, 7); /* event 3: separator error */
	elb_event(&b, 0, EV_EFI_ACTION, "late", 4); /* 4: after PCR 0's */
	j = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	f = json_object_get(json_object_get(j, "facts"), "flag_events");
	assert_int_equal(json_integer_value(
				 json_object_get(f, "separator_error")),
			 3);
	assert_int_equal(json_integer_value(
				 json_object_get(f, "after_separator")),
			 4);
	json_decref(j);
}

static void test_real_log(void **state)
{
	struct imt_error err;
	json_t *doc, *facts, *evs, *ev;
	uint8_t *log;
	size_t len, i, apps = 0, nevents;
	char *text;

	(void)state;
	log = fixture_read("eventlog/patched-sb/binary_bios_measurements",
			   &len);
	doc = boot_log_json(log, len, BOOT_LOG_DECODED, &err);
	assert_non_null(doc);
	evs = json_object_get(doc, "events");
	for (i = 0; i < json_array_size(evs); i++) {
		ev = json_array_get(evs, i);
		if (json_object_get(ev, "data_hex") &&
		    json_integer_value(json_object_get(ev, "type")) !=
			    EV_NO_ACTION)
			fail_msg("event %zu undecoded: %s", i,
				 str_of(ev, "description"));
		if (json_integer_value(json_object_get(ev, "type")) ==
		    EV_EFI_BOOT_SERVICES_APPLICATION)
			apps++;
	}
	assert_int_equal(apps, 2);
	facts = json_object_get(doc, "facts");
	assert_true(json_is_true(json_object_get(facts, "secure_boot")));
	assert_int_equal(json_array_size(json_object_get(facts, "db")), 1);
	assert_int_equal(json_array_size(
				 json_object_get(facts, "applications")),
			 2);
	assert_non_null(strstr(str_of(facts, "cmdline"), "console=ttyS0"));
	/* the PCRs the log extends (12: systemd-boot), replayed; never 10 */
	ev = json_object_get(doc, "extended");
	assert_int_equal(json_array_size(ev), 10);
	assert_int_equal(json_integer_value(json_array_get(ev, 9)), 12);
	ev = json_object_get(json_object_get(doc, "pcrs"), "sha256");
	assert_string_equal(str_of(ev, "12"),
			    "6dcf04defde400e2ca19c324df9ddbf3"
			    "b6b32607685c6a195dcf51e6c25351df");
	assert_non_null(str_of(ev, "8"));
	assert_null(json_object_get(ev, "10"));
	assert_null(json_object_get(ev, "11"));
	assert_int_equal(json_object_size(ev), 11);
	text = json_dumps(doc, 0);
	assert_non_null(text);
	free(text);
	nevents = json_array_size(evs);
	json_decref(doc);
	doc = boot_log_json(log, len, BOOT_LOG_CEL, &err);
	assert_non_null(doc);
	assert_int_equal(json_array_size(doc), nevents);
	json_decref(doc);
	free(log);
}

/* The facts of log @dir (with one data byte of @flip_at XORed by 1). */
static json_t *facts_of(const char *dir, long flip_at)
{
	struct imt_error err;
	char rel[128];
	json_t *doc, *facts;
	uint8_t *log;
	size_t len;

	snprintf(rel, sizeof(rel), "eventlog/%s/binary_bios_measurements", dir);
	log = fixture_read(rel, &len);
	if (flip_at >= 0)
		log[flip_at] ^= 1;
	doc = boot_log_json(log, len, BOOT_LOG_DECODED, &err);
	assert_non_null(doc);
	facts = json_incref(json_object_get(doc, "facts"));
	json_decref(doc);
	free(log);
	return facts;
}

/*
 * The genuine logs give the facts they gave before issue 34's digest
 * checks (facts.json beside each log, written by the code before them):
 * every field then is the same now; the new ones say nothing is unknown.
 */
static void test_real_facts_unchanged(void **state)
{
	static const char *const dirs[] = {
		"patched-sb",
		"patched-nosb",
		"stock-sb",
		"seabios",
	};
	json_t *want, *got, *v;
	const char *key;
	char rel[128];
	uint8_t *text;
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(rel, sizeof(rel), "eventlog/%s/facts.json", dirs[i]);
		text = fixture_read(rel, &len);
		want = json_loadb((char *)text, len, 0, NULL);
		assert_non_null(want);
		got = facts_of(dirs[i], -1);
		json_object_foreach(want, key, v) {
			if (!json_equal(v, json_object_get(got, key)))
				fail_msg("%s: facts.%s differs", dirs[i], key);
		}
		assert_int_equal(json_array_size(
					 json_object_get(got, "unknown")),
				 0);
		assert_int_equal(json_integer_value(
					 json_object_get(got,
							 "unbound_events")),
				 0);
		json_decref(want);
		json_decref(got);
		free(text);
	}
}

/* SecureBoot's byte of patched-nosb (offset 443) made 1: null, listed. */
static void test_forged_facts(void **state)
{
	json_t *facts, *u;

	(void)state;
	facts = facts_of("patched-nosb", 443);
	assert_true(json_is_null(json_object_get(facts, "secure_boot")));
	u = json_array_get(json_object_get(facts, "unknown"), 0);
	assert_non_null(u);
	assert_string_equal(str_of(u, "fact"), "secure_boot");
	assert_int_equal(json_integer_value(json_object_get(u, "event")), 4);
	assert_string_equal(str_of(u, "type"), "EV_EFI_VARIABLE_DRIVER_CONFIG");
	assert_string_equal(str_of(u, "name"), "SecureBoot");
	assert_string_equal(str_of(u, "why"), "unbound");
	assert_int_equal(json_integer_value(
				 json_object_get(facts, "unbound_events")),
			 1);
	json_decref(facts);
}

/*
 * A UKI's sections and shim's SbatLevel in the facts; the .osrel name
 * event and SbatLevel forged (one data byte, digests kept): null and
 * listed in "unknown", naming the events.
 */
static void test_uki_sbat_facts(void **state)
{
	static const uint8_t shim[16] = {
		0x50, 0xab, 0x5d, 0x60, 0x46, 0xe0, 0x00, 0x43,
		0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23,
	};
	static struct elb v;
	struct imt_error err;
	json_t *doc, *facts, *u;
	size_t sbat_end, osrel_end;

	(void)state;
	elb_open_default(&b);
	elb_reset(&v);
	elb_variable(&v, shim, "SbatLevel", "sbat,1,2023012900\n", 18);
	elb_event(&b, 7, EV_EFI_VARIABLE_AUTHORITY, v.buf, (uint32_t)v.len);
	sbat_end = b.len;
	elb_uki_section(&b, ".linux", "MZ", 2);
	osrel_end = b.len + 72 + 14;
	elb_uki_section(&b, ".osrel", "ID=debian\n", 10);
	doc = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	assert_non_null(doc);
	facts = json_object_get(doc, "facts");
	assert_string_equal(str_of(facts, "sbat_level"), "sbat,1,2023012900\n");
	u = json_array_get(json_object_get(facts, "uki"), 1);
	assert_string_equal(str_of(u, "section"), ".osrel");
	assert_int_equal(json_integer_value(json_object_get(u, "event")), 4);
	assert_int_equal(json_integer_value(
				 json_object_get(u, "contents_event")),
			 5);
	assert_non_null(str_of(u, "sha256"));
	json_decref(doc);
	b.buf[sbat_end - 2] ^= 1;
	b.buf[osrel_end - 4] ^= 1;
	doc = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);
	assert_non_null(doc);
	facts = json_object_get(doc, "facts");
	assert_true(json_is_null(json_object_get(facts, "sbat_level")));
	u = json_array_get(json_object_get(facts, "uki"), 1);
	assert_true(json_is_null(json_object_get(u, "section")));
	u = json_object_get(facts, "unknown");
	assert_int_equal(json_array_size(u), 2);
	assert_string_equal(str_of(json_array_get(u, 0), "fact"), "sbat_level");
	assert_string_equal(str_of(json_array_get(u, 1), "fact"),
			    "uki_section");
	assert_int_equal(json_integer_value(
				 json_object_get(json_array_get(u, 1),
						 "event")),
			 4);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decoded_shape),
		cmocka_unit_test(test_cel),
		cmocka_unit_test(test_bad_log),
		cmocka_unit_test(test_legacy_log),
		cmocka_unit_test(test_real_log),
		cmocka_unit_test(test_real_facts_unchanged),
		cmocka_unit_test(test_forged_facts),
		cmocka_unit_test(test_uki_sbat_facts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

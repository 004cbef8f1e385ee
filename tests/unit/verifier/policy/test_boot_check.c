// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_boot_check.c - boot_check_evidence(): a firmware event log passes
 * only when its replay gives every quoted PCR 0-9 (the PCRs IMA's
 * boot_aggregate covers: firmware, boot loader, kernel command line) and
 * every PCR 11-23 it extends, each of which the quote must select, and
 * whatever PCR 10 holds (IMA's, not the firmware's). test_engine.c stands
 * in for this check at link time, so it is tested here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../proto/eventlog_build.h"
#include "boot_check.h"

#define EV_IPL 0x0000000d

static struct elb b;

/* A log of a separator into each of PCRs 0-9 and a command line into 9;
 * @quoted gets the sha256 PCRs it leaves, computed event by event. */
static void make_log(struct pcr_set *quoted)
{
	static const char cmdline[] = "root=/dev/vda1 ima_policy=tcb";
	uint8_t d[32], sep[4] = { 0 };
	int i;

	pcr_set_init(quoted, hash_algo_bank("sha256"));
	quoted->present = 0x7ff;
	elb_open_default(&b);
	for (i = 0; i < 10; i++) {
		elb_separator(&b, (uint32_t)i, 0);
		elb_hash(0x000b, 32, sep, sizeof(sep), d);
		elb_extend("sha256", quoted->value[i], d, 32);
	}
	elb_event(&b, 9, EV_IPL, cmdline, sizeof(cmdline));
	elb_hash(0x000b, 32, cmdline, sizeof(cmdline), d);
	elb_extend("sha256", quoted->value[9], d, 32);
	memset(quoted->value[10], 0x10, 32);
}

static enum imt_result check(const struct pcr_set *quoted, char *reason)
{
	return boot_check_evidence(b.buf, b.len, quoted, reason, 256);
}

static void test_every_pcr_0_to_9(void **state)
{
	struct pcr_set quoted;
	char reason[256] = "";
	int i;

	(void)state;
	make_log(&quoted);
	assert_int_equal(check(&quoted, reason), IMT_OK);
	/* a quoted PCR 0-9 the log does not give: refused, whichever */
	for (i = 0; i < 10; i++) {
		quoted.value[i][31] ^= 1;
		reason[0] = '\0';
		assert_int_not_equal(check(&quoted, reason), IMT_OK);
		assert_non_null(strstr(reason, "disagrees with the quote"));
		quoted.value[i][31] ^= 1;
	}
	/* PCR 10 is IMA's: the firmware log says nothing of it */
	quoted.value[10][0] ^= 1;
	assert_int_equal(check(&quoted, reason), IMT_OK);
}

/* An event whose sha256 digest changed is no longer that boot's. */
static void test_changed_log(void **state)
{
	/* the command line event's sha256 digest ends before its size and
	 * its data: the last event of the log */
	const size_t at = sizeof("root=/dev/vda1 ima_policy=tcb") + 4 + 1;
	struct pcr_set quoted;
	char reason[256] = "";

	(void)state;
	make_log(&quoted);
	b.buf[b.len - at] ^= 1;
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "disagrees with the quote"));
	b.buf[b.len - at] ^= 1;
	assert_int_equal(check(&quoted, reason), IMT_OK);
}

/*
 * A TPM with sha256 and sha384 banks (issue 34): its log carries both
 * digests of every event, and a quote of the sha384 bank is checked
 * against the log's sha384 replay; one PCR off is refused, naming it.
 */
static void test_sha384_bank(void **state)
{
	static const uint16_t alg[] = { 0x000b, 0x000c };
	static const uint16_t size[] = { 32, 48 };
	static const char cmdline[] = "root=/dev/vda1 ima_hash=sha384";
	uint8_t d[48], sep[4] = { 0 };
	struct pcr_set quoted;
	char reason[256] = "";
	int i;

	(void)state;
	pcr_set_init(&quoted, hash_algo_bank("sha384"));
	quoted.present = 0x7ff;
	elb_open(&b, alg, size, 2);
	for (i = 0; i < 10; i++) {
		elb_separator(&b, (uint32_t)i, 0);
		elb_hash(0x000c, 48, sep, sizeof(sep), d);
		elb_extend("sha384", quoted.value[i], d, 48);
	}
	elb_event(&b, 9, EV_IPL, cmdline, sizeof(cmdline));
	elb_hash(0x000c, 48, cmdline, sizeof(cmdline), d);
	elb_extend("sha384", quoted.value[9], d, 48);
	assert_int_equal(check(&quoted, reason), IMT_OK);
	quoted.value[9][47] ^= 1;
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "disagrees with the quote"));
	assert_non_null(strstr(reason, "sha384"));
}

/* A SHA-1-only TCG 1.2 log cannot be replayed: it fails nothing, and
 * the boot policy judges the machine as one without a usable log. */
static void test_legacy_log(void **state)
{
	struct pcr_set quoted;
	char reason[256] = "x";

	(void)state;
	make_log(&quoted);
	elb_reset(&b);
	elb_legacy_event(&b, 0, 0x00000008, "v", 1);
	elb_legacy_event(&b, 0, 0x00000004, "\0\0\0\0", 4);
	assert_int_equal(check(&quoted, reason), IMT_OK);
	assert_string_equal(reason, "");
	/* one byte short: not a legacy log, a broken one */
	assert_int_not_equal(boot_check_evidence(b.buf, b.len - 1, &quoted,
						 reason, 256),
			     IMT_OK);
	assert_non_null(strstr(reason, "firmware event log:"));
}

/*
 * make_log()'s log, then events in PCR 11 (systemd-stub's UKI sections),
 * 12 and 14 (shim's MokList) and one in PCR 10; @quoted gets their sha256
 * values and selects 0-10, 11, 12 and 14. Returns the offset of the PCR
 * 11 event's sha256 digest.
 */
static size_t make_log_uki(struct pcr_set *quoted)
{
	static const char *const data[] = { ".linux", "creds", "MokList",
					    "ima?" };
	static const uint32_t pcr[] = { 11, 12, 14, 10 };
	size_t at = 0;
	uint8_t d[32];
	int i;

	make_log(quoted);
	memset(quoted->value[10], 0x10, 32);
	for (i = 0; i < 4; i++) {
		/* pcrIndex, eventType, count, sha1's id and digest, then
		 * sha256's id: its digest next (elb_open_default()) */
		if (i == 0)
			at = b.len + 12 + 2 + 20 + 2;
		elb_event(&b, pcr[i], EV_IPL, data[i], strlen(data[i]));
		elb_hash(0x000b, 32, data[i], strlen(data[i]), d);
		if (pcr[i] != 10)
			elb_extend("sha256", quoted->value[pcr[i]], d, 32);
	}
	quoted->present = 0x7ffu | 1u << 11 | 1u << 12 | 1u << 14;
	return at;
}

/*
 * PCRs 11-23 the log extends are quoted and replayed like 0-9: a quote
 * selecting them passes, one leaving one out is refused naming it, and a
 * changed PCR 11 digest or quoted value is refused naming PCR 11. PCR 10
 * stays IMA's, even when the firmware log has an event in it.
 */
static void test_pcrs_11_to_23(void **state)
{
	struct pcr_set quoted;
	char reason[256] = "";
	size_t at;
	int pcr;

	(void)state;
	at = make_log_uki(&quoted);
	assert_int_equal(check(&quoted, reason), IMT_OK);
	for (pcr = 11; pcr <= 14; pcr += pcr == 12 ? 2 : 1) {
		char want[64];

		quoted.present &= ~(1u << pcr);
		assert_int_not_equal(check(&quoted, reason), IMT_OK);
		snprintf(want, sizeof(want),
			 "extends PCR %d, which the quote "
			 "does not select",
			 pcr);
		assert_non_null(strstr(reason, want));
		quoted.present |= 1u << pcr;
	}
	/* the quoted PCR 11 is not the log's */
	quoted.value[11][0] ^= 1;
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "PCR 11 (sha256): log replays to"));
	quoted.value[11][0] ^= 1;
	/* the log's PCR 11 event's digest changed */
	b.buf[at] ^= 1;
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "PCR 11 (sha256): log replays to"));
	b.buf[at] ^= 1;
	/* a quoted PCR the log does not extend is not compared */
	quoted.present |= 1u << 15;
	memset(quoted.value[15], 0x15, 32);
	assert_int_equal(check(&quoted, reason), IMT_OK);
	/* the log's PCR 10 event: neither required nor compared */
	quoted.present &= ~(1u << 10);
	assert_int_equal(check(&quoted, reason), IMT_OK);
}

/* @pcr (sha256) extended by the hash of @word, as systemd-pcrphase does. */
static void phase(uint8_t *pcr, const char *word)
{
	uint8_t d[32];

	elb_hash(0x000b, 32, word, strlen(word), d);
	elb_extend("sha256", pcr, d, 32);
}

/*
 * systemd-pcrphase (252) extends PCR 11 after the firmware log with its
 * phase words: a quoted PCR 11 that is the log's value extended by a
 * prefix of enter-initrd, leave-initrd, sysinit, ready, shutdown, final
 * (or of sysinit, ... without an initrd) agrees, and says the phase; a
 * word out of order, or another word, does not. PCR 12 takes none.
 */
static void test_pcrphase(void **state)
{
	const struct hash_algo *sha256 = hash_algo_bank("sha256");
	struct pcr_set quoted;
	char reason[256] = "";
	uint8_t log11[32];

	(void)state;
	make_log_uki(&quoted);
	memcpy(log11, quoted.value[11], 32);
	assert_string_equal(boot_check_pcrphase(log11, quoted.value[11],
						sha256),
			    "");
	phase(quoted.value[11], "enter-initrd");
	assert_int_equal(check(&quoted, reason), IMT_OK);
	assert_string_equal(boot_check_pcrphase(log11, quoted.value[11],
						sha256),
			    "enter-initrd");
	phase(quoted.value[11], "leave-initrd");
	phase(quoted.value[11], "sysinit");
	phase(quoted.value[11], "ready");
	assert_int_equal(check(&quoted, reason), IMT_OK);
	assert_string_equal(boot_check_pcrphase(log11, quoted.value[11],
						sha256),
			    "ready");
	/* no initrd: from sysinit */
	memcpy(quoted.value[11], log11, 32);
	phase(quoted.value[11], "sysinit");
	phase(quoted.value[11], "ready");
	phase(quoted.value[11], "shutdown");
	assert_int_equal(check(&quoted, reason), IMT_OK);
	assert_string_equal(boot_check_pcrphase(log11, quoted.value[11],
						sha256),
			    "shutdown");
	/* a phase skipped, a word of its own, the word with its NUL */
	memcpy(quoted.value[11], log11, 32);
	phase(quoted.value[11], "ready");
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "PCR 11 (sha256): log replays to"));
	assert_null(boot_check_pcrphase(log11, quoted.value[11], sha256));
	memcpy(quoted.value[11], log11, 32);
	phase(quoted.value[11], "enter-initrd");
	phase(quoted.value[11], "evil");
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	memcpy(quoted.value[11], log11, 32);
	phase(quoted.value[11], "sysinit\n");
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	/* PCR 12 is not systemd-pcrphase's */
	memcpy(quoted.value[11], log11, 32);
	phase(quoted.value[12], "sysinit");
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "PCR 12 (sha256)"));
}

/* PCRs 0-9 are compared whether or not the log extends them: they are
 * boot_aggregate's, and a quoted PCR 8 no event explains is refused. */
static void test_unextended_0_to_9(void **state)
{
	uint8_t d[32], sep[4] = { 0 };
	struct pcr_set quoted;
	char reason[256] = "";
	int i;

	(void)state;
	pcr_set_init(&quoted, hash_algo_bank("sha256"));
	quoted.present = 0x7ff;
	elb_open_default(&b);
	for (i = 0; i < 8; i++) {
		elb_separator(&b, (uint32_t)i, 0);
		elb_hash(0x000b, 32, sep, sizeof(sep), d);
		elb_extend("sha256", quoted.value[i], d, 32);
	}
	assert_int_equal(check(&quoted, reason), IMT_OK);
	quoted.value[8][0] ^= 1;
	assert_int_not_equal(check(&quoted, reason), IMT_OK);
	assert_non_null(strstr(reason, "PCR 8 (sha256)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_pcr_0_to_9),
		cmocka_unit_test(test_changed_log),
		cmocka_unit_test(test_sha384_bank),
		cmocka_unit_test(test_legacy_log),
		cmocka_unit_test(test_pcrs_11_to_23),
		cmocka_unit_test(test_unextended_0_to_9),
		cmocka_unit_test(test_pcrphase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tcg_log.c - the crypto-agile event log cursor, replay and compare,
 * on synthetic logs from eventlog_build.h (and the real firmware logs of
 * tests/fixtures/eventlog/ when they are there).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../fixture.h"
#include "eventlog_build.h"
#include "tcg_log.h"

static struct elb b;

static enum imt_result walk(const uint8_t *buf, size_t len, size_t *count,
			    struct imt_error *err)
{
	struct tcg_log log;
	struct tcg_event ev;
	enum imt_result r;

	*count = 0;
	r = tcg_log_open(&log, buf, len, err);
	while (r == IMT_OK && !tcg_log_done(&log)) {
		r = tcg_log_next(&log, &ev, err);
		if (r == IMT_OK)
			(*count)++;
	}
	return r;
}

static void small_log(void)
{
	elb_open_default(&b);
	elb_event(&b, 0, 0x00000008, "v\0001\0\0\0", 6);
	elb_event(&b, 4, 0x80000007, "Calling EFI Application from Boot Option",
		  40);
	elb_separator(&b, 4, 0);
}

static void test_walk_events(void **state)
{
	struct tcg_log log;
	struct tcg_event ev;
	struct imt_error err;

	(void)state;
	small_log();
	assert_int_equal(tcg_log_open(&log, b.buf, b.len, &err), IMT_OK);
	assert_int_equal(log.spec.nbanks, 2);
	assert_int_equal(log.spec.uintn_size, 2);
	assert_int_equal(log.spec.banks[1].alg_id, 0x000b);
	assert_string_equal(log.spec.banks[1].algo->name, "sha256");
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(ev.index, 0);
	assert_int_equal(ev.type, EV_NO_ACTION);
	assert_int_equal(ev.ndigests, 1);
	assert_int_equal(ev.len, 16 + 8 + 4 + 8 + 1);
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(ev.index, 1);
	assert_int_equal(ev.offset, 32 + 37);
	assert_int_equal(ev.type, EV_S_CRTM_VERSION);
	assert_int_equal(ev.len, 6);
	assert_non_null(tcg_event_digest(&ev, 0x000b));
	assert_null(tcg_event_digest(&ev, 0x000c));
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(ev.pcr, 4);
	assert_memory_equal(ev.data, "Calling", 7);
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(ev.type, EV_SEPARATOR);
	assert_true(tcg_log_done(&log));
	assert_int_equal(ev.offset + ev.size, b.len);
}

/* Every prefix of a log fails cleanly, naming a position inside it. */
static void test_truncated_everywhere(void **state)
{
	struct imt_error err;
	size_t n, count, full;
	enum imt_result r;

	(void)state;
	small_log();
	assert_int_equal(walk(b.buf, b.len, &full, &err), IMT_OK);
	assert_int_equal(full, 4);
	for (n = 0; n < b.len; n++) {
		r = walk(b.buf, n, &count, &err);
		/* A cut at an event boundary is a shorter, valid log. */
		if (r == IMT_OK) {
			assert_true(count < full);
			continue;
		}
		assert_int_equal(r, IMT_ERR_MALFORMED);
		assert_non_null(strstr(err.msg, "truncated"));
		assert_true(err.offset <= n);
	}
}

static void test_legacy_log(void **state)
{
	struct imt_error err;
	size_t count;

	(void)state;
	/* A TCG 1.2 log starts with a real event: S-CRTM version in PCR 0. */
	memset(&b, 0, sizeof(b));
	elb_u32(&b, 0);
	elb_u32(&b, 0x00000008);
	elb_put(&b, "01234567890123456789", 20);
	elb_u32(&b, 2);
	elb_put(&b, "1\0", 2);
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "SHA1-only legacy log"));
	/* Right shape, wrong signature (a 1.2 "Spec ID Event00"). */
	elb_open_default(&b);
	memcpy(b.buf + 32, "Spec ID Event00", 16);
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "SHA1-only legacy log"));
}

/* Header fields: offset inside the Spec ID struct, and what is wrong. */
static const struct {
	size_t at;
	uint8_t value;
	enum imt_result status;
	const char *msg;
} bad_headers[] = {
	{ 32 + 20, 1, IMT_ERR_UNSUPPORTED, "Spec ID version 2.1" },
	{ 32 + 21, 1, IMT_ERR_UNSUPPORTED, "Spec ID version 1.0" },
	{ 32 + 23, 3, IMT_ERR_MALFORMED, "uintnSize 3" },
	{ 32 + 24, 0, IMT_ERR_MALFORMED, "numberOfAlgorithms is 0" },
	{ 32 + 24, 9, IMT_ERR_LIMIT, "numberOfAlgorithms 9 above 8" },
	{ 32 + 24, 3, IMT_ERR_MALFORMED, "exceeds eventSize" },
	{ 32 + 28 + 4, 0x04, IMT_ERR_MALFORMED, "0x0004 twice" },
	{ 32 + 28 + 2, 32, IMT_ERR_MALFORMED, "sha1 digest size 32, not 20" },
	{ 32 + 28 + 2, 0, IMT_ERR_MALFORMED, "digest size 0" },
	{ 32 + 28 + 2, 65, IMT_ERR_MALFORMED, "digest size 65" },
	{ 32 + 36, 1, IMT_ERR_MALFORMED, "vendorInfoSize exceeds eventSize" },
	{ 8, 1, IMT_ERR_UNSUPPORTED, "not the Spec ID header" },
	/* TDX's CCEL: the same header, for measurement register 1 */
	{ 0, 1, IMT_ERR_UNSUPPORTED, "a confidential-computing event log" },
	{ 4, 8, IMT_ERR_UNSUPPORTED, "not a TPM event log" },
};

static void test_bad_header(void **state)
{
	struct imt_error err;
	size_t i, count;

	(void)state;
	for (i = 0; i < sizeof(bad_headers) / sizeof(bad_headers[0]); i++) {
		small_log();
		b.buf[bad_headers[i].at] = bad_headers[i].value;
		assert_int_equal(walk(b.buf, b.len, &count, &err),
				 bad_headers[i].status);
		if (!strstr(err.msg, bad_headers[i].msg))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg,
				 bad_headers[i].msg);
	}
	/* Bytes after the vendor info, inside eventSize. */
	small_log();
	b.buf[28] += 1;
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_MALFORMED);
}

static void test_unknown_algorithm_skipped(void **state)
{
	static const uint16_t alg[] = { 0x0012, 0x4321, 0x000b };
	static const uint16_t size[] = { 32, 40, 32 };
	struct tcg_log log;
	struct tcg_event ev;
	struct imt_error err;
	struct pcr_set set;
	uint8_t want[32] = { 0 }, d[32];

	(void)state;
	elb_open(&b, alg, size, 3);
	elb_event(&b, 2, 0x80000004, "driver", 6);
	elb_event(&b, 2, 0x80000004, "driver2", 7);
	assert_int_equal(tcg_log_open(&log, b.buf, b.len, &err), IMT_OK);
	assert_null(log.spec.banks[0].algo); /* sm3: not a bank here */
	assert_null(log.spec.banks[1].algo);
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(tcg_log_next(&log, &ev, &err), IMT_OK);
	assert_int_equal(ev.len, 7);
	assert_memory_equal(ev.data, "driver2", 7);
	assert_true(tcg_log_done(&log));

	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(tcg_log_replay(b.buf, b.len, &set, 1, &err), IMT_OK);
	elb_hash(0x000b, 32, "driver", 6, d);
	elb_extend("sha256", want, d, 32);
	elb_hash(0x000b, 32, "driver2", 7, d);
	elb_extend("sha256", want, d, 32);
	assert_memory_equal(set.value[2], want, 32);
	pcr_set_init(&set, hash_algo_bank("sha1"));
	assert_int_equal(tcg_log_replay(b.buf, b.len, &set, 1, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "no sha1 bank"));
}

/* Event 1 of the log in b (a fresh cursor each call). */
static void first_event(struct tcg_log *log, struct tcg_event *ev)
{
	assert_int_equal(tcg_log_open(log, b.buf, b.len, NULL), IMT_OK);
	assert_int_equal(tcg_log_next(log, ev, NULL), IMT_OK);
	assert_int_equal(tcg_log_next(log, ev, NULL), IMT_OK);
}

/* Digests against bytes: every bank we compute, at least one of them. */
static void test_digests_of(void **state)
{
	static const uint16_t alg[] = { 0x0012, 0x000b };
	static const uint16_t size[] = { 32, 32 };
	struct tcg_log log;
	struct tcg_event ev;
	uint16_t bad = 0xffff;
	uint8_t *data;

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 7, 0x80000001, "variable", 8);
	first_event(&log, &ev);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len, &bad), 1);
	assert_int_equal(bad, 0);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len - 1, &bad),
			 0);
	assert_int_equal(bad, 0x0004); /* sha1, the first bank */
	/* one data byte changed, every digest kept */
	data = b.buf + b.len - 1;
	*data ^= 1;
	first_event(&log, &ev);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len, NULL), 0);
	*data ^= 1;
	/* only the sha256 digest forged to fit other data: still refused */
	elb_hash(0x000b, 32, "variablf", 8, b.buf + b.len - 8 - 4 - 32);
	memcpy(data - 7, "variablf", 8);
	first_event(&log, &ev);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len, &bad), 0);
	assert_int_equal(bad, 0x0004);
	/* only sha1 fits the data: the sha256 bank disagrees */
	elb_hash(0x0004, 20, "variablf", 8,
		 b.buf + b.len - 8 - 4 - 32 - 2 - 20);
	elb_hash(0x000b, 32, "variable", 8, b.buf + b.len - 8 - 4 - 32);
	first_event(&log, &ev);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len, &bad), 0);
	assert_int_equal(bad, 0x000b);
	/* sm3 is stepped over; sha256 alone decides */
	elb_open(&b, alg, size, 2);
	elb_event(&b, 7, 0x80000001, "variable", 8);
	first_event(&log, &ev);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len, &bad), 1);
	/* no bank we compute: nothing binds the data */
	elb_open(&b, alg, size, 1);
	elb_event(&b, 7, 0x80000001, "variable", 8);
	first_event(&log, &ev);
	assert_int_equal(tcg_event_digests_of(&ev, ev.data, ev.len, &bad), 0);
	assert_int_equal(bad, 0);
}

/* Offset of event 1's digest count in small_log(). */
#define EV1 (32 + 37)

static void test_bad_events(void **state)
{
	struct imt_error err;
	size_t count;

	(void)state;
	small_log();
	b.buf[EV1 + 8] = 1;
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_MALFORMED);
	assert_string_equal(err.msg,
			    "event 1 at offset 69: digest count 1, the Spec ID lists 2 banks");
	assert_int_equal(err.record, 1);

	small_log();
	b.buf[EV1 + 12] = 0x0c; /* sha1 -> sha384 */
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_MALFORMED);
	assert_non_null(
		strstr(err.msg, "algorithm 0x000c is not in the Spec ID"));

	small_log();
	b.buf[EV1 + 12] = 0x0b; /* sha256 twice */
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_MALFORMED);

	small_log();
	b.buf[EV1] = 24;
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "pcrIndex 24 above 23"));

	small_log();
	b.buf[EV1 + 12 + 2 + 20 + 2 + 32 + 2] = 0x10; /* eventSize 1 MiB + 6 */
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "eventSize 1048582 above"));

	small_log();
	b.buf[EV1 + 12 + 2 + 20 + 2 + 32] = 0xff; /* past the end */
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "event 1 truncated"));
}

static void test_event_limit(void **state)
{
	struct imt_error err;
	size_t count, i;

	(void)state;
	elb_open_default(&b);
	for (i = 1; i < TCG_LOG_EVENTS_MAX; i++)
		elb_event(&b, 1, 0x80000007, "", 0);
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_OK);
	assert_int_equal(count, TCG_LOG_EVENTS_MAX);
	elb_event(&b, 1, 0x80000007, "", 0);
	assert_int_equal(walk(b.buf, b.len, &count, &err), IMT_ERR_LIMIT);
	assert_int_equal(err.record, TCG_LOG_EVENTS_MAX);
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(tcg_event_type_name(0), "EV_PREBOOT_CERT");
	assert_string_equal(tcg_event_type_name(0x80000003),
			    "EV_EFI_BOOT_SERVICES_APPLICATION");
	assert_string_equal(tcg_event_type_name(0x800000e0),
			    "EV_EFI_VARIABLE_AUTHORITY");
	assert_string_equal(tcg_event_type_name(0x8000000a),
			    "EV_EFI_PLATFORM_FIRMWARE_BLOB2");
	assert_string_equal(tcg_event_type_name(0x800000e4),
			    "EV_EFI_SPDM_DEVICE_AUTHORITY");
	assert_null(tcg_event_type_name(0x13371337));
	assert_null(tcg_event_type_name(0x80000011));
}

static void test_replay_rules(void **state)
{
	static const uint8_t loc[17] = "StartupLocality\0\003";
	struct pcr_set sets[2];
	struct imt_error err;
	uint8_t want0[32] = { 0 }, want4[32] = { 0 }, d[32];

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 0, EV_NO_ACTION, loc, sizeof(loc));
	elb_event(&b, 0, EV_S_CRTM_VERSION, "ver", 3);
	elb_event(&b, 4, EV_NO_ACTION, "ignored", 7);
	elb_event(&b, 4, EV_EFI_ACTION, "go", 2);
	/* Too late: PCR 0 was extended already. */
	elb_event(&b, 0, EV_NO_ACTION, "StartupLocality\0\004", 17);
	elb_event(&b, 18, EV_EFI_ACTION, "drtm", 4);
	pcr_set_init(&sets[0], hash_algo_bank("sha256"));
	pcr_set_init(&sets[1], hash_algo_bank("sha1"));
	assert_int_equal(tcg_log_replay(b.buf, b.len, sets, 2, &err), IMT_OK);
	want0[31] = 3;
	elb_hash(0x000b, 32, "ver", 3, d);
	elb_extend("sha256", want0, d, 32);
	assert_memory_equal(sets[0].value[0], want0, 32);
	elb_hash(0x000b, 32, "go", 2, d);
	elb_extend("sha256", want4, d, 32);
	assert_memory_equal(sets[0].value[4], want4, 32);
	assert_int_equal(sets[0].present, 0x81ffffu | 1u << 18);
	memset(want0, 0, sizeof(want0));
	want0[19] = 3;
	elb_hash(0x0004, 20, "ver", 3, d);
	elb_extend("sha1", want0, d, 20);
	assert_memory_equal(sets[1].value[0], want0, 20);
}

/* PCR 0 of @log's sha256 bank, replayed. */
static void replay_pcr0(uint8_t out[32])
{
	struct pcr_set set;
	struct imt_error err;

	pcr_set_init(&set, hash_algo_bank("sha256"));
	assert_int_equal(tcg_log_replay(b.buf, b.len, &set, 1, &err), IMT_OK);
	memcpy(out, set.value[0], 32);
}

/* An H-CRTM platform: PCR 0 starts at 00..04 and the HCRTM event is
 * extended (PFP: TPM2_HashStart/HashEnd at locality 4). */
static void test_replay_hcrtm(void **state)
{
	uint8_t want[32] = { 0 }, got[32], d[32];

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 0, EV_EFI_HCRTM_EVENT, "HCRTM", 5);
	elb_event(&b, 0, EV_S_CRTM_VERSION, "ver", 3);
	replay_pcr0(got);
	want[31] = 4;
	elb_hash(0x000b, 32, "HCRTM", 5, d);
	elb_extend("sha256", want, d, 32);
	elb_hash(0x000b, 32, "ver", 3, d);
	elb_extend("sha256", want, d, 32);
	assert_memory_equal(got, want, 32);
	/* after a StartupLocality 4, the same value */
	elb_open_default(&b);
	elb_event(&b, 0, EV_NO_ACTION, "StartupLocality\0\004", 17);
	elb_event(&b, 0, EV_EFI_HCRTM_EVENT, "HCRTM", 5);
	elb_event(&b, 0, EV_S_CRTM_VERSION, "ver", 3);
	replay_pcr0(got);
	assert_memory_equal(got, want, 32);
	/* an HCRTM event after PCR 0 was extended does not reset it */
	elb_open_default(&b);
	elb_event(&b, 0, EV_S_CRTM_VERSION, "ver", 3);
	elb_event(&b, 0, EV_EFI_HCRTM_EVENT, "HCRTM", 5);
	replay_pcr0(got);
	memset(want, 0, sizeof(want));
	elb_hash(0x000b, 32, "ver", 3, d);
	elb_extend("sha256", want, d, 32);
	elb_hash(0x000b, 32, "HCRTM", 5, d);
	elb_extend("sha256", want, d, 32);
	assert_memory_equal(got, want, 32);
}

/* StartupLocality 4 alone (no HCRTM event), as some H-CRTM logs have. */
static void test_replay_locality4(void **state)
{
	uint8_t want[32] = { 0 }, got[32], d[32];

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 0, EV_NO_ACTION, "StartupLocality\0\004", 17);
	elb_event(&b, 0, EV_S_CRTM_VERSION, "ver", 3);
	replay_pcr0(got);
	want[31] = 4;
	elb_hash(0x000b, 32, "ver", 3, d);
	elb_extend("sha256", want, d, 32);
	assert_memory_equal(got, want, 32);
}

static void test_legacy(void **state)
{
	struct tcg_log log;
	struct imt_error err;

	(void)state;
	elb_reset(&b);
	elb_legacy_event(&b, 0, EV_S_CRTM_VERSION, "v\0001\0\0\0", 6);
	elb_legacy_event(&b, 4, EV_SEPARATOR, "\0\0\0\0", 4);
	elb_legacy_event(&b, 0xffffffffu, EV_NO_ACTION, "windows", 7);
	assert_true(tcg_log_legacy(b.buf, b.len));
	assert_int_equal(tcg_log_open(&log, b.buf, b.len, &err),
			 IMT_ERR_UNSUPPORTED);
	/* one byte short, or one more: broken, not legacy */
	assert_false(tcg_log_legacy(b.buf, b.len - 1));
	elb_u8(&b, 0);
	assert_false(tcg_log_legacy(b.buf, b.len));
	/* a PCR above 23 for anything but EV_NO_ACTION: not legacy */
	elb_reset(&b);
	elb_legacy_event(&b, 24, EV_S_CRTM_VERSION, "v", 1);
	assert_false(tcg_log_legacy(b.buf, b.len));
	assert_false(tcg_log_legacy(b.buf, 0));
	/* the crypto-agile header is such an event: not legacy */
	small_log();
	assert_false(tcg_log_legacy(b.buf, 32 + 16 + 8 + 4 + 8 + 1));
	assert_false(tcg_log_legacy(b.buf, b.len));
}

static void test_compare(void **state)
{
	struct pcr_set replayed, quoted;
	struct imt_error err;
	int bad;

	(void)state;
	small_log();
	pcr_set_init(&replayed, hash_algo_bank("sha256"));
	assert_int_equal(tcg_log_replay(b.buf, b.len, &replayed, 1, &err),
			 IMT_OK);
	quoted = replayed;
	quoted.present = 0x3ff;
	assert_int_equal(tcg_pcrs_compare(&replayed, &quoted, 0x3ff, &bad,
					  &err),
			 IMT_OK);
	assert_int_equal(bad, -1);
	quoted.value[4][0] ^= 1;
	quoted.value[7][0] ^= 1;
	assert_int_equal(tcg_pcrs_compare(&replayed, &quoted, 0x3ff, &bad,
					  &err),
			 IMT_ERR_MISMATCH);
	assert_int_equal(bad, 4);
	assert_non_null(strstr(err.msg, "PCR 4 (sha256): log replays to "));
	assert_non_null(strstr(err.msg, ", quote says "));
	/* PCR 4 out of the mask: the next one is named. */
	assert_int_equal(tcg_pcrs_compare(&replayed, &quoted, 0x3ef, &bad,
					  &err),
			 IMT_ERR_MISMATCH);
	assert_int_equal(bad, 7);
	assert_int_equal(tcg_pcrs_compare(&replayed, &quoted, 1u << 10, &bad,
					  &err),
			 IMT_ERR_MISMATCH);
	assert_int_equal(bad, 10);
	assert_non_null(strstr(err.msg, "not in the quote"));
	pcr_set_init(&quoted, hash_algo_bank("sha1"));
	assert_int_equal(tcg_pcrs_compare(&replayed, &quoted, 1, &bad, &err),
			 IMT_ERR_MALFORMED);
}

static const char *const eventlog_fixtures[] = {
	"patched-sb",
	"patched-nosb",
};

#define REAL_PCRS 0x13ffu /* PCRs 0-9 and 12: what the boot extends */

static void load_real(const char *name, uint8_t **log, size_t *len,
		      struct pcr_set *quoted, const char *bank)
{
	char rel[256];
	uint8_t *text;
	size_t tlen;

	snprintf(rel, sizeof(rel), "eventlog/%s/binary_bios_measurements",
		 name);
	*log = fixture_read(rel, len);
	snprintf(rel, sizeof(rel), "eventlog/%s/pcrs-%s", name, bank);
	text = fixture_read(rel, &tlen);
	pcr_set_init(quoted, hash_algo_bank(bank));
	assert_int_equal(pcr_set_parse_text(quoted, (const char *)text, tlen,
					    NULL),
			 IMT_OK);
	free(text);
}

/* Each real log replays to the PCRs its TPM showed, in both banks. */
static void test_real_logs_replay(void **state)
{
	static const char *const banks[] = { "sha1", "sha256" };
	struct pcr_set replayed, quoted;
	struct imt_error err;
	size_t i, j, len;
	uint8_t *log;

	(void)state;
	for (i = 0; i < 2; i++) {
		for (j = 0; j < 2; j++) {
			load_real(eventlog_fixtures[i], &log, &len, &quoted,
				  banks[j]);
			pcr_set_init(&replayed, hash_algo_bank(banks[j]));
			assert_int_equal(tcg_log_replay(log, len, &replayed, 1,
							&err),
					 IMT_OK);
			if (tcg_pcrs_compare(&replayed, &quoted,
					     REAL_PCRS & quoted.present, NULL,
					     &err) != IMT_OK)
				fail_msg("%s: %s", eventlog_fixtures[i],
					 err.msg);
			free(log);
		}
	}
}

/* Flipping any bit of any extended digest of PCRs 0-9 breaks the compare. */
static void test_real_logs_every_bit(void **state)
{
	struct pcr_set replayed, quoted;
	struct tcg_log log;
	struct tcg_event ev;
	size_t i, k, len, flips = 0;
	uint8_t *buf, *d;
	int bit, bad;

	(void)state;
	for (i = 0; i < 2; i++) {
		load_real(eventlog_fixtures[i], &buf, &len, &quoted, "sha256");
		assert_int_equal(tcg_log_open(&log, buf, len, NULL), IMT_OK);
		while (!tcg_log_done(&log)) {
			assert_int_equal(tcg_log_next(&log, &ev, NULL), IMT_OK);
			if (ev.type == EV_NO_ACTION || ev.pcr > 9)
				continue;
			d = (uint8_t *)tcg_event_digest(&ev, 0x000b);
			for (k = 0; k < 32; k++) {
				for (bit = 0; bit < 8; bit++) {
					d[k] ^= (uint8_t)(1 << bit);
					pcr_set_init(&replayed,
						     hash_algo_bank("sha256"));
					assert_int_equal(tcg_log_replay(buf,
									len,
									&replayed,
									1,
									NULL),
							 IMT_OK);
					assert_int_equal(tcg_pcrs_compare(&replayed,
									  &quoted,
									  0x3ff,
									  &bad,
									  NULL),
							 IMT_ERR_MISMATCH);
					assert_int_equal(bad, (int)ev.pcr);
					d[k] ^= (uint8_t)(1 << bit);
					flips++;
				}
			}
		}
		free(buf);
	}
	assert_true(flips > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_events),
		cmocka_unit_test(test_truncated_everywhere),
		cmocka_unit_test(test_legacy_log),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_unknown_algorithm_skipped),
		cmocka_unit_test(test_digests_of),
		cmocka_unit_test(test_bad_events),
		cmocka_unit_test(test_event_limit),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_replay_rules),
		cmocka_unit_test(test_replay_hcrtm),
		cmocka_unit_test(test_replay_locality4),
		cmocka_unit_test(test_legacy),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_real_logs_replay),
		cmocka_unit_test(test_real_logs_every_bit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

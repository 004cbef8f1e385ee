// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tcg_log.c - libFuzzer target: the firmware event log from bytes to
 * every view: cursor, replay and compare, boot facts, decoded and CEL
 * JSON, and a boot policy with every rule judging it. Oracles: the cursor
 * never claims more bytes than it had, and what the cursor accepts,
 * replay, the facts and both JSON views accept too (they read the same
 * log), and a replay compares equal to itself; a SHA-1-only legacy log
 * (tcg_log_legacy()) is never one the cursor accepts, and is shown; the
 * judgement never fails and a violation's reason (as large as judge.c's)
 * is JSON.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "boot_facts.h"
#include "boot_log_json.h"
#include "boot_policy.h"
#include "judge.h"
#include "tcg_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct boot_facts facts;

/* Every rule: each that reads a fact from event data runs on the input. */
static const char every_rule[] =
	"{\"log\":\"required\",\"secure_boot\":\"required\","
	"\"pk\":[],\"kek\":[],\"db\":[],\"dbx\":[],"
	"\"applications\":\"references\",\"cmdline\":[\"*\"]}";

/* Applications whose first digest byte is odd are known. */
static int odd_known(void *ctx, const char *algo, const uint8_t *digest,
		     size_t len, char *source, size_t source_len)
{
	(void)ctx;
	(void)algo;
	snprintf(source, source_len, "efi:fuzz");
	return len > 0 && (digest[0] & 1);
}

static void judge_every_rule(const uint8_t *data, size_t size)
{
	static struct boot_policy bp;
	static int parsed;
	char reason[JUDGE_REASON_MAX];
	struct imt_error err;
	json_t *j;
	int rc;

	if (!parsed) {
		j = json_loads(every_rule, 0, NULL);
		if (!j || boot_policy_parse(j, &bp, &err) < 0)
			abort();
		json_decref(j);
		parsed = 1;
	}
	reason[0] = '\0';
	rc = boot_policy_judge(&bp, "fuzz", data, size, odd_known, NULL, reason,
			       sizeof(reason), &err);
	if (rc < 0)
		abort();
	if (rc == 0) {
		j = json_loads(reason, 0, NULL);
		if (!j)
			abort();
		json_decref(j);
	}
}

static int walk(const uint8_t *data, size_t size)
{
	struct tcg_log log;
	struct tcg_event ev;
	size_t end = 0;

	if (tcg_log_open(&log, data, size, NULL) != IMT_OK)
		return 0;
	while (!tcg_log_done(&log)) {
		if (tcg_log_next(&log, &ev, NULL) != IMT_OK)
			return 0;
		if (ev.offset != end || ev.offset + ev.size > size ||
		    ev.data < data || ev.data + ev.len > data + size)
			abort();
		end = ev.offset + ev.size;
	}
	if (end != size)
		abort();
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcr_set sets[2];
	json_t *j;
	int ok = walk(data, size), bad, legacy;

	pcr_set_init(&sets[0], hash_algo_bank("sha256"));
	pcr_set_init(&sets[1], hash_algo_bank("sha1"));
	if (tcg_log_replay(data, size, sets, 2, NULL) == IMT_OK) {
		if (!ok || tcg_pcrs_compare(&sets[0], &sets[0], sets[0].present,
					    &bad, NULL) != IMT_OK)
			abort();
	}
	if ((boot_facts_extract(data, size, &facts, NULL) == IMT_OK) != ok)
		abort();
	/* a SHA-1-only log is never a crypto-agile one, and is shown */
	legacy = tcg_log_legacy(data, size);
	if (legacy && ok)
		abort();
	j = boot_log_json(data, size, BOOT_LOG_DECODED, NULL);
	if ((ok || legacy) && !j)
		abort();
	json_decref(j);
	j = boot_log_json(data, size, BOOT_LOG_CEL, NULL);
	if (ok && !j)
		abort();
	json_decref(j);
	judge_every_rule(data, size);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tcg_log.c - libFuzzer target: the firmware event log from bytes to
 * every view: cursor, replay and compare, boot facts, decoded and CEL
 * JSON. Oracles: the cursor never claims more bytes than it had, and
 * what the cursor accepts, replay, the facts and both JSON views accept
 * too (they read the same log), and a replay compares equal to itself.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "boot_facts.h"
#include "boot_log_json.h"
#include "tcg_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct boot_facts facts;

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
	int ok = walk(data, size), bad;

	pcr_set_init(&sets[0], hash_algo_bank("sha256"));
	pcr_set_init(&sets[1], hash_algo_bank("sha1"));
	if (tcg_log_replay(data, size, sets, 2, NULL) == IMT_OK) {
		if (!ok || tcg_pcrs_compare(&sets[0], &sets[0],
					    sets[0].present, &bad,
					    NULL) != IMT_OK)
			abort();
	}
	if ((boot_facts_extract(data, size, &facts, NULL) == IMT_OK) != ok)
		abort();
	j = boot_log_json(data, size, BOOT_LOG_DECODED, NULL);
	if (ok && !j)
		abort();
	json_decref(j);
	j = boot_log_json(data, size, BOOT_LOG_CEL, NULL);
	if (ok && !j)
		abort();
	json_decref(j);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_pcr_set.c - libFuzzer target: the "INDEX HEX" PCR text parser, and
 * pcr_set_parse_values() (tpm2_pcrread's output, [BANK:]PCR=HEX words).
 */
#include <stddef.h>
#include <stdint.h>

#include "pcr_set.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcr_set set;
	uint8_t out[HASH_ALGO_MAX_SIZE];

	pcr_set_init(&set, hash_algo_bank("sha256"));
	if (pcr_set_parse_text(&set, (const char *)data, size, NULL) == IMT_OK)
		pcr_set_boot_aggregate(&set, out, NULL);
	pcr_set_init(&set, hash_algo_bank("sha1"));
	pcr_set_parse_values(&set, (const char *)data, size, NULL);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_pe.c - libFuzzer target: PE/COFF layout checks and the
 * Authenticode hash (pe_describe(), pe_authenticode_digest()), a UKI
 * section as loaded (pe_section_digest()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pe_authenticode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t out[HASH_ALGO_MAX_SIZE];
	enum imt_result a, b, c;
	struct pe_info info;
	int found;

	a = pe_describe(data, size, &info, NULL);
	b = pe_authenticode_digest(data, size, hash_algo_bank("sha256"), out,
				   NULL);
	/* the digest accepts exactly the layouts the description accepts */
	if (a != b)
		abort();
	/* a section is looked for only in a layout the others accept */
	c = pe_section_digest(data, size, ".linux", hash_algo_bank("sha256"),
			      out, &found, NULL);
	if ((a != IMT_OK && c != a) || (c != IMT_OK && found))
		abort();
	if (a == IMT_OK && info.cert_size != 0 &&
	    (uint64_t)info.cert_offset + info.cert_size != size)
		abort();
	return 0;
}

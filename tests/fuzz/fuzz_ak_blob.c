// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ak_blob.c - libFuzzer target: the agent's AK file
 * (ak_blob_parse()); what parses is written again and must come out the
 * same bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ak_blob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[AK_BLOB_MAX];
	TPM2B_PUBLIC pub;
	TPM2B_PRIVATE priv;
	uint16_t ek_type;
	size_t len;

	if (ak_blob_parse(data, size, &ek_type, &pub, &priv, NULL) != IMT_OK)
		return 0;
	if (ak_blob_write(ek_type, &pub, &priv, out, sizeof(out), &len, NULL) !=
		    IMT_OK ||
	    len != size || memcmp(out, data, size) != 0)
		abort();
	return 0;
}

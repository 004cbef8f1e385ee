// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_tpm.c - TPM structures from another machine: TPMS_ATTEST,
 * TPMT_SIGNATURE (input split at its first byte) and TPM2B_PUBLIC.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tpm_public.h"
#include "tpm_quote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t name[TPM_NAME_MAX];
	struct tpm_quote quote;
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *pkey;
	size_t cut, name_len;

	setenv("TSS2_LOG", "all+none", 0);
	if (size < 1)
		return 0;
	cut = data[0] < size - 1 ? data[0] : size - 1;
	tpm_quote_parse(data + 1, cut, &quote, &err);
	if (tpm_public_parse(data + 1 + cut, size - 1 - cut, &pub, &err) ==
	    IMT_OK) {
		tpm_public_name(&pub, name, &name_len, &err);
		tpm_public_check_ak(&pub, &err);
		if (tpm_public_to_pkey(&pub, &pkey, &err) == IMT_OK) {
			tpm_quote_verify_signature(data + 1, cut, data + 1,
						   size - 1, pkey, NULL, &err);
			EVP_PKEY_free(pkey);
		}
	}
	return 0;
}

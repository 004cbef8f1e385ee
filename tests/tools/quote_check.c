// SPDX-License-Identifier: GPL-2.0-only
/*
 * quote_check.c - tpm_quote_check() from the command line, so shell
 * tests can hold it side by side with tpm2_checkquote.
 *
 *   quote_check AK.pub MSG SIG NONCE PCRS
 *
 * AK.pub is a marshalled TPM2B_PUBLIC (tpm2_createak -u), MSG the
 * TPMS_ATTEST and SIG the TPMT_SIGNATURE (tpm2_quote -m, -s), NONCE the
 * nonce as hex digits, PCRS the sha256 PCR values as raw digests
 * concatenated in index order for PCRs 0..n-1 (tpm2_pcrread -o).
 * Prints "ok" or "RESULT: message"; exit status 0 ok, 1 mismatch,
 * 2 malformed or unsupported input, 3 usage or I/O error.
 */
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "tpm_public.h"
#include "tpm_quote.h"

#define FILE_MAX 4096 /* every input here is a few hundred bytes */

static int load(const char *path, uint8_t *buf, size_t *len)
{
	FILE *f = fopen(path, "rb");

	if (f == NULL) {
		perror(path);
		return -1;
	}
	*len = fread(buf, 1, FILE_MAX, f);
	fclose(f);
	return 0;
}

/* The raw PCR file as a pcr_set of bank sha256, PCRs 0..n-1. */
static int load_pcrs(const char *path, struct pcr_set *set)
{
	uint8_t buf[FILE_MAX];
	size_t len, i, size;

	pcr_set_init(set, hash_algo_bank("sha256"));
	size = set->algo->size;
	if (load(path, buf, &len) < 0)
		return -1;
	if (len % size != 0 || len / size > PCR_SET_COUNT) {
		fprintf(stderr, "%s: not whole sha256 digests\n", path);
		return -1;
	}
	for (i = 0; i < len / size; i++) {
		memcpy(set->value[i], buf + i * size, size);
		set->present |= 1u << i;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t pub_buf[FILE_MAX], msg[FILE_MAX], sig[FILE_MAX], nonce[64];
	size_t pub_len, msg_len, sig_len;
	struct imt_error err;
	struct pcr_set pcrs;
	EVP_PKEY *ak = NULL;
	enum imt_result rc;
	TPMT_PUBLIC pub;
	long nonce_len;

	if (argc != 6) {
		fprintf(stderr,
			"usage: quote_check AK.pub MSG SIG NONCE PCRS\n");
		return 3;
	}
	nonce_len = hex_decode(argv[4], strlen(argv[4]), nonce, sizeof(nonce));
	if (load(argv[1], pub_buf, &pub_len) < 0 ||
	    load(argv[2], msg, &msg_len) < 0 ||
	    load(argv[3], sig, &sig_len) < 0 || nonce_len < 0 ||
	    load_pcrs(argv[5], &pcrs) < 0)
		return 3;
	rc = tpm_public_parse(pub_buf, pub_len, &pub, &err);
	if (rc == IMT_OK)
		rc = tpm_public_to_pkey(&pub, &ak, &err);
	if (rc == IMT_OK)
		rc = tpm_quote_check(msg, msg_len, sig, sig_len, ak, nonce,
				     (size_t)nonce_len, &pcrs, NULL, &err);
	EVP_PKEY_free(ak);
	if (rc == IMT_OK) {
		printf("ok\n");
		return 0;
	}
	printf("%s: %s\n", imt_result_name(rc), err.msg);
	return rc == IMT_ERR_MISMATCH ? 1 : 2;
}

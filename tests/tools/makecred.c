// SPDX-License-Identifier: GPL-2.0-only
/*
 * makecred.c - tpm_credential_make() from the command line, for the
 * integration tests that hand its output to tpm2_activatecredential.
 *
 *   makecred EK.pub AK.pub SECRET OUT
 *
 * EK.pub and AK.pub are marshalled TPM2B_PUBLIC files (tpm2_createek -u,
 * tpm2_createak -u); the AK's Name is computed with tpm_public_name() and
 * printed in hex. OUT is written in tpm2-tools' credential file format:
 * magic 0xBADCC0DE, version 1 (both 32-bit big endian), the marshalled
 * TPM2B_ID_OBJECT and the marshalled TPM2B_ENCRYPTED_SECRET.
 * Exit status: 0 done, 1 the library refused, 2 usage or I/O error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tpm_credential.h"
#include "tpm_public.h"

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

static int load_public(const char *path, TPMT_PUBLIC *pub)
{
	uint8_t buf[FILE_MAX];
	struct imt_error err;
	size_t len;

	if (load(path, buf, &len) < 0)
		return -1;
	if (tpm_public_parse(buf, len, pub, &err) != IMT_OK) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const uint8_t header[8] = { 0xba, 0xdc, 0xc0, 0xde, 0, 0, 0, 1 };
	uint8_t name[TPM_NAME_MAX], secret[FILE_MAX];
	struct tpm_credential cred;
	size_t name_len, secret_len, i;
	TPMT_PUBLIC ek, ak;
	struct imt_error err;
	FILE *f;

	if (argc != 5) {
		fprintf(stderr, "usage: makecred EK.pub AK.pub SECRET OUT\n");
		return 2;
	}
	if (load_public(argv[1], &ek) < 0 || load_public(argv[2], &ak) < 0 ||
	    load(argv[3], secret, &secret_len) < 0)
		return 2;
	if (tpm_public_name(&ak, name, &name_len, &err) != IMT_OK ||
	    tpm_credential_make(&ek, name, name_len, secret, secret_len, &cred,
				&err) != IMT_OK) {
		fprintf(stderr, "makecred: %s: %s\n",
			imt_result_name(err.status), err.msg);
		return 1;
	}
	for (i = 0; i < name_len; i++)
		printf("%02x", name[i]);
	printf("\n");
	f = fopen(argv[4], "wb");
	if (f == NULL ||
	    fwrite(header, 1, sizeof(header), f) != sizeof(header) ||
	    fwrite(cred.id_object, 1, cred.id_object_len, f) !=
		    cred.id_object_len ||
	    fwrite(cred.secret, 1, cred.secret_len, f) != cred.secret_len ||
	    fclose(f) != 0) {
		perror(argv[4]);
		return 2;
	}
	return 0;
}

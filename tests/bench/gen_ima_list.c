// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen_ima_list.c - write a synthetic ima-ng list and what it must replay to.
 *
 *	gen-ima-list RECORDS OUTDIR
 *
 * OUTDIR receives binary_runtime_measurements (boot_aggregate first, then
 * RECORDS - 1 files with sha256 digests and realistic paths), pcrs-sha1
 * and pcrs-sha256 ("INDEX HEX", PCRs 0-10), the same PCRs in evmctl's
 * "PCR-NN HEX" form (evmctl-pcrs-*), and refs.sha256sum, the references
 * of the files in sha256sum's form ("HEX  PATH", one a line: the paths
 * have no newline), which bench-replay imports. The expected PCR 10 values
 * are folded here with plain OpenSSL calls, apart from libimatrust's replay.
 * Prints the average number of SHA-256 blocks a record's replay needs
 * (template data plus the 64-byte extend, each with its padding).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "hash_algo.h"
#include "hex.h"
#include "ima_build.h"

static const char *const dirs[] = {
	"/usr/bin/",
	"/usr/sbin/",
	"/usr/lib/x86_64-linux-gnu/",
	"/usr/lib/systemd/",
	"/usr/libexec/",
	"/etc/",
	"/usr/share/perl5/",
	"/usr/lib/python3/dist-packages/",
	"/opt/app/lib/",
};

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A path of 20-90 bytes: a common directory, a name, a suffix. */
static void random_path(char *out, size_t n)
{
	static const char *const suffixes[] = { "",	 ".so.6",   ".py",
						".conf", "-helper", ".so" };
	static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
	size_t len = (size_t)snprintf(out, n, "%s", dirs[next_random() % 9]);
	size_t name = 6 + next_random() % 30, i;

	for (i = 0; i < name; i++)
		out[len++] = letters[next_random() % (sizeof(letters) - 1)];
	snprintf(out + len, n - len, "%s", suffixes[next_random() % 6]);
}

static void extend(const EVP_MD *md, uint8_t *pcr, const uint8_t *data,
		   size_t len)
{
	uint8_t h[64];
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int size = (unsigned int)EVP_MD_get_size(md);

	EVP_Digest(data, len, h, NULL, md, NULL);
	EVP_DigestInit_ex(ctx, md, NULL);
	EVP_DigestUpdate(ctx, pcr, size);
	EVP_DigestUpdate(ctx, h, size);
	EVP_DigestFinal_ex(ctx, pcr, NULL);
	EVP_MD_CTX_free(ctx);
}

static int write_pcrs(const char *dir, const char *bank, const uint8_t *pcr10,
		      size_t size)
{
	char path[512], hex[129], zero[129];
	FILE *plain, *evm;
	int i;

	memset(zero, '0', 2 * size);
	zero[2 * size] = '\0';
	hex_encode(pcr10, size, hex);
	snprintf(path, sizeof(path), "%s/pcrs-%s", dir, bank);
	plain = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/evmctl-pcrs-%s", dir, bank);
	evm = fopen(path, "w");
	if (plain == NULL || evm == NULL)
		return -1;
	for (i = 0; i <= 10; i++) {
		fprintf(plain, "%d %s\n", i, i == 10 ? hex : zero);
		fprintf(evm, "PCR-%02d %s\n", i, i == 10 ? hex : zero);
	}
	fclose(plain);
	return fclose(evm);
}

int main(int argc, char **argv)
{
	const struct hash_algo *sha256 = hash_algo_by_name("sha256", 6);
	uint8_t pcr1[20] = { 0 }, pcr256[32] = { 0 }, zeros[320] = { 0 };
	uint8_t rec[512], dng[64], digest[32];
	struct ima_build_field f[2];
	char path[512], name[128], hex[65];
	unsigned long i, n, blocks = 0;
	FILE *list, *refs;
	size_t len, hdr;

	if (argc != 3 || (n = strtoul(argv[1], NULL, 10)) < 1) {
		fprintf(stderr, "usage: gen-ima-list RECORDS OUTDIR\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/binary_runtime_measurements", argv[2]);
	list = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/refs.sha256sum", argv[2]);
	refs = fopen(path, "w");
	if (list == NULL || refs == NULL) {
		perror(argv[2]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (i == 0) {
			/* boot_aggregate over all-zero sha256 PCRs 0-9 */
			EVP_Digest(zeros, 320, digest, NULL, EVP_sha256(),
				   NULL);
			strcpy(name, "boot_aggregate");
		} else {
			uint64_t r[4] = { next_random(), next_random(),
					  next_random(), next_random() };

			memcpy(digest, r, 32);
			random_path(name, sizeof(name));
			hex_encode(digest, 32, hex);
			fprintf(refs, "%s  %s\n", hex, name);
		}
		f[0].data = dng;
		f[0].len = ima_build_digest_ng(dng, sha256, digest);
		f[1].data = name;
		f[1].len = (uint32_t)strlen(name) + 1;
		len = ima_build_record(rec, sizeof(rec), 10, "ima-ng", f, 2, 0);
		fwrite(rec, 1, len, list);
		/* Template data starts after pcr, digest, name, data length. */
		hdr = 4 + 20 + 4 + strlen("ima-ng") + 4;
		/* data + 0x80 + 8-byte length, in 64-byte blocks; extend: 2 */
		blocks += (len - hdr + 8) / 64 + 1 + 2;
		extend(EVP_sha1(), pcr1, rec + hdr, len - hdr);
		extend(EVP_sha256(), pcr256, rec + hdr, len - hdr);
	}
	if (fclose(list) != 0 || fclose(refs) != 0 ||
	    write_pcrs(argv[2], "sha1", pcr1, 20) != 0 ||
	    write_pcrs(argv[2], "sha256", pcr256, 32) != 0) {
		perror(argv[2]);
		return 2;
	}
	printf("sha256_blocks_per_record %.4f\n", (double)blocks / (double)n);
	return 0;
}

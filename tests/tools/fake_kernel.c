// SPDX-License-Identifier: GPL-2.0-only
/*
 * fake_kernel.c - play IMA's part for host integration tests: append a
 * record to a binary measurement list file and extend swtpm's PCR 10 with
 * it in the sha1 and sha256 banks, exactly as the kernel would.
 *
 *	fake_kernel LIST boot                  the boot_aggregate record
 *	fake_kernel LIST file PATH CONTENT     measure a file (ima-ng sha256)
 *	fake_kernel LIST file-sha1 PATH CONTENT  the same, `ima` template
 *	fake_kernel LIST violation PATH        a violation record
 *
 * The TPM is $IMATRUST_TCTI. The list is appended with one write, after
 * the extend, as the kernel adds a record after extending.
 * Exit: 0 done, 2 usage or I/O error.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "hex.h"
#include "ima_build.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "tpm.h"

#define RECORD_MAX 8192

static struct tpm *open_tpm(void)
{
	struct tpm *t = NULL;

	if (tpm_open(getenv("IMATRUST_TCTI"), &t) != TPM_OK) {
		fprintf(stderr, "fake_kernel: cannot open the TPM\n");
		exit(2);
	}
	return t;
}

/*
 * boot_aggregate: sha256 over PCRs 0-9 as ima_calc_boot_aggregate(). A
 * test swtpm has no firmware measurements: they are all zero (and the
 * verifier checks this against the quoted PCRs, so a wrong guess fails),
 * unless the test extended some and says the value in
 * $IMATRUST_BOOT_AGGREGATE (64 hex digits).
 */
static void boot_aggregate(uint8_t *out)
{
	static const uint8_t zero[10 * 32];
	const char *hex = getenv("IMATRUST_BOOT_AGGREGATE");
	unsigned int len;

	if (hex != NULL && strlen(hex) == 64 && hex_decode(hex, 64, out, 32) ==
	    32)
		return;
	EVP_Digest(zero, sizeof(zero), out, &len, EVP_sha256(), NULL);
}

/* Extend PCR 10 with what the kernel extends for @rec, both banks. */
static void extend(struct tpm *t, const uint8_t *buf, size_t len)
{
	const char *banks[] = { "sha1", "sha256" };
	struct tpm_digest d[2];
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t i;

	ima_list_parser_init(&p, NULL);
	if (ima_list_next(&p, buf, len, 1, &rec, &err) != IMT_OK) {
		fprintf(stderr, "fake_kernel: %s\n", err.msg);
		exit(2);
	}
	for (i = 0; i < 2; i++) {
		struct ima_replay *r = ima_replay_new(hash_algo_bank(banks[i]),
						      &err);

		d[i].algo = hash_algo_bank(banks[i]);
		if (r == NULL ||
		    ima_replay_template_hash(r, &rec, d[i].value, &err) !=
			    IMT_OK) {
			fprintf(stderr, "fake_kernel: %s\n", err.msg);
			exit(2);
		}
		ima_replay_free(r);
	}
	if (tpm_pcr_extend(t, 10, d, 2) != TPM_OK) {
		fprintf(stderr, "fake_kernel: extend failed\n");
		exit(2);
	}
}

static size_t build(uint8_t *out, const char *cmd, const char *path,
		    const char *content)
{
	const struct hash_algo *sha256 = hash_algo_by_name("sha256", 6);
	uint8_t digest[64], dng[80];
	struct ima_build_field f[2];
	unsigned int dlen;
	int violation = strcmp(cmd, "violation") == 0;

	memset(digest, 0, sizeof(digest));
	if (strcmp(cmd, "boot") == 0) {
		boot_aggregate(digest);
		path = "boot_aggregate";
	} else if (strcmp(cmd, "file-sha1") == 0) {
		EVP_Digest(content, strlen(content), digest, &dlen,
			   EVP_sha1(), NULL);
		f[0] = (struct ima_build_field){ digest, 20 };
		f[1] = (struct ima_build_field){ path, (uint32_t)strlen(path) };
		return ima_build_record(out, RECORD_MAX, 10, "ima", f, 2, 0);
	} else if (!violation) {
		EVP_Digest(content, strlen(content), digest, &dlen,
			   EVP_sha256(), NULL);
	}
	f[0] = (struct ima_build_field){
		dng, ima_build_digest_ng(dng, sha256, digest) };
	f[1] = (struct ima_build_field){ path, (uint32_t)strlen(path) + 1 };
	return ima_build_record(out, RECORD_MAX, 10, "ima-ng", f, 2,
				violation);
}

int main(int argc, char **argv)
{
	static uint8_t rec[RECORD_MAX];
	struct tpm *t;
	size_t len;
	int fd;

	if (argc < 3 || (strcmp(argv[2], "boot") != 0 && argc < 4) ||
	    ((strcmp(argv[2], "file") == 0 ||
	      strcmp(argv[2], "file-sha1") == 0) && argc < 5)) {
		fprintf(stderr, "usage: fake_kernel LIST boot|file PATH CONTENT|file-sha1 PATH CONTENT|violation PATH\n");
		return 2;
	}
	len = build(rec, argv[2], argc > 3 ? argv[3] : "",
		    argc > 4 ? argv[4] : "");
	t = open_tpm();
	if (len == 0 || len > RECORD_MAX) {
		fprintf(stderr, "fake_kernel: cannot build the record\n");
		return 2;
	}
	extend(t, rec, len);
	fd = open(argv[1], O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd < 0 || write(fd, rec, len) != (ssize_t)len) {
		perror(argv[1]);
		return 2;
	}
	close(fd);
	tpm_close(t);
	return 0;
}

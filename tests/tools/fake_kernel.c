// SPDX-License-Identifier: GPL-2.0-only
/*
 * fake_kernel.c - play IMA's part for host integration tests: append a
 * record to a binary measurement list file and extend swtpm's PCR 10 with
 * it in every allocated bank, exactly as the kernel would.
 *
 *	fake_kernel LIST boot                  the boot_aggregate record
 *	fake_kernel LIST file PATH CONTENT     measure a file (ima-ng)
 *	fake_kernel LIST file-sha1 PATH CONTENT  the same, `ima` template
 *	fake_kernel LIST violation PATH        a violation record
 *
 * The TPM is $IMATRUST_TCTI. The list is appended with one write, after
 * the extend, as the kernel adds a record after extending.
 * $IMATRUST_PCR_BANKS: the TPM's allocated banks, extended each with its
 * own hash of the template data (default sha1,sha256);
 * $IMATRUST_IMA_HASH: the kernel's ima_hash, of boot_aggregate and the
 * ima-ng file digests (default sha256).
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
#define BANKS_MAX 4 /* sha1, sha256, sha384, sha512 */

/* The bank $@name says, or @dflt; exits naming a bank we cannot hash. */
static const struct hash_algo *env_bank(const char *name, const char *dflt)
{
	const char *v = getenv(name);
	const struct hash_algo *a = hash_algo_bank(v != NULL ? v : dflt);

	if (a == NULL) {
		fprintf(stderr, "fake_kernel: %s: not a PCR bank\n", name);
		exit(2);
	}
	return a;
}

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
 * boot_aggregate: the ima_hash bank's hash over its PCRs 0-9 as
 * ima_calc_boot_aggregate() (0-7 for sha1). A test swtpm has no firmware
 * measurements: they are all zero (and the verifier checks this against
 * the quoted PCRs, so a wrong guess fails), unless the test extended
 * some and says the value in $IMATRUST_BOOT_AGGREGATE (hex).
 */
static void boot_aggregate(const struct hash_algo *algo, uint8_t *out)
{
	static const uint8_t zero[10 * HASH_ALGO_MAX_SIZE];
	const char *hex = getenv("IMATRUST_BOOT_AGGREGATE");
	size_t pcrs = strcmp(algo->name, "sha1") == 0 ? 8 : 10;
	unsigned int len;

	if (hex != NULL && strlen(hex) == 2 * algo->size &&
	    hex_decode(hex, 2 * algo->size, out, algo->size) ==
		    (long)algo->size)
		return;
	EVP_Digest(zero, pcrs * algo->size, out, &len,
		   EVP_get_digestbyname(algo->name), NULL);
}

/* The banks of $IMATRUST_PCR_BANKS into @d; their number. */
static size_t banks(struct tpm_digest *d)
{
	const char *v = getenv("IMATRUST_PCR_BANKS");
	char list[64], *name, *save = NULL;
	size_t n = 0;

	snprintf(list, sizeof(list), "%s", v != NULL ? v : "sha1,sha256");
	for (name = strtok_r(list, ",", &save); name != NULL;
	     name = strtok_r(NULL, ",", &save)) {
		if (n == BANKS_MAX ||
		    (d[n].algo = hash_algo_bank(name)) == NULL)
			break;
		n++;
	}
	if (n == 0 || name != NULL) {
		fprintf(stderr,
			"fake_kernel: IMATRUST_PCR_BANKS: want 1-%d of sha1,sha256,sha384,sha512\n",
			BANKS_MAX);
		exit(2);
	}
	return n;
}

/* Extend PCR 10 with what the kernel extends for @rec, in every bank. */
static void extend(struct tpm *t, const uint8_t *buf, size_t len)
{
	struct tpm_digest d[BANKS_MAX];
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t i, n = banks(d);

	ima_list_parser_init(&p, NULL);
	if (ima_list_next(&p, buf, len, 1, &rec, &err) != IMT_OK) {
		fprintf(stderr, "fake_kernel: %s\n", err.msg);
		exit(2);
	}
	for (i = 0; i < n; i++) {
		struct ima_replay *r = ima_replay_new(d[i].algo, &err);

		if (r == NULL || ima_replay_template_hash(r, &rec, d[i].value,
							  &err) != IMT_OK) {
			fprintf(stderr, "fake_kernel: %s\n", err.msg);
			exit(2);
		}
		ima_replay_free(r);
	}
	if (tpm_pcr_extend(t, 10, d, n) != TPM_OK) {
		fprintf(stderr, "fake_kernel: extend failed\n");
		exit(2);
	}
}

static size_t build(uint8_t *out, const char *cmd, const char *path,
		    const char *content)
{
	const struct hash_algo *ima_hash =
		env_bank("IMATRUST_IMA_HASH", "sha256");
	uint8_t digest[HASH_ALGO_MAX_SIZE], dng[HASH_ALGO_MAX_SIZE + 16];
	struct ima_build_field f[2];
	unsigned int dlen;
	int violation = strcmp(cmd, "violation") == 0;

	memset(digest, 0, sizeof(digest));
	if (strcmp(cmd, "boot") == 0) {
		boot_aggregate(ima_hash, digest);
		path = "boot_aggregate";
	} else if (strcmp(cmd, "file-sha1") == 0) {
		EVP_Digest(content, strlen(content), digest, &dlen, EVP_sha1(),
			   NULL);
		f[0] = (struct ima_build_field){ digest, 20 };
		f[1] = (struct ima_build_field){ path, (uint32_t)strlen(path) };
		return ima_build_record(out, RECORD_MAX, 10, "ima", f, 2, 0);
	} else if (!violation) {
		EVP_Digest(content, strlen(content), digest, &dlen,
			   EVP_get_digestbyname(ima_hash->name), NULL);
	}
	f[0] = (struct ima_build_field){ dng, ima_build_digest_ng(dng, ima_hash,
								  digest) };
	f[1] = (struct ima_build_field){ path, (uint32_t)strlen(path) + 1 };
	return ima_build_record(out, RECORD_MAX, 10, "ima-ng", f, 2, violation);
}

int main(int argc, char **argv)
{
	static uint8_t rec[RECORD_MAX];
	struct tpm *t;
	size_t len;
	int fd;

	if (argc < 3 || (strcmp(argv[2], "boot") != 0 && argc < 4) ||
	    ((strcmp(argv[2], "file") == 0 ||
	      strcmp(argv[2], "file-sha1") == 0) &&
	     argc < 5)) {
		fprintf(stderr,
			"usage: fake_kernel LIST boot|file PATH CONTENT|file-sha1 PATH CONTENT|violation PATH\n");
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

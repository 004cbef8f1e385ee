// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_list.c - binary measurement records from the fuzzer's choices.
 */
#include <string.h>

#include "fz_list.h"
#include "ima_build.h"

const char *const fz_list_paths[] = {
	"/usr/bin/bash", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/etc/passwd",	 "/usr/sbin/init",
	"/tmp/x",	 "",
};
const size_t fz_list_path_count =
	sizeof(fz_list_paths) / sizeof(fz_list_paths[0]);

void fz_list_known(size_t i, uint8_t digest[32])
{
	memset(digest, (uint8_t)(0xa0 + i), 32);
}

static const char *const digest_algos[] = {
	"sha256", "sha1", "sha512", "sha384", "md5", "sm3", "streebog256",
};

#define DIGEST_ALGOS (sizeof(digest_algos) / sizeof(digest_algos[0]))

/* The kernel's templates and their field counts, and an unknown one. */
static const struct {
	const char *name;
	size_t fields;
} templates[] = {
	{ "ima-ng", 2 },   { "ima-sig", 3 },   { "ima-buf", 3 },
	{ "ima-ngv2", 2 }, { "ima", 2 },       { "ima-modsig", 5 },
	{ "evm-sig", 9 },  { "ima-sigv2", 3 }, { "no-such", 2 },
};

/* "<algo>:\0<digest>", or with "ima:"/"verity:" first (d-ngv2). */
static uint32_t digest_field(struct fz_in *in, int v2, uint8_t *out, size_t i)
{
	uint8_t how = fz_u8(in), digest[HASH_ALGO_MAX_SIZE];
	const char *name = digest_algos[how % DIGEST_ALGOS];
	const struct hash_algo *algo = hash_algo_by_name(name, strlen(name));
	uint32_t n = 0;

	/* most records: sha256 with the reference digest, or a near one */
	if (how & 0x80) {
		algo = hash_algo_by_name("sha256", 6);
		fz_list_known(i, digest);
		if (how & 0x40)
			digest[fz_u8(in) % 32] ^= 1;
	} else {
		fz_bytes(in, digest, algo->size);
	}
	if (v2) {
		const char *type = how & 0x20 ? "verity:" : "ima:";

		n = (uint32_t)strlen(type);
		memcpy(out, type, n);
	}
	return n + ima_build_digest_ng(out + n, algo, digest);
}

int fz_list_record(struct fz_in *in, struct fz_list *l)
{
	size_t t = fz_u8(in) % (sizeof(templates) / sizeof(templates[0]));
	const char *tmpl = templates[t].name;
	uint8_t pick = fz_u8(in), dfield[128], extra[64], path[80];
	size_t i = fz_u8(in) % fz_list_path_count, plen, n;
	struct ima_build_field f[9];
	uint32_t pcr = pick & 0x80 ? fz_u8(in) % 24 : 10;
	int legacy = strcmp(tmpl, "ima") == 0;
	size_t nf, k, size;

	if (l->count == FZ_LIST_RECORDS)
		return -1;
	/* the path: a known one, or bytes (not necessarily a C string) */
	if (pick & 0x40) {
		plen = fz_range(in, 0, sizeof(path) - 1);
		fz_bytes(in, path, plen);
	} else {
		plen = strlen(fz_list_paths[i]);
		memcpy(path, fz_list_paths[i], plen);
	}
	path[plen] = '\0';
	if (legacy) {
		fz_bytes(in, dfield, 20);
		f[0] = (struct ima_build_field){ dfield, 20 };
		f[1] = (struct ima_build_field){ path, (uint32_t)plen };
		nf = 2;
	} else {
		f[0].data = dfield;
		f[0].len = digest_field(in,
					strstr(tmpl, "v2") != NULL ||
						strcmp(tmpl, "ima-ngv2") == 0,
					dfield, i);
		f[1] = (struct ima_build_field){ path, (uint32_t)plen + 1 };
		n = fz_range(in, 0, sizeof(extra));
		fz_bytes(in, extra, n);
		/* the template's fields, or a wrong number of them */
		nf = pick & 0x10 ? 2 + fz_u8(in) % 8 : templates[t].fields;
		for (k = 2; k < nf; k++)
			f[k] = (struct ima_build_field){ extra, (uint32_t)n };
	}
	size = ima_build_record(l->bytes + l->len, sizeof(l->bytes) - l->len,
				pcr, tmpl, f, nf, pick & 0x20 ? 1 : 0);
	if (size == 0 || size > sizeof(l->bytes) - l->len)
		return -1;
	l->len += size;
	l->end[l->count++] = l->len;
	return 0;
}

int fz_list_boot_aggregate(struct fz_list *l, const struct hash_algo *bank,
			   const uint8_t *digest)
{
	uint8_t dfield[HASH_ALGO_MAX_SIZE + 16];
	struct ima_build_field f[2];
	size_t size;

	if (l->count == FZ_LIST_RECORDS)
		return -1;
	f[0].data = dfield;
	f[0].len = ima_build_digest_ng(dfield, bank, digest);
	f[1] = (struct ima_build_field){ "boot_aggregate", 15 };
	size = ima_build_record(l->bytes + l->len, sizeof(l->bytes) - l->len,
				10, "ima-ng", f, 2, 0);
	if (size == 0 || size > sizeof(l->bytes) - l->len)
		return -1;
	l->len += size;
	l->end[l->count++] = l->len;
	return 0;
}

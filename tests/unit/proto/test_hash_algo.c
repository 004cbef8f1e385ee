// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_hash_algo.c - the algorithm table's lookups, and the bank digests
 * hash_md() fetches once.
 *
 * hash_algo_by_name() runs several times per record judged, so it
 * compares stored lengths and first letters before the bytes: these
 * tests hold it to exact matches among names that share both (sha256,
 * sha384, sha512, sha224; rmd160 beside sha256), on buffers that are no
 * C strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hash_md.h"

/* The kernel's enum hash_algo (include/uapi/linux/hash_info.h, 6.1). */
static const char *const kernel_names[] = {
	"md4",	  "md5",    "sha1",   "rmd160",	     "sha256",
	"sha384", "sha512", "sha224", "rmd128",	     "rmd256",
	"rmd320", "wp256",  "wp384",  "wp512",	     "tgr128",
	"tgr160", "tgr192", "sm3",    "streebog256", "streebog512",
};

#define NAMES (sizeof(kernel_names) / sizeof(kernel_names[0]))

static void test_every_name_finds_its_entry(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NAMES; i++) {
		const char *n = kernel_names[i];
		const struct hash_algo *a = hash_algo_by_name(n, strlen(n));

		assert_non_null(a);
		assert_string_equal(a->name, n);
		assert_int_equal(a->name_len, strlen(n));
		assert_int_equal(hash_algo_kernel_id(a), i);
		assert_ptr_equal(hash_algo_by_kernel_id((unsigned int)i), a);
	}
	assert_null(hash_algo_by_kernel_id((unsigned int)NAMES));
}

static void test_only_exact_names(void **state)
{
	static const char *const unknown[] = {
		"sha",	   "sha2",   "sha25",  "sha257", "sha2566",    "SHA256",
		"sha256 ", "tha256", "rmd161", "sm4",	 "streebog25",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		assert_null(hash_algo_by_name(unknown[i], strlen(unknown[i])));
	assert_null(hash_algo_by_name("", 0));
	/* the length decides, not a NUL: a field of a larger buffer */
	assert_string_equal(hash_algo_by_name("sha256:abcd", 6)->name,
			    "sha256");
	assert_string_equal(hash_algo_by_name("sha1sha256", 4)->name, "sha1");
	assert_null(hash_algo_by_name("sha256", 5));
}

static void test_banks_and_tpm_ids(void **state)
{
	static const struct {
		const char *name;
		uint16_t tpm_alg;
		size_t size;
	} banks[] = {
		{ "sha1", 0x0004, 20 },
		{ "sha256", 0x000b, 32 },
		{ "sha384", 0x000c, 48 },
		{ "sha512", 0x000d, 64 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(banks) / sizeof(banks[0]); i++) {
		const struct hash_algo *a = hash_algo_bank(banks[i].name);

		assert_non_null(a);
		assert_int_equal(a->tpm_alg, banks[i].tpm_alg);
		assert_int_equal(a->size, banks[i].size);
		assert_ptr_equal(hash_algo_by_tpm(banks[i].tpm_alg), a);
	}
	assert_null(hash_algo_bank("md5"));
	assert_null(hash_algo_bank("sm3")); /* a TPM id, no bank here */
	assert_null(hash_algo_by_tpm(0));
}

/* Each bank's digest computes that bank: sizes and a known answer. */
static void test_hash_md(void **state)
{
	static const char *const names[] = { "sha1", "sha256", "sha384",
					     "sha512" };
	/* SHA-256("abc"), FIPS 180-2 appendix B.1 */
	static const uint8_t abc256[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
		0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	uint8_t out[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct hash_algo *a = hash_algo_bank(names[i]);
		const EVP_MD *md = hash_md(a);

		assert_non_null(md);
		assert_int_equal(EVP_MD_get_size(md), a->size);
		assert_true(EVP_MD_is_a(md, names[i]));
		assert_ptr_equal(hash_md(a), md); /* fetched once */
	}
	assert_int_equal(EVP_Digest("abc", 3, out, &n,
				    hash_md(hash_algo_bank("sha256")), NULL),
			 1);
	assert_int_equal(n, 32);
	assert_memory_equal(out, abc256, 32);
	assert_null(hash_md(NULL));
	assert_null(hash_md(hash_algo_by_name("md5", 3)));
	assert_null(hash_md(hash_algo_by_name("sm3", 3)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_name_finds_its_entry),
		cmocka_unit_test(test_only_exact_names),
		cmocka_unit_test(test_banks_and_tpm_ids),
		cmocka_unit_test(test_hash_md),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ak_blob.c - the agent's AK file (proto/ak_blob.c) made of keys
 * swtpm made (tests/fixtures/tpm/ak-*.pub, .priv): written and read back
 * the same, and every way a file can be wrong refused with its reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../fixture.h"

#include <tss2/tss2_mu.h>

#include "ak_blob.h"

struct keys {
	TPM2B_PUBLIC pub;
	TPM2B_PRIVATE priv;
	uint8_t file[AK_BLOB_MAX + 8];
	size_t len;
};

/* The AK @what of the fixtures, and its AK file under an ECC EK. */
static void keys_load(const char *what, struct keys *k)
{
	char rel[64];
	struct imt_error err;
	uint8_t *buf;
	size_t len, off = 0;

	memset(k, 0, sizeof(*k)); /* Tss2_MU fills a TPM2B of size 0 only */
	snprintf(rel, sizeof(rel), "tpm/%s.pub", what);
	buf = fixture_read(rel, &len);
	assert_int_equal(Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &off,
							&k->pub),
			 TSS2_RC_SUCCESS);
	free(buf);
	snprintf(rel, sizeof(rel), "tpm/%s.priv", what);
	buf = fixture_read(rel, &len);
	off = 0;
	assert_int_equal(Tss2_MU_TPM2B_PRIVATE_Unmarshal(buf, len, &off,
							 &k->priv),
			 TSS2_RC_SUCCESS);
	free(buf);
	assert_int_equal(ak_blob_write(TPM2_ALG_ECC, &k->pub, &k->priv, k->file,
				       AK_BLOB_MAX, &k->len, &err),
			 IMT_OK);
}

static enum imt_result parse(const struct keys *k, size_t len,
			     struct imt_error *err)
{
	TPM2B_PUBLIC pub;
	TPM2B_PRIVATE priv;
	uint16_t ek_type;

	return ak_blob_parse(k->file, len, &ek_type, &pub, &priv, err);
}

static void test_round_trip(void **state)
{
	static const char *const aks[] = { "ak-ecc", "ak-rsa", "ak-rsapss" };
	struct keys k;
	TPM2B_PUBLIC pub;
	TPM2B_PRIVATE priv;
	struct imt_error err;
	uint16_t ek_type = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(aks) / sizeof(aks[0]); i++) {
		keys_load(aks[i], &k);
		assert_memory_equal(k.file, "IMAK\0\1\0\x23", 8);
		assert_int_equal(ak_blob_parse(k.file, k.len, &ek_type, &pub,
					       &priv, &err),
				 IMT_OK);
		assert_int_equal(ek_type, TPM2_ALG_ECC);
		assert_memory_equal(&pub, &k.pub, sizeof(pub));
		assert_int_equal(priv.size, k.priv.size);
		assert_memory_equal(priv.buffer, k.priv.buffer, priv.size);
	}
}

/* Every length short of the whole file is refused, never read past. */
static void test_every_truncation(void **state)
{
	struct imt_error err;
	struct keys k;
	size_t len;

	(void)state;
	keys_load("ak-ecc", &k);
	for (len = 0; len < k.len; len++)
		assert_int_equal(parse(&k, len, &err), IMT_ERR_MALFORMED);
}

static void test_refusals(void **state)
{
	struct imt_error err;
	struct keys k;

	(void)state;
	keys_load("ak-ecc", &k);
	k.file[k.len] = 0;
	assert_int_equal(parse(&k, k.len + 1, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "1 bytes after the private blob"));
	assert_int_equal(parse(&k, AK_BLOB_MAX + 1, &err), IMT_ERR_LIMIT);
	k.file[5] = 2;
	assert_int_equal(parse(&k, k.len, &err), IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "AK file version 2, expected 1");
	k.file[5] = 1;
	k.file[0] = 'J';
	assert_int_equal(parse(&k, k.len, &err), IMT_ERR_MALFORMED);
	assert_string_equal(err.msg, "not an AK file");
	k.file[0] = 'I';
	/* the public area's size field claims one byte more than it holds */
	k.file[9]++;
	assert_int_equal(parse(&k, k.len, &err), IMT_ERR_MALFORMED);
	k.file[9]--;
	assert_int_equal(parse(&k, k.len, &err), IMT_OK);
	/* an empty public area (size 0) and a private blob: no key */
	memcpy(k.file + 8, "\0\0\0\2ab", 6);
	assert_int_equal(parse(&k, 14, &err), IMT_ERR_MALFORMED);
	assert_string_equal(err.msg, "AK file: malformed public area");
}

static void test_write_too_small(void **state)
{
	struct imt_error err;
	struct keys k;
	uint8_t small[64];
	size_t len = 1;

	(void)state;
	keys_load("ak-rsa", &k);
	assert_int_equal(ak_blob_write(TPM2_ALG_RSA, &k.pub, &k.priv, small,
				       sizeof(small), &len, &err),
			 IMT_ERR_LIMIT);
	assert_int_equal(len, 0);
	assert_int_equal(ak_blob_write(TPM2_ALG_RSA, &k.pub, &k.priv, small, 4,
				       &len, &err),
			 IMT_ERR_LIMIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_write_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tpm_public.c - public areas swtpm made (tests/fixtures/tpm/): our
 * Names against the TPM's, our keys against tpm2_print, the AK check.
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

#include <openssl/bn.h>
#include <openssl/core_names.h>

#include "hex.h"
#include "tpm_public.h"

static const char *const aks[] = { "ak-rsa", "ak-rsa2", "ak-rsapss", "ak-ecc" };
static const char *const eks[] = { "ek-rsa", "ek-ecc" };

#define AK_COUNT (sizeof(aks) / sizeof(aks[0]))
#define EK_COUNT (sizeof(eks) / sizeof(eks[0]))

/* Read tests/fixtures/tpm/<what>.<ext> whole. */
static uint8_t *load(const char *what, const char *ext, size_t *len)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "tpm/%s.%s", what, ext);
	return fixture_read(rel, len);
}

static void load_public(const char *what, TPMT_PUBLIC *pub)
{
	struct imt_error err;
	uint8_t *buf;
	size_t len;

	buf = load(what, "pub", &len);
	assert_int_equal(tpm_public_parse(buf, len, pub, &err), IMT_OK);
	free(buf);
}

/* The hex after "KEY: " at the start of a line of a tpm2_print output. */
static void print_value(const char *text, const char *key, char *out,
			size_t max)
{
	size_t klen = strlen(key), n;
	const char *p = text;

	while (*p != '\0') {
		n = strcspn(p, "\n");
		if (n > klen + 2 && strncmp(p, key, klen) == 0 &&
		    p[klen] == ':' && p[klen + 1] == ' ') {
			assert_true(n - klen - 2 < max);
			memcpy(out, p + klen + 2, n - klen - 2);
			out[n - klen - 2] = '\0';
			return;
		}
		p += n + (p[n] == '\n');
	}
	fail_msg("no \"%s\" in the tpm2_print output", key);
}

/* @pkey's big-number parameter @param, as @size bytes of hex. */
static void assert_bn_param(EVP_PKEY *pkey, const char *param, size_t size,
			    const char *want)
{
	uint8_t bytes[512];
	char hex[1025];
	BIGNUM *bn = NULL;

	assert_int_equal(EVP_PKEY_get_bn_param(pkey, param, &bn), 1);
	assert_int_equal(BN_bn2binpad(bn, bytes, (int)size), (int)size);
	hex_encode(bytes, size, hex);
	assert_string_equal(hex, want);
	BN_free(bn);
}

static void test_parse_fixtures(void **state)
{
	TPMT_PUBLIC pub;
	size_t i;

	(void)state;
	for (i = 0; i < AK_COUNT; i++) {
		load_public(aks[i], &pub);
		assert_int_equal(pub.nameAlg, TPM2_ALG_SHA256);
	}
	load_public("ek-rsa", &pub);
	assert_int_equal(pub.type, TPM2_ALG_RSA);
	assert_int_equal(pub.parameters.rsaDetail.keyBits, 2048);
	load_public("ek-ecc", &pub);
	assert_int_equal(pub.type, TPM2_ALG_ECC);
	assert_int_equal(pub.parameters.eccDetail.curveID, TPM2_ECC_NIST_P256);
}

/* Our Name of each AK is the one the TPM gave (tpm2_createak -n). */
static void test_ak_names(void **state)
{
	uint8_t name[TPM_NAME_MAX], *want;
	struct imt_error err;
	TPMT_PUBLIC pub;
	size_t i, len, want_len;

	(void)state;
	for (i = 0; i < AK_COUNT; i++) {
		load_public(aks[i], &pub);
		assert_int_equal(tpm_public_name(&pub, name, &len, &err),
				 IMT_OK);
		want = load(aks[i], "name", &want_len);
		assert_int_equal(len, want_len);
		assert_memory_equal(name, want, len);
		free(want);
	}
}

/* An EK's Name hashes the bytes after the TPM2B size, as received. */
static void test_ek_names(void **state)
{
	uint8_t name[TPM_NAME_MAX], digest[32], *buf;
	struct imt_error err;
	TPMT_PUBLIC pub;
	size_t i, len, name_len;

	(void)state;
	for (i = 0; i < EK_COUNT; i++) {
		buf = load(eks[i], "pub", &len);
		assert_int_equal(tpm_public_parse(buf, len, &pub, &err),
				 IMT_OK);
		assert_int_equal(tpm_public_name(&pub, name, &name_len, &err),
				 IMT_OK);
		assert_int_equal(name_len, 34);
		assert_int_equal(EVP_Digest(buf + 2, len - 2, digest, NULL,
					    EVP_sha256(), NULL),
				 1);
		assert_memory_equal(name, "\x00\x0b", 2);
		assert_memory_equal(name + 2, digest, 32);
		free(buf);
	}
}

/* The OpenSSL key holds the numbers tpm2_print shows. */
static void test_pkey_matches_tpm2_print(void **state)
{
	static const char *const rsa[] = { "ak-rsa", "ek-rsa" };
	static const char *const ecc[] = { "ak-ecc", "ek-ecc" };
	char want[1025];
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *pkey;
	char *print;
	size_t i, len;

	(void)state;
	for (i = 0; i < 2; i++) {
		load_public(rsa[i], &pub);
		assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err), IMT_OK);
		assert_true(EVP_PKEY_is_a(pkey, "RSA"));
		assert_int_equal(EVP_PKEY_get_bits(pkey), 2048);
		print = (char *)load(rsa[i], "print", &len);
		print_value(print, "rsa", want, sizeof(want));
		assert_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, 256, want);
		assert_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, 3, "010001");
		free(print);
		EVP_PKEY_free(pkey);

		load_public(ecc[i], &pub);
		assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err), IMT_OK);
		assert_true(EVP_PKEY_is_a(pkey, "EC"));
		assert_int_equal(EVP_PKEY_get_bits(pkey), 256);
		print = (char *)load(ecc[i], "print", &len);
		print_value(print, "x", want, sizeof(want));
		assert_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, 32, want);
		print_value(print, "y", want, sizeof(want));
		assert_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, 32, want);
		free(print);
		EVP_PKEY_free(pkey);
	}
}

/*
 * The agent's AK template, given the key swtpm made from tpm2_createak's
 * default template, is that public area to the byte: the agent asks its
 * TPM for the key the fixtures (and the peers' tools) describe.
 */
static void test_ak_template(void **state)
{
	static const struct {
		const char *fixture;
		TPMI_ALG_PUBLIC type;
	} cases[] = { { "ak-rsa", TPM2_ALG_RSA }, { "ak-ecc", TPM2_ALG_ECC } };
	struct imt_error err;
	TPMT_PUBLIC made;
	TPM2B_PUBLIC tmpl;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		load_public(cases[i].fixture, &made);
		tpm_public_ak_template(cases[i].type, &tmpl);
		assert_int_equal(tmpl.publicArea.type, cases[i].type);
		assert_int_equal(tpm_public_check_ak(&tmpl.publicArea, &err),
				 IMT_OK);
		tmpl.publicArea.unique = made.unique;
		assert_memory_equal(&tmpl.publicArea, &made, sizeof(made));
	}
	/* The RSA-PSS key is not the agent's: its scheme differs. */
	load_public("ak-rsapss", &made);
	tpm_public_ak_template(TPM2_ALG_RSA, &tmpl);
	tmpl.publicArea.unique = made.unique;
	assert_memory_not_equal(&tmpl.publicArea, &made, sizeof(made));
}

static void test_check_ak(void **state)
{
	static const struct {
		TPMA_OBJECT bit;
		const char *msg;
	} flips[] = {
		{ TPMA_OBJECT_RESTRICTED,
		  "AK attribute restricted is clear, must be set" },
		{ TPMA_OBJECT_SIGN_ENCRYPT,
		  "AK attribute sign is clear, must be set" },
		{ TPMA_OBJECT_FIXEDTPM,
		  "AK attribute fixedTPM is clear, must be set" },
		{ TPMA_OBJECT_FIXEDPARENT,
		  "AK attribute fixedParent is clear, must be set" },
		{ TPMA_OBJECT_SENSITIVEDATAORIGIN,
		  "AK attribute sensitiveDataOrigin is clear, must be set" },
		{ TPMA_OBJECT_DECRYPT,
		  "AK attribute decrypt is set, must be clear" },
	};
	struct imt_error err;
	TPMT_PUBLIC pub;
	size_t i;

	(void)state;
	for (i = 0; i < AK_COUNT; i++) {
		load_public(aks[i], &pub);
		assert_int_equal(tpm_public_check_ak(&pub, &err), IMT_OK);
	}
	/* An EK decrypts and does not sign. */
	for (i = 0; i < EK_COUNT; i++) {
		load_public(eks[i], &pub);
		assert_int_equal(tpm_public_check_ak(&pub, &err),
				 IMT_ERR_MISMATCH);
		assert_string_equal(err.msg,
				    "AK attribute sign is clear, must be set");
	}
	for (i = 0; i < sizeof(flips) / sizeof(flips[0]); i++) {
		load_public("ak-ecc", &pub);
		pub.objectAttributes ^= flips[i].bit;
		assert_int_equal(tpm_public_check_ak(&pub, &err),
				 IMT_ERR_MISMATCH);
		assert_string_equal(err.msg, flips[i].msg);
	}
	load_public("ak-rsa", &pub);
	pub.type = TPM2_ALG_KEYEDHASH;
	assert_int_equal(tpm_public_check_ak(&pub, &err), IMT_ERR_UNSUPPORTED);
}

static void test_parse_errors(void **state)
{
	struct imt_error err;
	TPMT_PUBLIC pub;
	uint8_t *buf, *longer;
	size_t len, n;

	(void)state;
	buf = load("ak-rsa", "pub", &len);
	for (n = 0; n < len; n++)
		assert_int_equal(tpm_public_parse(buf, n, &pub, &err),
				 IMT_ERR_MALFORMED);
	longer = malloc(len + 1);
	memcpy(longer, buf, len);
	longer[len] = 0;
	assert_int_equal(tpm_public_parse(longer, len + 1, &pub, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(
		strstr(err.msg, "size field 280, but 281 bytes follow"));
	/*
	 * Size field and length agree, the TPMT_PUBLIC inside is one byte
	 * shorter: libtss2-mu does not compare them, our end check does.
	 */
	longer[1]++;
	assert_int_equal(tpm_public_parse(longer, len + 1, &pub, &err),
			 IMT_ERR_MALFORMED);
	assert_string_equal(err.msg, "TPM2B_PUBLIC: 1 trailing bytes");
	assert_int_equal(err.offset, len);
	buf[3] = 0x99; /* type 0x0099 */
	assert_int_equal(tpm_public_parse(buf, len, &pub, &err),
			 IMT_ERR_MALFORMED);
	free(longer);
	free(buf);
}

/*
 * An empty TPM2B_PUBLIC (size field 0, found by fuzz_enroll) is no public
 * area: libtss2-mu unmarshals it as a zeroed TPMT_PUBLIC of type 0, which
 * does not marshal back, so its Name would not be over the bytes sent.
 */
static void test_parse_empty(void **state)
{
	static const uint8_t empty[] = { 0x00, 0x00 };
	struct imt_error err;
	TPMT_PUBLIC pub;

	(void)state;
	assert_int_equal(tpm_public_parse(empty, sizeof(empty), &pub, &err),
			 IMT_ERR_MALFORMED);
	assert_string_equal(err.msg,
			    "TPM2B_PUBLIC: size field 0, no public area");
}

static void test_pkey_errors(void **state)
{
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *pkey;

	(void)state;
	load_public("ak-ecc", &pub);
	pub.unique.ecc.y.buffer[31] ^= 1;
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err),
			 IMT_ERR_MALFORMED);
	assert_null(pkey);
	assert_non_null(strstr(err.msg, "EC key import failed"));
	assert_non_null(strstr(err.msg, "point is not on curve"));
	load_public("ak-ecc", &pub);
	pub.parameters.eccDetail.curveID = TPM2_ECC_NIST_P521;
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "ECC curve 0x0005");
	load_public("ak-ecc", &pub);
	pub.unique.ecc.x.size = 33;
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err),
			 IMT_ERR_MALFORMED);

	load_public("ak-rsa", &pub);
	pub.parameters.rsaDetail.keyBits = 1024;
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err),
			 IMT_ERR_MALFORMED);
	assert_string_equal(err.msg,
			    "RSA modulus has 2048 bits, keyBits says 1024");
	pub.parameters.rsaDetail.keyBits = 512;
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "RSA key of 512 bits");
	pub.type = TPM2_ALG_SYMCIPHER;
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err),
			 IMT_ERR_UNSUPPORTED);
}

static void test_name_errors(void **state)
{
	uint8_t name[TPM_NAME_MAX];
	struct imt_error err;
	TPMT_PUBLIC pub;
	size_t len;

	(void)state;
	load_public("ak-rsa", &pub);
	pub.nameAlg = TPM2_ALG_SM3_256;
	assert_int_equal(tpm_public_name(&pub, name, &len, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "nameAlg 0x0012");
	pub.nameAlg = TPM2_ALG_SHA384;
	assert_int_equal(tpm_public_name(&pub, name, &len, &err), IMT_OK);
	assert_int_equal(len, 50);
	assert_memory_equal(name, "\x00\x0c", 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fixtures),
		cmocka_unit_test(test_ak_names),
		cmocka_unit_test(test_ek_names),
		cmocka_unit_test(test_pkey_matches_tpm2_print),
		cmocka_unit_test(test_check_ak),
		cmocka_unit_test(test_ak_template),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_pkey_errors),
		cmocka_unit_test(test_name_errors),
	};

	/* libtss2-mu warns on stderr about the malformed input we feed it. */
	setenv("TSS2_LOG", "all+none", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

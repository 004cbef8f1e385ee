// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_b64.c - strict base64, against RFC 4648's test vectors and
 * OpenSSL's encoder, and base64url without padding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "b64.h"

static void test_rfc4648_vectors(void **state)
{
	static const char *const plain[] = { "",     "f",     "fo",    "foo",
					     "foob", "fooba", "foobar" };
	static const char *const coded[] = {
		"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"
	};
	uint8_t out[16];
	char enc[16];
	size_t i;

	(void)state;
	for (i = 0; i < 7; i++) {
		b64_encode((const uint8_t *)plain[i], strlen(plain[i]), enc);
		assert_string_equal(enc, coded[i]);
		assert_int_equal(b64_decode(coded[i], strlen(coded[i]), out),
				 strlen(plain[i]));
		assert_memory_equal(out, plain[i], strlen(plain[i]));
	}
}

static void test_matches_openssl(void **state)
{
	uint8_t in[200], out[200];
	char mine[300], theirs[300];
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 37 + 11);
	for (len = 0; len < sizeof(in); len++) {
		b64_encode(in, len, mine);
		EVP_EncodeBlock((unsigned char *)theirs, in, (int)len);
		assert_string_equal(mine, theirs);
		assert_int_equal(b64_decode(mine, strlen(mine), out), len);
		assert_memory_equal(out, in, len);
	}
}

static void test_rejects_non_canonical(void **state)
{
	static const char *const bad[] = {
		"Zg=",	  "Zg",	      "Z===", "Zh==", "Zm9=", "Zm 9v",
		"Zm9v\n", "Zg==Zg==", "=Zg=", "Zm-v", "Zm_v", "Zg=a",
	};
	uint8_t out[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("%s\n", bad[i]);
		assert_int_equal(b64_decode(bad[i], strlen(bad[i]), out), -1);
	}
}

/* base64url: the alphabet's last two, no padding, the same strictness */
static void test_url(void **state)
{
	static const uint8_t in[] = { 0xfb, 0xff, 0xbf, 0xf0 };
	static const char *const bad[] = {
		"-_-_8A==", "+_-_8A", "-_/_8A", "-_-_8", "-_-_8B", "-_ -8A",
	};
	uint8_t out[16];
	char enc[16];
	size_t i;

	(void)state;
	b64url_encode(in, sizeof(in), enc);
	assert_string_equal(enc, "-_-_8A");
	assert_int_equal(b64url_decode(enc, strlen(enc), out), sizeof(in));
	assert_memory_equal(out, in, sizeof(in));
	b64url_encode((const uint8_t *)"fo", 2, enc);
	assert_string_equal(enc, "Zm8");
	assert_int_equal(b64url_decode("", 0, out), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("%s\n", bad[i]);
		assert_int_equal(b64url_decode(bad[i], strlen(bad[i]), out),
				 -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc4648_vectors),
		cmocka_unit_test(test_matches_openssl),
		cmocka_unit_test(test_rejects_non_canonical),
		cmocka_unit_test(test_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

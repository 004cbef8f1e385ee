// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tpm_credential.c - software MakeCredential.
 *
 * The proof that a TPM accepts our credentials is the integration test
 * tests/integration/test_credential.sh (tpm2_activatecredential in
 * swtpm). Here: the output has the shape tpm2_makecredential's has for
 * the fixture EKs; an EK whose private key we hold (made with OpenSSL)
 * lets the test open the credential as the TPM would; our KDFa and KDFe
 * equal OpenSSL's SP 800-108 and SP 800-56C implementations; and bad
 * inputs are refused with precise errors.
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

#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "tpm_credential.h"
#include "tpm_crypto.h"
#include "tpm_public.h"

/* Read tests/fixtures/tpm/<name> whole. */
static uint8_t *load(const char *name, size_t *len)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "tpm/%s", name);
	return fixture_read(rel, len);
}

static void load_public(const char *name, TPMT_PUBLIC *pub)
{
	struct imt_error err;
	uint8_t *buf;
	size_t len;

	buf = load(name, &len);
	assert_int_equal(tpm_public_parse(buf, len, pub, &err), IMT_OK);
	free(buf);
}

static void ak_name(const char *ak_pub, uint8_t *name, size_t *len)
{
	struct imt_error err;
	TPMT_PUBLIC pub;

	load_public(ak_pub, &pub);
	assert_int_equal(tpm_public_name(&pub, name, len, &err), IMT_OK);
}

/*
 * For the fixture EKs our output has the sizes of tpm2_makecredential's
 * (cred-ek-*.ref: 8-byte header, TPM2B_ID_OBJECT, TPM2B_ENCRYPTED_SECRET)
 * and every call makes a fresh seed.
 */
static void test_fixture_eks(void **state)
{
	static const struct {
		const char *ek, *ak, *ref;
		size_t secret_len;
	} cases[] = {
		{ "ek-rsa.pub", "ak-rsa.pub", "cred-ek-rsa.ref", 2 + 256 },
		{ "ek-ecc.pub", "ak-ecc.pub", "cred-ek-ecc.ref",
		  2 + 2 + 32 + 2 + 32 },
	};
	struct tpm_credential c1, c2;
	uint8_t name[TPM_NAME_MAX], *secret, *ref;
	size_t i, name_len, secret_len, ref_len;
	struct imt_error err;
	TPMT_PUBLIC ek;

	(void)state;
	secret = load("secret.bin", &secret_len);
	assert_int_equal(secret_len, 32);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		load_public(cases[i].ek, &ek);
		ak_name(cases[i].ak, name, &name_len);
		assert_int_equal(tpm_credential_make(&ek, name, name_len,
						     secret, secret_len, &c1,
						     &err),
				 IMT_OK);
		/* size, TPM2B_DIGEST(outer HMAC), encIdentity (2 + 32) */
		assert_int_equal(c1.id_object_len, 2 + 2 + 32 + 2 + 32);
		assert_memory_equal(c1.id_object, "\x00\x44\x00\x20", 4);
		assert_int_equal(c1.secret_len, cases[i].secret_len);
		assert_int_equal(c1.secret[0] << 8 | c1.secret[1],
				 c1.secret_len - 2);

		ref = load(cases[i].ref, &ref_len);
		assert_int_equal(ref_len, 8 + c1.id_object_len + c1.secret_len);
		assert_memory_equal(ref + 8, c1.id_object, 4);
		assert_memory_equal(ref + 8 + c1.id_object_len, c1.secret, 2);
		free(ref);

		assert_int_equal(tpm_credential_make(&ek, name, name_len,
						     secret, secret_len, &c2,
						     &err),
				 IMT_OK);
		assert_memory_not_equal(c1.secret, c2.secret, c1.secret_len);
		assert_memory_not_equal(c1.id_object, c2.id_object,
					c1.id_object_len);
	}
	free(secret);
}

/* An EK public area for a key made here: the fixture EK's template. */
static void software_ek(const char *template, EVP_PKEY *key, TPMT_PUBLIC *ek)
{
	BIGNUM *bn = NULL;

	load_public(template, ek);
	if (ek->type == TPM2_ALG_RSA) {
		assert_int_equal(EVP_PKEY_get_bn_param(key,
						       OSSL_PKEY_PARAM_RSA_N,
						       &bn),
				 1);
		assert_int_equal(BN_bn2binpad(bn, ek->unique.rsa.buffer, 256),
				 256);
		ek->unique.rsa.size = 256;
	} else {
		assert_int_equal(EVP_PKEY_get_bn_param(key,
						       OSSL_PKEY_PARAM_EC_PUB_X,
						       &bn),
				 1);
		assert_int_equal(BN_bn2binpad(bn, ek->unique.ecc.x.buffer, 32),
				 32);
		BN_free(bn);
		bn = NULL;
		assert_int_equal(EVP_PKEY_get_bn_param(key,
						       OSSL_PKEY_PARAM_EC_PUB_Y,
						       &bn),
				 1);
		assert_int_equal(BN_bn2binpad(bn, ek->unique.ecc.y.buffer, 32),
				 32);
		ek->unique.ecc.x.size = 32;
		ek->unique.ecc.y.size = 32;
	}
	BN_free(bn);
}

/* The seed, recovered with the EK's private key as TPM2_ActivateCredential. */
static void recover_seed(EVP_PKEY *key, const TPMT_PUBLIC *ek,
			 const struct tpm_credential *c, uint8_t *seed)
{
	const uint8_t *secret = c->secret + 2;
	size_t secret_len = c->secret_len - 2, seed_len, z_len = 32;
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
	struct imt_error err;
	TPMS_ECC_POINT point;
	TPMT_PUBLIC eph_pub;
	EVP_PKEY *eph;
	uint8_t z[32], rsa_out[256];
	size_t offset = 0;
	void *label;

	assert_non_null(ctx);
	if (ek->type == TPM2_ALG_RSA) {
		label = OPENSSL_memdup("IDENTITY", 9);
		assert_int_equal(EVP_PKEY_decrypt_init(ctx), 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_padding(ctx,
							      RSA_PKCS1_OAEP_PADDING),
				 1);
		assert_int_equal(EVP_PKEY_CTX_set_rsa_oaep_md(ctx,
							      EVP_sha256()),
				 1);
		assert_int_equal(EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, label,
								  9),
				 1);
		seed_len = sizeof(rsa_out);
		assert_int_equal(EVP_PKEY_decrypt(ctx, rsa_out, &seed_len,
						  secret, secret_len),
				 1);
		assert_int_equal(seed_len, 32);
		memcpy(seed, rsa_out, 32);
	} else {
		assert_int_equal(Tss2_MU_TPMS_ECC_POINT_Unmarshal(secret,
								  secret_len,
								  &offset,
								  &point),
				 0);
		assert_int_equal(offset, secret_len);
		eph_pub = *ek;
		eph_pub.unique.ecc = point;
		assert_int_equal(tpm_public_to_pkey(&eph_pub, &eph, &err),
				 IMT_OK);
		assert_int_equal(EVP_PKEY_derive_init(ctx), 1);
		assert_int_equal(EVP_PKEY_derive_set_peer(ctx, eph), 1);
		assert_int_equal(EVP_PKEY_derive(ctx, z, &z_len), 1);
		assert_int_equal(tpm_crypto_kdfe(EVP_sha256(), z, z_len,
						 "IDENTITY", point.x.buffer,
						 point.x.size,
						 ek->unique.ecc.x.buffer,
						 ek->unique.ecc.x.size, seed,
						 256, &err),
				 IMT_OK);
		EVP_PKEY_free(eph);
	}
	EVP_PKEY_CTX_free(ctx);
}

/*
 * TPM2_ActivateCredential's checks and decryption, in software: returns
 * the credential length, or -1 when the integrity HMAC does not match.
 */
static int activate(EVP_PKEY *key, const TPMT_PUBLIC *ek, const uint8_t *name,
		    size_t name_len, const struct tpm_credential *c,
		    uint8_t *cred)
{
	uint8_t seed[32], hmac_key[32], sym_key[16], iv[16] = { 0 };
	uint8_t mac_in[256], mac[32], plain[66];
	const uint8_t *blob = c->id_object + 2;
	size_t enc_len = c->id_object_len - 2 - 34, mac_len;
	struct imt_error err;
	EVP_CIPHER_CTX *cctx;
	int n, fin;

	recover_seed(key, ek, c, seed);
	assert_int_equal(tpm_crypto_kdfa(EVP_sha256(), seed, 32, "INTEGRITY",
					 NULL, 0, NULL, 0, hmac_key, 256, &err),
			 IMT_OK);
	memcpy(mac_in, blob + 34, enc_len);
	memcpy(mac_in + enc_len, name, name_len);
	assert_non_null(EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, hmac_key,
				  32, mac_in, enc_len + name_len, mac,
				  sizeof(mac), &mac_len));
	if (memcmp(blob, "\x00\x20", 2) != 0 || memcmp(blob + 2, mac, 32) != 0)
		return -1;
	assert_int_equal(tpm_crypto_kdfa(EVP_sha256(), seed, 32, "STORAGE",
					 name, name_len, NULL, 0, sym_key, 128,
					 &err),
			 IMT_OK);
	cctx = EVP_CIPHER_CTX_new();
	assert_int_equal(EVP_DecryptInit_ex(cctx, EVP_aes_128_cfb128(), NULL,
					    sym_key, iv),
			 1);
	assert_int_equal(EVP_DecryptUpdate(cctx, plain, &n, blob + 34,
					   (int)enc_len),
			 1);
	assert_int_equal(EVP_DecryptFinal_ex(cctx, plain + n, &fin), 1);
	EVP_CIPHER_CTX_free(cctx);
	assert_int_equal((size_t)(n + fin), enc_len);
	assert_int_equal(plain[0] << 8 | plain[1], enc_len - 2);
	memcpy(cred, plain + 2, enc_len - 2);
	return (int)enc_len - 2;
}

static void roundtrip(const char *template, EVP_PKEY *key)
{
	static const size_t lens[] = { 1, 16, 31, 32 };
	uint8_t name[TPM_NAME_MAX], secret[32], out[66];
	struct tpm_credential c;
	struct imt_error err;
	TPMT_PUBLIC ek;
	size_t i, name_len;

	software_ek(template, key, &ek);
	ak_name("ak-rsa.pub", name, &name_len);
	for (i = 0; i < sizeof(secret); i++)
		secret[i] = (uint8_t)(0xa0 + i);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		assert_int_equal(tpm_credential_make(&ek, name, name_len,
						     secret, lens[i], &c, &err),
				 IMT_OK);
		assert_int_equal(activate(key, &ek, name, name_len, &c, out),
				 (int)lens[i]);
		assert_memory_equal(out, secret, lens[i]);
	}
	/* Bound to the Name: another AK's Name fails the integrity check. */
	ak_name("ak-rsa2.pub", name, &name_len);
	assert_int_equal(activate(key, &ek, name, name_len, &c, out), -1);
	ak_name("ak-rsa.pub", name, &name_len);
	c.id_object[c.id_object_len - 1] ^= 1;
	assert_int_equal(activate(key, &ek, name, name_len, &c, out), -1);
}

static void test_roundtrip_rsa(void **state)
{
	EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);

	(void)state;
	assert_non_null(key);
	roundtrip("ek-rsa.pub", key);
	EVP_PKEY_free(key);
}

static void test_roundtrip_ecc(void **state)
{
	EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");

	(void)state;
	assert_non_null(key);
	roundtrip("ek-ecc.pub", key);
	EVP_PKEY_free(key);
}

/* Run OpenSSL's KDF @name with @params into @out. */
static void openssl_kdf(const char *name, OSSL_PARAM *params, uint8_t *out,
			size_t len)
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, name, NULL);
	EVP_KDF_CTX *ctx = EVP_KDF_CTX_new(kdf);

	assert_non_null(ctx);
	assert_int_equal(EVP_KDF_derive(ctx, out, len, params), 1);
	EVP_KDF_CTX_free(ctx);
	EVP_KDF_free(kdf);
}

/*
 * KDFa is SP 800-108 counter mode (OpenSSL "KBKDF": Label, a 0x00
 * separator, Context, L in bits); KDFe is the SP 800-56C one-step KDF
 * (OpenSSL "SSKDF", FixedInfo = label with its NUL || partyU || partyV).
 */
static void test_kdfs_equal_openssl(void **state)
{
	uint8_t key[32], ctx_u[34], party_u[32], party_v[32], info[9 + 64];
	uint8_t ours[80], theirs[80];
	struct imt_error err;
	OSSL_PARAM p[7];
	size_t i, bits;

	(void)state;
	for (i = 0; i < sizeof(key); i++) {
		key[i] = (uint8_t)(i * 7 + 1);
		party_u[i] = (uint8_t)(i * 3 + 5);
		party_v[i] = (uint8_t)(255 - i);
	}
	for (i = 0; i < sizeof(ctx_u); i++)
		ctx_u[i] = (uint8_t)(i + 0x40);
	for (bits = 128; bits <= 640; bits += 256) {
		assert_int_equal(tpm_crypto_kdfa(EVP_sha256(), key, 32,
						 "STORAGE", ctx_u, 34, NULL, 0,
						 ours, bits, &err),
				 IMT_OK);
		p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE,
							"counter", 0);
		p[1] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC,
							"HMAC", 0);
		p[2] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
							"SHA256", 0);
		p[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
							 key, 32);
		p[4] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
							 "STORAGE", 7);
		p[5] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
							 ctx_u, 34);
		p[6] = OSSL_PARAM_construct_end();
		openssl_kdf("KBKDF", p, theirs, bits / 8);
		assert_memory_equal(ours, theirs, bits / 8);

		assert_int_equal(tpm_crypto_kdfe(EVP_sha256(), key, 32,
						 "IDENTITY", party_u, 32,
						 party_v, 32, ours, bits, &err),
				 IMT_OK);
		memcpy(info, "IDENTITY", 9);
		memcpy(info + 9, party_u, 32);
		memcpy(info + 41, party_v, 32);
		p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST,
							"SHA256", 0);
		p[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
							 key, 32);
		p[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO,
							 info, 9 + 64);
		p[3] = OSSL_PARAM_construct_end();
		openssl_kdf("SSKDF", p, theirs, bits / 8);
		assert_memory_equal(ours, theirs, bits / 8);
	}
	assert_int_equal(tpm_crypto_kdfa(EVP_sha256(), key, 32, "STORAGE", NULL,
					 0, NULL, 0, ours, 12, &err),
			 IMT_ERR_LIMIT);
}

static void test_errors(void **state)
{
	uint8_t name[TPM_NAME_MAX], secret[33] = { 1 };
	struct tpm_credential c;
	struct imt_error err;
	TPMT_PUBLIC ek;
	size_t name_len;

	(void)state;
	ak_name("ak-ecc.pub", name, &name_len);

	load_public("ak-rsa.pub", &ek); /* a signing key is no EK */
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 32,
					     &c, &err),
			 IMT_ERR_MISMATCH);
	assert_string_equal(err.msg, "EK is not a restricted decryption key");

	load_public("ek-rsa.pub", &ek);
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 0, &c,
					     &err),
			 IMT_ERR_LIMIT);
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 33,
					     &c, &err),
			 IMT_ERR_LIMIT);
	assert_string_equal(err.msg,
			    "credential of 33 bytes; the EK allows 1 to 32");
	assert_int_equal(tpm_credential_make(&ek, name, name_len - 1, secret,
					     32, &c, &err),
			 IMT_ERR_MALFORMED);
	assert_string_equal(err.msg,
			    "Name of 33 bytes is not a hash algorithm and its digest");
	name[1] = 0x99;
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 32,
					     &c, &err),
			 IMT_ERR_MALFORMED);
	name[1] = 0x0b;
	assert_int_equal(tpm_credential_make(&ek, name, 0, secret, 32, &c,
					     &err),
			 IMT_ERR_MALFORMED);

	ek.parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CBC;
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 32,
					     &c, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg,
			    "EK symmetric algorithm is not AES-128/192/256-CFB");
	load_public("ek-rsa.pub", &ek);
	ek.nameAlg = TPM2_ALG_SM3_256;
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 32,
					     &c, &err),
			 IMT_ERR_UNSUPPORTED);
	load_public("ek-rsa.pub", &ek);
	ek.type = TPM2_ALG_KEYEDHASH;
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 32,
					     &c, &err),
			 IMT_ERR_UNSUPPORTED);

	load_public("ek-ecc.pub", &ek);
	ek.unique.ecc.y.buffer[0] ^= 0x80;
	assert_int_equal(tpm_credential_make(&ek, name, name_len, secret, 32,
					     &c, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "point is not on curve"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_eks),
		cmocka_unit_test(test_roundtrip_rsa),
		cmocka_unit_test(test_roundtrip_ecc),
		cmocka_unit_test(test_kdfs_equal_openssl),
		cmocka_unit_test(test_errors),
	};

	/* libtss2-mu warns on stderr about the malformed input we feed it. */
	setenv("TSS2_LOG", "all+none", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

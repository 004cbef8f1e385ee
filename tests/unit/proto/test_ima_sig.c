// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_ima_sig.c - IMA signatures (ima_sig.c) and their keys (ima_key.c)
 * on the security.ima values evmctl wrote for tests/fixtures/ima-sig/
 * (see its README.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "../fixture.h"

#include "ima_build.h"
#include "ima_key.h"
#include "ima_list.h"
#include "ima_sig.h"

struct blob {
	uint8_t *data;
	size_t len;
};

static struct blob load(const char *name)
{
	struct blob b;
	char rel[160];

	snprintf(rel, sizeof(rel), "ima-sig/%s", name);
	b.data = fixture_read(rel, &b.len);
	return b;
}

static void load_key(const char *cert, struct ima_key *key)
{
	struct blob b = load(cert);
	struct imt_error err;

	assert_int_equal(ima_key_load(b.data, b.len, key, &err), IMT_OK);
	free(b.data);
}

/* The digest of the sample file with @algo (kernel name). */
static size_t sample_digest(const char *algo, uint8_t *out)
{
	struct blob b = load("sample");
	unsigned int n = 0;

	assert_true(EVP_Digest(b.data, b.len, out, &n,
			       EVP_get_digestbyname(algo), NULL));
	free(b.data);
	return n;
}

static const struct hash_algo *algo(const char *name)
{
	return hash_algo_by_name(name, strlen(name));
}

/* Parse @sigfile and verify it over the sample with @cert's key. */
static enum imt_result check(const char *sigfile, const char *cert,
			     const char *file_algo, struct imt_error *err)
{
	uint8_t digest[HASH_ALGO_MAX_SIZE];
	struct blob b = load(sigfile);
	struct ima_key key;
	struct ima_sig sig;
	enum imt_result r;
	size_t n = sample_digest(file_algo, digest);

	load_key(cert, &key);
	assert_int_equal(ima_sig_parse(b.data, b.len, &sig, err), IMT_OK);
	r = ima_sig_verify(&sig, key.pkey, algo(file_algo), digest, n, err);
	ima_key_free(&key);
	free(b.data);
	return r;
}

static void assert_msg_has(const struct imt_error *err, const char *word)
{
	if (strstr(err->msg, word) == NULL)
		fail_msg("\"%s\" does not name \"%s\"", err->msg, word);
}

static void test_kernel_ids(void **state)
{
	static const struct {
		unsigned int id;
		const char *name;
	} ids[] = {
		{ 0, "md4" },	 { 2, "sha1" },	  { 3, "rmd160" },
		{ 4, "sha256" }, { 5, "sha384" }, { 6, "sha512" },
		{ 7, "sha224" }, { 17, "sm3" },	  { 19, "streebog512" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		assert_string_equal(hash_algo_by_kernel_id(ids[i].id)->name,
				    ids[i].name);
		assert_int_equal(hash_algo_kernel_id(algo(ids[i].name)),
				 ids[i].id);
	}
	assert_null(hash_algo_by_kernel_id(20)); /* HASH_ALGO__LAST */
	assert_null(hash_algo_by_kernel_id(255));
}

static void test_parse_evmctl(void **state)
{
	static const struct {
		const char *file;
		enum ima_sig_kind kind;
		const char *algo;
	} sigs[] = {
		{ "sample.rsa-sha256.sig", IMA_SIG_V2, "sha256" },
		{ "sample.rsa-sha1.sig", IMA_SIG_V2, "sha1" },
		{ "sample.ec-sha256.sig", IMA_SIG_V2, "sha256" },
		{ "sample.ec-sha1.sig", IMA_SIG_V2, "sha1" },
		{ "sample.rsa-sha256.sigv3", IMA_SIG_V3, "sha256" },
		{ "sample.ec-sha256.sigv3", IMA_SIG_V3, "sha256" },
	};
	struct imt_error err;
	struct ima_sig sig;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct blob b = load(sigs[i].file);

		assert_int_equal(ima_sig_parse(b.data, b.len, &sig, &err),
				 IMT_OK);
		assert_int_equal(sig.kind, sigs[i].kind);
		assert_int_equal(sig.version,
				 sigs[i].kind == IMA_SIG_V2 ? 2 : 3);
		assert_ptr_equal(sig.algo, algo(sigs[i].algo));
		assert_ptr_equal(sig.sig, b.data + IMA_SIG_HDR_SIZE);
		assert_int_equal(sig.sig_len, b.len - IMA_SIG_HDR_SIZE);
		assert_int_equal(sig.keyid, (uint32_t)b.data[3] << 24 |
						    (uint32_t)b.data[4] << 16 |
						    (uint32_t)b.data[5] << 8 |
						    b.data[6]);
		free(b.data);
	}
}

static void test_good_signatures(void **state)
{
	struct imt_error err;

	(void)state;
	assert_int_equal(check("sample.rsa-sha256.sig", "rsa.pem", "sha256",
			       &err),
			 IMT_OK);
	assert_int_equal(check("sample.rsa-sha1.sig", "rsa.der", "sha1", &err),
			 IMT_OK);
	assert_int_equal(check("sample.ec-sha256.sig", "ec.der", "sha256",
			       &err),
			 IMT_OK);
	assert_int_equal(check("sample.ec-sha1.sig", "ec.pem", "sha1", &err),
			 IMT_OK);
	assert_int_equal(check("sample.foreign-sha256.sig", "foreign.pem",
			       "sha256", &err),
			 IMT_OK);
	/* The same RSA key in a certificate with another SKID. */
	assert_int_equal(check("sample.rsa-skid-sha256.sig", "rsa-skid.pem",
			       "sha256", &err),
			 IMT_OK);
	/* v3: over ima_file_id of the digest (a stand-in verity digest). */
	assert_int_equal(check("sample.rsa-sha256.sigv3", "rsa.pem", "sha256",
			       &err),
			 IMT_OK);
	assert_int_equal(check("sample.ec-sha256.sigv3", "ec.pem", "sha256",
			       &err),
			 IMT_OK);
}

static void test_other_keys(void **state)
{
	static const char *const cases[][2] = {
		{ "sample.foreign-sha256.sig", "rsa.pem" },
		{ "sample.rsa-sha256.sig", "foreign.pem" },
		{ "sample.rsa-sha256.sig", "ec.pem" },
		{ "sample.ec-sha256.sig", "rsa.pem" },
		{ "sample.ec-sha256.sig", "foreign.pem" },
		{ "sample.rsa-sha256.sigv3", "foreign.pem" },
	};
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(check(cases[i][0], cases[i][1], "sha256",
				       &err),
				 IMT_ERR_MISMATCH);
		assert_msg_has(&err, "signature does not verify");
	}
}

/*
 * What a verifier accepts: a signature that parses, whose key id is our
 * key's and which verifies over the digest.
 */
static int accepted(const uint8_t *buf, size_t len, const struct ima_key *key,
		    const uint8_t *digest)
{
	struct ima_sig sig;

	if (ima_sig_parse(buf, len, &sig, NULL) != IMT_OK ||
	    (sig.kind != IMA_SIG_V2 && sig.kind != IMA_SIG_V3) ||
	    !ima_key_has_id(key, sig.keyid))
		return 0;
	return ima_sig_verify(&sig, key->pkey, algo("sha256"), digest, 32,
			      NULL) == IMT_OK;
}

static void flip_all(const char *sigfile, const char *cert)
{
	uint8_t digest[HASH_ALGO_MAX_SIZE];
	struct blob b = load(sigfile);
	struct ima_key key;
	size_t i;
	int bit;

	load_key(cert, &key);
	sample_digest("sha256", digest);
	assert_true(accepted(b.data, b.len, &key, digest));
	for (i = 0; i < b.len; i++) {
		for (bit = 0; bit < 8; bit++) {
			b.data[i] ^= (uint8_t)(1u << bit);
			if (accepted(b.data, b.len, &key, digest))
				fail_msg("%s: flipping bit %d of byte %zu is accepted",
					 sigfile, bit, i);
			b.data[i] ^= (uint8_t)(1u << bit);
		}
	}
	ima_key_free(&key);
	free(b.data);
}

static void test_bit_flips(void **state)
{
	(void)state;
	flip_all("sample.rsa-sha256.sig", "rsa.pem");
	flip_all("sample.ec-sha256.sig", "ec.pem");
	flip_all("sample.rsa-sha256.sigv3", "rsa.pem");
}

/* The key id is not signed: only the key lookup protects it. */
static void test_keyid_not_signed(void **state)
{
	uint8_t digest[HASH_ALGO_MAX_SIZE];
	struct blob b = load("sample.rsa-sha256.sig");
	struct imt_error err;
	struct ima_key key;
	struct ima_sig sig;

	(void)state;
	load_key("rsa.pem", &key);
	sample_digest("sha256", digest);
	b.data[6] ^= 1;
	assert_int_equal(ima_sig_parse(b.data, b.len, &sig, &err), IMT_OK);
	assert_false(ima_key_has_id(&key, sig.keyid));
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("sha256"), digest,
					32, &err),
			 IMT_OK);
	ima_key_free(&key);
	free(b.data);
}

static void test_wrong_digest(void **state)
{
	static const char *const cases[][2] = {
		{ "sample.rsa-sha256.sig", "rsa.pem" },
		{ "sample.ec-sha256.sig", "ec.pem" },
		{ "sample.rsa-sha256.sigv3", "rsa.pem" },
		{ "sample.ec-sha256.sigv3", "ec.pem" },
	};
	uint8_t digest[HASH_ALGO_MAX_SIZE];
	struct imt_error err;
	struct ima_key key;
	struct ima_sig sig;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct blob b = load(cases[i][0]);

		load_key(cases[i][1], &key);
		sample_digest("sha256", digest);
		digest[31] ^= 0x80;
		assert_int_equal(ima_sig_parse(b.data, b.len, &sig, &err),
				 IMT_OK);
		assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("sha256"),
						digest, 32, &err),
				 IMT_ERR_MISMATCH);
		assert_msg_has(&err, "signature does not verify");
		ima_key_free(&key);
		free(b.data);
	}
}

static void test_algo_mismatch(void **state)
{
	uint8_t digest[HASH_ALGO_MAX_SIZE];
	struct blob b = load("sample.rsa-sha1.sig");
	struct imt_error err;
	struct ima_key key;
	struct ima_sig sig;
	size_t n;

	(void)state;
	load_key("rsa.pem", &key);
	assert_int_equal(ima_sig_parse(b.data, b.len, &sig, &err), IMT_OK);
	n = sample_digest("sha256", digest);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("sha256"), digest,
					n, &err),
			 IMT_ERR_MISMATCH);
	assert_msg_has(&err,
		       "sha256 differs from the signature's hash_algo sha1");
	/* Even when the digest's bytes are the ones signed. */
	n = sample_digest("sha1", digest);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("rmd160"), digest,
					n, &err),
			 IMT_ERR_MISMATCH);
	assert_msg_has(&err, "rmd160 differs");
	/* A digest of the wrong size for the algorithm. */
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("sha1"), digest,
					n - 1, &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, NULL, digest, n, &err),
			 IMT_ERR_MALFORMED);
	ima_key_free(&key);
	free(b.data);
}

static void expect_malformed(const uint8_t *buf, size_t len, const char *field,
			     size_t offset)
{
	struct imt_error err;
	struct ima_sig sig;

	assert_int_equal(ima_sig_parse(buf, len, &sig, &err),
			 IMT_ERR_MALFORMED);
	assert_msg_has(&err, field);
	assert_int_equal(err.offset, offset);
	assert_int_equal(sig.kind, IMA_SIG_NONE);
	assert_null(sig.sig);
}

static void test_truncated(void **state)
{
	static const char *const field_at[IMA_SIG_HDR_SIZE] = {
		NULL,	 "version", "hash_algo", "keyid",    "keyid",
		"keyid", "keyid",   "sig_size",	 "sig_size",
	};
	struct blob b = load("sample.rsa-sha256.sig");
	uint8_t *longer = malloc(b.len + 1);
	size_t n;

	(void)state;
	for (n = 1; n < IMA_SIG_HDR_SIZE; n++)
		expect_malformed(b.data, n, field_at[n], n);
	/* Header complete, signature cut or extended: sig_size disagrees. */
	for (n = IMA_SIG_HDR_SIZE; n < b.len; n++)
		expect_malformed(b.data, n, "sig_size", 7);
	memcpy(longer, b.data, b.len);
	longer[b.len] = 0;
	expect_malformed(longer, b.len + 1, "sig_size", 7);
	free(longer);
	free(b.data);
}

static void test_header_errors(void **state)
{
	struct blob b = load("sample.rsa-sha256.sig");
	uint8_t *v = malloc(b.len);
	struct imt_error err;
	struct ima_sig sig;
	static const uint8_t no_sig[IMA_SIG_HDR_SIZE] = { 3, 2, 4, 1, 2, 3, 4 };
	static const uint8_t bad_types[] = { 0x00, 0x07, 0x80, 0xff };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_types); i++) {
		memcpy(v, b.data, b.len);
		v[0] = bad_types[i];
		expect_malformed(v, b.len, "type", 0);
	}
	memcpy(v, b.data, b.len);
	v[2] = 20; /* HASH_ALGO__LAST */
	expect_malformed(v, b.len, "hash_algo", 2);
	v[2] = 0xff;
	expect_malformed(v, b.len, "hash_algo", 2);
	memcpy(v, b.data, b.len);
	v[8] ^= 1;
	expect_malformed(v, b.len, "sig_size", 7);
	expect_malformed(no_sig, sizeof(no_sig), "sig_size 0", 7);
	/* Version 3 belongs in IMA_VERITY_DIGSIG, version 2 in DIGSIG. */
	memcpy(v, b.data, b.len);
	v[1] = 3;
	expect_malformed(v, b.len, "version 3", 1);
	v[0] = IMA_VERITY_DIGSIG;
	v[1] = 2;
	expect_malformed(v, b.len, "version 2", 1);
	memcpy(v, b.data, b.len);
	v[1] = 0;
	expect_malformed(v, b.len, "version 0", 1);
	v[1] = 1;
	assert_int_equal(ima_sig_parse(v, b.len, &sig, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_msg_has(&err, "version 1");
	free(v);
	free(b.data);
}

static void test_not_signatures(void **state)
{
	static const uint8_t digest[1 + 20] = { IMA_XATTR_DIGEST };
	static const uint8_t digest_ng[2 + 32] = { IMA_XATTR_DIGEST_NG, 4 };
	static const uint8_t hmac[1 + 20] = { EVM_XATTR_HMAC };
	static const uint8_t evm[12] = { EVM_XATTR_PORTABLE_DIGSIG, 2, 4 };
	static const struct {
		const uint8_t *buf;
		size_t len;
	} others[] = {
		{ digest, sizeof(digest) },
		{ digest_ng, sizeof(digest_ng) },
		{ hmac, sizeof(hmac) },
		{ evm, sizeof(evm) },
		{ evm, 1 },
	};
	uint8_t d[32] = { 0 };
	struct imt_error err;
	struct ima_key key;
	struct ima_sig sig;
	size_t i;

	(void)state;
	assert_int_equal(ima_sig_parse(NULL, 0, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, IMA_SIG_NONE);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		assert_int_equal(ima_sig_parse(others[i].buf, others[i].len,
					       &sig, &err),
				 IMT_OK);
		assert_int_equal(sig.kind, IMA_SIG_OTHER);
		assert_int_equal(sig.xattr_type, others[i].buf[0]);
	}
	/* Neither verifies as a signature. */
	load_key("rsa.pem", &key);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("sha256"), d, 32,
					&err),
			 IMT_ERR_MALFORMED);
	assert_msg_has(&err, "not a signature");
	assert_int_equal(ima_sig_parse(NULL, 0, &sig, &err), IMT_OK);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("sha256"), d, 32,
					&err),
			 IMT_ERR_MALFORMED);
	ima_key_free(&key);
}

/* A hash the kernel names but OpenSSL does not provide (tgr192). */
static void test_unavailable_hash(void **state)
{
	uint8_t v[IMA_SIG_HDR_SIZE + 4] = { 3, 2, 16, 0, 0, 0, 1, 0, 4 };
	uint8_t d[24] = { 0 };
	struct imt_error err;
	struct ima_key key;
	struct ima_sig sig;

	(void)state;
	load_key("rsa.pem", &key);
	assert_int_equal(ima_sig_parse(v, sizeof(v), &sig, &err), IMT_OK);
	assert_string_equal(sig.algo->name, "tgr192");
	assert_int_equal(ima_sig_verify(&sig, key.pkey, algo("tgr192"), d,
					sizeof(d), &err),
			 IMT_ERR_UNSUPPORTED);
	assert_msg_has(&err, "tgr192");
	ima_key_free(&key);
}

static uint32_t sig_keyid(const char *file)
{
	struct blob b = load(file);
	struct ima_sig sig;
	uint32_t id;

	assert_int_equal(ima_sig_parse(b.data, b.len, &sig, NULL), IMT_OK);
	id = sig.keyid;
	free(b.data);
	return id;
}

/* The last 8 hex digits of what openssl printed as @cert's SKID. */
static uint32_t openssl_skid_tail(const char *cert)
{
	struct blob b = load("skid.txt");
	unsigned long id = 0;
	size_t n = strlen(cert);
	char *line, *save;

	for (line = strtok_r((char *)b.data, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, cert, n) != 0 || strncmp(line + n, ": ", 2))
			continue;
		assert_true(strlen(line + n + 2) >= 8);
		id = strtoul(line + strlen(line) - 8, NULL, 16);
	}
	free(b.data);
	assert_true(id != 0);
	return (uint32_t)id;
}

static void test_keyid_matches_evmctl(void **state)
{
	static const char *const keys[][2] = {
		{ "rsa", "sample.rsa-sha256.sig" },
		{ "ec", "sample.ec-sha256.sig" },
		{ "foreign", "sample.foreign-sha256.sig" },
	};
	struct ima_key key, noskid;
	char cert[32];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(cert, sizeof(cert), "%s.pem", keys[i][0]);
		load_key(cert, &key);
		assert_int_equal(key.keyid, sig_keyid(keys[i][1]));
		assert_true(key.keyid_from_skid);
		assert_int_equal(key.keyid_pubkey, key.keyid);
		assert_int_equal(key.keyid, openssl_skid_tail(keys[i][0]));
		assert_true(ima_key_has_id(&key, sig_keyid(keys[i][1])));
		ima_key_free(&key);
	}
	/* A SKID that is not the key's hash: the kernel and evmctl (given
	 * the certificate) use its tail; evmctl given only the key, the
	 * key's hash. */
	load_key("rsa-skid.pem", &key);
	assert_int_equal(key.keyid, 0x05060708);
	assert_int_equal(key.keyid, sig_keyid("sample.rsa-skid-sha256.sig"));
	assert_int_equal(key.keyid_pubkey, sig_keyid("sample.rsa-sha256.sig"));
	assert_false(ima_key_has_id(&key, sig_keyid("sample.rsa-sha256.sig")));
	ima_key_free(&key);
	/* No SKID: the key's hash. */
	load_key("rsa-noskid.pem", &noskid);
	assert_false(noskid.keyid_from_skid);
	assert_int_equal(noskid.keyid, sig_keyid("sample.rsa-sha256.sig"));
	ima_key_free(&noskid);
}

static void test_key_pem_der(void **state)
{
	struct blob der = load("rsa.der");
	uint8_t fp[IMA_KEY_FINGERPRINT_SIZE];
	struct ima_key a, b;

	(void)state;
	load_key("rsa.pem", &a);
	load_key("rsa.der", &b);
	assert_true(
		EVP_Digest(der.data, der.len, fp, NULL, EVP_sha256(), NULL));
	assert_memory_equal(a.fingerprint, fp, sizeof(fp));
	assert_memory_equal(b.fingerprint, fp, sizeof(fp));
	assert_int_equal(a.keyid, b.keyid);
	assert_string_equal(a.subject, "CN=rsa,O=imatrust test");
	assert_string_equal(b.subject, a.subject);
	assert_int_equal(EVP_PKEY_eq(a.pkey, b.pkey), 1);
	ima_key_free(&a);
	ima_key_free(&b);
	ima_key_free(&a); /* freeing twice is harmless */
	ima_key_free(NULL);
	free(der.data);
}

static void expect_refused(const uint8_t *buf, size_t len, enum imt_result want,
			   const char *msg)
{
	struct imt_error err;
	struct ima_key key;

	assert_int_equal(ima_key_load(buf, len, &key, &err), want);
	assert_msg_has(&err, msg);
	assert_null(key.pkey);
	assert_null(key.subject);
}

static void test_key_refused(void **state)
{
	static const char garbage[] = "this is not a certificate\n";
	static const char pem_junk[] =
		"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
	struct blob pub = load("rsa-pub.pem");
	struct blob priv = load("rsa.key");
	struct blob der = load("rsa.der");
	uint8_t *big;

	(void)state;
	expect_refused(pub.data, pub.len, IMT_ERR_MALFORMED,
		       "not an X.509 certificate");
	expect_refused(priv.data, priv.len, IMT_ERR_MALFORMED,
		       "not an X.509 certificate");
	expect_refused((const uint8_t *)garbage, strlen(garbage),
		       IMT_ERR_MALFORMED, "not an X.509 certificate");
	expect_refused((const uint8_t *)pem_junk, strlen(pem_junk),
		       IMT_ERR_MALFORMED, "not an X.509 certificate");
	expect_refused(NULL, 0, IMT_ERR_MALFORMED, "not an X.509 certificate");
	expect_refused(der.data, der.len - 1, IMT_ERR_MALFORMED,
		       "not an X.509 certificate");
	big = calloc(1, IMA_KEY_CERT_MAX + 1);
	memcpy(big, der.data, der.len);
	expect_refused(big, der.len + 1, IMT_ERR_MALFORMED,
		       "bytes after the DER certificate");
	expect_refused(big, IMA_KEY_CERT_MAX + 1, IMT_ERR_LIMIT, "above");
	free(big);
	free(pub.data);
	free(priv.data);
	free(der.data);
}

static void test_digest_type(void **state)
{
	struct blob v2 = load("sample.rsa-sha256.sig");
	struct blob v3 = load("sample.rsa-sha256.sigv3");
	struct imt_error err;
	struct ima_sig s2, s3;

	(void)state;
	assert_int_equal(ima_sig_parse(v2.data, v2.len, &s2, NULL), IMT_OK);
	assert_int_equal(ima_sig_parse(v3.data, v3.len, &s3, NULL), IMT_OK);
	assert_int_equal(ima_sig_check_digest_type(&s2, NULL, 0, &err), IMT_OK);
	assert_int_equal(ima_sig_check_digest_type(&s2, "ima", 3, &err),
			 IMT_OK);
	assert_int_equal(ima_sig_check_digest_type(&s2, "verity", 6, &err),
			 IMT_ERR_MISMATCH);
	assert_msg_has(&err, "verity");
	assert_int_equal(ima_sig_check_digest_type(&s3, "verity", 6, &err),
			 IMT_OK);
	assert_int_equal(ima_sig_check_digest_type(&s3, "ima", 3, &err),
			 IMT_ERR_MISMATCH);
	assert_int_equal(ima_sig_check_digest_type(&s3, NULL, 0, &err),
			 IMT_ERR_MISMATCH);
	assert_int_equal(ima_sig_check_digest_type(&s3, "verit", 5, &err),
			 IMT_ERR_MISMATCH);
	free(v2.data);
	free(v3.data);
}

/* Parse one record of @tmpl with @fields (d-ng or d-ngv2, n-ng, sig). */
static void one_record(const char *tmpl, const struct ima_build_field *f,
		       size_t n, uint8_t *buf, struct ima_record *rec)
{
	struct ima_list_parser p;
	struct imt_error err;
	size_t len = ima_build_record(buf, 4096, 10, tmpl, f, n, 0);

	assert_true(len > 0);
	ima_list_parser_init(&p, NULL);
	assert_int_equal(ima_list_next(&p, buf, len, 1, rec, &err), IMT_OK);
}

static void test_records(void **state)
{
	static const char vprefix[] = "verity:sha256:";
	struct blob b = load("sample.rsa-sha256.sig");
	struct blob b3 = load("sample.rsa-sha256.sigv3");
	uint8_t digest[HASH_ALGO_MAX_SIZE], dng[128], buf[4096];
	struct ima_build_field f[3];
	struct ima_record rec;
	struct imt_error err;
	struct ima_key key;
	struct ima_sig sig;

	(void)state;
	load_key("rsa.pem", &key);
	sample_digest("sha256", digest);
	f[0].data = dng;
	f[0].len = ima_build_digest_ng(dng, algo("sha256"), digest);
	f[1].data = "/usr/bin/sample";
	f[1].len = sizeof("/usr/bin/sample");
	f[2].data = b.data;
	f[2].len = (uint32_t)b.len;
	one_record("ima-sig", f, 3, buf, &rec);
	assert_int_equal(ima_sig_of_record(&rec, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, IMA_SIG_V2);
	assert_int_equal(ima_sig_check_digest_type(&sig, rec.digest_type,
						   rec.digest_type_len, &err),
			 IMT_OK);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, rec.digest_algo,
					rec.digest, rec.digest_algo->size,
					&err),
			 IMT_OK);
	/* ima-ng has no sig field; ima-sig may have an empty one. */
	one_record("ima-ng", f, 2, buf, &rec);
	assert_int_equal(ima_sig_of_record(&rec, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, IMA_SIG_NONE);
	f[2].len = 0;
	one_record("ima-sig", f, 3, buf, &rec);
	assert_int_equal(ima_sig_of_record(&rec, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, IMA_SIG_NONE);
	/* A broken one names the record. */
	f[2].data = b.data;
	f[2].len = 5;
	one_record("ima-sig", f, 3, buf, &rec);
	assert_int_equal(ima_sig_of_record(&rec, &sig, &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(err.record, 0);
	assert_msg_has(&err, "keyid");
	/* ima-sigv2 of an fs-verity digest with a v3 signature. */
	memcpy(dng, vprefix, sizeof(vprefix));
	memcpy(dng + sizeof(vprefix), digest, 32);
	f[0].len = sizeof(vprefix) + 32;
	f[2].data = b3.data;
	f[2].len = (uint32_t)b3.len;
	one_record("ima-sigv2", f, 3, buf, &rec);
	assert_int_equal(ima_sig_of_record(&rec, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, IMA_SIG_V3);
	assert_int_equal(ima_sig_check_digest_type(&sig, rec.digest_type,
						   rec.digest_type_len, &err),
			 IMT_OK);
	assert_int_equal(ima_sig_verify(&sig, key.pkey, rec.digest_algo,
					rec.digest, rec.digest_algo->size,
					&err),
			 IMT_OK);
	/* The v2 signature of the same bytes does not fit that digest. */
	f[2].data = b.data;
	f[2].len = (uint32_t)b.len;
	one_record("ima-sigv2", f, 3, buf, &rec);
	assert_int_equal(ima_sig_of_record(&rec, &sig, &err), IMT_OK);
	assert_int_equal(ima_sig_check_digest_type(&sig, rec.digest_type,
						   rec.digest_type_len, &err),
			 IMT_ERR_MISMATCH);
	ima_key_free(&key);
	free(b.data);
	free(b3.data);
}

/* The real ima-sig boot of tests/fixtures/ima/: no file was signed. */
static void test_real_list(void **state)
{
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	struct ima_sig sig;
	size_t len, pos = 0, sigs = 0;
	uint8_t *buf = fixture_load("ima-sig-sha256",
				    "binary_runtime_measurements", &len);

	(void)state;
	ima_list_parser_init(&p, NULL);
	while (pos < len) {
		assert_int_equal(ima_list_next(&p, buf + pos, len - pos, 1,
					       &rec, &err),
				 IMT_OK);
		assert_int_equal(ima_sig_of_record(&rec, &sig, &err), IMT_OK);
		assert_int_equal(sig.kind, IMA_SIG_NONE);
		sigs += rec.nfields == 3;
		pos += rec.size;
	}
	assert_true(sigs > 0);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_ids),
		cmocka_unit_test(test_parse_evmctl),
		cmocka_unit_test(test_good_signatures),
		cmocka_unit_test(test_other_keys),
		cmocka_unit_test(test_bit_flips),
		cmocka_unit_test(test_keyid_not_signed),
		cmocka_unit_test(test_wrong_digest),
		cmocka_unit_test(test_algo_mismatch),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_not_signatures),
		cmocka_unit_test(test_unavailable_hash),
		cmocka_unit_test(test_keyid_matches_evmctl),
		cmocka_unit_test(test_key_pem_der),
		cmocka_unit_test(test_key_refused),
		cmocka_unit_test(test_digest_type),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_real_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tpm_quote.c - tpm_quote_check() on quotes swtpm made
 * (tests/fixtures/tpm/, see its README.md), checked against what
 * tpm2_print and tpm2_checkquote said about the same bytes.
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

#include "hex.h"
#include "tpm_public.h"
#include "tpm_quote.h"

/* The four AKs of the fixtures; each signed one quote. */
static const char *const aks[] = { "ak-rsa", "ak-rsa2", "ak-rsapss", "ak-ecc" };

#define AK_COUNT (sizeof(aks) / sizeof(aks[0]))

/* Read tests/fixtures/tpm/<name> whole. */
static uint8_t *load(const char *name, size_t *len)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "tpm/%s", name);
	return fixture_read(rel, len);
}

/* Load "<what>.<ext>" for an AK or a quote, e.g. ("quote-ak-rsa", "msg"). */
static uint8_t *load2(const char *what, const char *ext, size_t *len)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.%s", what, ext);
	return load(name, len);
}

static EVP_PKEY *ak_key(const char *ak)
{
	struct imt_error err;
	EVP_PKEY *pkey;
	TPMT_PUBLIC pub;
	uint8_t *buf;
	size_t len;

	buf = load2(ak, "pub", &len);
	assert_int_equal(tpm_public_parse(buf, len, &pub, &err), IMT_OK);
	assert_int_equal(tpm_public_to_pkey(&pub, &pkey, &err), IMT_OK);
	free(buf);
	return pkey;
}

static void load_pcrs(struct pcr_set *set)
{
	struct imt_error err;
	uint8_t *text;
	size_t len;

	text = load("pcrs-sha256.txt", &len);
	pcr_set_init(set, hash_algo_bank("sha256"));
	assert_int_equal(pcr_set_parse_text(set, (const char *)text, len, &err),
			 IMT_OK);
	assert_int_equal(set->present, 0x7ff);
	free(text);
}

/* Everything one check needs, loaded from the fixtures. */
struct qcase {
	uint8_t *attest, *sig, *nonce;
	size_t attest_len, sig_len, nonce_len;
	EVP_PKEY *key;
	struct pcr_set pcrs;
};

/* Quote signed by @quote_ak, checked with @key_ak's key. */
static void qcase_load(struct qcase *c, const char *quote_ak,
		       const char *key_ak)
{
	char what[64];

	snprintf(what, sizeof(what), "quote-%s", quote_ak);
	c->attest = load2(what, "msg", &c->attest_len);
	c->sig = load2(what, "sig", &c->sig_len);
	c->nonce = load("nonce.bin", &c->nonce_len);
	c->key = ak_key(key_ak);
	load_pcrs(&c->pcrs);
}

static void qcase_free(struct qcase *c)
{
	free(c->attest);
	free(c->sig);
	free(c->nonce);
	EVP_PKEY_free(c->key);
}

static enum imt_result qcase_check(const struct qcase *c, struct tpm_quote *q,
				   struct imt_error *err)
{
	imt_error_clear(err);
	return tpm_quote_check(c->attest, c->attest_len, c->sig, c->sig_len,
			       c->key, c->nonce, c->nonce_len, &c->pcrs, q,
			       err);
}

/* The value of the line "KEY: VALUE" (indented or not) of a tpm2_print. */
static void print_value(const char *text, const char *key, char *out,
			size_t max)
{
	size_t klen = strlen(key), n;
	const char *p = text;

	while (*p != '\0') {
		while (*p == ' ')
			p++;
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

static void assert_hex_field(const char *text, const char *key,
			     const uint8_t *bytes, size_t len)
{
	char value[256], want[256];

	print_value(text, key, value, sizeof(value));
	assert_true(2 * len < sizeof(want));
	hex_encode(bytes, len, want);
	assert_string_equal(value, want);
}

static void assert_num_field(const char *text, const char *key, uint64_t num)
{
	char value[64];

	print_value(text, key, value, sizeof(value));
	assert_true(strtoull(value, NULL, 10) == num);
}

/*
 * tpm2_print shows firmwareVersion as a hex dump of the host's (little
 * endian) memory: 0x2019102300163636 prints as "3636160023101920".
 */
static void assert_le_hex_field(const char *text, const char *key, uint64_t num)
{
	uint8_t le[8];
	int i;

	for (i = 0; i < 8; i++)
		le[i] = (uint8_t)(num >> (8 * i));
	assert_hex_field(text, key, le, sizeof(le));
}

/* Every fixture quote passes, and its fields are what tpm2_print read. */
static void test_good_quotes(void **state)
{
	struct imt_error err;
	struct tpm_quote q;
	struct qcase c;
	size_t i, len;
	char *print, what[64];

	(void)state;
	for (i = 0; i < AK_COUNT; i++) {
		qcase_load(&c, aks[i], aks[i]);
		assert_int_equal(qcase_check(&c, &q, &err), IMT_OK);
		snprintf(what, sizeof(what), "quote-%s", aks[i]);
		print = (char *)load2(what, "print", &len);
		assert_hex_field(print, "extraData", q.nonce, q.nonce_len);
		assert_hex_field(print, "qualifiedSigner", q.signer,
				 q.signer_len);
		assert_hex_field(print, "pcrDigest", q.pcr_digest,
				 q.pcr_digest_len);
		assert_num_field(print, "clock", q.clock);
		assert_num_field(print, "resetCount", q.reset_count);
		assert_num_field(print, "restartCount", q.restart_count);
		assert_num_field(print, "safe", (uint64_t)q.safe);
		assert_le_hex_field(print, "firmwareVersion",
				    q.firmware_version);
		assert_int_equal(tpm_quote_pcr_mask(&q,
						    hash_algo_bank("sha256")),
				 0x7ff);
		assert_int_equal(tpm_quote_pcr_mask(&q, hash_algo_bank("sha1")),
				 0);
		free(print);
		qcase_free(&c);
	}
}

/*
 * Each line of peer-checkquote.txt is "quote-AK CASE ok|fail", what
 * tpm2_checkquote said when the fixtures were made; we must say the same.
 * One known disagreement: tpm2-tools 5.4 rejects swtpm's RSA-PSS quote
 * (salt of digest length) that OpenSSL, and we, verify.
 */
static void test_agrees_with_tpm2_checkquote(void **state)
{
	char quote_ak[64], kase[32], verdict[16];
	char *text, *line, *save = NULL;
	struct imt_error err;
	const char *key_ak;
	struct qcase c;
	enum imt_result rc;
	int lines = 0;
	size_t len;

	(void)state;
	text = (char *)load("peer-checkquote.txt", &len);
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		assert_int_equal(sscanf(line, "quote-%63s %31s %15s", quote_ak,
					kase, verdict),
				 3);
		lines++;
		key_ak = quote_ak;
		if (strcmp(kase, "other-ak") == 0)
			key_ak = strcmp(quote_ak, "ak-rsa2") == 0 ? "ak-rsa" :
								    "ak-rsa2";
		qcase_load(&c, quote_ak, key_ak);
		if (strcmp(kase, "wrong-nonce") == 0) {
			/* tpm2_checkquote was given "00" + the nonce */
			c.nonce = realloc(c.nonce, c.nonce_len + 1);
			memmove(c.nonce + 1, c.nonce, c.nonce_len++);
			c.nonce[0] = 0;
		}
		rc = qcase_check(&c, NULL, &err);
		if (strcmp(quote_ak, "ak-rsapss") == 0 &&
		    strcmp(kase, "good") == 0) {
			assert_string_equal(verdict, "fail");
			assert_int_equal(rc, IMT_OK);
		} else if (strcmp(verdict, "ok") == 0) {
			assert_int_equal(rc, IMT_OK);
		} else {
			assert_int_equal(rc, IMT_ERR_MISMATCH);
		}
		qcase_free(&c);
	}
	assert_int_equal(lines, 12);
	free(text);
}

/* Offsets of the length and count fields in the fixture TPMS_ATTEST. */
static int is_size_field(size_t i)
{
	return i == 6 || i == 7 ||	 /* qualifiedSigner.size */
	       i == 42 || i == 43 ||	 /* extraData.size */
	       (i >= 101 && i <= 104) || /* pcrSelect.count */
	       i == 107 ||		 /* sizeofSelect */
	       i == 111 || i == 112;	 /* pcrDigest.size */
}

/* Flipping any bit of the signed bytes fails, naming the right check. */
static void test_flipped_attest(void **state)
{
	struct imt_error err;
	struct qcase c;
	enum imt_result rc;
	size_t a, i;
	int bit;

	(void)state;
	for (a = 0; a < AK_COUNT; a++) {
		qcase_load(&c, aks[a], aks[a]);
		assert_int_equal(c.attest_len, 145);
		for (i = 0; i < c.attest_len; i++) {
			for (bit = 0; bit < 8; bit += 7) {
				c.attest[i] ^= (uint8_t)(1u << bit);
				rc = qcase_check(&c, NULL, &err);
				c.attest[i] ^= (uint8_t)(1u << bit);
				if (i < 4) {
					assert_int_equal(rc, IMT_ERR_MISMATCH);
					assert_non_null(
						strstr(err.msg, "magic"));
				} else if (i < 6) {
					assert_int_equal(rc, IMT_ERR_MISMATCH);
					assert_non_null(
						strstr(err.msg, "type"));
				} else if (is_size_field(i) &&
					   rc == IMT_ERR_MALFORMED) {
					continue;
				} else {
					assert_int_equal(rc, IMT_ERR_MISMATCH);
					assert_ptr_equal(strstr(err.msg,
								"signature"),
							 err.msg);
				}
			}
		}
		qcase_free(&c);
	}
}

/* Flipping any bit of the signature fails; in the value, as "signature". */
static void test_flipped_signature(void **state)
{
	struct imt_error err;
	struct qcase c;
	enum imt_result rc;
	size_t a, i;
	int bit;

	(void)state;
	for (a = 0; a < AK_COUNT; a++) {
		qcase_load(&c, aks[a], aks[a]);
		for (i = 0; i < c.sig_len; i++) {
			for (bit = 0; bit < 8; bit += 7) {
				c.sig[i] ^= (uint8_t)(1u << bit);
				rc = qcase_check(&c, NULL, &err);
				c.sig[i] ^= (uint8_t)(1u << bit);
				assert_int_not_equal(rc, IMT_OK);
				/* RSA: alg, hash, size; ECDSA: r and s sizes */
				if (i < 6 || (strcmp(aks[a], "ak-ecc") == 0 &&
					      (i == 38 || i == 39)))
					continue;
				assert_int_equal(rc, IMT_ERR_MISMATCH);
				assert_non_null(
					strstr(err.msg,
					       "signature does not verify"));
			}
		}
		qcase_free(&c);
	}
}

static void test_signature_header_errors(void **state)
{
	struct imt_error err;
	struct qcase c;

	(void)state;
	qcase_load(&c, "ak-rsa", "ak-rsa");
	c.sig[3] = 0x04; /* hash sha1 */
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_UNSUPPORTED);
	assert_non_null(strstr(err.msg, "signature hash 0x0004"));
	c.sig[3] = 0x0c; /* sha384: the signature no longer verifies */
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "signature does not verify"));
	c.sig[3] = 0x0b;
	c.sig[1] = 0x18; /* claims ECDSA, with RSA bytes */
	assert_int_not_equal(qcase_check(&c, NULL, &err), IMT_OK);
	qcase_free(&c);
}

static void test_wrong_nonce(void **state)
{
	struct imt_error err;
	struct qcase c;

	(void)state;
	qcase_load(&c, "ak-ecc", "ak-ecc");
	c.nonce[c.nonce_len - 1] ^= 1;
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
	assert_string_equal(err.msg,
			    "nonce: the quote's qualifyingData is not the nonce issued");
	c.nonce[c.nonce_len - 1] ^= 1;
	c.nonce_len--;
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
	assert_string_equal(err.msg,
			    "nonce: the quote's qualifyingData has 32 bytes, the nonce issued 31");
	c.nonce_len = 0;
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
	assert_ptr_equal(strstr(err.msg, "nonce"), err.msg);
	qcase_free(&c);
}

static void test_wrong_pcrs(void **state)
{
	struct imt_error err;
	struct qcase c;
	size_t a;

	(void)state;
	for (a = 0; a < AK_COUNT; a++) {
		qcase_load(&c, aks[a], aks[a]);
		c.pcrs.value[10][5] ^= 0x40;
		assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
		assert_ptr_equal(strstr(err.msg, "pcr digest"), err.msg);
		assert_non_null(strstr(err.msg, "PCRs 0x0007ff"));
		c.pcrs.value[10][5] ^= 0x40;
		/* PCR 11 is not quoted: its value does not matter */
		c.pcrs.value[11][0] = 0xaa;
		c.pcrs.present |= 1u << 11;
		assert_int_equal(qcase_check(&c, NULL, &err), IMT_OK);
		c.pcrs.present &= ~(1u << 3);
		assert_int_equal(qcase_check(&c, NULL, &err),
				 IMT_ERR_MALFORMED);
		assert_non_null(strstr(err.msg, "PCR 3 is selected"));
		c.pcrs.present |= 1u << 3;
		c.pcrs.algo = hash_algo_bank("sha1");
		assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
		assert_non_null(
			strstr(err.msg,
			       "pcr digest: quote selects bank 0x000b, PCR values are sha1"));
		qcase_free(&c);
	}
}

static void test_other_ak(void **state)
{
	static const struct {
		const char *quote_ak, *key_ak, *msg;
	} cases[] = {
		{ "ak-rsa2", "ak-rsa",
		  "signature does not verify with the AK" },
		{ "ak-rsa", "ak-rsa2",
		  "signature does not verify with the AK" },
		{ "ak-rsapss", "ak-rsa",
		  "signature does not verify with the AK" },
		{ "ak-rsa", "ak-ecc",
		  "signature scheme rsassa does not fit the AK's EC key" },
		{ "ak-ecc", "ak-rsa",
		  "signature scheme ecdsa does not fit the AK's RSA key" },
	};
	struct imt_error err;
	struct qcase c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		qcase_load(&c, cases[i].quote_ak, cases[i].key_ak);
		assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
		assert_string_equal(err.msg, cases[i].msg);
		qcase_free(&c);
	}
}

static void test_truncated_and_garbage(void **state)
{
	struct imt_error err;
	struct qcase c;
	uint8_t *longer;
	size_t full, i;

	(void)state;
	qcase_load(&c, "ak-rsa", "ak-rsa");
	full = c.attest_len;
	for (c.attest_len = 0; c.attest_len < full; c.attest_len++) {
		assert_int_equal(qcase_check(&c, NULL, &err),
				 IMT_ERR_MALFORMED);
		assert_non_null(strstr(err.msg, "TPMS_ATTEST"));
	}
	longer = malloc(full + 1);
	memcpy(longer, c.attest, full);
	longer[full] = 0;
	assert_int_equal(tpm_quote_check(longer, full + 1, c.sig, c.sig_len,
					 c.key, c.nonce, c.nonce_len, &c.pcrs,
					 NULL, &err),
			 IMT_ERR_MALFORMED);
	assert_string_equal(err.msg, "TPMS_ATTEST: 1 trailing bytes");
	assert_int_equal(err.offset, full);
	free(longer);

	full = c.sig_len;
	for (c.sig_len = 0; c.sig_len < full; c.sig_len++) {
		assert_int_equal(qcase_check(&c, NULL, &err),
				 IMT_ERR_MALFORMED);
		assert_non_null(strstr(err.msg, "TPMT_SIGNATURE"));
	}
	c.sig_len = full;

	/* Garbage: not TPM-generated at all. */
	for (i = 0; i < c.attest_len; i++)
		c.attest[i] = (uint8_t)(i * 37 + 11);
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
	assert_ptr_equal(strstr(err.msg, "magic"), err.msg);
	/* TPM-generated, but a certification, not a quote. */
	memcpy(c.attest, "\xff\x54\x43\x47\x80\x17", 6);
	assert_int_equal(qcase_check(&c, NULL, &err), IMT_ERR_MISMATCH);
	assert_string_equal(err.msg, "type 0x8017 is not TPM_ST_ATTEST_QUOTE");
	qcase_free(&c);
}

static void test_tpm2b_attest(void **state)
{
	const uint8_t *attest;
	struct imt_error err;
	struct qcase c;
	uint8_t *wrapped;
	size_t attest_len;

	(void)state;
	qcase_load(&c, "ak-ecc", "ak-ecc");
	wrapped = malloc(c.attest_len + 2);
	wrapped[0] = (uint8_t)(c.attest_len >> 8);
	wrapped[1] = (uint8_t)c.attest_len;
	memcpy(wrapped + 2, c.attest, c.attest_len);
	assert_int_equal(tpm_quote_unwrap(wrapped, c.attest_len + 2, &attest,
					  &attest_len, &err),
			 IMT_OK);
	assert_ptr_equal(attest, wrapped + 2);
	assert_int_equal(attest_len, c.attest_len);
	assert_int_equal(tpm_quote_check(attest, attest_len, c.sig, c.sig_len,
					 c.key, c.nonce, c.nonce_len, &c.pcrs,
					 NULL, &err),
			 IMT_OK);
	assert_int_equal(tpm_quote_unwrap(wrapped, c.attest_len + 1, &attest,
					  &attest_len, &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(tpm_quote_unwrap(wrapped, 1, &attest, &attest_len,
					  &err),
			 IMT_ERR_MALFORMED);
	free(wrapped);
	qcase_free(&c);
}

/* The steps one by one, as replay uses them. */
static void test_steps(void **state)
{
	uint8_t digest[HASH_ALGO_MAX_SIZE];
	struct imt_error err;
	struct tpm_quote q;
	uint16_t hash_alg = 0;
	struct qcase c;
	size_t len;

	(void)state;
	qcase_load(&c, "ak-rsapss", "ak-rsapss");
	assert_int_equal(tpm_quote_parse(c.attest, c.attest_len, &q, &err),
			 IMT_OK);
	assert_int_equal(tpm_quote_verify_signature(c.attest, c.attest_len,
						    c.sig, c.sig_len, c.key,
						    &hash_alg, &err),
			 IMT_OK);
	assert_int_equal(hash_alg, TPM2_ALG_SHA256);
	assert_int_equal(tpm_quote_pcr_digest(&q, &c.pcrs, hash_alg, digest,
					      &len, &err),
			 IMT_OK);
	assert_int_equal(len, 32);
	assert_memory_equal(digest, q.pcr_digest, 32);
	q.pcr_select.count = 2;
	assert_int_equal(tpm_quote_pcr_digest(&q, &c.pcrs, hash_alg, digest,
					      &len, &err),
			 IMT_ERR_UNSUPPORTED);
	q.pcr_select.count = 1;
	q.pcr_select.pcrSelections[0].pcrSelect[3] = 0x01; /* PCR 24 */
	q.pcr_select.pcrSelections[0].sizeofSelect = 4;
	assert_int_equal(tpm_quote_pcr_digest(&q, &c.pcrs, hash_alg, digest,
					      &len, &err),
			 IMT_ERR_UNSUPPORTED);
	assert_string_equal(err.msg, "pcr digest: quote selects PCR 24");
	qcase_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_quotes),
		cmocka_unit_test(test_agrees_with_tpm2_checkquote),
		cmocka_unit_test(test_flipped_attest),
		cmocka_unit_test(test_flipped_signature),
		cmocka_unit_test(test_signature_header_errors),
		cmocka_unit_test(test_wrong_nonce),
		cmocka_unit_test(test_wrong_pcrs),
		cmocka_unit_test(test_other_ak),
		cmocka_unit_test(test_truncated_and_garbage),
		cmocka_unit_test(test_tpm2b_attest),
		cmocka_unit_test(test_steps),
	};

	/* libtss2-mu warns on stderr about the malformed input we feed it. */
	setenv("TSS2_LOG", "all+none", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

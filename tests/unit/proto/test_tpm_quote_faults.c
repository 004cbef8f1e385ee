// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_tpm_quote_faults.c - every OpenSSL and TSS call on the quote path
 * failing, one at a time, at each of its calls: tpm_quote_check() on a
 * quote that verifies must then refuse it, never accept. The calls are
 * wrapped at link time (-Wl,--wrap, Makefile); a call the fixtures never
 * reach fails the test, so a wrap cannot silently stop mattering.
 *
 * An attacker cannot make OpenSSL fail at will, but a check written as
 * "if (!EVP_DigestVerify(...))" accepts the -1 OpenSSL returns for a
 * signature it could not decode, which an attacker can send: the class of
 * "error taken as success" bugs in attestation code. With the signature
 * check written "== 0" instead of "!= 1", test_tpm_quote passes and this
 * test fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "../fixture.h"

#include "tpm_public.h"
#include "tpm_quote.h"

/* The wrapped calls; each fails by returning its own error value. */
enum fn {
	F_MD_CTX_NEW,
	F_VERIFY_INIT,
	F_RSA_PADDING,
	F_PSS_SALTLEN,
	F_VERIFY,
	F_ECDSA_SIG_NEW,
	F_ECDSA_SIG_SET0,
	F_BN_BIN2BN,
	F_I2D_ECDSA_SIG,
	F_DIGEST_INIT,
	F_DIGEST_UPDATE,
	F_DIGEST_FINAL,
	F_MU_ATTEST,
	F_MU_SIGNATURE,
	F_COUNT
};

static const char *const fn_name[F_COUNT] = {
	"EVP_MD_CTX_new",
	"EVP_DigestVerifyInit",
	"EVP_PKEY_CTX_set_rsa_padding",
	"EVP_PKEY_CTX_set_rsa_pss_saltlen",
	"EVP_DigestVerify",
	"ECDSA_SIG_new",
	"ECDSA_SIG_set0",
	"BN_bin2bn",
	"i2d_ECDSA_SIG",
	"EVP_DigestInit_ex",
	"EVP_DigestUpdate",
	"EVP_DigestFinal_ex",
	"Tss2_MU_TPMS_ATTEST_Unmarshal",
	"Tss2_MU_TPMT_SIGNATURE_Unmarshal",
};

static int armed;	   /* count calls and inject only while set */
static int calls[F_COUNT]; /* calls of each while armed */
static int fault_fn = -1;  /* the call to fail, -1: none */
static int fault_at;	   /* at its fault_at-th call (from 1) */
static int fault_int;	   /* returning this, for int results */

static int hit(enum fn f)
{
	if (!armed)
		return 0;
	calls[f]++;
	return (int)f == fault_fn && calls[f] == fault_at;
}

#define WRAP(type, name, f, fail, params, args) \
	type __real_##name params; \
	type __wrap_##name params; \
	type __wrap_##name params \
	{ \
		if (hit(f)) \
			return fail; \
		return __real_##name args; \
	}

WRAP(EVP_MD_CTX *, EVP_MD_CTX_new, F_MD_CTX_NEW, NULL, (void), ())
WRAP(int, EVP_DigestVerifyInit, F_VERIFY_INIT, fault_int,
     (EVP_MD_CTX * c, EVP_PKEY_CTX **p, const EVP_MD *t, ENGINE *e,
      EVP_PKEY *k),
     (c, p, t, e, k))
WRAP(int, EVP_PKEY_CTX_set_rsa_padding, F_RSA_PADDING, fault_int,
     (EVP_PKEY_CTX * c, int m), (c, m))
WRAP(int, EVP_PKEY_CTX_set_rsa_pss_saltlen, F_PSS_SALTLEN, fault_int,
     (EVP_PKEY_CTX * c, int l), (c, l))
WRAP(int, EVP_DigestVerify, F_VERIFY, fault_int,
     (EVP_MD_CTX * c, const unsigned char *s, size_t sl, const unsigned char *t,
      size_t tl),
     (c, s, sl, t, tl))
WRAP(ECDSA_SIG *, ECDSA_SIG_new, F_ECDSA_SIG_NEW, NULL, (void), ())
WRAP(int, ECDSA_SIG_set0, F_ECDSA_SIG_SET0, 0,
     (ECDSA_SIG * s, BIGNUM *r, BIGNUM *t), (s, r, t))
WRAP(BIGNUM *, BN_bin2bn, F_BN_BIN2BN, NULL,
     (const unsigned char *s, int l, BIGNUM *r), (s, l, r))
WRAP(int, i2d_ECDSA_SIG, F_I2D_ECDSA_SIG, fault_int,
     (const ECDSA_SIG *s, unsigned char **p), (s, p))
WRAP(int, EVP_DigestInit_ex, F_DIGEST_INIT, fault_int,
     (EVP_MD_CTX * c, const EVP_MD *t, ENGINE *e), (c, t, e))
WRAP(int, EVP_DigestUpdate, F_DIGEST_UPDATE, fault_int,
     (EVP_MD_CTX * c, const void *d, size_t n), (c, d, n))
WRAP(int, EVP_DigestFinal_ex, F_DIGEST_FINAL, fault_int,
     (EVP_MD_CTX * c, unsigned char *m, unsigned int *s), (c, m, s))
WRAP(TSS2_RC, Tss2_MU_TPMS_ATTEST_Unmarshal, F_MU_ATTEST,
     TSS2_MU_RC_INSUFFICIENT_BUFFER,
     (uint8_t const b[], size_t n, size_t *o, TPMS_ATTEST *d), (b, n, o, d))
WRAP(TSS2_RC, Tss2_MU_TPMT_SIGNATURE_Unmarshal, F_MU_SIGNATURE,
     TSS2_MU_RC_INSUFFICIENT_BUFFER,
     (uint8_t const b[], size_t n, size_t *o, TPMT_SIGNATURE *d), (b, n, o, d))

/* One fixture quote (tests/fixtures/tpm) and what checking it needs. */
struct qcase {
	uint8_t *attest, *sig, *nonce;
	size_t attest_len, sig_len, nonce_len;
	EVP_PKEY *key;
	struct pcr_set pcrs;
};

static uint8_t *load(const char *name, size_t *len)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "tpm/%s", name);
	return fixture_read(rel, len);
}

static void qcase_load(struct qcase *c, const char *ak)
{
	struct imt_error err;
	TPMT_PUBLIC pub;
	char name[96];
	uint8_t *text, *buf;
	size_t len;

	snprintf(name, sizeof(name), "quote-%s.msg", ak);
	c->attest = load(name, &c->attest_len);
	snprintf(name, sizeof(name), "quote-%s.sig", ak);
	c->sig = load(name, &c->sig_len);
	c->nonce = load("nonce.bin", &c->nonce_len);
	snprintf(name, sizeof(name), "%s.pub", ak);
	buf = load(name, &len);
	assert_int_equal(tpm_public_parse(buf, len, &pub, &err), IMT_OK);
	assert_int_equal(tpm_public_to_pkey(&pub, &c->key, &err), IMT_OK);
	free(buf);
	text = load("pcrs-sha256.txt", &len);
	pcr_set_init(&c->pcrs, hash_algo_bank("sha256"));
	assert_int_equal(pcr_set_parse_text(&c->pcrs, (const char *)text, len,
					    &err),
			 IMT_OK);
	free(text);
}

static void qcase_free(struct qcase *c)
{
	free(c->attest);
	free(c->sig);
	free(c->nonce);
	EVP_PKEY_free(c->key);
}

static enum imt_result check(const struct qcase *c)
{
	struct imt_error err;
	struct tpm_quote q;
	enum imt_result r;

	memset(calls, 0, sizeof(calls));
	armed = 1;
	r = tpm_quote_check(c->attest, c->attest_len, c->sig, c->sig_len,
			    c->key, c->nonce, c->nonce_len, &c->pcrs, &q, &err);
	armed = 0;
	return r;
}

/* Each call of each wrapped function, failing in each way it can. */
static void test_every_fault_refuses(void **state)
{
	static const char *const aks[] = {
		"ak-rsa",
		"ak-rsa2",
		"ak-rsapss",
		"ak-ecc",
	};
	static const int int_faults[] = { 0, -1 };
	int reached[F_COUNT] = { 0 }, clean[F_COUNT];
	int f, k, v, injected = 0;
	struct qcase c;
	size_t a;

	(void)state;
	for (a = 0; a < sizeof(aks) / sizeof(aks[0]); a++) {
		qcase_load(&c, aks[a]);
		fault_fn = -1;
		assert_int_equal(check(&c), IMT_OK);
		memcpy(clean, calls, sizeof(clean));
		for (f = 0; f < F_COUNT; f++) {
			reached[f] += clean[f];
			for (k = 1; k <= clean[f]; k++)
				for (v = 0; v < 2; v++) {
					fault_fn = f;
					fault_at = k;
					fault_int = int_faults[v];
					if (check(&c) == IMT_OK)
						fail_msg("%s: %s failing (%d) "
							 "at call %d: accepted",
							 aks[a], fn_name[f],
							 fault_int, k);
					injected++;
				}
		}
		fault_fn = -1;
		qcase_free(&c);
	}
	for (f = 0; f < F_COUNT; f++)
		if (reached[f] == 0)
			fail_msg("%s: never called on the quote path",
				 fn_name[f]);
	print_message("%d faults injected, each refused\n", injected);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fault_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

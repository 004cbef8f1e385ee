// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_tpm_check.c - drive agent/tpm.c against a real TPM (swtpm) for
 * tests/integration/test_agent_tpm.sh.
 *
 *   agent_tpm_check ek ALG OUTDIR
 *   agent_tpm_check ak EKALG AKALG STATEDIR OUTDIR
 *   agent_tpm_check quote EKALG AKALG STATEDIR BANK MASK NONCE OUTDIR
 *   agent_tpm_check activate EKALG AKALG STATEDIR CREDFILE SECRETFILE
 *   agent_tpm_check softcred EKALG AKALG STATEDIR
 *   agent_tpm_check extend EKALG AKALG STATEDIR PCR HEX1 HEX256
 *   agent_tpm_check status CMD EXPECTED [ALG]
 *
 * The TPM is the TCTI in $TPM2TOOLS_TCTI (the swtpm the script started).
 * ALG is "rsa" or "ecc"; MASK a hex PCR mask; NONCE hex. Each command
 * opens the TPM, checks what it can check itself (with OpenSSL and
 * libtss2-mu, independently of the code under test, and with proto/'s
 * verifier code as a cross-check), writes files for tpm2-tools to check,
 * prints "key: value" facts on stdout and closes the TPM again (swtpm
 * serves one connection at a time). Exit status: 0 all checks passed,
 * 1 a check failed, 2 usage or I/O error.
 *
 * Linked with -Wl,--wrap=Esys_Quote: with AGENT_TPM_RACE=N set, the
 * first N quotes are preceded by an extend of PCR 10, as if the kernel
 * measured a file between the agent's PCR reads and its quote. With
 * AGENT_TPM_RESOLVE=1 too, `quote` uses tpm_quote_resolved() with a
 * resolver that knows that extend, as the agent's replay of its list
 * knows the kernel's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>

#include "hex.h"
#include "log.h"
#include "tpm.h"
#include "tpm_credential.h"
#include "tpm_public.h"
#include "tpm_quote.h"

#define FILE_MAX 8192 /* every file here is a few hundred bytes */

/* Failing checks print why on stderr and make the exit status 1. */
static int failed;

static void __attribute__((format(printf, 1, 2)))
check_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "check failed: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	failed = 1;
}

TSS2_RC __real_Esys_Quote(ESYS_CONTEXT *ctx, ESYS_TR key, ESYS_TR s1,
			  ESYS_TR s2, ESYS_TR s3, const TPM2B_DATA *data,
			  const TPMT_SIG_SCHEME *scheme,
			  const TPML_PCR_SELECTION *sel, TPM2B_ATTEST **quoted,
			  TPMT_SIGNATURE **sig);
TSS2_RC __wrap_Esys_Quote(ESYS_CONTEXT *ctx, ESYS_TR key, ESYS_TR s1,
			  ESYS_TR s2, ESYS_TR s3, const TPM2B_DATA *data,
			  const TPMT_SIG_SCHEME *scheme,
			  const TPML_PCR_SELECTION *sel, TPM2B_ATTEST **quoted,
			  TPMT_SIGNATURE **sig);

static uint8_t race_digest[32]; /* the last extend of the race */

/*
 * The resolver a caller of tpm_quote_resolved() brings: PCR 10 after the
 * race's extend, if that is what the quote covers (SHA-256 banks only).
 */
static int resolve_race(void *arg, struct tpm_evidence_quote *q)
{
	uint8_t buf[64], *pcr10 = q->pcrs.value[10];
	struct tpm_quote quote;
	unsigned int len;

	(void)arg;
	memcpy(buf, pcr10, 32);
	memcpy(buf + 32, race_digest, 32);
	if (q->pcrs.algo != hash_algo_bank("sha256") ||
	    EVP_Digest(buf, sizeof(buf), pcr10, &len, EVP_sha256(), NULL) !=
		    1 ||
	    tpm_quote_parse(q->attest, q->attest_len, &quote, NULL) != IMT_OK ||
	    tpm_quote_check_pcrs(&quote, TPM2_ALG_SHA256, &q->pcrs, NULL) !=
		    IMT_OK)
		return -1;
	printf("race: resolved\n");
	return 0;
}

/* The race agent/tpm.c must survive: a PCR moves just before the quote. */
TSS2_RC __wrap_Esys_Quote(ESYS_CONTEXT *ctx, ESYS_TR key, ESYS_TR s1,
			  ESYS_TR s2, ESYS_TR s3, const TPM2B_DATA *data,
			  const TPMT_SIG_SCHEME *scheme,
			  const TPML_PCR_SELECTION *sel, TPM2B_ATTEST **quoted,
			  TPMT_SIGNATURE **sig)
{
	static int left = -1;
	TPML_DIGEST_VALUES dv = { .count = 1 };
	const char *env;

	if (left < 0) {
		env = getenv("AGENT_TPM_RACE");
		left = env ? atoi(env) : 0;
	}
	if (left > 0) {
		left--;
		dv.digests[0].hashAlg = TPM2_ALG_SHA256;
		RAND_bytes(dv.digests[0].digest.sha256, 32);
		memcpy(race_digest, dv.digests[0].digest.sha256, 32);
		if (Esys_PCR_Extend(ctx, ESYS_TR_PCR0 + 10, ESYS_TR_PASSWORD,
				    ESYS_TR_NONE, ESYS_TR_NONE,
				    &dv) != TSS2_RC_SUCCESS)
			check_fail("race: PCR_Extend");
		printf("race: extended PCR 10 before the quote\n");
	}
	return __real_Esys_Quote(ctx, key, s1, s2, s3, data, scheme, sel,
				 quoted, sig);
}

static int parse_alg(const char *s, enum tpm_key_alg *alg)
{
	if (strcmp(s, "rsa") == 0)
		*alg = TPM_KEY_RSA;
	else if (strcmp(s, "ecc") == 0)
		*alg = TPM_KEY_ECC;
	else
		return -1;
	return 0;
}

static int write_file(const char *dir, const char *name, const void *buf,
		      size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	return 0;
}

static long read_file(const char *path, uint8_t *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	n = fread(buf, 1, max, f);
	fclose(f);
	return (long)n;
}

static void print_hex(const char *key, const uint8_t *buf, size_t len)
{
	char hex[2 * TPM_BLOB_MAX + 1];

	hex_encode(buf, len, hex);
	printf("%s: %s\n", key, hex);
}

static const char *tcti(void)
{
	return getenv("TPM2TOOLS_TCTI");
}

/* Open the TPM and load EK and (unless @ak is NULL) the AK. */
static int open_keys(enum tpm_key_alg ekalg, enum tpm_key_alg akalg,
		     const char *statedir, struct tpm **t, struct tpm_ek *ek,
		     struct tpm_ak *ak)
{
	enum tpm_status st;

	st = tpm_open(tcti(), t);
	if (st != TPM_OK) {
		check_fail("tpm_open: %s", tpm_status_name(st));
		return -1;
	}
	st = tpm_ek_load(*t, ekalg, ek);
	if (st != TPM_OK) {
		check_fail("tpm_ek_load: %s", tpm_status_name(st));
		return -1;
	}
	if (!ak)
		return 0;
	st = tpm_ak_load(*t, statedir, akalg, ak);
	if (st != TPM_OK) {
		check_fail("tpm_ak_load: %s", tpm_status_name(st));
		return -1;
	}
	return 0;
}

/* Does the certificate's key equal the EK public area's, byte for byte? */
static int cert_key_matches(const uint8_t *der, size_t len,
			    const TPMT_PUBLIC *pub)
{
	const unsigned char *p = der;
	uint8_t buf[600], want[600];
	size_t got_len = 0, want_len;
	EVP_PKEY *pkey = NULL;
	BIGNUM *n = NULL;
	X509 *x;
	int ok = 0;

	x = d2i_X509(NULL, &p, (long)len);
	if (!x || p != der + len) {
		check_fail("EK certificate does not parse as DER X.509");
		goto out;
	}
	pkey = X509_get_pubkey(x);
	if (!pkey)
		goto out;
	if (pub->type == TPM2_ALG_RSA) {
		want_len = pub->unique.rsa.size;
		memcpy(want, pub->unique.rsa.buffer, want_len);
		if (!EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n) ||
		    BN_num_bytes(n) != (int)want_len)
			goto out;
		got_len = (size_t)BN_bn2bin(n, buf);
	} else {
		want[0] = 0x04; /* uncompressed point: 04 || x || y */
		memcpy(want + 1, pub->unique.ecc.x.buffer,
		       pub->unique.ecc.x.size);
		memcpy(want + 1 + pub->unique.ecc.x.size,
		       pub->unique.ecc.y.buffer, pub->unique.ecc.y.size);
		want_len = 1 + pub->unique.ecc.x.size + pub->unique.ecc.y.size;
		if (!EVP_PKEY_get_octet_string_param(pkey,
						     OSSL_PKEY_PARAM_PUB_KEY,
						     buf, sizeof(buf),
						     &got_len))
			goto out;
	}
	ok = got_len == want_len && memcmp(buf, want, want_len) == 0;
out:
	BN_free(n);
	EVP_PKEY_free(pkey);
	X509_free(x);
	return ok;
}

static int unmarshal_public(const uint8_t *buf, size_t len, TPMT_PUBLIC *pub)
{
	TPM2B_PUBLIC p2b = { 0 };
	size_t off = 0;

	if (Tss2_MU_TPM2B_PUBLIC_Unmarshal(buf, len, &off, &p2b) !=
		    TSS2_RC_SUCCESS ||
	    off != len)
		return -1;
	*pub = p2b.publicArea;
	return 0;
}

static int cmd_ek(char **argv)
{
	enum tpm_key_alg alg;
	struct tpm_ek ek;
	struct tpm *t = NULL;
	TPMT_PUBLIC pub;

	if (parse_alg(argv[0], &alg) < 0)
		return 2;
	if (open_keys(alg, alg, NULL, &t, &ek, NULL) < 0)
		goto out;
	if (write_file(argv[1], "ek.pub", ek.pub, ek.pub_len) < 0)
		goto out;
	if (unmarshal_public(ek.pub, ek.pub_len, &pub) < 0) {
		check_fail("EK public does not unmarshal");
		goto out;
	}
	if (!(pub.objectAttributes & TPMA_OBJECT_RESTRICTED) ||
	    !(pub.objectAttributes & TPMA_OBJECT_DECRYPT) ||
	    (pub.objectAttributes & TPMA_OBJECT_USERWITHAUTH) ||
	    pub.authPolicy.size != 32)
		check_fail("EK attributes or policy are not the profile's");
	printf("ek-type: %s\n", pub.type == TPM2_ALG_RSA ? "rsa" : "ecc");
	printf("ek-cert-bytes: %zu\n", ek.cert_len);
	if (ek.cert_len > 0) {
		if (write_file(argv[1], "ek.der", ek.cert, ek.cert_len) < 0)
			goto out;
		if (cert_key_matches(ek.cert, ek.cert_len, &pub))
			printf("ek-cert-key: matches\n");
		else
			check_fail("EK certificate key differs from the EK");
	}
out:
	tpm_close(t);
	return failed;
}

/* The AK public area as PEM for tpm2_checkquote, via proto/tpm_public.c. */
static int write_ak_pem(const char *dir, const struct tpm_ak *ak)
{
	char path[4096];
	struct imt_error err;
	EVP_PKEY *pkey = NULL;
	TPMT_PUBLIC pub;
	FILE *f;
	int ret = -1;

	if (tpm_public_parse(ak->pub, ak->pub_len, &pub, &err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &pkey, &err) != IMT_OK) {
		check_fail("proto cannot read the AK public: %s", err.msg);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/ak.pem", dir);
	f = fopen(path, "w");
	if (f && PEM_write_PUBKEY(f, pkey) == 1 && fclose(f) == 0)
		ret = 0;
	else
		perror(path);
	EVP_PKEY_free(pkey);
	return ret;
}

static int cmd_ak(char **argv)
{
	enum tpm_key_alg ekalg, akalg;
	uint8_t name[TPM_NAME_MAX];
	size_t name_len;
	struct imt_error err;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t = NULL;
	TPMT_PUBLIC pub;

	if (parse_alg(argv[0], &ekalg) < 0 || parse_alg(argv[1], &akalg) < 0)
		return 2;
	if (open_keys(ekalg, akalg, argv[2], &t, &ek, &ak) < 0)
		goto out;
	printf("ak-created: %d\n", ak.created);
	print_hex("ak-name", ak.name, ak.name_len);
	if (write_file(argv[3], "ak.pub", ak.pub, ak.pub_len) < 0 ||
	    write_file(argv[3], "ak.name", ak.name, ak.name_len) < 0 ||
	    write_ak_pem(argv[3], &ak) < 0) {
		failed = 1;
		goto out;
	}
	/* the Name the verifier will compute must be the TPM's */
	if (tpm_public_parse(ak.pub, ak.pub_len, &pub, &err) != IMT_OK ||
	    tpm_public_name(&pub, name, &name_len, &err) != IMT_OK ||
	    name_len != ak.name_len || memcmp(name, ak.name, name_len) != 0)
		check_fail("proto's AK Name differs from the TPM's");
	if (tpm_public_check_ak(&pub, &err) != IMT_OK)
		check_fail("proto rejects the AK: %s", err.msg);
out:
	tpm_close(t);
	return failed;
}

/* The checks a verifier makes, done here with libtss2-mu and OpenSSL. */
static void check_attest(const struct tpm_evidence_quote *q,
			 const struct hash_algo *bank, uint32_t mask,
			 const uint8_t *nonce, size_t nonce_len)
{
	TPMS_ATTEST a;
	TPMS_PCR_SELECTION *s;
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int md_len = 0, i;
	uint32_t sel = 0;
	EVP_MD_CTX *ctx;
	size_t off = 0;

	memset(&a, 0, sizeof(a));
	if (Tss2_MU_TPMS_ATTEST_Unmarshal(q->attest, q->attest_len, &off, &a) !=
		    TSS2_RC_SUCCESS ||
	    off != q->attest_len) {
		check_fail("TPMS_ATTEST does not unmarshal");
		return;
	}
	if (a.magic != TPM2_GENERATED_VALUE || a.type != TPM2_ST_ATTEST_QUOTE)
		check_fail("not a TPM-generated quote");
	if (a.extraData.size != nonce_len ||
	    memcmp(a.extraData.buffer, nonce, nonce_len) != 0)
		check_fail("qualifyingData is not the nonce");
	if (a.attested.quote.pcrSelect.count != 1) {
		check_fail("quote selects %u banks",
			   a.attested.quote.pcrSelect.count);
		return;
	}
	s = &a.attested.quote.pcrSelect.pcrSelections[0];
	for (i = 0; i < s->sizeofSelect && i < 4; i++)
		sel |= (uint32_t)s->pcrSelect[i] << (8 * i);
	if (s->hash != bank->tpm_alg || sel != mask)
		check_fail("quote selects 0x%x of bank 0x%x", sel, s->hash);
	if (q->pcrs.present != mask)
		check_fail("PCR values for 0x%x, quoted 0x%x", q->pcrs.present,
			   mask);
	/* the AKs here sign with SHA-256, which is the pcrDigest hash */
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	for (i = 0; i < PCR_SET_COUNT; i++)
		if (mask & (1u << i))
			EVP_DigestUpdate(ctx, q->pcrs.value[i], bank->size);
	EVP_DigestFinal_ex(ctx, md, &md_len);
	if (a.attested.quote.pcrDigest.size != md_len ||
	    memcmp(a.attested.quote.pcrDigest.buffer, md, md_len) != 0)
		check_fail("pcrDigest does not match the PCR values");
	else
		printf("pcr-digest: matches\n");
	printf("reset-count: %u\nrestart-count: %u\n", a.clockInfo.resetCount,
	       a.clockInfo.restartCount);
out:
	EVP_MD_CTX_free(ctx);
}

/* proto/tpm_quote.c, the verifier's check, must accept the same quote. */
static void cross_check_quote(const struct tpm_evidence_quote *q,
			      const struct tpm_ak *ak, const uint8_t *nonce,
			      size_t nonce_len)
{
	struct imt_error err;
	EVP_PKEY *pkey = NULL;
	TPMT_PUBLIC pub;

	if (tpm_public_parse(ak->pub, ak->pub_len, &pub, &err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &pkey, &err) != IMT_OK ||
	    tpm_quote_check(q->attest, q->attest_len, q->sig, q->sig_len, pkey,
			    nonce, nonce_len, &q->pcrs, NULL, &err) != IMT_OK)
		check_fail("proto tpm_quote_check: %s", err.msg);
	else
		printf("proto-quote-check: ok\n");
	EVP_PKEY_free(pkey);
}

static int write_pcrs(const char *dir, const struct pcr_set *pcrs)
{
	char hex[2 * HASH_ALGO_MAX_SIZE + 1], path[4096];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/pcrs.txt", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	for (i = 0; i < PCR_SET_COUNT; i++) {
		if (!(pcrs->present & (1u << i)))
			continue;
		hex_encode(pcrs->value[i], pcrs->algo->size, hex);
		fprintf(f, "%u %s\n", i, hex);
	}
	return fclose(f);
}

static int cmd_quote(char **argv)
{
	enum tpm_key_alg ekalg, akalg;
	uint8_t nonce[TPM_NONCE_MAX];
	const struct hash_algo *bank;
	struct tpm_evidence_quote q;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t = NULL;
	enum tpm_status st;
	uint32_t mask;
	long nonce_len;

	if (parse_alg(argv[0], &ekalg) < 0 || parse_alg(argv[1], &akalg) < 0)
		return 2;
	bank = hash_algo_bank(argv[3]);
	mask = (uint32_t)strtoul(argv[4], NULL, 16);
	nonce_len = hex_decode(argv[5], strlen(argv[5]), nonce, sizeof(nonce));
	if (!bank || nonce_len < 0)
		return 2;
	if (open_keys(ekalg, akalg, argv[2], &t, &ek, &ak) < 0)
		goto out;
	st = tpm_quote_resolved(t, bank, mask, nonce, (size_t)nonce_len,
				getenv("AGENT_TPM_RESOLVE") ? resolve_race :
							      NULL,
				NULL, &q);
	if (st != TPM_OK) {
		check_fail("tpm_quote: %s", tpm_status_name(st));
		goto out;
	}
	if (write_file(argv[6], "quote.msg", q.attest, q.attest_len) < 0 ||
	    write_file(argv[6], "quote.sig", q.sig, q.sig_len) < 0 ||
	    write_pcrs(argv[6], &q.pcrs) < 0) {
		failed = 1;
		goto out;
	}
	check_attest(&q, bank, mask, nonce, (size_t)nonce_len);
	cross_check_quote(&q, &ak, nonce, (size_t)nonce_len);
out:
	tpm_close(t);
	return failed;
}

/* Activate and compare with the expected secret. */
static void activate(struct tpm *t, const uint8_t *cred, size_t cred_len,
		     const uint8_t *enc, size_t enc_len, const uint8_t *want,
		     size_t want_len)
{
	uint8_t got[TPM_SECRET_MAX];
	size_t got_len;
	enum tpm_status st;

	st = tpm_activate_credential(t, cred, cred_len, enc, enc_len, got,
				     &got_len);
	if (st != TPM_OK)
		check_fail("tpm_activate_credential: %s", tpm_status_name(st));
	else if (got_len != want_len || memcmp(got, want, want_len) != 0)
		check_fail("recovered secret differs");
	else
		printf("secret: recovered\n");
	explicit_bzero(got, sizeof(got));
}

/* CREDFILE is tpm2_makecredential's: 0xBADCC0DE, version 1, two TPM2Bs. */
static int cmd_activate(char **argv)
{
	static const uint8_t magic[8] = { 0xba, 0xdc, 0xc0, 0xde, 0, 0, 0, 1 };
	uint8_t buf[FILE_MAX], want[FILE_MAX];
	enum tpm_key_alg ekalg, akalg;
	size_t len, off = sizeof(magic), mid;
	long n, want_len;
	TPM2B_ID_OBJECT id;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t = NULL;

	if (parse_alg(argv[0], &ekalg) < 0 || parse_alg(argv[1], &akalg) < 0)
		return 2;
	n = read_file(argv[3], buf, sizeof(buf));
	want_len = read_file(argv[4], want, sizeof(want));
	if (n < (long)sizeof(magic) || want_len < 0 ||
	    memcmp(buf, magic, sizeof(magic)) != 0) {
		fprintf(stderr, "%s: not a tpm2-tools credential\n", argv[3]);
		return 2;
	}
	len = (size_t)n;
	/* find where the TPM2B_ID_OBJECT ends: the secret starts there */
	if (Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(buf, len, &off, &id) !=
	    TSS2_RC_SUCCESS)
		return 2;
	mid = off;
	if (open_keys(ekalg, akalg, argv[2], &t, &ek, &ak) < 0)
		goto out;
	activate(t, buf + sizeof(magic), mid - sizeof(magic), buf + mid,
		 len - mid, want, (size_t)want_len);
out:
	tpm_close(t);
	return failed;
}

/* Software MakeCredential (proto/tpm_credential.c) to the real TPM. */
static int cmd_softcred(char **argv)
{
	enum tpm_key_alg ekalg, akalg;
	struct tpm_credential cred;
	uint8_t secret[32], got[TPM_SECRET_MAX];
	size_t got_len;
	struct imt_error err;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t = NULL;
	TPMT_PUBLIC ekpub;

	if (parse_alg(argv[0], &ekalg) < 0 || parse_alg(argv[1], &akalg) < 0)
		return 2;
	if (open_keys(ekalg, akalg, argv[2], &t, &ek, &ak) < 0)
		goto out;
	if (RAND_bytes(secret, sizeof(secret)) != 1 ||
	    tpm_public_parse(ek.pub, ek.pub_len, &ekpub, &err) != IMT_OK ||
	    tpm_credential_make(&ekpub, ak.name, ak.name_len, secret,
				sizeof(secret), &cred, &err) != IMT_OK) {
		check_fail("proto tpm_credential_make: %s", err.msg);
		goto out;
	}
	activate(t, cred.id_object, cred.id_object_len, cred.secret,
		 cred.secret_len, secret, sizeof(secret));
	/* a credential whose integrity HMAC does not verify must not open */
	cred.id_object[cred.id_object_len - 1] ^= 1;
	if (tpm_activate_credential(t, cred.id_object, cred.id_object_len,
				    cred.secret, cred.secret_len, got,
				    &got_len) == TPM_OK)
		check_fail("a tampered credential was activated");
	else
		printf("tampered: refused\n");
out:
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(got, sizeof(got));
	tpm_close(t);
	return failed;
}

/* Read one PCR of @bank through a quote (its values are checked too). */
static int quoted_pcr(struct tpm *t, const struct hash_algo *bank,
		      unsigned int pcr, uint8_t *out)
{
	static const uint8_t nonce[4] = { 1, 2, 3, 4 };
	struct tpm_evidence_quote q;

	if (tpm_quote(t, bank, 1u << pcr, nonce, sizeof(nonce), &q) != TPM_OK) {
		check_fail("tpm_quote of PCR %u", pcr);
		return -1;
	}
	memcpy(out, q.pcrs.value[pcr], bank->size);
	return 0;
}

/* Extend PCR in sha1 and sha256; each must become H(old || digest). */
static int cmd_extend(char **argv)
{
	uint8_t old[2][HASH_ALGO_MAX_SIZE], now[HASH_ALGO_MAX_SIZE];
	uint8_t md[EVP_MAX_MD_SIZE], in[2 * HASH_ALGO_MAX_SIZE];
	enum tpm_key_alg ekalg, akalg;
	struct tpm_digest d[2];
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct tpm *t = NULL;
	unsigned int pcr, i, md_len;
	size_t sz;

	if (parse_alg(argv[0], &ekalg) < 0 || parse_alg(argv[1], &akalg) < 0)
		return 2;
	pcr = (unsigned int)strtoul(argv[3], NULL, 10);
	d[0].algo = hash_algo_bank("sha1");
	d[1].algo = hash_algo_bank("sha256");
	for (i = 0; i < 2; i++)
		if (!d[i].algo ||
		    hex_decode(argv[4 + i], strlen(argv[4 + i]), d[i].value,
			       d[i].algo->size) != (long)d[i].algo->size)
			return 2;
	if (pcr >= PCR_SET_COUNT)
		return 2;
	if (open_keys(ekalg, akalg, argv[2], &t, &ek, &ak) < 0)
		goto out;
	for (i = 0; i < 2; i++)
		if (quoted_pcr(t, d[i].algo, pcr, old[i]) < 0)
			goto out;
	if (tpm_pcr_extend(t, pcr, d, 2) != TPM_OK) {
		check_fail("tpm_pcr_extend");
		goto out;
	}
	for (i = 0; i < 2; i++) {
		sz = d[i].algo->size;
		if (quoted_pcr(t, d[i].algo, pcr, now) < 0)
			goto out;
		memcpy(in, old[i], sz);
		memcpy(in + sz, d[i].value, sz);
		EVP_Digest(in, 2 * sz, md, &md_len,
			   EVP_get_digestbyname(d[i].algo->name), NULL);
		if (md_len != sz || memcmp(now, md, sz) != 0)
			check_fail("%s PCR %u did not extend as expected",
				   d[i].algo->name, pcr);
		print_hex(d[i].algo->name, now, sz);
	}
out:
	tpm_close(t);
	return failed;
}

/*
 * "status CMD EXPECTED [ALG]": the enum tpm_status a step returns.
 * CMD "open" opens the TPM; "ek" also loads the EK of ALG.
 */
static int cmd_status(char **argv)
{
	enum tpm_key_alg alg = TPM_KEY_RSA;
	enum tpm_status st;
	struct tpm_ek ek;
	struct tpm *t = NULL;

	if (argv[2] && parse_alg(argv[2], &alg) < 0)
		return 2;
	st = tpm_open(tcti(), &t);
	if (st == TPM_OK && strcmp(argv[0], "ek") == 0)
		st = tpm_ek_load(t, alg, &ek);
	tpm_close(t);
	printf("status: %s\n", tpm_status_name(st));
	if (strcmp(tpm_status_name(st), argv[1]) != 0)
		check_fail("status %s, expected %s", tpm_status_name(st),
			   argv[1]);
	return failed;
}

static const struct {
	const char *name;
	int argc; /* at least, after the command name */
	int (*run)(char **argv);
} cmds[] = {
	{ "ek", 2, cmd_ek },
	{ "ak", 4, cmd_ak },
	{ "quote", 7, cmd_quote },
	{ "activate", 5, cmd_activate },
	{ "softcred", 3, cmd_softcred },
	{ "extend", 6, cmd_extend },
	{ "status", 2, cmd_status },
};

int main(int argc, char **argv)
{
	size_t i;

	log_init("agent_tpm_check", getenv("AGENT_TPM_DEBUG") != NULL);
	for (i = 0; argc > 1 && i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name) != 0)
			continue;
		if (argc - 2 < cmds[i].argc)
			break;
		return cmds[i].run(argv + 2);
	}
	fprintf(stderr, "usage: see the comment at the top of %s\n", __FILE__);
	return 2;
}

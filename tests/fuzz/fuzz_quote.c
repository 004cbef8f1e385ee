// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_quote.c - libFuzzer target: tpm_quote_check() and its steps, past
 * the signature.
 *
 * The first byte picks a mode:
 *  - soft (0-3): a TPMS_ATTEST shaped by the input (nonce, clock,
 *    selection, PCR values, digest, and which fields deviate from a valid
 *    quote), written by hand and signed by a software AK of that kind
 *    (RSASSA, RSA-PSS, ECDSA P-256, P-384), so the nonce, PCR digest and
 *    selection checks run on signed data;
 *  - fixture (4-7): a real swtpm quote of tests/fixtures/tpm/ with its
 *    real AK, nonce and PCRs, and a few bytes changed by the input;
 *  - raw (8): the input is the TPMS_ATTEST and TPMT_SIGNATURE.
 * Oracles: a quote built valid must pass; one whose signed bytes, nonce,
 * digest or signature were changed, or checked with another key, must
 * not. Either way the harness aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_tpm2_types.h>

#include "fz_fixture.h"
#include "fz_input.h"
#include "fz_keys.h"
#include "fz_public.h"
#include "fz_tpm.h"
#include "hex.h"
#include "tpm_public.h"
#include "tpm_quote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ATTEST_MAX 1024
#define ALL_PCRS 0x7ffu /* what a verifier asks: PCRs 0-10 */

/* What the input may make deviate from a valid quote, one bit each. */
enum {
	M_BANK = 1 << 0,      /* a bank other than sha256 */
	M_PRESENT = 1 << 1,   /* PCR values given: not 0-10 */
	M_SEL = 1 << 2,	      /* the selection list, free */
	M_HASH = 1 << 3,      /* the signature's hash, free */
	M_DIGEST = 1 << 4,    /* pcrDigest changed after computing it */
	M_NONCE = 1 << 5,     /* extraData is not the nonce expected */
	M_MAGIC = 1 << 6,     /* magic or type */
	M_SIGNER = 1 << 7,    /* qualifiedSigner */
	M_TRAIL = 1 << 8,     /* attest bytes cut or extended before signing */
	M_SCHEME = 1 << 9,    /* sigAlg, free */
	M_POSTFLIP = 1 << 10, /* a signed byte changed after signing */
	M_SIGFLIP = 1 << 11,  /* a signature byte changed */
	M_SIGTRAIL = 1 << 12, /* signature cut or extended */
	M_OTHERKEY = 1 << 13, /* verified with another key */
	M_VALUES = 1 << 14,   /* PCR values from the input, not a pattern */
	M_STORED = 1 << 15,   /* the AK as stored: its TPM2B_PUBLIC, changed */
};

#define M_INVALID \
	(M_DIGEST | M_NONCE | M_MAGIC | M_TRAIL | M_POSTFLIP | M_SIGFLIP | \
	 M_SIGTRAIL | M_OTHERKEY)
#define M_MUST_FAIL (M_POSTFLIP | M_SIGFLIP | M_OTHERKEY)

static const char *const banks[] = { "sha256", "sha1", "sha384", "sha512" };
static const uint16_t schemes[] = {
	TPM2_ALG_RSASSA, TPM2_ALG_RSAPSS, TPM2_ALG_ECDSA,     TPM2_ALG_HMAC,
	TPM2_ALG_NULL,	 TPM2_ALG_SM2,	  TPM2_ALG_ECSCHNORR, TPM2_ALG_ECDAA,
};

static void check_fail(const char *what, const struct imt_error *err)
{
	fprintf(stderr, "fuzz_quote: %s (%s)\n", what, err->msg);
	abort();
}

/* The PCR values the agent sends: bank, which PCRs, their values. */
static void make_pcrs(struct fz_in *in, unsigned int mut, struct pcr_set *pcrs)
{
	const struct hash_algo *bank =
		hash_algo_bank(mut & M_BANK ? FZ_PICK(in, banks) : "sha256");
	uint8_t seed = fz_u8(in);
	int i;

	pcr_set_init(pcrs, bank);
	pcrs->present = mut & M_PRESENT ? fz_u32(in) & 0xffffff : ALL_PCRS;
	for (i = 0; i < PCR_SET_COUNT; i++) {
		if (!(pcrs->present & (1u << i)))
			continue;
		if (mut & M_VALUES)
			fz_bytes(in, pcrs->value[i], bank->size);
		else
			memset(pcrs->value[i], (uint8_t)(seed + i), bank->size);
	}
}

/* The selection: sha256-style PCRs 0-10 of @bank, or anything. */
static uint32_t make_selection(struct fz_in *in, unsigned int mut,
			       const struct hash_algo *bank,
			       struct fz_attest *a)
{
	uint32_t mask = 0;
	size_t i;

	a->nsel = 1;
	a->sel[0].hash = bank->tpm_alg;
	a->sel[0].size = 3;
	a->sel[0].select[0] = 0xff;
	a->sel[0].select[1] = 0x07;
	if (mut & M_SEL) {
		a->nsel = (uint32_t)fz_range(in, 0, FZ_SEL_MAX + 1);
		for (i = 0; i < FZ_SEL_MAX; i++) {
			a->sel[i].hash = fz_u8(in) & 1 ?
						 bank->tpm_alg :
						 fz_hash_ids[fz_u8(in) %
							     fz_hash_id_count];
			a->sel[i].size =
				(uint8_t)fz_range(in, 0, FZ_SEL_BYTES + 1);
			fz_bytes(in, a->sel[i].select, FZ_SEL_BYTES);
		}
	}
	/* the PCRs of the first bank, as the TPM would hash them */
	if (a->nsel == 0)
		return 0;
	for (i = 0; i < 4 && i < a->sel[0].size; i++)
		mask |= (uint32_t)a->sel[0].select[i] << (8 * i);
	return mask;
}

/* Would a TPM and an honest agent produce this? (for the oracle) */
static int selection_valid(const struct fz_attest *a,
			   const struct pcr_set *pcrs, uint32_t mask)
{
	return a->nsel == 1 && a->sel[0].hash == pcrs->algo->tpm_alg &&
	       a->sel[0].size <= 4 && mask < (1u << PCR_SET_COUNT) &&
	       (mask & ~pcrs->present) == 0;
}

/*
 * The AK as the verifier holds it: the TPM2B_PUBLIC stored at enrollment,
 * parsed and imported for each quote (attest.c). The input may change it
 * first (then *@valid is cleared: the key may no longer be the signer's).
 */
static EVP_PKEY *stored_key(struct fz_in *in, const struct fz_key *k,
			    int *valid)
{
	uint8_t buf[FZ_PUBLIC_BYTES_MAX], name[TPM_NAME_MAX];
	TPMT_PUBLIC pub = k->tpub;
	struct imt_error err;
	EVP_PKEY *pkey = NULL;
	size_t len, name_len = 0;
	int changed, same;

	same = fz_public_mutate(in, &pub) == 0;
	len = fz_public_bytes(in, &pub, buf, &changed);
	same = same && !changed;
	if (!same)
		*valid = 0;
	if (tpm_public_parse(buf, len, &pub, &err) != IMT_OK) {
		if (same)
			check_fail("the stored AK does not parse", &err);
		return NULL;
	}
	/* enrollment checked these; the stored bytes still pass them */
	if ((tpm_public_check_ak(&pub, &err) != IMT_OK ||
	     tpm_public_name(&pub, name, &name_len, &err) != IMT_OK ||
	     name_len != k->name_len || memcmp(name, k->name, name_len) != 0) &&
	    same)
		check_fail("the stored AK lost its attributes or Name", &err);
	if (tpm_public_to_pkey(&pub, &pkey, &err) != IMT_OK) {
		if (same)
			check_fail("the stored AK does not import", &err);
		return NULL;
	}
	return pkey;
}

/*
 * The PCR values as the test tools pass them (tests/tools/quote_check):
 * "INDEX HEX" lines, written here and read back with pcr_set_parse_text(),
 * perhaps with a byte of the text changed. Unchanged text reads back as
 * the values written.
 */
static void pcrs_as_text(struct fz_in *in, struct pcr_set *pcrs)
{
	char text[PCR_SET_COUNT * (4 + 2 * HASH_ALGO_MAX_SIZE + 1) + 1];
	struct pcr_set back;
	struct imt_error err;
	size_t len = 0;
	int i, flip = fz_u8(in) & 1;

	for (i = 0; i < PCR_SET_COUNT; i++) {
		if (!(pcrs->present & (1u << i)))
			continue;
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%d ",
					i);
		hex_encode(pcrs->value[i], pcrs->algo->size, text + len);
		len += 2 * pcrs->algo->size;
		text[len++] = '\n';
	}
	text[len] = '\0';
	if (flip)
		fz_flip(in, (uint8_t *)text, len);
	pcr_set_init(&back, pcrs->algo);
	if (pcr_set_parse_text(&back, text, len, &err) != IMT_OK) {
		if (!flip)
			check_fail("PCR text does not read back", &err);
		return;
	}
	if (!flip && (back.present != pcrs->present ||
		      memcmp(back.value, pcrs->value, sizeof(back.value)) != 0))
		check_fail("PCR text reads back other values", &err);
	if (!flip)
		*pcrs = back;
}

/*
 * What the verifier does with a quote that passed: the boot_aggregate of
 * its PCRs (record 0), and the digest for another PCR 10 (replay tries
 * candidates, tpm_quote.h): with PCR 10 selected, a different value must
 * give a different digest.
 */
static void replay_use(const struct tpm_quote *q, const struct pcr_set *pcrs,
		       uint16_t hash)
{
	uint8_t ba[HASH_ALGO_MAX_SIZE], d[HASH_ALGO_MAX_SIZE];
	struct pcr_set other = *pcrs;
	struct imt_error err;
	size_t len;

	pcr_set_boot_aggregate(pcrs, ba, &err);
	other.value[10][0] ^= 1;
	if (tpm_quote_pcr_digest(q, &other, hash, d, &len, &err) != IMT_OK)
		check_fail("the digest of a passed quote fails", &err);
	if ((tpm_quote_pcr_mask(q, pcrs->algo) & (1u << 10)) &&
	    len == q->pcr_digest_len && memcmp(d, q->pcr_digest, len) == 0)
		check_fail("another PCR 10 gives the same digest", &err);
}

static void soft_quote(struct fz_in *in, enum fz_key_kind kind)
{
	const struct fz_key *k = fz_key(kind), *vk = k;
	unsigned int mut = fz_u16(in);
	uint8_t nonce[FZ_2B_MAX], attest[ATTEST_MAX + 256], sig[FZ_SIG_MAX];
	uint16_t hash = TPM2_ALG_SHA256, scheme = k->scheme;
	size_t nonce_len, len, sig_len, n;
	struct fz_attest a = { 0 };
	struct pcr_set pcrs;
	struct tpm_quote q;
	struct imt_error err;
	EVP_PKEY *verify_key;
	enum imt_result rc;
	uint32_t mask;
	int valid = 1, changed = 0;

	make_pcrs(in, mut, &pcrs);
	nonce_len = fz_range(in, 0, 64);
	fz_bytes(in, nonce, nonce_len);
	a.magic = TPM2_GENERATED_VALUE;
	a.type = TPM2_ST_ATTEST_QUOTE;
	memcpy(a.signer, k->name, k->name_len);
	a.signer_len = k->name_len;
	memcpy(a.extra, nonce, nonce_len);
	a.extra_len = nonce_len;
	a.clock = fz_u64(in);
	a.reset_count = fz_u32(in);
	a.restart_count = fz_u32(in);
	a.safe = fz_u8(in);
	a.firmware = fz_u64(in);
	mask = make_selection(in, mut, pcrs.algo, &a);
	valid = selection_valid(&a, &pcrs, mask);
	if (mut & M_HASH)
		hash = fz_hash_ids[fz_u8(in) % fz_hash_id_count];
	valid = valid && (hash == TPM2_ALG_SHA256 || hash == TPM2_ALG_SHA384 ||
			  hash == TPM2_ALG_SHA512);
	a.digest_len = fz_pcr_digest(hash, &pcrs, mask, a.digest);
	if (mut & M_DIGEST) {
		a.digest_len = fz_range(in, 0, 64);
		fz_flip(in, a.digest, a.digest_len);
	}
	if (mut & M_NONCE) {
		a.extra_len = fz_range(in, 0, FZ_2B_MAX);
		fz_flip(in, a.extra, a.extra_len);
		changed = a.extra_len != nonce_len ||
			  memcmp(a.extra, nonce, nonce_len) != 0;
	}
	if (mut & M_MAGIC) {
		a.magic ^= fz_u8(in) & 1 ? 0 : fz_u32(in);
		a.type = fz_u8(in) & 1 ? a.type : fz_u16(in);
	}
	if (mut & M_SIGNER) {
		a.signer_len = fz_range(in, 0, FZ_2B_MAX);
		fz_bytes(in, a.signer, a.signer_len);
	}
	len = fz_attest_marshal(&a, attest, ATTEST_MAX);
	if (mut & M_TRAIL) {
		n = fz_range(in, 0, 255);
		if (fz_u8(in) & 1)
			len -= n < len ? n : len;
		else
			len += fz_bytes(in, attest + len, n);
	}
	if (mut & M_SCHEME)
		scheme = FZ_PICK(in, schemes);
	sig_len = fz_key_sign(k, scheme, hash, attest, len, sig);
	if (mut & M_POSTFLIP)
		fz_flip(in, attest, len);
	if (mut & M_SIGFLIP)
		fz_flip(in, sig, sig_len);
	if (mut & M_SIGTRAIL) {
		n = fz_range(in, 1, 16);
		if (fz_u8(in) & 1)
			sig_len -= n < sig_len ? n : sig_len;
		else
			sig_len += fz_bytes(in, sig + sig_len, n);
	}
	if (mut & M_OTHERKEY)
		vk = fz_key(kind + 1 + fz_u8(in) % (FZ_KEY_COUNT - 1));
	verify_key = vk->pub;
	if (mut & M_STORED) {
		verify_key = stored_key(in, vk, &valid);
		if (verify_key == NULL)
			return;
	}
	if (fz_u8(in) & 1)
		pcrs_as_text(in, &pcrs);
	rc = tpm_quote_check(attest, len, sig, sig_len, verify_key, nonce,
			     nonce_len, &pcrs, &q, &err);
	if (mut & M_STORED)
		EVP_PKEY_free(verify_key);
	if (rc == IMT_OK && ((mut & M_MUST_FAIL) || changed))
		check_fail("a changed quote passed", &err);
	if (rc == IMT_OK &&
	    (q.reset_count != a.reset_count || q.clock != a.clock ||
	     tpm_quote_pcr_mask(&q, pcrs.algo) != mask))
		check_fail("the parsed quote is not what was signed", &err);
	/* either RSA scheme passes with an RSA AK (the TPM enforces the
	 * key's own), ECDSA with an EC one; TPMs make no other fields */
	valid = valid && !(mut & M_INVALID) && a.safe <= 1 &&
		a.signer_len <= sizeof(TPMU_NAME) &&
		(kind <= FZ_KEY_RSAPSS ? scheme == TPM2_ALG_RSASSA ||
						 scheme == TPM2_ALG_RSAPSS :
					 scheme == TPM2_ALG_ECDSA);
	if (valid && rc != IMT_OK)
		check_fail("a valid quote was refused", &err);
	if (rc == IMT_OK)
		replay_use(&q, &pcrs, hash);
}

/* A fixture AK as the verifier would hold it. */
static EVP_PKEY *fixture_key(const char *name)
{
	struct fz_blob b = fz_fixture(name);
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *k = NULL;

	if (tpm_public_parse(b.data, b.len, &pub, &err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &k, &err) != IMT_OK)
		check_fail(name, &err);
	return k;
}

static const char *const fixture_aks[] = { "rsa", "rsapss", "ecc", "rsa2" };
#define FIXTURE_AKS 4

static void fixture_quote(struct fz_in *in, size_t which)
{
	static EVP_PKEY *keys[FIXTURE_AKS];
	static struct fz_blob msgs[FIXTURE_AKS], sigs[FIXTURE_AKS], nonce;
	static struct pcr_set pcrs;
	uint8_t msg[ATTEST_MAX], sig[FZ_SIG_MAX], n[64];
	struct pcr_set p;
	struct imt_error err;
	char name[64];
	size_t i, flips, key = which;
	unsigned int mut = fz_u8(in);
	enum imt_result rc;
	int changed;

	if (keys[0] == NULL) {
		for (i = 0; i < FIXTURE_AKS; i++) {
			snprintf(name, sizeof(name), "tpm/ak-%s.pub",
				 fixture_aks[i]);
			keys[i] = fixture_key(name);
			snprintf(name, sizeof(name), "tpm/quote-ak-%s.msg",
				 fixture_aks[i]);
			msgs[i] = fz_fixture(name);
			snprintf(name, sizeof(name), "tpm/quote-ak-%s.sig",
				 fixture_aks[i]);
			sigs[i] = fz_fixture(name);
		}
		nonce = fz_fixture("tpm/nonce.bin");
		pcr_set_init(&pcrs, hash_algo_bank("sha256"));
		if (pcr_set_parse_text(&pcrs,
				       (const char *)fz_fixture(
					       "tpm/pcrs-sha256.txt")
					       .data,
				       fz_fixture("tpm/pcrs-sha256.txt").len,
				       &err) != IMT_OK)
			check_fail("pcrs-sha256.txt", &err);
	}
	memcpy(msg, msgs[which].data, msgs[which].len);
	memcpy(sig, sigs[which].data, sigs[which].len);
	memcpy(n, nonce.data, nonce.len);
	p = pcrs;
	flips = mut & 3;
	for (i = 0; i < flips; i++) {
		if (mut & 4)
			fz_flip(in, msg, msgs[which].len);
		else
			fz_flip(in, sig, sigs[which].len);
	}
	if (mut & 8)
		fz_flip(in, n, nonce.len);
	if (mut & 16)
		fz_flip(in, p.value[fz_u8(in) % 11], 32);
	if (mut & 32)
		key = (which + 1 + fz_u8(in) % (FIXTURE_AKS - 1)) % FIXTURE_AKS;
	/* two flips of one byte may cancel out: compare what is checked */
	changed = memcmp(msg, msgs[which].data, msgs[which].len) != 0 ||
		  memcmp(sig, sigs[which].data, sigs[which].len) != 0 ||
		  memcmp(n, nonce.data, nonce.len) != 0 ||
		  memcmp(p.value, pcrs.value, sizeof(p.value)) != 0 ||
		  key != which;
	rc = tpm_quote_check(msg, msgs[which].len, sig, sigs[which].len,
			     keys[key], n, nonce.len, &p, NULL, &err);
	/* ak-rsa and ak-rsa2 are distinct keys: no quote passes with both */
	if (rc == IMT_OK && changed)
		check_fail("a changed fixture quote passed", &err);
	if (rc != IMT_OK && !changed)
		check_fail("a real quote was refused", &err);
}

static void raw_quote(struct fz_in *in)
{
	const struct fz_key *k = fz_key(fz_u8(in));
	size_t cut = fz_u16(in), len;
	const uint8_t *p = fz_take(in, in->n, &len);
	const uint8_t *attest;
	size_t attest_len;
	struct tpm_quote q;
	struct imt_error err;
	struct pcr_set pcrs;

	cut = len > 0 ? cut % (len + 1) : 0;
	pcr_set_init(&pcrs, hash_algo_bank("sha256"));
	pcrs.present = ALL_PCRS;
	if (tpm_quote_parse(p, cut, &q, &err) == IMT_OK)
		tpm_quote_pcr_mask(&q, pcrs.algo);
	if (tpm_quote_unwrap(p, cut, &attest, &attest_len, &err) == IMT_OK)
		tpm_quote_parse(attest, attest_len, &q, &err);
	tpm_quote_verify_signature(p, cut, p + cut, len - cut, k->pub, NULL,
				   &err);
	tpm_quote_check(p, cut, p + cut, len - cut, k->pub, p,
			cut < 32 ? cut : 32, &pcrs, NULL, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = fz_in_init(data, size);
	uint8_t mode = fz_u8(&in) % 9;

	if (mode < 4)
		soft_quote(&in, (enum fz_key_kind)mode);
	else if (mode < 8)
		fixture_quote(&in, mode - 4);
	else
		raw_quote(&in);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ima_sig.c - libFuzzer target: IMA signatures and their keys.
 *
 * Byte 0 picks the mode:
 *  - 0 raw signature: the rest is a "sig" field value, parsed and, when it
 *    is a signature, verified against each fixture key over a zero digest;
 *  - 1 raw certificate: the rest goes to ima_key_load();
 *  - 2 fixture: a security.ima value evmctl wrote
 *    (tests/fixtures/ima-sig/), a key, a file digest algorithm, a cut,
 *    then (position, xor) pairs that change the value and one that
 *    changes the digest.
 * Oracles of mode 2: the unchanged value verifies with its signer's key
 * over the file's digest; a value that is accepted (parses, names the
 * key, verifies) equals the original apart from the key id bytes, which
 * the signature does not cover, with the signer's key, the signature's
 * own digest algorithm and an unchanged digest.
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz_fixture.h"
#include "fz_input.h"
#include "ima_key.h"
#include "ima_sig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SIG_MAX 512
#define KEYID_FIRST 3
#define KEYID_END 7

static const char *const key_names[] = { "rsa", "ec", "foreign" };
#define KEY_COUNT (sizeof(key_names) / sizeof(key_names[0]))

static const struct {
	const char *file;
	size_t signer; /* index in key_names */
	const char *algo;
} sigs[] = {
	{ "sample.rsa-sha256.sig", 0, "sha256" },
	{ "sample.rsa-sha1.sig", 0, "sha1" },
	{ "sample.ec-sha256.sig", 1, "sha256" },
	{ "sample.ec-sha1.sig", 1, "sha1" },
	{ "sample.foreign-sha256.sig", 2, "sha256" },
	{ "sample.rsa-sha256.sigv3", 0, "sha256" },
	{ "sample.ec-sha256.sigv3", 1, "sha256" },
};
#define SIG_COUNT (sizeof(sigs) / sizeof(sigs[0]))

static const char *const algos[] = { "sha256", "sha1", "sha512" };

static struct ima_key keys[KEY_COUNT];

static void oracle(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_ima_sig: %s\n", what);
		abort();
	}
}

static void load_keys(void)
{
	static int done;
	char name[64];
	size_t i;

	if (done)
		return;
	for (i = 0; i < KEY_COUNT; i++) {
		struct fz_blob b;

		snprintf(name, sizeof(name), "ima-sig/%s.pem", key_names[i]);
		b = fz_fixture(name);
		oracle(ima_key_load(b.data, b.len, &keys[i], NULL) == IMT_OK,
		       "a fixture certificate does not load");
	}
	done = 1;
}

static const struct hash_algo *algo(const char *name)
{
	return hash_algo_by_name(name, strlen(name));
}

static void raw_sig(const uint8_t *buf, size_t len)
{
	static const uint8_t zero[HASH_ALGO_MAX_SIZE];
	struct ima_sig sig;
	size_t i;

	if (ima_sig_parse(buf, len, &sig, NULL) != IMT_OK)
		return;
	if (sig.kind != IMA_SIG_V2 && sig.kind != IMA_SIG_V3)
		return;
	oracle(sig.sig == buf + IMA_SIG_HDR_SIZE &&
		       sig.sig_len == len - IMA_SIG_HDR_SIZE,
	       "the signature is not the bytes after the header");
	for (i = 0; i < KEY_COUNT; i++)
		ima_sig_verify(&sig, keys[i].pkey, sig.algo, zero,
			       sig.algo->size, NULL);
}

static void raw_cert(const uint8_t *buf, size_t len)
{
	struct ima_key key;

	if (ima_key_load(buf, len, &key, NULL) == IMT_OK) {
		oracle(key.pkey != NULL && key.subject != NULL,
		       "a loaded key without its key or subject");
		oracle(ima_key_has_id(&key, key.keyid), "key id");
	}
	ima_key_free(&key);
}

static size_t file_digest(const char *name, uint8_t *out)
{
	struct fz_blob b = fz_fixture("ima-sig/sample");
	unsigned int n = 0;

	oracle(EVP_Digest(b.data, b.len, out, &n, EVP_get_digestbyname(name),
			  NULL) == 1,
	       "digest of the sample");
	return n;
}

static int accepted(const uint8_t *buf, size_t len, const struct ima_key *key,
		    const struct hash_algo *file_algo, const uint8_t *digest,
		    size_t digest_len)
{
	struct ima_sig sig;

	if (ima_sig_parse(buf, len, &sig, NULL) != IMT_OK ||
	    (sig.kind != IMA_SIG_V2 && sig.kind != IMA_SIG_V3) ||
	    !ima_key_has_id(key, sig.keyid))
		return 0;
	return ima_sig_verify(&sig, key->pkey, file_algo, digest, digest_len,
			      NULL) == IMT_OK;
}

/* Equal apart from the key id bytes. */
static int same_signed_bytes(const uint8_t *a, size_t alen, const uint8_t *b,
			     size_t blen)
{
	size_t i;

	if (alen != blen)
		return 0;
	for (i = 0; i < alen; i++) {
		if ((i < KEYID_FIRST || i >= KEYID_END) && a[i] != b[i])
			return 0;
	}
	return 1;
}

static void fixture_sig(struct fz_in *in)
{
	size_t which = fz_u8(in) % SIG_COUNT, k = fz_u8(in) % KEY_COUNT;
	const char *aname = FZ_PICK(in, algos);
	uint8_t digest[HASH_ALGO_MAX_SIZE], orig[HASH_ALGO_MAX_SIZE];
	uint8_t buf[SIG_MAX];
	struct fz_blob b;
	size_t len, dlen, n, cut;
	char name[64];

	snprintf(name, sizeof(name), "ima-sig/%s", sigs[which].file);
	b = fz_fixture(name);
	oracle(b.len <= SIG_MAX, "fixture too large");
	dlen = file_digest(sigs[which].algo, orig);
	oracle(accepted(b.data, b.len, &keys[sigs[which].signer],
			algo(sigs[which].algo), orig, dlen),
	       "a fixture signature does not verify");
	memcpy(buf, b.data, b.len);
	len = b.len;
	cut = fz_u8(in);
	if (cut != 0)
		len -= cut % len;
	for (n = fz_u8(in) % 8; n > 0; n--) {
		size_t pos = fz_u16(in) % len;

		buf[pos] ^= fz_u8(in);
	}
	/* The digest of the algorithm asked for, perhaps changed. */
	dlen = file_digest(aname, digest);
	n = fz_u8(in);
	if (n != 0)
		digest[n % dlen] ^= (uint8_t)(1u << (n % 8));
	if (!accepted(buf, len, &keys[k], algo(aname), digest, dlen))
		return;
	oracle(k == sigs[which].signer, "accepted with another key");
	oracle(strcmp(aname, sigs[which].algo) == 0,
	       "accepted with another digest algorithm");
	oracle(memcmp(digest, orig, dlen) == 0, "accepted a changed digest");
	oracle(same_signed_bytes(buf, len, b.data, b.len),
	       "accepted a changed signature");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = fz_in_init(data, size);
	uint8_t mode = fz_u8(&in);
	const uint8_t *rest;
	size_t len;

	load_keys();
	switch (mode % 3) {
	case 0:
		rest = fz_take(&in, in.n, &len);
		raw_sig(rest, len);
		break;
	case 1:
		rest = fz_take(&in, in.n, &len);
		raw_cert(rest, len);
		break;
	default:
		fixture_sig(&in);
		break;
	}
	return 0;
}

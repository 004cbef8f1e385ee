// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_enroll.c - libFuzzer target: what a verifier does with an agent's
 * enrollment: the EK and AK public areas (tpm_public_parse, the AK
 * attribute check, key import, Name), TPM2_MakeCredential for them
 * (tpm_credential_make), and the whole message from its wire form to the
 * challenge (wire_decode, enroll_check_ek_cert, enroll_challenge).
 *
 * The first byte picks the mode; the public areas start from real ones
 * (the fixtures' EKs and AKs, the software AKs) changed field by field
 * and byte by byte as the input says (fz_public.h), or are raw bytes.
 * Oracles:
 *  - public: an unchanged real area parses, gives the Name its TPM
 *    reported, passes the AK check if and only if it is an AK, imports;
 *    whatever parses marshals back to the same bytes;
 *  - credential: a real EK with a real AK's Name and a credential of 1 to
 *    32 bytes is wrapped; the output unmarshals as the TPM2B_ID_OBJECT
 *    and TPM2B_ENCRYPTED_SECRET TPM2_ActivateCredential takes;
 *  - message: a real EK and AK pair gets a challenge, which encodes; the
 *    proof made from its secret is accepted, any other refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/hmac.h>
#include <tss2/tss2_mu.h>

#include "db_enroll.h"
#include "enroll.h"
#include "fz_input.h"
#include "fz_public.h"
#include "fz_tpm.h"
#include "tpm_credential.h"
#include "tpm_public.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME_BYTES_MAX (TPM_NAME_MAX + 4)

static void check_fail(const char *what, const struct imt_error *err)
{
	fprintf(stderr, "fuzz_enroll: %s (%s)\n", what,
		err != NULL ? err->msg : "");
	abort();
}

/* What the verifier does with an enrolled public area. */
static void use(const uint8_t *buf, size_t len, const uint8_t *name,
		size_t name_len, int is_ak, int changed)
{
	uint8_t got[TPM_NAME_MAX], again[FZ_PUBLIC_BYTES_MAX];
	TPM2B_PUBLIC p2b = { 0 };
	struct imt_error err;
	TPMT_PUBLIC pub;
	EVP_PKEY *pkey;
	size_t got_len, off = 0;
	enum imt_result rc;

	rc = tpm_public_parse(buf, len, &pub, &err);
	if (rc != IMT_OK) {
		if (!changed)
			check_fail("a real public area does not parse", &err);
		return;
	}
	/* the Name is over the marshalling: it must be the bytes we got */
	p2b.publicArea = pub;
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&p2b, again, sizeof(again), &off) !=
		    TSS2_RC_SUCCESS ||
	    off != len || memcmp(again, buf, len) != 0) {
		for (off = 0; off < len; off++)
			fprintf(stderr, "%02x%s", buf[off],
				off + 1 < len ? "" : "\n");
		check_fail("a parsed public area marshals differently", NULL);
	}
	rc = tpm_public_check_ak(&pub, &err);
	if (!changed && is_ak && rc != IMT_OK)
		check_fail("a real AK fails the AK check", &err);
	if (!changed && !is_ak && rc == IMT_OK)
		check_fail("an EK passes the AK check", &err);
	rc = tpm_public_name(&pub, got, &got_len, &err);
	if (!changed && (rc != IMT_OK || got_len != name_len ||
			 memcmp(got, name, name_len) != 0))
		check_fail("the Name differs from the TPM's", &err);
	rc = tpm_public_to_pkey(&pub, &pkey, &err);
	if (!changed && rc != IMT_OK)
		check_fail("a real key does not import", &err);
	if (rc == IMT_OK)
		EVP_PKEY_free(pkey);
}

/* The Name to bind: a real one (0 returned), or free bytes (1). */
static int pick_name(struct fz_in *in, uint8_t *name, size_t *name_len)
{
	uint8_t pick = fz_u8(in);
	TPMT_PUBLIC ak;
	uint16_t alg;

	if (pick % 4 != 3) {
		fz_public_get((enum fz_public_src)(FZ_PUB_AK_RSA + pick % 8),
			      &ak, name, name_len);
		return 0;
	}
	alg = fz_hash_ids[fz_u8(in) % fz_hash_id_count];
	name[0] = (uint8_t)(alg >> 8);
	name[1] = (uint8_t)alg;
	*name_len = fz_range(in, 0, NAME_BYTES_MAX);
	if (*name_len > 2)
		fz_bytes(in, name + 2, *name_len - 2);
	return 1;
}

static void check_output(const struct tpm_credential *c)
{
	TPM2B_ID_OBJECT id;
	TPM2B_ENCRYPTED_SECRET secret;
	size_t off = 0;

	if (Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(c->id_object, c->id_object_len,
					      &off, &id) != TSS2_RC_SUCCESS ||
	    off != c->id_object_len)
		check_fail("the credential blob does not unmarshal", NULL);
	off = 0;
	if (Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal(c->secret, c->secret_len,
						     &off, &secret) !=
		    TSS2_RC_SUCCESS ||
	    off != c->secret_len)
		check_fail("the encrypted secret does not unmarshal", NULL);
}

static void public_mode(struct fz_in *in)
{
	uint8_t name[TPM_NAME_MAX], buf[FZ_PUBLIC_BYTES_MAX];
	unsigned int src = fz_u8(in) % (FZ_PUB_COUNT + 1);
	const uint8_t *raw;
	TPMT_PUBLIC pub;
	size_t name_len, len;
	int mutated, bytes_changed;

	if (src == FZ_PUB_COUNT) {
		raw = fz_take(in, in->n, &len);
		use(raw, len, NULL, 0, 0, 1);
		return;
	}
	fz_public_get((enum fz_public_src)src, &pub, name, &name_len);
	mutated = fz_public_mutate(in, &pub) > 0;
	len = fz_public_bytes(in, &pub, buf, &bytes_changed);
	use(buf, len, name, name_len, src > FZ_PUB_EK_ECC,
	    mutated || bytes_changed);
}

static void credential_mode(struct fz_in *in)
{
	uint8_t pick = fz_u8(in), buf[FZ_PUBLIC_BYTES_MAX];
	uint8_t ek_name[TPM_NAME_MAX], name[NAME_BYTES_MAX], cred[80];
	struct tpm_credential out;
	struct imt_error err;
	TPMT_PUBLIC ek;
	size_t ek_name_len, name_len, cred_len, len;
	int changed, bytes_changed, free_name;
	enum imt_result rc;

	/* three in four start from a real EK */
	fz_public_get((enum fz_public_src)(pick % 4 != 3 ? pick % 2 :
							   pick % FZ_PUB_COUNT),
		      &ek, ek_name, &ek_name_len);
	changed = fz_public_mutate(in, &ek) > 0 || pick % 4 == 3;
	if (fz_u8(in) & 1) {
		len = fz_public_bytes(in, &ek, buf, &bytes_changed);
		if (tpm_public_parse(buf, len, &ek, &err) != IMT_OK)
			return;
		changed = changed || bytes_changed;
	}
	free_name = pick_name(in, name, &name_len);
	cred_len = fz_range(in, 0, sizeof(cred));
	fz_bytes(in, cred, cred_len);
	rc = tpm_credential_make(&ek, name, name_len, cred, cred_len, &out,
				 &err);
	if (rc == IMT_OK)
		check_output(&out);
	if (rc != IMT_OK && !changed && !free_name && cred_len >= 1 &&
	    cred_len <= 32)
		check_fail("a real EK and AK Name were refused", &err);
}

/* The real pairs: each fixture AK was made under this EK. */
static const struct {
	enum fz_public_src ek, ak;
} pairs[] = {
	{ FZ_PUB_EK_RSA, FZ_PUB_AK_RSA },
	{ FZ_PUB_EK_RSA, FZ_PUB_AK_RSA2 },
	{ FZ_PUB_EK_RSA, FZ_PUB_AK_RSAPSS },
	{ FZ_PUB_EK_ECC, FZ_PUB_AK_ECC },
	{ FZ_PUB_EK_ECC, FZ_PUB_SOFT_ECC384 },
};

static const char *const agents[] = { "node-01.lab", "a", "x.y-z_0" };

/* One public area into @b: the pair's, or another source's, changed. */
static int public_blob(struct fz_in *in, enum fz_public_src src, uint8_t *buf,
		       struct wire_blob *b)
{
	uint8_t name[TPM_NAME_MAX];
	uint8_t pick = fz_u8(in);
	TPMT_PUBLIC pub;
	size_t name_len;
	int changed, bytes_changed;

	if (pick & 0x80)
		src = (enum fz_public_src)(pick % FZ_PUB_COUNT);
	fz_public_get(src, &pub, name, &name_len);
	changed = fz_public_mutate(in, &pub) > 0 || (pick & 0x80);
	b->data = buf;
	b->len = fz_public_bytes(in, &pub, buf, &bytes_changed);
	return changed || bytes_changed;
}

/* The proof an agent sends: HMAC-SHA256(secret, agent id). */
static void check_proof(const struct db_challenge *ch, const char *agent)
{
	uint8_t mac[32];
	unsigned int n = 0;

	HMAC(EVP_sha256(), ch->secret, (int)ch->secret_len,
	     (const unsigned char *)agent, strlen(agent), mac, &n);
	if (!enroll_proof_ok(ch, agent, mac, n))
		check_fail("the right proof is refused", NULL);
	mac[n - 1] ^= 1;
	if (enroll_proof_ok(ch, agent, mac, n) ||
	    enroll_proof_ok(ch, agent, mac, n - 1))
		check_fail("a wrong proof is accepted", NULL);
}

static void message_mode(struct fz_in *in)
{
	static uint8_t ek_buf[FZ_PUBLIC_BYTES_MAX], ak_buf[FZ_PUBLIC_BYTES_MAX];
	uint8_t pick = fz_u8(in), cert[300];
	struct wire_enroll msg = { 0 }, got;
	struct wire_challenge chal;
	struct db_challenge ch;
	struct imt_error err;
	char why[256], *json, *cj;
	size_t len, pair = pick % (sizeof(pairs) / sizeof(pairs[0]));
	int changed, chained;
	enum imt_result rc;

	changed = public_blob(in, pairs[pair].ek, ek_buf, &msg.ek_pub);
	changed |= public_blob(in, pairs[pair].ak, ak_buf, &msg.ak_pub);
	snprintf(msg.agent, sizeof(msg.agent), "%s", FZ_PICK(in, agents));
	if (pick & 0x80) {
		msg.ek_cert.len = fz_range(in, 1, sizeof(cert));
		fz_bytes(in, cert, msg.ek_cert.len);
		msg.ek_cert.data = cert;
	}
	json = wire_encode(WIRE_ENROLL, &msg, &err);
	if (json == NULL)
		return;
	len = strlen(json);
	if (pick & 0x40) { /* a byte of the body changed in transit */
		fz_flip(in, (uint8_t *)json, len);
		changed = 1;
	}
	if (wire_decode(WIRE_ENROLL, json, len, &got, &err) != IMT_OK) {
		free(json);
		return;
	}
	free(json);
	enroll_check_ek_cert(NULL, got.ek_pub.data, got.ek_pub.len,
			     got.ek_cert.data, got.ek_cert.len, &chained, why,
			     sizeof(why), &err);
	memset(&ch, 0, sizeof(ch));
	rc = enroll_challenge(&got, &ch, &chal, &err);
	if (rc != IMT_OK && !changed)
		check_fail("a real EK and AK get no challenge", &err);
	if (rc == IMT_OK) {
		cj = wire_encode(WIRE_CHALLENGE, &chal, &err);
		if (cj == NULL)
			check_fail("the challenge does not encode", &err);
		free(cj);
		check_proof(&ch, got.agent);
		wire_free(WIRE_CHALLENGE, &chal);
	}
	wire_free(WIRE_ENROLL, &got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = fz_in_init(data, size);

	switch (fz_u8(&in) % 3) {
	case 0:
		public_mode(&in);
		break;
	case 1:
		credential_mode(&in);
		break;
	default:
		message_mode(&in);
	}
	return 0;
}

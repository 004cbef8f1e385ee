// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_replay.c - per-bank template hashes and PCR replay.
 *
 * The template hash rules are those of ima_calc_field_array_hash_tfm() in
 * security/integrity/ima/ima_crypto.c (6.1): for every template but 'ima'
 * the hash covers each field as "u32 length + bytes", which is exactly the
 * template data as listed; for 'ima' it covers the 20-byte digest and the
 * name zero-padded to IMA_EVENT_NAME_LEN_MAX + 1 bytes.
 */
#include <stdlib.h>
#include <string.h>

/*
 * OpenSSL 3.0's EVP_DigestInit_ex() frees and reallocates the provider
 * context on every call, which costs more than hashing a short record
 * (measured with tests/bench/replay). Replay hashes two short inputs per
 * record, so it uses the one-shot-free low-level API, still exported by
 * libcrypto 3.x, through a four-entry table.
 */
#define OPENSSL_API_COMPAT 0x10101000L
#include <openssl/sha.h>

#include "ima_replay.h"

union hash_state {
	SHA_CTX sha1;
	SHA256_CTX sha256;
	SHA512_CTX sha512;
};

struct hash_ops {
	const char *name;
	int (*init)(void *c);
	int (*update)(void *c, const void *data, size_t len);
	int (*final)(unsigned char *md, void *c);
};

/* The casts only drop the context pointer's type; the ABI is the same. */
#define HASH_OPS(n, ctx_t, pre) \
	{ \
		n, (int (*)(void *))pre##_Init, \
			(int (*)(void *, const void *, size_t))pre##_Update, \
			(int (*)(unsigned char *, void *))pre##_Final \
	}

static const struct hash_ops hash_ops[] = {
	HASH_OPS("sha1", SHA_CTX, SHA1),
	HASH_OPS("sha256", SHA256_CTX, SHA256),
	HASH_OPS("sha384", SHA512_CTX, SHA384),
	HASH_OPS("sha512", SHA512_CTX, SHA512),
};

struct ima_replay {
	const struct hash_algo *algo;
	const struct hash_ops *ops;
	union hash_state state;
	uint8_t pcr[IMA_PCR_COUNT][HASH_ALGO_MAX_SIZE];
};

struct ima_replay *ima_replay_new(const struct hash_algo *algo,
				  struct imt_error *err)
{
	struct ima_replay *r;
	size_t i;

	if (algo == NULL || !algo->bank) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "'%s' is not a PCR bank algorithm",
			      algo != NULL ? algo->name : "(none)");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return NULL;
	}
	r->algo = algo;
	for (i = 0; i < sizeof(hash_ops) / sizeof(hash_ops[0]); i++) {
		if (strcmp(hash_ops[i].name, algo->name) == 0)
			r->ops = &hash_ops[i];
	}
	if (r->ops == NULL) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "no %s implementation", algo->name);
		free(r);
		return NULL;
	}
	return r;
}

void ima_replay_free(struct ima_replay *r)
{
	if (r == NULL)
		return;
	free(r);
}

const struct hash_algo *ima_replay_algo(const struct ima_replay *r)
{
	return r->algo;
}

/* Hash up to two buffers with the bank's algorithm. */
static int hash2(struct ima_replay *r, const void *a, size_t alen,
		 const void *b, size_t blen, uint8_t *out)
{
	return r->ops->init(&r->state) && r->ops->update(&r->state, a, alen) &&
	       (blen == 0 || r->ops->update(&r->state, b, blen)) &&
	       r->ops->final(out, &r->state);
}

static int hash_record(struct ima_replay *r, const struct ima_record *rec,
		       uint8_t *out)
{
	uint8_t name[IMA_EVENT_NAME_LEN_MAX + 1] = { 0 };

	if (!rec->tmpl->legacy)
		return hash2(r, rec->template_data, rec->template_data_len,
			     NULL, 0, out);
	/* The parser bounded the name to IMA_EVENT_NAME_LEN_MAX bytes. */
	memcpy(name, rec->fields[1].data, rec->fields[1].len);
	return hash2(r, rec->fields[0].data, rec->fields[0].len, name,
		     sizeof(name), out);
}

enum imt_result ima_replay_template_hash(struct ima_replay *r,
					 const struct ima_record *rec,
					 uint8_t *out, struct imt_error *err)
{
	static const uint8_t zero[HASH_ALGO_MAX_SIZE];

	if (rec->violation) {
		/*
		 * The kernel zeroes the file digest of a violation; a
		 * non-zero one means the record was altered, since nothing
		 * else about a violation is covered by the PCR.
		 */
		if (rec->digest != NULL &&
		    memcmp(rec->digest, zero, rec->digest_algo->size) != 0)
			return imt_error_set(err, IMT_ERR_MISMATCH, rec->index,
					     rec->offset,
					     "record %zu: violation record with a non-zero file digest",
					     rec->index);
		memset(out, 0xff, r->algo->size);
		return IMT_OK;
	}
	if (!hash_record(r, rec, out))
		return imt_error_set(err, IMT_ERR_INTERNAL, rec->index,
				     rec->offset, "%s template hash failed",
				     r->algo->name);
	/* The bank whose digests the list shows checks them, too. */
	if (rec->digest_bank == r->algo &&
	    memcmp(out, rec->template_digest, r->algo->size) != 0)
		return imt_error_set(err, IMT_ERR_MISMATCH, rec->index,
				     rec->offset,
				     "record %zu: listed template digest does not match its template data (%s)",
				     rec->index, r->algo->name);
	return IMT_OK;
}

/* PCR = H(PCR || @hash) */
static enum imt_result extend(struct ima_replay *r,
			      const struct ima_record *rec, const uint8_t *hash,
			      struct imt_error *err)
{
	uint8_t *pcr = r->pcr[rec->pcr];

	if (!hash2(r, pcr, r->algo->size, hash, r->algo->size, pcr))
		return imt_error_set(err, IMT_ERR_INTERNAL, rec->index,
				     rec->offset, "%s extend failed",
				     r->algo->name);
	return IMT_OK;
}

enum imt_result ima_replay_extend(struct ima_replay *r,
				  const struct ima_record *rec,
				  struct imt_error *err)
{
	uint8_t hash[HASH_ALGO_MAX_SIZE];
	enum imt_result rc;

	rc = ima_replay_template_hash(r, rec, hash, err);
	if (rc != IMT_OK)
		return rc;
	return extend(r, rec, hash, err);
}

enum imt_result ima_replay_extend_listed(struct ima_replay *r,
					 const struct ima_record *rec,
					 struct imt_error *err)
{
	if (rec->violation || rec->digest_bank != r->algo)
		return ima_replay_extend(r, rec, err);
	return extend(r, rec, rec->template_digest, err);
}

const uint8_t *ima_replay_pcr(const struct ima_replay *r, unsigned int index)
{
	return r->pcr[index];
}

void ima_replay_set_pcr(struct ima_replay *r, unsigned int index,
			const uint8_t *value)
{
	memcpy(r->pcr[index], value, r->algo->size);
}

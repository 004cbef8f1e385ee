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

#include <openssl/evp.h>

#include "ima_replay.h"

struct ima_replay {
	const struct hash_algo *algo;
	EVP_MD *md;		/* fetched once: an implicit fetch per hash
				 * costs more than hashing a short record */
	EVP_MD_CTX *ctx;	/* reused for every hash */
	uint8_t pcr[IMA_PCR_COUNT][HASH_ALGO_MAX_SIZE];
};

struct ima_replay *ima_replay_new(const struct hash_algo *algo,
				  struct imt_error *err)
{
	struct ima_replay *r;

	if (algo == NULL || !algo->bank) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "'%s' is not a PCR bank algorithm",
			      algo != NULL ? algo->name : "(none)");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		goto fail;
	r->algo = algo;
	r->md = EVP_MD_fetch(NULL, algo->name, NULL);
	r->ctx = EVP_MD_CTX_new();
	if (r->md == NULL || r->ctx == NULL)
		goto fail;
	return r;

fail:
	ima_replay_free(r);
	imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
		      "cannot set up %s hashing", algo->name);
	return NULL;
}

void ima_replay_free(struct ima_replay *r)
{
	if (r == NULL)
		return;
	EVP_MD_CTX_free(r->ctx);
	EVP_MD_free(r->md);
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
	return EVP_DigestInit_ex(r->ctx, r->md, NULL) &&
	       EVP_DigestUpdate(r->ctx, a, alen) &&
	       (blen == 0 || EVP_DigestUpdate(r->ctx, b, blen)) &&
	       EVP_DigestFinal_ex(r->ctx, out, NULL);
}

static int hash_record(struct ima_replay *r, const struct ima_record *rec,
		       uint8_t *out)
{
	uint8_t name[IMA_EVENT_NAME_LEN_MAX + 1] = { 0 };

	if (!ima_template_is_legacy(rec->tmpl))
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
	if (strcmp(r->algo->name, "sha1") == 0 &&
	    memcmp(out, rec->template_digest, IMA_TEMPLATE_DIGEST_SIZE) != 0)
		return imt_error_set(err, IMT_ERR_MISMATCH, rec->index,
				     rec->offset,
				     "record %zu: listed template digest does not match its template data (sha1)",
				     rec->index);
	return IMT_OK;
}

enum imt_result ima_replay_extend(struct ima_replay *r,
				  const struct ima_record *rec,
				  struct imt_error *err)
{
	uint8_t hash[HASH_ALGO_MAX_SIZE];
	uint8_t *pcr = r->pcr[rec->pcr];
	enum imt_result rc;

	rc = ima_replay_template_hash(r, rec, hash, err);
	if (rc != IMT_OK)
		return rc;
	if (!hash2(r, pcr, r->algo->size, hash, r->algo->size, pcr))
		return imt_error_set(err, IMT_ERR_INTERNAL, rec->index,
				     rec->offset, "%s extend failed",
				     r->algo->name);
	return IMT_OK;
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

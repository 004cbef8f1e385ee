// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_sig.c - parse and verify IMA file signatures (security.ima values).
 */
#include <string.h>

#include <openssl/err.h>
#include <openssl/rsa.h>

#include "ima_sig.h"
#include "tpm_crypto.h"

#define XATTR_TYPE_MAX IMA_VERITY_DIGSIG

/* What each xattr type is; the signature types with the version they
 * must carry (kernel 6.1, xattr_verify()). */
static const struct {
	enum ima_sig_kind kind;
	uint8_t version;
	const char *name;
} xattr_types[XATTR_TYPE_MAX + 1] = {
	[IMA_XATTR_DIGEST] = { IMA_SIG_OTHER, 0, "IMA_XATTR_DIGEST" },
	[EVM_XATTR_HMAC] = { IMA_SIG_OTHER, 0, "EVM_XATTR_HMAC" },
	[EVM_IMA_XATTR_DIGSIG] = { IMA_SIG_V2, 2, "EVM_IMA_XATTR_DIGSIG" },
	[IMA_XATTR_DIGEST_NG] = { IMA_SIG_OTHER, 0, "IMA_XATTR_DIGEST_NG" },
	[EVM_XATTR_PORTABLE_DIGSIG] = { IMA_SIG_OTHER, 0,
					"EVM_XATTR_PORTABLE_DIGSIG" },
	[IMA_VERITY_DIGSIG] = { IMA_SIG_V3, 3, "IMA_VERITY_DIGSIG" },
};

/* The header fields, to name the one a short value ends in. */
static const struct {
	const char *name;
	size_t end;
} hdr_fields[] = {
	{ "version", 2 },
	{ "hash_algo", 3 },
	{ "keyid", 7 },
	{ "sig_size", IMA_SIG_HDR_SIZE },
};

/* The kernel's digest names that OpenSSL spells differently. */
static const struct {
	const char *kernel;
	const char *openssl;
} md_names[] = {
	{ "rmd160", "RIPEMD160" },
	{ "wp512", "WHIRLPOOL" },
};

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static enum imt_result truncated(size_t len, struct imt_error *err)
{
	size_t i = 0;

	while (hdr_fields[i].end <= len)
		i++;
	return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, len,
			     "signature truncated in field %s: %zu bytes, the header has %d",
			     hdr_fields[i].name, len, IMA_SIG_HDR_SIZE);
}

static enum imt_result parse_header(const uint8_t *buf, size_t len,
				    uint8_t version, struct ima_sig *sig,
				    struct imt_error *err)
{
	size_t sig_size;

	if (len < IMA_SIG_HDR_SIZE)
		return truncated(len, err);
	if (buf[1] == 1 && version == 2)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, 1,
				     "signature version 1 (the RSA-only format) is not supported");
	if (buf[1] != version)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 1,
				     "signature version %u in a %s xattr, which takes version %u",
				     buf[1], xattr_types[buf[0]].name, version);
	sig->algo = hash_algo_by_kernel_id(buf[2]);
	if (sig->algo == NULL)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 2,
				     "signature hash_algo %u is not one of the kernel's",
				     buf[2]);
	sig_size = (size_t)buf[7] << 8 | buf[8];
	if (sig_size != len - IMA_SIG_HDR_SIZE)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 7,
				     "signature sig_size %zu, but %zu bytes follow the header",
				     sig_size, len - IMA_SIG_HDR_SIZE);
	if (sig_size == 0)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 7,
				     "signature sig_size 0: no signature bytes");
	sig->version = buf[1];
	sig->hash_algo_id = buf[2];
	sig->keyid = get_be32(buf + 3);
	sig->sig = buf + IMA_SIG_HDR_SIZE;
	sig->sig_len = sig_size;
	return IMT_OK;
}

enum imt_result ima_sig_parse(const uint8_t *buf, size_t len,
			      struct ima_sig *sig, struct imt_error *err)
{
	enum imt_result r;
	uint8_t type;

	memset(sig, 0, sizeof(*sig));
	if (len == 0)
		return IMT_OK; /* IMA_SIG_NONE */
	type = buf[0];
	if (type > XATTR_TYPE_MAX || xattr_types[type].name == NULL)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "signature type 0x%02x is no IMA xattr type",
				     type);
	sig->xattr_type = type;
	sig->kind = xattr_types[type].kind;
	if (sig->kind == IMA_SIG_OTHER)
		return IMT_OK;
	r = parse_header(buf, len, xattr_types[type].version, sig, err);
	if (r != IMT_OK) {
		memset(sig, 0, sizeof(*sig));
		return r;
	}
	return IMT_OK;
}

enum imt_result ima_sig_of_record(const struct ima_record *rec,
				  struct ima_sig *sig, struct imt_error *err)
{
	enum imt_result r;
	size_t i;

	for (i = 0; i < rec->nfields; i++) {
		if (strcmp(rec->fields[i].def->id, "sig") != 0)
			continue;
		r = ima_sig_parse(rec->fields[i].data, rec->fields[i].len, sig,
				  err);
		if (r != IMT_OK && err != NULL)
			err->record = rec->index;
		return r;
	}
	memset(sig, 0, sizeof(*sig));
	return IMT_OK;
}

enum imt_result ima_sig_check_digest_type(const struct ima_sig *sig,
					  const char *digest_type,
					  size_t type_len,
					  struct imt_error *err)
{
	const char *want = sig->kind == IMA_SIG_V3 ? "verity" : "ima";

	if (digest_type == NULL) {
		digest_type = "ima"; /* d-ng: a regular file digest */
		type_len = 3;
	}
	if (type_len == strlen(want) &&
	    memcmp(digest_type, want, type_len) == 0)
		return IMT_OK;
	return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS, IMT_NO_POS,
			     "a version %u signature vouches for an \"%s\" digest, not \"%.*s\"",
			     sig->version, want, (int)type_len, digest_type);
}

static EVP_MD *fetch_md(const struct hash_algo *algo)
{
	const char *name = algo->name;
	size_t i;

	for (i = 0; i < sizeof(md_names) / sizeof(md_names[0]); i++) {
		if (strcmp(md_names[i].kernel, name) == 0)
			name = md_names[i].openssl;
	}
	/* Fetch, not EVP_get_digestbyname(): that one also names digests
	 * of providers that are not loaded, which fail only when used. */
	return EVP_MD_fetch(NULL, name, NULL);
}

/* Version 3 signs the hash of the used part of struct ima_file_id. */
static enum imt_result file_id_hash(const struct ima_sig *sig, EVP_MD *md,
				    const uint8_t *digest, size_t digest_len,
				    uint8_t *out, size_t *out_len,
				    struct imt_error *err)
{
	uint8_t file_id[2 + HASH_ALGO_MAX_SIZE];
	unsigned int n;

	file_id[0] = IMA_VERITY_DIGSIG;
	file_id[1] = sig->hash_algo_id;
	memcpy(file_id + 2, digest, digest_len);
	if (!EVP_Digest(file_id, 2 + digest_len, out, &n, md, NULL))
		return tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				       "hashing ima_file_id");
	*out_len = n;
	return IMT_OK;
}

static enum imt_result check_args(const struct ima_sig *sig, EVP_PKEY *key,
				  const struct hash_algo *file_algo,
				  size_t digest_len, struct imt_error *err)
{
	int type;

	if (sig->kind != IMA_SIG_V2 && sig->kind != IMA_SIG_V3)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS, "not a signature to verify");
	if (file_algo == NULL)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS, "no file digest to verify");
	if (file_algo != sig->algo)
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				     IMT_NO_POS,
				     "file digest algorithm %s differs from the signature's hash_algo %s",
				     file_algo->name, sig->algo->name);
	if (digest_len != file_algo->size)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "file digest of %zu bytes, %s has %zu",
				     digest_len, file_algo->name,
				     file_algo->size);
	type = EVP_PKEY_get_base_id(key);
	if (type != EVP_PKEY_RSA && type != EVP_PKEY_EC)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "key type %s: IMA signatures are RSA or ECDSA",
				     OBJ_nid2sn(type));
	return IMT_OK;
}

static enum imt_result pkey_verify(const struct ima_sig *sig, EVP_PKEY *key,
				   EVP_MD *md, const uint8_t *tbs,
				   size_t tbs_len, struct imt_error *err)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
	enum imt_result r = IMT_OK;
	int ok;

	if (ctx == NULL || EVP_PKEY_verify_init(ctx) <= 0 ||
	    (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA &&
	     EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) <= 0) ||
	    EVP_PKEY_CTX_set_signature_md(ctx, md) <= 0) {
		r = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				    "preparing the signature check");
		goto out;
	}
	ok = EVP_PKEY_verify(ctx, sig->sig, sig->sig_len, tbs, tbs_len);
	if (ok != 1) {
		/* 0 is a wrong signature, < 0 one OpenSSL could not decode:
		 * both came from outside and neither verifies. */
		ERR_clear_error();
		r = imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS, IMT_NO_POS,
				  "signature does not verify (key id %08x, %s, version %u)",
				  sig->keyid, sig->algo->name, sig->version);
	}
out:
	EVP_PKEY_CTX_free(ctx);
	return r;
}

enum imt_result ima_sig_verify(const struct ima_sig *sig, EVP_PKEY *key,
			       const struct hash_algo *file_algo,
			       const uint8_t *digest, size_t digest_len,
			       struct imt_error *err)
{
	uint8_t hash[EVP_MAX_MD_SIZE];
	size_t hash_len = digest_len;
	const uint8_t *tbs = digest;
	enum imt_result r;
	EVP_MD *md;

	r = check_args(sig, key, file_algo, digest_len, err);
	if (r != IMT_OK)
		return r;
	md = fetch_md(sig->algo);
	if (md == NULL) {
		ERR_clear_error();
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "hash %s is not available to check signatures",
				     sig->algo->name);
	}
	if (sig->kind == IMA_SIG_V3) {
		r = file_id_hash(sig, md, digest, digest_len, hash, &hash_len,
				 err);
		tbs = hash;
	}
	if (r == IMT_OK)
		r = pkey_verify(sig, key, md, tbs, hash_len, err);
	EVP_MD_free(md);
	return r;
}

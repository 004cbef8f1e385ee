/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_sig.h - IMA file signatures: the "sig" field of the ima-sig,
 * ima-sigv2 and ima-modsig templates (the keys: ima_key.h).
 *
 * The field holds the file's security.ima value when that is a signature
 * (else the file's security.evm value when that is a portable EVM
 * signature, else nothing), laid out as in the kernel's
 * security/integrity/integrity.h:
 *
 *	u8     type		enum evm_ima_xattr_type: 0x03 is
 *				EVM_IMA_XATTR_DIGSIG, 0x06 IMA_VERITY_DIGSIG
 *	u8     version		2 (with 0x03), 3 (with 0x06)
 *	u8     hash_algo	the kernel's enum hash_algo (4 = sha256)
 *	__be32 keyid		tail of the signer's subjectKeyIdentifier
 *	__be16 sig_size		bytes that follow, exactly
 *	u8     sig[sig_size]	RSA PKCS#1 v1.5 or a DER ECDSA signature
 *
 * Version 2 signs the file digest; version 3 signs the hash (with
 * hash_algo) of the used part of struct ima_file_id { u8 hash_type
 * (0x06); u8 hash_algorithm; u8 hash[digest size] }, over the file's
 * fs-verity digest. Kernel 6.1 accepts version 3 only in an
 * IMA_VERITY_DIGSIG xattr and version 2 only in an EVM_IMA_XATTR_DIGSIG
 * one; anything else fails appraisal, and is malformed here.
 *
 * Nothing is copied: a struct ima_sig borrows the parsed buffer.
 */
#ifndef IMATRUST_IMA_SIG_H
#define IMATRUST_IMA_SIG_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "hash_algo.h"
#include "ima_list.h"
#include "result.h"

/* The kernel's enum evm_ima_xattr_type. */
enum ima_xattr_type {
	IMA_XATTR_DIGEST = 0x01,
	EVM_XATTR_HMAC = 0x02,
	EVM_IMA_XATTR_DIGSIG = 0x03,
	IMA_XATTR_DIGEST_NG = 0x04,
	EVM_XATTR_PORTABLE_DIGSIG = 0x05,
	IMA_VERITY_DIGSIG = 0x06,
};

#define IMA_SIG_HDR_SIZE 9 /* type .. sig_size */

enum ima_sig_kind {
	IMA_SIG_NONE,  /* empty field: the file has no signature */
	IMA_SIG_OTHER, /* a value that is not an IMA signature: a
				 * digest, an HMAC, an EVM signature */
	IMA_SIG_V2,    /* signs the file digest */
	IMA_SIG_V3,    /* signs the hash of struct ima_file_id */
};

struct ima_sig {
	enum ima_sig_kind kind;
	uint8_t xattr_type; /* enum ima_xattr_type; 0 for NONE */
	/* The rest is set for IMA_SIG_V2 and IMA_SIG_V3 only. */
	uint8_t version;
	uint8_t hash_algo_id;	      /* the kernel's enum hash_algo */
	const struct hash_algo *algo; /* that algorithm */
	uint32_t keyid;		      /* host order */
	const uint8_t *sig;	      /* borrowed from the parsed buffer */
	size_t sig_len;
};

/**
 * ima_sig_parse() - parse the value of a "sig" field (a security.ima).
 * @buf: the field's bytes (may be NULL when @len is 0)
 * @len: number of bytes in @buf
 * @sig: receives the signature on IMT_OK; it borrows @buf
 * @err: filled on any result other than IMT_OK
 *
 * An empty field is IMA_SIG_NONE; the types 0x01, 0x02, 0x04 and 0x05
 * are IMA_SIG_OTHER (their contents are not checked); 0x03 and 0x06 are
 * signatures whose header must be complete and consistent.
 *
 * Return: IMT_OK (@sig->kind says which of the four it is);
 * IMT_ERR_MALFORMED naming the field at fault (type, version, hash_algo,
 * a header shorter than IMA_SIG_HDR_SIZE, sig_size against the bytes
 * that follow, an empty signature), with the byte offset;
 * IMT_ERR_UNSUPPORTED for signature version 1 (the old RSA-only format).
 */
enum imt_result ima_sig_parse(const uint8_t *buf, size_t len,
			      struct ima_sig *sig, struct imt_error *err);

/**
 * ima_sig_of_record() - parse the "sig" field of an IMA record.
 * @rec: a parsed record
 * @sig: receives the signature on IMT_OK; it borrows @rec's buffer
 * @err: filled on any result other than IMT_OK
 *
 * A template without a "sig" field gives IMA_SIG_NONE.
 *
 * Return: as ima_sig_parse(), errors carrying @rec's index.
 */
enum imt_result ima_sig_of_record(const struct ima_record *rec,
				  struct ima_sig *sig, struct imt_error *err);

/**
 * ima_sig_check_digest_type() - does @sig fit the kind of file digest?
 * @sig: a parsed IMA_SIG_V2 or IMA_SIG_V3 signature
 * @digest_type: the d-ngv2 digest type ("ima", "verity"), or NULL for a
 *		 d-ng digest (not NUL-terminated)
 * @type_len: bytes in @digest_type
 * @err: filled on IMT_ERR_MISMATCH
 *
 * The kernel appraises an fs-verity digest only with a version 3
 * signature and a regular file digest only with version 2, so a record
 * pairing them otherwise did not pass appraisal: without this check, a
 * v2 signature of the bytes of some file digest would also vouch for a
 * "verity" digest with the same bytes.
 *
 * Return: IMT_OK, or IMT_ERR_MISMATCH naming both.
 */
enum imt_result ima_sig_check_digest_type(const struct ima_sig *sig,
					  const char *digest_type,
					  size_t type_len,
					  struct imt_error *err);

/**
 * ima_sig_verify() - check a signature over a file digest with a key.
 * @sig: a parsed IMA_SIG_V2 or IMA_SIG_V3 signature
 * @key: the public key (RSA or EC); the caller picks it by @sig->keyid
 *	 (ima_key_has_id() of ima_key.h), which this function does not look at
 * @file_algo: the algorithm of the record's file digest
 * @digest: the record's file digest (for version 3 its fs-verity digest)
 * @digest_len: bytes in @digest, @file_algo->size
 * @err: filled on any result other than IMT_OK
 *
 * Return: IMT_OK when the signature verifies; IMT_ERR_MISMATCH when
 * @file_algo differs from @sig's hash_algo, or "signature does not
 * verify"; IMT_ERR_MALFORMED for a @sig that is no signature or a
 * @digest_len that is not the algorithm's size; IMT_ERR_UNSUPPORTED for a
 * key that is neither RSA nor EC or a hash OpenSSL does not provide;
 * IMT_ERR_INTERNAL for a crypto library failure.
 */
enum imt_result ima_sig_verify(const struct ima_sig *sig, EVP_PKEY *key,
			       const struct hash_algo *file_algo,
			       const uint8_t *digest, size_t digest_len,
			       struct imt_error *err);

#endif /* IMATRUST_IMA_SIG_H */

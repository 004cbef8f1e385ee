// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_key.c - load the X.509 certificates of IMA signing keys.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "ima_key.h"
#include "tpm_crypto.h"

#define PEM_MARK "-----BEGIN "

static uint32_t tail_be32(const uint8_t *p, size_t len)
{
	p += len - 4;
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static enum imt_result not_x509(struct imt_error *err, const char *why)
{
	ERR_clear_error();
	return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			     "not an X.509 certificate: %s", why);
}

static int is_pem(const uint8_t *buf, size_t len)
{
	return memmem(buf, len, PEM_MARK, strlen(PEM_MARK)) != NULL;
}

/* PEM: the first CERTIFICATE block; DER: the whole buffer, nothing after. */
static enum imt_result decode(const uint8_t *buf, size_t len, X509 **out,
			      struct imt_error *err)
{
	const unsigned char *p = buf;
	BIO *bio;

	if (len == 0)
		return not_x509(err, "empty input");
	if (len > IMA_KEY_CERT_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "certificate of %zu bytes, above %d", len,
				     IMA_KEY_CERT_MAX);
	if (is_pem(buf, len)) {
		bio = BIO_new_mem_buf(buf, (int)len);
		if (bio == NULL)
			return tpm_crypto_fail(err, IMT_ERR_INTERNAL,
					       "BIO_new_mem_buf");
		*out = PEM_read_bio_X509(bio, NULL, NULL, NULL);
		BIO_free(bio);
		return *out != NULL ?
			       IMT_OK :
			       not_x509(err,
					"PEM without a valid CERTIFICATE block");
	}
	*out = d2i_X509(NULL, &p, (long)len);
	if (*out == NULL)
		return not_x509(err, "neither PEM nor a DER certificate");
	if (p != buf + len) {
		X509_free(*out);
		*out = NULL;
		return not_x509(err, "bytes after the DER certificate");
	}
	return IMT_OK;
}

/* evmctl's calc_keyid_v2(): SHA-1 of the subjectPublicKey bits. */
static enum imt_result keyid_of_pubkey(X509 *x, uint32_t *keyid,
				       struct imt_error *err)
{
	const ASN1_BIT_STRING *bits = X509_get0_pubkey_bitstr(x);
	uint8_t sha1[20];

	if (bits == NULL ||
	    !EVP_Digest(ASN1_STRING_get0_data(bits), ASN1_STRING_length(bits),
			sha1, NULL, EVP_sha1(), NULL))
		return tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				       "hashing the public key");
	*keyid = tail_be32(sha1, sizeof(sha1));
	return IMT_OK;
}

static enum imt_result fill_ids(X509 *x, struct ima_key *key,
				struct imt_error *err)
{
	const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(x);
	enum imt_result r = keyid_of_pubkey(x, &key->keyid_pubkey, err);
	unsigned char *der = NULL;
	int der_len;

	if (r != IMT_OK)
		return r;
	/* The kernel matches a signature's keyid on the SKID's last bytes. */
	if (skid != NULL && ASN1_STRING_length(skid) >= 4) {
		key->keyid = tail_be32(ASN1_STRING_get0_data(skid),
				       (size_t)ASN1_STRING_length(skid));
		key->keyid_from_skid = 1;
	} else {
		key->keyid = key->keyid_pubkey;
	}
	der_len = i2d_X509(x, &der);
	if (der_len <= 0 || !EVP_Digest(der, (size_t)der_len, key->fingerprint,
					NULL, EVP_sha256(), NULL))
		r = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				    "fingerprinting the certificate");
	OPENSSL_free(der);
	return r;
}

static enum imt_result fill_subject(X509 *x, struct ima_key *key,
				    struct imt_error *err)
{
	BIO *bio = BIO_new(BIO_s_mem());
	enum imt_result r = IMT_OK;
	char *text;
	long n;

	if (bio == NULL || X509_NAME_print_ex(bio, X509_get_subject_name(x), 0,
					      XN_FLAG_RFC2253) < 0) {
		r = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				    "printing the subject");
		goto out;
	}
	n = BIO_get_mem_data(bio, &text);
	key->subject = malloc((size_t)n + 1);
	if (key->subject == NULL) {
		r = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
				  "out of memory");
		goto out;
	}
	memcpy(key->subject, text, (size_t)n);
	key->subject[n] = '\0';
out:
	BIO_free(bio);
	return r;
}

static enum imt_result fill_pkey(X509 *x, struct ima_key *key,
				 struct imt_error *err)
{
	int type;

	key->pkey = X509_get_pubkey(x);
	if (key->pkey == NULL)
		return tpm_crypto_fail(err, IMT_ERR_UNSUPPORTED,
				       "decoding the certificate's public key");
	type = EVP_PKEY_get_base_id(key->pkey);
	if (type != EVP_PKEY_RSA && type != EVP_PKEY_EC)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "certificate key type %s: IMA signatures are RSA or ECDSA",
				     OBJ_nid2sn(type));
	return IMT_OK;
}

enum imt_result ima_key_load(const uint8_t *buf, size_t len,
			     struct ima_key *key, struct imt_error *err)
{
	X509 *x = NULL;
	enum imt_result r;

	memset(key, 0, sizeof(*key));
	r = decode(buf, len, &x, err);
	if (r == IMT_OK)
		r = fill_pkey(x, key, err);
	if (r == IMT_OK)
		r = fill_ids(x, key, err);
	if (r == IMT_OK)
		r = fill_subject(x, key, err);
	X509_free(x);
	if (r != IMT_OK)
		ima_key_free(key);
	return r;
}

int ima_key_has_id(const struct ima_key *key, uint32_t keyid)
{
	return key->keyid == keyid;
}

void ima_key_free(struct ima_key *key)
{
	if (key == NULL)
		return;
	EVP_PKEY_free(key->pkey);
	free(key->subject);
	memset(key, 0, sizeof(*key));
}

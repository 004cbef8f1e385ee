// SPDX-License-Identifier: GPL-2.0-only
/*
 * keylime_key.c - parse, convert and name the keys of Keylime policies.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "keylime_key.h"

/* The key of @der, a certificate (kept in *@cert) or a bare key. */
static EVP_PKEY *key_load(const uint8_t *der, size_t len, X509 **cert,
			  const char *what, struct imt_error *err)
{
	const unsigned char *p = der;
	EVP_PKEY *key = NULL;
	X509 *x;

	*cert = NULL;
	if (len == 0 || len > LONG_MAX)
		goto bad;
	x = d2i_X509(NULL, &p, (long)len);
	if (x != NULL && p == der + len) {
		*cert = x;
		key = X509_get_pubkey(x);
	} else {
		X509_free(x);
		p = der;
		key = d2i_PUBKEY(NULL, &p, (long)len);
		if (key != NULL && p != der + len) {
			EVP_PKEY_free(key);
			key = NULL;
		}
	}
	ERR_clear_error();
	if (key == NULL)
		goto bad;
	if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA &&
	    EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "%s: a %s key; Keylime takes RSA and EC keys only",
			      what, OBJ_nid2sn(EVP_PKEY_get_base_id(key)));
		EVP_PKEY_free(key);
		X509_free(*cert);
		*cert = NULL;
		return NULL;
	}
	return key;
bad:
	X509_free(*cert);
	*cert = NULL;
	imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
		      "%s: not the DER of a public key (SubjectPublicKeyInfo) or of an X.509 certificate",
		      what);
	return NULL;
}

/* i2d_PUBKEY() into a malloc()ed buffer. */
static int spki_of(EVP_PKEY *key, uint8_t **out, size_t *out_len,
		   struct imt_error *err)
{
	unsigned char *p;
	int n = i2d_PUBKEY(key, NULL);

	*out = n > 0 ? malloc((size_t)n) : NULL;
	if (*out == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "cannot encode a public key");
		return -1;
	}
	p = *out;
	i2d_PUBKEY(key, &p);
	*out_len = (size_t)n;
	return 0;
}

int keylime_key_der(const uint8_t *der, size_t len, uint8_t **out,
		    size_t *out_len, const char *what, struct imt_error *err)
{
	X509 *cert;
	EVP_PKEY *key = key_load(der, len, &cert, what, err);
	int rc = -1;

	if (key == NULL)
		return -1;
	if (cert != NULL) {
		*out = malloc(len);
		if (*out == NULL) {
			imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				      IMT_NO_POS, "out of memory");
			goto out;
		}
		memcpy(*out, der, len);
		*out_len = len;
		rc = 0;
	} else {
		rc = spki_of(key, out, out_len, err);
	}
out:
	EVP_PKEY_free(key);
	X509_free(cert);
	return rc;
}

/* SHA-1 over PKCS#1 (RSA) or the uncompressed point (EC): last 4 bytes. */
static int keyid_of_key(EVP_PKEY *key, uint32_t *keyid, struct imt_error *err)
{
	uint8_t md[SHA_DIGEST_LENGTH];
	unsigned char *buf = NULL;
	int n;

	if (EVP_PKEY_get_base_id(key) == EVP_PKEY_EC)
		EVP_PKEY_set_utf8_string_param(key,
					       OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT,
					       OSSL_PKEY_EC_POINT_CONVERSION_FORMAT_UNCOMPRESSED);
	n = i2d_PublicKey(key, &buf);
	if (n <= 0) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "cannot encode a public key");
		return -1;
	}
	SHA1(buf, (size_t)n, md);
	OPENSSL_free(buf);
	*keyid = (uint32_t)md[16] << 24 | (uint32_t)md[17] << 16 |
		 (uint32_t)md[18] << 8 | md[19];
	return 0;
}

/* A certificate's subject key identifier, last 4 bytes; -1 if none. */
static int keyid_of_cert(X509 *cert, uint32_t *keyid)
{
	const ASN1_OCTET_STRING *skid = X509_get0_subject_key_id(cert);
	const unsigned char *d;
	int n;

	if (skid == NULL || ASN1_STRING_length(skid) < 4)
		return -1;
	d = ASN1_STRING_get0_data(skid);
	n = ASN1_STRING_length(skid);
	*keyid = (uint32_t)d[n - 4] << 24 | (uint32_t)d[n - 3] << 16 |
		 (uint32_t)d[n - 2] << 8 | d[n - 1];
	return 0;
}

int keylime_key_spki(const uint8_t *der, size_t len, uint8_t **spki,
		     size_t *spki_len, uint32_t *keyid, const char *what,
		     struct imt_error *err)
{
	X509 *cert;
	EVP_PKEY *key = key_load(der, len, &cert, what, err);
	int rc = -1;

	if (key == NULL)
		return -1;
	if ((cert == NULL || keyid_of_cert(cert, keyid) < 0) &&
	    keyid_of_key(key, keyid, err) < 0)
		goto out;
	rc = spki_of(key, spki, spki_len, err);
out:
	EVP_PKEY_free(key);
	X509_free(cert);
	return rc;
}

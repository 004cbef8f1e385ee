/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_cert.h - a self-signed P-256 TLS certificate for 127.0.0.1, made in
 * memory, for the tests that start the real HTTPS front.
 */
#ifndef IMATRUST_TEST_CERT_H
#define IMATRUST_TEST_CERT_H

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static inline char *test_cert_bio_text(BIO *b)
{
	char *data, *out;
	long n = BIO_get_mem_data(b, &data);

	out = malloc((size_t)n + 1);
	memcpy(out, data, (size_t)n);
	out[n] = '\0';
	return out;
}

/* @cert and @key receive PEM text the caller frees. */
static inline void test_cert_make(char **cert, char **key)
{
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	X509 *x = X509_new();
	BIO *b = BIO_new(BIO_s_mem());
	X509_EXTENSION *ext;
	X509V3_CTX v3;

	X509_set_version(x, X509_VERSION_3);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, pkey);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)"127.0.0.1", -1, -1,
				   0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name,
				  "IP:127.0.0.1");
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	X509_sign(x, pkey, EVP_sha256());
	PEM_write_bio_X509(b, x);
	*cert = test_cert_bio_text(b);
	BIO_reset(b);
	PEM_write_bio_PrivateKey(b, pkey, NULL, NULL, 0, NULL, NULL);
	*key = test_cert_bio_text(b);
	BIO_free(b);
	X509_free(x);
	EVP_PKEY_free(pkey);
}

#endif /* IMATRUST_TEST_CERT_H */

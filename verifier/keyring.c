// SPDX-License-Identifier: GPL-2.0-only
/*
 * keyring.c - the signature keys in force (see keyring.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "db.h"
#include "hash_algo.h"
#include "keyring.h"
#include "log.h"
#include "sig_adapter.h"

struct keyring_key {
	uint32_t keyid;
	EVP_PKEY *pkey;
	char *name;
	char *source;		/* "key:NAME" or the import's "KIND:NAME" */
};

struct keyring {
	int loaded;
	struct keyring_key *k;
	size_t n;
};

static void clear(struct keyring *kr)
{
	size_t i;

	for (i = 0; i < kr->n; i++) {
		EVP_PKEY_free(kr->k[i].pkey);
		free(kr->k[i].name);
		free(kr->k[i].source);
	}
	free(kr->k);
	kr->k = NULL;
	kr->n = 0;
	kr->loaded = 0;
}

static int load_one(const struct db_key *dk, void *arg)
{
	struct keyring *kr = arg;
	struct keyring_key *nk, *k;
	const unsigned char *p = dk->der;
	EVP_PKEY *pkey = NULL;
	uint32_t keyid;
	X509 *x;

	x = d2i_X509(NULL, &p, (long)dk->der_len);
	if (x != NULL) {
		pkey = X509_get_pubkey(x);
		X509_free(x);
	} else {
		p = dk->der;
		pkey = d2i_PUBKEY(NULL, &p, (long)dk->der_len);
	}
	if (pkey == NULL) {
		log_warnx("key %s as stored does not load: skipped", dk->name);
		return 0;
	}
	keyid = (uint32_t)dk->keyid[0] << 24 | (uint32_t)dk->keyid[1] << 16 |
		(uint32_t)dk->keyid[2] << 8 | dk->keyid[3];
	nk = realloc(kr->k, (kr->n + 1) * sizeof(*nk));
	if (nk == NULL) {
		EVP_PKEY_free(pkey);
		return 1;
	}
	kr->k = nk;
	k = &kr->k[kr->n];
	k->keyid = keyid;
	k->pkey = pkey;
	k->name = strdup(dk->name);
	k->source = strdup(dk->source);
	kr->n++;
	if (k->name == NULL || k->source == NULL)
		return 1;
	return 0;
}

static struct keyring *ring_of(struct verifier *v)
{
	struct keyring *kr = v->keyring;
	struct imt_error err;

	if (kr == NULL) {
		kr = calloc(1, sizeof(*kr));
		if (kr == NULL)
			return NULL;
		v->keyring = kr;
	}
	if (!kr->loaded) {
		clear(kr);
		if (db_key_list(v->db, load_one, kr, &err) < 0)
			log_warnx("reading the signature keys: %s", err.msg);
		kr->loaded = 1;
	}
	return kr;
}

void keyring_check(struct verifier *v, const struct policy *p,
		   const uint8_t *sig, size_t sig_len, const char *algo,
		   const uint8_t *digest, size_t digest_len,
		   struct keyring_check *out)
{
	const struct hash_algo *ha = algo != NULL ?
				      hash_algo_by_name(algo, strlen(algo)) : NULL;
	struct keyring *kr;
	struct sig_blob blob;
	struct imt_error err;
	int tried = 0, rc;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->result = KEYRING_NO_SIGNATURE;
	if (sig == NULL || sig_len == 0 || ha == NULL)
		return;
	rc = sig_parse(sig, sig_len, &blob, &err);
	if (rc == SIG_NOT_A_SIGNATURE)
		return;
	out->keyid = blob.keyid;
	if (rc < 0) {
		out->result = KEYRING_BAD;
		snprintf(out->key, sizeof(out->key), "none");
		snprintf(out->why, sizeof(out->why), "%s", err.msg);
		return;
	}
	out->result = KEYRING_UNKNOWN_KEY;
	kr = ring_of(v);
	for (i = 0; kr != NULL && i < kr->n; i++) {
		const struct keyring_key *k = &kr->k[i];

		if (k->keyid != blob.keyid || !policy_selects(p, k->source))
			continue;
		tried = 1;
		snprintf(out->key, sizeof(out->key), "%s", k->name);
		if (sig_verify(&blob, k->pkey, ha, digest, digest_len,
			       &err) == 0) {
			out->result = KEYRING_GOOD;
			return;
		}
		snprintf(out->why, sizeof(out->why), "%s", err.msg);
	}
	if (tried)
		out->result = KEYRING_BAD;
}

void keyring_invalidate(struct verifier *v)
{
	if (v->keyring != NULL)
		v->keyring->loaded = 0;
}

void keyring_free(struct verifier *v)
{
	if (v->keyring == NULL)
		return;
	clear(v->keyring);
	free(v->keyring);
	v->keyring = NULL;
}

/* The key id: the subjectKeyIdentifier's last 4 bytes, else those of
 * SHA-1 over the public key (what evmctl computes without one). */
static int cert_keyid(X509 *x, EVP_PKEY *pkey, uint8_t id[4])
{
	const ASN1_OCTET_STRING *skid = x != NULL ?
					X509_get0_subject_key_id(x) : NULL;
	unsigned char md[SHA_DIGEST_LENGTH], *pub = NULL;
	int n;

	if (skid != NULL && ASN1_STRING_length(skid) >= 4) {
		memcpy(id, ASN1_STRING_get0_data(skid) +
		       ASN1_STRING_length(skid) - 4, 4);
		return 0;
	}
	n = i2d_PublicKey(pkey, &pub);
	if (n <= 0)
		return -1;
	SHA1(pub, (size_t)n, md);
	OPENSSL_free(pub);
	memcpy(id, md + sizeof(md) - 4, 4);
	return 0;
}

static X509 *read_x509(const uint8_t *buf, size_t len)
{
	const unsigned char *p = buf;
	BIO *bio;
	X509 *x;

	x = d2i_X509(NULL, &p, (long)len);
	if (x != NULL && p == buf + len)
		return x;
	X509_free(x);
	bio = BIO_new_mem_buf(buf, (int)len);
	x = bio != NULL ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	return x;
}

static EVP_PKEY *read_spki(const uint8_t *buf, size_t len)
{
	const unsigned char *p = buf;
	EVP_PKEY *k;
	BIO *bio;

	k = d2i_PUBKEY(NULL, &p, (long)len);
	if (k != NULL && p == buf + len)
		return k;
	EVP_PKEY_free(k);
	bio = BIO_new_mem_buf(buf, (int)len);
	k = bio != NULL ? PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL) : NULL;
	BIO_free(bio);
	return k;
}

static int to_der(X509 *x, EVP_PKEY *k, struct keyring_cert *c)
{
	unsigned char *der = NULL;
	int n = x != NULL ? i2d_X509(x, &der) : i2d_PUBKEY(k, &der);

	if (n <= 0)
		return -1;
	c->der = malloc((size_t)n);
	if (c->der != NULL)
		memcpy(c->der, der, (size_t)n);
	OPENSSL_free(der);
	c->key.der = c->der;
	c->key.der_len = (size_t)n;
	return c->der != NULL ? 0 : -1;
}

int keyring_cert_load(const uint8_t *buf, size_t len, int allow_spki,
		      struct keyring_cert *c, struct imt_error *err)
{
	EVP_PKEY *pkey = NULL;
	X509 *x = NULL;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (buf == NULL || len == 0 || len > DB_KEY_DER_MAX * 2 ||
	    len > INT32_MAX) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "not an X.509 certificate: empty or larger "
			      "than %d bytes", DB_KEY_DER_MAX * 2);
		return -1;
	}
	x = read_x509(buf, len);
	if (x != NULL)
		pkey = X509_get_pubkey(x);
	else if (allow_spki)
		pkey = read_spki(buf, len);
	if (pkey == NULL) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      allow_spki ? "not an X.509 certificate or a "
			      "public key" : "not an X.509 certificate");
		goto out;
	}
	if (EVP_PKEY_base_id(pkey) != EVP_PKEY_RSA &&
	    EVP_PKEY_base_id(pkey) != EVP_PKEY_EC) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
			      IMT_NO_POS, "the key is neither RSA nor EC");
		goto out;
	}
	if (x != NULL)
		X509_NAME_oneline(X509_get_subject_name(x), c->subject,
				  sizeof(c->subject));
	else
		snprintf(c->subject, sizeof(c->subject), "(public key)");
	c->key.subject = c->subject;
	if (cert_keyid(x, pkey, c->key.keyid) < 0 || to_der(x, pkey, c) < 0) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		goto out;
	}
	SHA256(c->key.der, c->key.der_len, c->key.fpr);
	rc = 0;
out:
	EVP_PKEY_free(pkey);
	X509_free(x);
	if (rc < 0)
		keyring_cert_free(c);
	return rc;
}

void keyring_cert_free(struct keyring_cert *c)
{
	free(c->der);
	c->der = NULL;
}

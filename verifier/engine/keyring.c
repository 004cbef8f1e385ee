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

#include "cluster.h"
#include "db_key.h"
#include "hash_algo.h"
#include "keyring.h"
#include "log.h"
#include "ima_key.h"
#include "ima_sig.h"

struct keyring_key {
	uint32_t keyid;
	EVP_PKEY *pkey;
	char *name;
	char *source; /* "key:NAME" or the import's "KIND:NAME" */
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
	cluster_sync(v);
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
	const struct hash_algo *ha;
	struct keyring *kr;
	struct ima_sig blob;
	struct imt_error err;
	int tried = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->result = KEYRING_NO_SIGNATURE;
	if (sig == NULL || sig_len == 0 || algo == NULL)
		return; /* most records: no lookup of the name */
	ha = hash_algo_by_name(algo, strlen(algo));
	if (ha == NULL)
		return;
	if (ima_sig_parse(sig, sig_len, &blob, &err) != IMT_OK) {
		/* a sig field that is no valid value is never ignored */
		out->result = KEYRING_BAD;
		snprintf(out->key, sizeof(out->key), "none");
		snprintf(out->why, sizeof(out->why), "%.150s", err.msg);
		return;
	}
	if (blob.kind == IMA_SIG_NONE || blob.kind == IMA_SIG_OTHER)
		return;
	out->keyid = blob.keyid;
	out->result = KEYRING_UNKNOWN_KEY;
	kr = ring_of(v);
	for (i = 0; kr != NULL && i < kr->n; i++) {
		const struct keyring_key *k = &kr->k[i];

		if (k->keyid != blob.keyid || !policy_selects(p, k->source))
			continue;
		tried = 1;
		snprintf(out->key, sizeof(out->key), "%s", k->name);
		if (ima_sig_verify(&blob, k->pkey, ha, digest, digest_len,
				   &err) == IMT_OK) {
			out->result = KEYRING_GOOD;
			return;
		}
		snprintf(out->why, sizeof(out->why), "%.150s", err.msg);
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

/* evmctl's key id of a bare public key: SHA-1 over its bits. */
static int pubkey_keyid(EVP_PKEY *pkey, uint8_t id[4])
{
	unsigned char md[SHA_DIGEST_LENGTH], *pub = NULL;
	int n = i2d_PublicKey(pkey, &pub);

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

static void put_be32(uint8_t out[4], uint32_t v)
{
	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
}

static int keep_der(struct keyring_cert *c, const uint8_t *der, size_t n)
{
	c->der = malloc(n);
	if (c->der == NULL)
		return -1;
	memcpy(c->der, der, n);
	c->key.der = c->der;
	c->key.der_len = n;
	return 0;
}

/* A certificate: everything from ima_key_load(), the DER re-encoded. */
static int load_cert(const uint8_t *buf, size_t len, struct keyring_cert *c,
		     struct imt_error *err)
{
	struct ima_key k;
	unsigned char *der = NULL;
	X509 *x = read_x509(buf, len);
	int n, rc = -1;

	if (ima_key_load(buf, len, &k, err) != IMT_OK) {
		X509_free(x);
		return -1;
	}
	n = x != NULL ? i2d_X509(x, &der) : -1;
	if (n > 0 && keep_der(c, der, (size_t)n) == 0) {
		put_be32(c->key.keyid, k.keyid);
		memcpy(c->key.fpr, k.fingerprint, 32);
		snprintf(c->subject, sizeof(c->subject), "%s",
			 k.subject != NULL ? k.subject : "");
		c->key.subject = c->subject;
		rc = 0;
	} else {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
	}
	OPENSSL_free(der);
	X509_free(x);
	ima_key_free(&k);
	return rc;
}

/* A bare public key (a Keylime policy's): DER SubjectPublicKeyInfo. */
static int load_spki(const uint8_t *buf, size_t len, struct keyring_cert *c,
		     struct imt_error *err)
{
	EVP_PKEY *pkey = read_spki(buf, len);
	unsigned char *der = NULL;
	int n, rc = -1;

	if (pkey == NULL) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "not an X.509 certificate or a public key");
		return -1;
	}
	n = i2d_PUBKEY(pkey, &der);
	if (n > 0 && keep_der(c, der, (size_t)n) == 0 &&
	    pubkey_keyid(pkey, c->key.keyid) == 0) {
		SHA256(c->key.der, c->key.der_len, c->key.fpr);
		snprintf(c->subject, sizeof(c->subject), "(public key)");
		c->key.subject = c->subject;
		rc = 0;
	} else {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "cannot encode the public key");
	}
	OPENSSL_free(der);
	EVP_PKEY_free(pkey);
	return rc;
}

int keyring_cert_load(const uint8_t *buf, size_t len, int allow_spki,
		      struct keyring_cert *c, struct imt_error *err)
{
	X509 *x;
	int rc;

	memset(c, 0, sizeof(*c));
	if (buf == NULL || len == 0 || len > DB_KEY_DER_MAX * 2) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "not an X.509 certificate: empty or larger than "
			      "%d bytes",
			      DB_KEY_DER_MAX * 2);
		return -1;
	}
	x = read_x509(buf, len);
	if (x != NULL || !allow_spki)
		rc = load_cert(buf, len, c, err);
	else
		rc = load_spki(buf, len, c, err);
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

// SPDX-License-Identifier: GPL-2.0-only
/*
 * keyring.c - the signature keys in force (see keyring.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

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
	struct imt_error err;
	EVP_PKEY *pkey;
	uint32_t keyid;

	if (sig_key_load(dk->der, dk->der_len, &pkey, &keyid, &err) < 0) {
		log_warnx("key %s as stored does not load (%s): skipped",
			  dk->name, err.msg);
		return 0;
	}
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

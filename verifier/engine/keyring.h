/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * keyring.h - the signature keys in force, and the check of a record's
 * IMA signature against the keys its machine's policy trusts.
 *
 * Loaded from the database (db_key.c) on first use after
 * keyring_invalidate(), as ready OpenSSL keys; used under v->lock, or
 * in a read view under its own lock (its own keyring: reader.c).
 */
#ifndef IMATRUST_KEYRING_H
#define IMATRUST_KEYRING_H

#include <stddef.h>
#include <stdint.h>

#include "db_key.h"
#include "policy.h"
#include "verifier.h"

enum keyring_result {
	KEYRING_NO_SIGNATURE, /* no sig field, or not a signature */
	KEYRING_GOOD,	      /* verified by a key the policy trusts */
	KEYRING_BAD,	      /* a trusted key with its id does not verify
				 * it, or the signature is malformed */
	KEYRING_UNKNOWN_KEY,  /* no key the policy trusts has its id */
};

struct keyring_check {
	enum keyring_result result;
	uint32_t keyid; /* from the signature (not NO_SIGNATURE) */
	char key[256];	/* the key's name (GOOD, BAD) */
	char why[160];	/* what was wrong (BAD) */
};

/**
 * keyring_check() - check IMA signature @sig (the record's sig field)
 * over the file digest (@algo, @digest) with the keys policy @p trusts.
 */
void keyring_check(struct verifier *v, const struct policy *p,
		   const uint8_t *sig, size_t sig_len, const char *algo,
		   const uint8_t *digest, size_t digest_len,
		   struct keyring_check *out);

/* A certificate (or public key) checked and described for db_key_add(). */
struct keyring_cert {
	struct db_key key; /* name left to the caller */
	char subject[256];
	uint8_t *der; /* owned */
};

/**
 * keyring_cert_load() - parse an X.509 certificate, PEM or DER, from
 * (@buf, @len): its DER, SHA-256 fingerprint, subject and the key id IMA
 * signatures made with its key carry. With @allow_spki a bare public key
 * (SubjectPublicKeyInfo, PEM or DER: a Keylime policy's keys) is taken
 * too. Anything else: IMT_ERR_MALFORMED "not an X.509 certificate".
 */
int keyring_cert_load(const uint8_t *buf, size_t len, int allow_spki,
		      struct keyring_cert *c, struct imt_error *err);
void keyring_cert_free(struct keyring_cert *c);

/** keyring_invalidate() - read the keys again before the next use. */
void keyring_invalidate(struct verifier *v);

/** keyring_free() - at shutdown. */
void keyring_free(struct verifier *v);

#endif /* IMATRUST_KEYRING_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * result_key.h - the verifier's key for signed attestation results: a
 * P-256 private key in a PEM file, made on first start, its public half
 * as a JWK (RFC 7517/7518) named by its RFC 7638 thumbprint, and ES256
 * signatures as JWS writes them (RFC 7518 §3.4: r || s, 64 bytes).
 *
 * The one place the verifier touches this key; route_results.c and
 * ear.c see only the struct.
 */
#ifndef IMATRUST_RESULT_KEY_H
#define IMATRUST_RESULT_KEY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "b64.h"
#include "config.h"

#define RESULT_KEY_FILE "result-key.pem" /* beside the database */
#define RESULT_KEY_PEM_MAX 16384	 /* a larger key file is not ours */
#define RESULT_COORD_LEN 32		 /* bytes of a P-256 coordinate */
#define RESULT_SIG_LEN 64		 /* r || s */
/* base64url of a SHA-256 thumbprint, with its NUL */
#define RESULT_KID_MAX (B64URL_ENCODED_LEN(32) + 1)

struct result_key {
	EVP_PKEY *pkey;		     /* owned */
	uint8_t x[RESULT_COORD_LEN]; /* public point */
	uint8_t y[RESULT_COORD_LEN];
	char kid[RESULT_KID_MAX]; /* RFC 7638 thumbprint */
};

/**
 * result_key_path() - where the key of @c lives: result_key, or
 * RESULT_KEY_FILE in the directory of the database file.
 * @c: the configuration
 * @out: receives the path
 * @n: size of @out
 *
 * Return: 0, or -1 when the path does not fit, or when there is no
 * default (result_key empty with a PostgreSQL database).
 */
int result_key_path(const struct config *c, char *out, size_t n);

/**
 * result_key_load() - the key in @path; made there first when the file
 * does not exist (P-256, mode 0600, written to a new temporary file in
 * the same directory, synced, then renamed into place).
 * @path: the PEM file
 * @created: receives 1 when the key was made now, else 0
 * @why: receives the reason on failure, naming @path
 * @whylen: size of @why
 *
 * Refused: a file group or others may access, one that does not read as
 * a PEM private key, a key other than EC P-256.
 *
 * Return: the key (result_key_free()), or NULL.
 */
struct result_key *result_key_load(const char *path, int *created, char *why,
				   size_t whylen);

/**
 * result_key_create() - a new P-256 key, written to @path as
 * result_key_load() makes one (0600, temporary file, sync, rename),
 * replacing what was there.
 * @path: the PEM file
 * @owner: whose file it is to be (file_replace_owned()), NULL: ours
 * @why: receives the reason on failure, naming @path
 * @whylen: size of @why
 *
 * Return: the key (result_key_free()), or NULL.
 */
struct result_key *result_key_create(const char *path, const struct stat *owner,
				     char *why, size_t whylen);

/**
 * result_key_load_public() - the public key in @path (PEM
 * SubjectPublicKeyInfo, as result_key_save_public() writes it): a key
 * that verifies and cannot sign. Refused as result_key_load() refuses.
 * @path: the PEM file
 * @absent: receives 1 when @path does not exist, else 0
 * @why: receives the reason on failure, naming @path
 * @whylen: size of @why
 *
 * Return: the key (result_key_free()), or NULL.
 */
struct result_key *result_key_load_public(const char *path, int *absent,
					  char *why, size_t whylen);

/**
 * result_key_save_public() - write the public half of @k to @path (PEM,
 * 0600, temporary file, sync, rename); the private half is not written.
 * @k: the key
 * @path: the file
 * @owner: whose file it is to be (file_replace_owned()), NULL: ours
 * @why: receives the reason on failure, naming @path
 * @whylen: size of @why
 *
 * Return: 0, or -1.
 */
int result_key_save_public(const struct result_key *k, const char *path,
			   const struct stat *owner, char *why, size_t whylen);

/** result_key_free() - free @k and its private key; NULL is fine. */
void result_key_free(struct result_key *k);

/**
 * result_key_from_pkey() - wrap an EC P-256 key @pkey (the call takes
 * it, also on failure): coordinates and kid. For tests and load.
 * Return: the key, or NULL when @pkey is not P-256.
 */
struct result_key *result_key_from_pkey(EVP_PKEY *pkey);

/**
 * result_key_thumbprint() - the RFC 7638 thumbprint of an EC P-256
 * public key: base64url(SHA-256 of {"crv":"P-256","kty":"EC","x":X,
 * "y":Y}), members in that order, no whitespace.
 * @x: the x coordinate, RESULT_COORD_LEN bytes
 * @y: the y coordinate
 * @out: receives the thumbprint, NUL-terminated
 *
 * Return: 0, or -1 when SHA-256 fails.
 */
int result_key_thumbprint(const uint8_t *x, const uint8_t *y,
			  char out[RESULT_KID_MAX]);

/**
 * result_key_jwk() - the public key as a JWK: kty, crv, x, y, use "sig",
 * alg "ES256", kid.
 * Return: a new reference, or NULL on allocation failure.
 */
json_t *result_key_jwk(const struct result_key *k);

/**
 * result_key_sign() - the ES256 signature of @len bytes at @data.
 * @k: the key
 * @data: what is signed (a JWS signing input)
 * @len: its length
 * @sig: receives r || s, each left-padded to 32 bytes
 *
 * Return: 0, or -1 when OpenSSL fails.
 */
int result_key_sign(const struct result_key *k, const void *data, size_t len,
		    uint8_t sig[RESULT_SIG_LEN]);

#endif /* IMATRUST_RESULT_KEY_H */

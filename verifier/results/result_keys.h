/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * result_keys.h - the result signing key and the one before it: their
 * rotation and what a running verifier signs and publishes with.
 *
 * The current key is the private key in its file (result_key.h); the
 * previous one is the public half of the key it replaced, in the same
 * path with RESULT_KEY_PREV_SUFFIX. A rotation writes the previous file
 * first, then a new key over the current one (each a temporary file,
 * synced, renamed), holding an flock() on the path with
 * RESULT_KEY_LOCK_SUFFIX so that two rotations of one file are one
 * after the other. The private half of the replaced key is written
 * nowhere: the previous key verifies, it cannot sign.
 *
 * A running verifier looks at both files before it signs or publishes:
 * a file changed since it read it (another process rotated it) is read
 * again, so every verifier reading the same files follows a rotation at
 * its next request.
 */
#ifndef IMATRUST_RESULT_KEYS_H
#define IMATRUST_RESULT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "result_key.h"

#define RESULT_KEY_PREV_SUFFIX ".prev"
#define RESULT_KEY_LOCK_SUFFIX ".lock"
#define KEY_CMD_USAGE "       imatrust-verifier [-c FILE] key rotate\n"

struct result_keys;

/**
 * result_key_rotate() - replace the key in @path by a new one, keeping
 * the public half of the old one as the previous key.
 * @path: the current key's file (it must exist and read as a key)
 * @min_age: rotate only when the current key file is at least this many
 *           seconds old at @now (0: always); checked holding the lock, so
 *           that of several verifiers due at once one rotates
 * @now: seconds since the epoch
 * @kid: receives the current key's kid afterwards (new, or the one kept)
 * @why: receives the reason on failure, naming the file
 * @whylen: size of @why
 *
 * Return: 1 when rotated, 0 when the key was not yet @min_age old, -1 on
 * failure (the current key is kept when the new one was not written).
 */
int result_key_rotate(const char *path, int64_t min_age, int64_t now,
		      char kid[RESULT_KID_MAX], char *why, size_t whylen);

/**
 * result_keys_open() - the keys of @path for a running verifier: the
 * current one (made when the file does not exist, result_key_load()) and
 * the previous one when its file exists.
 * @path: the current key's file
 * @rotate_every: rotate when the current key file is this many seconds
 *                old (result_key_rotate = in the configuration), 0 never
 * @created: receives 1 when the current key was made now
 * @why: receives the reason on failure, naming the file
 * @whylen: size of @why
 *
 * Return: the keys (result_keys_close()), or NULL.
 */
struct result_keys *result_keys_open(const char *path, int64_t rotate_every,
				     int *created, char *why, size_t whylen);

/**
 * result_keys_of() - the keys of @k alone, held in memory (no file: never
 * read again, never rotated). For tests.
 * @k: the current key (the call takes it, also on failure)
 *
 * Return: the keys (result_keys_close()), or NULL.
 */
struct result_keys *result_keys_of(struct result_key *k);

/** result_keys_close() - free @ks and its keys; NULL is fine. */
void result_keys_close(struct result_keys *ks);

/**
 * result_keys_hold() - the current key, to sign with: the files read
 * again when they changed, the key rotated first when it is due. Locks
 * @ks until result_keys_release(); a file that does not read keeps the
 * key read before.
 * @ks: the keys
 * @now: seconds since the epoch
 *
 * Return: the key, valid until result_keys_release().
 */
const struct result_key *result_keys_hold(struct result_keys *ks, int64_t now);

/** result_keys_release() - unlock @ks after result_keys_hold(). */
void result_keys_release(struct result_keys *ks);

/**
 * result_keys_jwks() - the JWK Set: the current key, then the previous
 * one when there is one with another kid (result_keys_hold() first).
 * @ks: the keys
 * @now: seconds since the epoch
 *
 * Return: {"keys": [...]}, a new reference, or NULL on allocation failure.
 */
json_t *result_keys_jwks(struct result_keys *ks, int64_t now);

#endif /* IMATRUST_RESULT_KEYS_H */

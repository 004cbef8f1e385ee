/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webhook_sign.h - the signature of a webhook message, as the Standard
 * Webhooks specification (standardwebhooks.com) writes it:
 *
 *	webhook-signature: v1,<base64(HMAC-SHA256(secret, id.timestamp.body))>
 *
 * and secrets as "whsec_<base64>" text. Pure: no I/O, no clock.
 */
#ifndef IMATRUST_WEBHOOK_SIGN_H
#define IMATRUST_WEBHOOK_SIGN_H

#include <stddef.h>
#include <stdint.h>

#include "b64.h"
#include "db_webhook.h"

#define WEBHOOK_SECRET_BYTES 32 /* a secret the verifier makes */
#define WEBHOOK_SECRET_PREFIX "whsec_"
/* "whsec_" + base64 of the longest secret, with its NUL */
#define WEBHOOK_SECRET_TEXT_MAX \
	(sizeof(WEBHOOK_SECRET_PREFIX) + B64_ENCODED_LEN(DB_WEBHOOK_SECRET_MAX))
/* "v1," + base64 of a SHA-256 MAC, with its NUL */
#define WEBHOOK_SIGNATURE_MAX (3 + B64_ENCODED_LEN(32) + 1)
/* two of them, space-separated: a rotation under way */
#define WEBHOOK_SIGNATURES_MAX (2 * WEBHOOK_SIGNATURE_MAX)
#define WEBHOOK_KEY_ID_LEN 16 /* hex digits of a key id */

/**
 * webhook_sign() - the webhook-signature header's value.
 * @secret: the key, @secret_len bytes
 * @secret_len: its length
 * @id: the message id (webhook-id)
 * @timestamp: seconds since the epoch (webhook-timestamp)
 * @body: the exact bytes sent, @body_len of them
 * @body_len: their number
 * @out: receives "v1,<base64>", NUL-terminated
 *
 * Return: 0, or -1 when the MAC cannot be computed.
 */
int webhook_sign(const uint8_t *secret, size_t secret_len, const char *id,
		 int64_t timestamp, const char *body, size_t body_len,
		 char out[WEBHOOK_SIGNATURE_MAX]);

/**
 * webhook_sign_all() - the webhook-signature header's value while an
 * endpoint may hold two secrets: "v1,<current>" alone, or, during a
 * rotation, "v1,<current> v1,<previous>" (Standard Webhooks: signatures
 * space-separated; a receiver accepts a message when one verifies).
 * @secret: the current secret, @secret_len bytes
 * @secret_len: its length
 * @previous: the secret a rotation replaced, or NULL
 * @previous_len: its length
 * @id: the message id
 * @timestamp: seconds since the epoch
 * @body: the exact bytes sent, @body_len of them
 * @body_len: their number
 * @out: receives the value, NUL-terminated
 *
 * Return: 0, or -1 when a MAC cannot be computed.
 */
int webhook_sign_all(const uint8_t *secret, size_t secret_len,
		     const uint8_t *previous, size_t previous_len,
		     const char *id, int64_t timestamp, const char *body,
		     size_t body_len, char out[WEBHOOK_SIGNATURES_MAX]);

/**
 * webhook_key_id() - the name of a secret: the first 8 bytes of its
 * SHA-256 in hex, so a receiver holding two secrets (a rotation) knows
 * which one signed, and nothing about the secret is told.
 * @out: receives WEBHOOK_KEY_ID_LEN hex digits and a NUL
 */
void webhook_key_id(const uint8_t *secret, size_t secret_len,
		    char out[WEBHOOK_KEY_ID_LEN + 1]);

/**
 * webhook_secret_text() - "whsec_<base64 of @secret>".
 * @out: receives the text, NUL-terminated
 */
void webhook_secret_text(const uint8_t *secret, size_t secret_len,
			 char out[WEBHOOK_SECRET_TEXT_MAX]);

/**
 * webhook_secret_parse() - the bytes of a secret given as text:
 * "whsec_<base64>" or bare base64, DB_WEBHOOK_SECRET_MIN to
 * DB_WEBHOOK_SECRET_MAX bytes once decoded; spaces and newlines at the end
 * are ignored (a secret file).
 * @text: the text, @len bytes (need not be NUL-terminated)
 * @len: its length
 * @out: receives the bytes
 * @out_len: receives their number
 *
 * Return: 0, or -1 when it is not such a secret.
 */
int webhook_secret_parse(const char *text, size_t len,
			 uint8_t out[DB_WEBHOOK_SECRET_MAX], size_t *out_len);

#endif /* IMATRUST_WEBHOOK_SIGN_H */

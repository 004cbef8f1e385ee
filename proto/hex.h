/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hex.h - lower-case hexadecimal encoding of byte strings.
 */
#ifndef IMATRUST_HEX_H
#define IMATRUST_HEX_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/**
 * hex_encode() - write @len bytes of @in as 2*@len hex digits plus NUL.
 * @in: bytes to encode
 * @len: number of bytes
 * @out: buffer of at least 2 * @len + 1 bytes
 */
void hex_encode(const uint8_t *in, size_t len, char *out);

/**
 * hex_json() - @len bytes of @b as a JSON string of lower-case hex.
 *
 * Return: a new reference, or NULL when out of memory.
 */
json_t *hex_json(const uint8_t *b, size_t len);

/**
 * hex_decode() - decode exactly @hexlen hex digits (either case).
 * @hex: the digits (need not be NUL-terminated)
 * @hexlen: number of digits; must be even
 * @out: receives @hexlen / 2 bytes
 * @outlen: size of @out; must be at least @hexlen / 2
 *
 * Return: number of bytes written, or -1 on an odd length, a non-hex
 * character or a too-small @out.
 */
long hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t outlen);

#define HEX_FPR_SIZE 32 /* bytes of a SHA-256 key fingerprint */

/**
 * hex_fpr_parse() - a SHA-256 fingerprint as an operator types it: 64
 * hex digits, either case, optionally after "sha256:"; colons between
 * bytes are allowed (as openssl prints them). The verifier's API and the
 * CLI read the EK fingerprints of enrollment this way.
 * @text: NUL-terminated; NULL is no fingerprint
 * @fpr: receives HEX_FPR_SIZE bytes
 *
 * Return: 0, or -1 when @text is not a SHA-256 fingerprint.
 */
int hex_fpr_parse(const char *text, uint8_t fpr[HEX_FPR_SIZE]);

#endif /* IMATRUST_HEX_H */

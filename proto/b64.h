/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * b64.h - strict base64 (RFC 4648 §4, padded, no line breaks) and its
 * URL-safe form without padding (RFC 4648 §5, as JOSE writes it).
 */
#ifndef IMATRUST_B64_H
#define IMATRUST_B64_H

#include <stddef.h>
#include <stdint.h>

/* Characters b64_encode() writes for @n bytes, without the NUL. */
#define B64_ENCODED_LEN(n) (((n) + 2) / 3 * 4)
/* Bytes b64_decode() may write for @n characters (an upper bound). */
#define B64_DECODED_MAX(n) ((n) / 4 * 3)

/**
 * b64_encode() - encode @len bytes into @out.
 * @in: bytes
 * @len: number of bytes
 * @out: at least B64_ENCODED_LEN(@len) + 1 bytes; NUL-terminated
 */
void b64_encode(const uint8_t *in, size_t len, char *out);

/**
 * b64_decode() - decode exactly @n characters.
 * @in: the characters (need not be NUL-terminated)
 * @n: how many; a multiple of 4
 * @out: at least B64_DECODED_MAX(@n) bytes
 *
 * Rejects anything not canonical: wrong length, characters outside the
 * alphabet, misplaced padding, non-zero bits in the padding.
 *
 * Return: number of bytes written, or -1.
 */
long b64_decode(const char *in, size_t n, uint8_t *out);

/* Characters b64url_encode() writes for @n bytes, without the NUL. */
#define B64URL_ENCODED_LEN(n) (((n)*4 + 2) / 3)

/**
 * b64url_encode() - encode @len bytes as base64url without padding.
 * @in: bytes
 * @len: number of bytes
 * @out: at least B64_ENCODED_LEN(@len) + 1 bytes (the padded length:
 *       it is written first, then cut); NUL-terminated
 */
void b64url_encode(const uint8_t *in, size_t len, char *out);

/**
 * b64url_decode() - decode exactly @n characters of unpadded base64url.
 * @in: the characters (need not be NUL-terminated)
 * @n: how many; @n % 4 == 1 is never valid
 * @out: at least B64_DECODED_MAX(@n + 3) bytes
 *
 * As strict as b64_decode(): no padding, nothing outside the alphabet
 * (no '+' or '/'), zero bits where the last character has spare ones.
 *
 * Return: number of bytes written, or -1.
 */
long b64url_decode(const char *in, size_t n, uint8_t *out);

#endif /* IMATRUST_B64_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * b64.c - strict base64, and base64url as its translation.
 */
#include <stdlib.h>
#include <string.h>

#include "b64.h"

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void b64_encode(const uint8_t *in, size_t len, char *out)
{
	size_t i;
	char *p = out;

	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 |
			     in[i + 2];

		*p++ = alphabet[v >> 18];
		*p++ = alphabet[(v >> 12) & 63];
		*p++ = alphabet[(v >> 6) & 63];
		*p++ = alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)in[i] << 16 |
			     (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);

		*p++ = alphabet[v >> 18];
		*p++ = alphabet[(v >> 12) & 63];
		*p++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		*p++ = '=';
	}
	*p = '\0';
}

/*
 * Each byte's 6-bit value with VALID set, 0 for a byte that is not in
 * the alphabet: one load per character instead of four range tests, and
 * one test per group of four (the AND of the entries). Evidence carries
 * its records in base64: this runs for every byte of every batch.
 */
#define VALID 0x40
#define V(c, v) [c] = VALID | (v)
static const uint8_t values[256] = {
	V('A', 0),  V('B', 1),	V('C', 2),  V('D', 3),	V('E', 4),  V('F', 5),
	V('G', 6),  V('H', 7),	V('I', 8),  V('J', 9),	V('K', 10), V('L', 11),
	V('M', 12), V('N', 13), V('O', 14), V('P', 15), V('Q', 16), V('R', 17),
	V('S', 18), V('T', 19), V('U', 20), V('V', 21), V('W', 22), V('X', 23),
	V('Y', 24), V('Z', 25), V('a', 26), V('b', 27), V('c', 28), V('d', 29),
	V('e', 30), V('f', 31), V('g', 32), V('h', 33), V('i', 34), V('j', 35),
	V('k', 36), V('l', 37), V('m', 38), V('n', 39), V('o', 40), V('p', 41),
	V('q', 42), V('r', 43), V('s', 44), V('t', 45), V('u', 46), V('v', 47),
	V('w', 48), V('x', 49), V('y', 50), V('z', 51), V('0', 52), V('1', 53),
	V('2', 54), V('3', 55), V('4', 56), V('5', 57), V('6', 58), V('7', 59),
	V('8', 60), V('9', 61), V('+', 62), V('/', 63),
};
#undef V

/* The last group of four: padding allowed, its unused bits zero. */
static long decode_last(const char *in, uint8_t *out)
{
	int pad = (in[3] == '=') + (in[2] == '=');
	uint8_t a = values[(uint8_t)in[0]], b = values[(uint8_t)in[1]];
	uint8_t c = pad >= 2 ? VALID : values[(uint8_t)in[2]];
	uint8_t d = pad >= 1 ? VALID : values[(uint8_t)in[3]];
	uint32_t v;

	/* "x=y=" is not padding; padding bits must be zero. */
	if (!(a & b & c & d & VALID) || (pad == 1 && in[2] == '='))
		return -1;
	v = (uint32_t)(a & 63) << 18 | (uint32_t)(b & 63) << 12 |
	    (uint32_t)(c & 63) << 6 | (d & 63);
	if ((pad == 2 && (v & 0xffff)) || (pad == 1 && (v & 0xff)))
		return -1;
	out[0] = (uint8_t)(v >> 16);
	if (pad < 2)
		out[1] = (uint8_t)(v >> 8);
	if (pad < 1)
		out[2] = (uint8_t)v;
	return 3 - pad;
}

long b64_decode(const char *in, size_t n, uint8_t *out)
{
	size_t i, o = 0;
	long last;

	if (n % 4 != 0)
		return -1;
	if (n == 0)
		return 0;
	for (i = 0; i + 4 < n; i += 4, o += 3) {
		uint8_t a = values[(uint8_t)in[i]];
		uint8_t b = values[(uint8_t)in[i + 1]];
		uint8_t c = values[(uint8_t)in[i + 2]];
		uint8_t d = values[(uint8_t)in[i + 3]];
		uint32_t v;

		if (!(a & b & c & d & VALID))
			return -1;
		v = (uint32_t)(a & 63) << 18 | (uint32_t)(b & 63) << 12 |
		    (uint32_t)(c & 63) << 6 | (d & 63);
		out[o] = (uint8_t)(v >> 16);
		out[o + 1] = (uint8_t)(v >> 8);
		out[o + 2] = (uint8_t)v;
	}
	last = decode_last(in + i, out + o);
	return last < 0 ? -1 : (long)o + last;
}

void b64url_encode(const uint8_t *in, size_t len, char *out)
{
	char *p;

	b64_encode(in, len, out);
	for (p = out; *p != '\0' && *p != '='; p++) {
		if (*p == '+')
			*p = '-';
		else if (*p == '/')
			*p = '_';
	}
	*p = '\0';
}

long b64url_decode(const char *in, size_t n, uint8_t *out)
{
	size_t i, padded = (n + 3) / 4 * 4;
	char *buf;
	long got = -1;

	if (n % 4 == 1)
		return -1;
	buf = malloc(padded + 1);
	if (buf == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		/* '+' and '/' are not base64url: make them fail below */
		if (in[i] == '+' || in[i] == '/' || in[i] == '=')
			goto out;
		buf[i] = in[i] == '-' ? '+' : in[i] == '_' ? '/' : in[i];
	}
	memset(buf + n, '=', padded - n);
	got = b64_decode(buf, padded, out);
out:
	free(buf);
	return got;
}

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

static int value_of(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long b64_decode(const char *in, size_t n, uint8_t *out)
{
	size_t i, o = 0;

	if (n % 4 != 0)
		return -1;
	for (i = 0; i < n; i += 4) {
		int last = i + 4 == n;
		int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=') : 0;
		int a = value_of(in[i]), b = value_of(in[i + 1]);
		int c = pad >= 2 ? 0 : value_of(in[i + 2]);
		int d = pad >= 1 ? 0 : value_of(in[i + 3]);
		uint32_t v;

		/* "x=y=" is not padding; padding bits must be zero. */
		if (a < 0 || b < 0 || c < 0 || d < 0 ||
		    (pad == 1 && in[i + 2] == '='))
			return -1;
		v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 |
		    (uint32_t)d;
		if ((pad == 2 && (v & 0xffff)) || (pad == 1 && (v & 0xff)))
			return -1;
		out[o++] = (uint8_t)(v >> 16);
		if (pad < 2)
			out[o++] = (uint8_t)(v >> 8);
		if (pad < 1)
			out[o++] = (uint8_t)v;
	}
	return (long)o;
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

// SPDX-License-Identifier: GPL-2.0-only
/*
 * json_text.c - text the verifier stores, as JSON values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_text.h"

size_t text_byte_printable(unsigned char c, char out[4])
{
	static const char hexd[] = "0123456789abcdef";

	if (c >= 0x20 && c < 0x7f && c != '\\') {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hexd[c >> 4];
	out[3] = hexd[c & 15];
	return 4;
}

/* Length of the valid UTF-8 sequence at @s (RFC 3629), or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return n;
}

json_t *json_path(const char *path)
{
	const unsigned char *p = (const unsigned char *)(path ? path : "");
	size_t len = strlen((const char *)p), o = 0, n;
	char *buf;
	json_t *j;

	j = json_stringn((const char *)p, len);
	if (j != NULL)
		return j;
	buf = malloc(4 * len + 1);
	if (buf == NULL)
		return NULL;
	while (*p != '\0') {
		n = utf8_seq(p);
		if (n == 0) {
			o += (size_t)sprintf(buf + o, "\\x%02x", *p++);
			continue;
		}
		memcpy(buf + o, p, n);
		o += n;
		p += n;
	}
	j = json_stringn(buf, o);
	free(buf);
	return j;
}

json_t *json_reason(const char *text)
{
	json_t *j;

	if (text == NULL)
		return json_null();
	j = json_loads(text, JSON_DECODE_ANY, NULL);
	return j != NULL ? j : json_path(text);
}

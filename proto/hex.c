// SPDX-License-Identifier: GPL-2.0-only
/*
 * hex.c - hexadecimal encoding.
 */
#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

#include "hex.h"

static const char hex_digits[] = "0123456789abcdef";

void hex_encode(const uint8_t *in, size_t len, char *out)
{
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex_digits[in[i] >> 4];
		out[2 * i + 1] = hex_digits[in[i] & 0x0f];
	}
	out[2 * len] = '\0';
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t outlen)
{
	size_t i;

	if (hexlen % 2 != 0 || hexlen / 2 > outlen)
		return -1;
	for (i = 0; i < hexlen / 2; i++) {
		int hi = hex_value(hex[2 * i]);
		int lo = hex_value(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(hexlen / 2);
}

json_t *hex_json(const uint8_t *b, size_t len)
{
	char *s = malloc(2 * len + 1);
	json_t *j;

	if (s == NULL)
		return NULL;
	hex_encode(b, len, s);
	j = json_string(s);
	free(s);
	return j;
}

int hex_fpr_parse(const char *text, uint8_t fpr[HEX_FPR_SIZE])
{
	char hex[2 * HEX_FPR_SIZE + 1];
	size_t n = 0;

	if (text == NULL)
		return -1;
	if (strncasecmp(text, "sha256:", 7) == 0)
		text += 7;
	for (; *text != '\0'; text++) {
		if (*text == ':')
			continue;
		if (!isxdigit((unsigned char)*text) || n == 2 * HEX_FPR_SIZE)
			return -1;
		hex[n++] = (char)tolower((unsigned char)*text);
	}
	if (n != 2 * HEX_FPR_SIZE)
		return -1;
	hex[n] = '\0';
	return hex_decode(hex, n, fpr, HEX_FPR_SIZE) == HEX_FPR_SIZE ? 0 : -1;
}

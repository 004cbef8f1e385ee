// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_ascii.c - render records the way ascii_runtime_measurements does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "ima_ascii.h"

/* snprintf-style builder: counts the full length, stores what fits. */
struct sbuf {
	char *p;
	size_t size;
	size_t len;
};

static void sb_put(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->len < sb->size) {
		size_t room = sb->size - sb->len - 1;

		memcpy(sb->p + sb->len, s, n < room ? n : room);
	}
	sb->len += n;
}

static void sb_hex(struct sbuf *sb, const uint8_t *b, size_t n)
{
	char chunk[2 * 32 + 1];

	while (n > 0) {
		size_t k = n < 32 ? n : 32;

		hex_encode(b, k, chunk);
		sb_put(sb, chunk, 2 * k);
		b += k;
		n -= k;
	}
}

static uint64_t get_le(const uint8_t *b, size_t n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | b[n];
	return v;
}

static void show_field(struct sbuf *sb, const struct ima_field *f)
{
	const uint8_t *nul;
	char num[24];

	switch (f->def->fmt) {
	case IMA_FMT_DIGEST:
	case IMA_FMT_HEX:
		sb_hex(sb, f->data, f->len);
		break;
	case IMA_FMT_DIGEST_ALGO:
	case IMA_FMT_DIGEST_TYPE_ALGO:
		/* "sha256:" up to the NUL, then the digest in hex */
		nul = memchr(f->data, '\0', f->len);
		sb_put(sb, (const char *)f->data, (size_t)(nul - f->data));
		sb_hex(sb, nul + 1, f->len - (size_t)(nul - f->data) - 1);
		break;
	case IMA_FMT_STRING:
		nul = memchr(f->data, '\0', f->len);
		sb_put(sb, (const char *)f->data,
		       nul != NULL ? (size_t)(nul - f->data) : f->len);
		break;
	case IMA_FMT_UINT:
		snprintf(num, sizeof(num), "%" PRIu64, get_le(f->data, f->len));
		sb_put(sb, num, strlen(num));
		break;
	}
}

size_t ima_ascii_format(const struct ima_record *rec, char *out, size_t outsz)
{
	struct sbuf sb = { out, outsz, 0 };
	char pcr[16];
	size_t i;

	snprintf(pcr, sizeof(pcr), "%2u ", rec->pcr);
	sb_put(&sb, pcr, strlen(pcr));
	sb_hex(&sb, rec->template_digest, rec->digest_bank->size);
	sb_put(&sb, " ", 1);
	sb_put(&sb, rec->template_name, strlen(rec->template_name));
	for (i = 0; i < rec->nfields; i++) {
		sb_put(&sb, " ", 1);
		if (rec->fields[i].len > 0)
			show_field(&sb, &rec->fields[i]);
	}
	sb_put(&sb, "\n", 1);
	if (outsz > 0)
		out[sb.len < outsz ? sb.len : outsz - 1] = '\0';
	return sb.len;
}

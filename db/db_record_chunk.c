// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_record_chunk.c - packing and reading a chunk of records
 * (db_record_chunk.h has the format).
 */
#include <string.h>

#include "db_boot.h"
#include "db_record_chunk.h"

static size_t varint_size(size_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *varint_put(uint8_t *p, size_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Read a varint of at most 32 bits: 0, or -1 past @end or too long. */
static int varint_get(const uint8_t **pp, const uint8_t *end, uint32_t *v)
{
	const uint8_t *p = *pp;
	uint32_t out = 0;
	unsigned int shift;

	for (shift = 0; shift < 35 && p < end; shift += 7) {
		uint8_t b = *p++;

		if (shift == 28 && b > 0x0f)
			return -1;
		out |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = out;
			*pp = p;
			return 0;
		}
	}
	return -1;
}

static size_t text_size(const char *s)
{
	size_t n = strlen(s);

	return varint_size(n) + n + 1;
}

size_t db_chunk_record_size(const struct db_record *r)
{
	return varint_size(r->pcr) + text_size(r->template) +
	       text_size(r->path) + text_size(r->digest_algo) +
	       varint_size(r->digest_len) + r->digest_len +
	       varint_size(r->sig_len) + r->sig_len;
}

static uint8_t *bytes_put(uint8_t *p, const void *b, size_t n)
{
	p = varint_put(p, n);
	if (n > 0)
		memcpy(p, b, n);
	return p + n;
}

static uint8_t *text_put(uint8_t *p, const char *s)
{
	size_t n = strlen(s);

	p = bytes_put(p, s, n);
	*p++ = '\0';
	return p;
}

size_t db_chunk_pack(const struct db_record *r, uint8_t *out)
{
	uint8_t *p = out;

	p = varint_put(p, r->pcr);
	p = text_put(p, r->template);
	p = text_put(p, r->path);
	p = text_put(p, r->digest_algo);
	p = bytes_put(p, r->digest, r->digest_len);
	p = bytes_put(p, r->sig, r->sig_len);
	return (size_t)(p - out);
}

void db_chunk_reader_init(struct db_chunk_reader *rd, uint64_t first_index,
			  const char *verdicts, const uint8_t *body, size_t len)
{
	rd->p = body;
	rd->end = body != NULL ? body + len : NULL;
	rd->verdicts = verdicts != NULL ? verdicts : "";
	rd->index = first_index;
}

/* A field of bytes: *@b points at them (NULL when empty). */
static int bytes_get(struct db_chunk_reader *rd, const uint8_t **b, size_t *len)
{
	uint32_t n;

	if (varint_get(&rd->p, rd->end, &n) < 0 ||
	    n > (size_t)(rd->end - rd->p))
		return -1;
	*b = n > 0 ? rd->p : NULL;
	*len = n;
	rd->p += n;
	return 0;
}

static int text_get(struct db_chunk_reader *rd, const char **s)
{
	const uint8_t *b;
	size_t n;

	if (bytes_get(rd, &b, &n) < 0 || rd->p == rd->end || *rd->p != '\0')
		return -1;
	*s = n > 0 ? (const char *)b : (const char *)rd->p;
	rd->p++;
	return 0;
}

int db_chunk_next(struct db_chunk_reader *rd, struct db_record *r)
{
	uint32_t pcr;

	if (rd->p == rd->end)
		return *rd->verdicts == '\0' ? 0 : -1;
	if (*rd->verdicts == '\0' ||
	    db_verdict_from_letter(*rd->verdicts, &r->verdict) < 0)
		return -1;
	if (varint_get(&rd->p, rd->end, &pcr) < 0 ||
	    text_get(rd, &r->template) < 0 || text_get(rd, &r->path) < 0 ||
	    text_get(rd, &r->digest_algo) < 0 ||
	    bytes_get(rd, &r->digest, &r->digest_len) < 0 ||
	    bytes_get(rd, &r->sig, &r->sig_len) < 0)
		return -1;
	r->pcr = pcr;
	r->index = rd->index++;
	rd->verdicts++;
	return 1;
}

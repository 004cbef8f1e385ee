// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_list.c - cursor over the binary IMA measurement list.
 *
 * Every read checks what remains before it happens; a record that ends
 * beyond the bytes given is "need more" while the stream goes on and a
 * precise "truncated" error at its end. Layout: see ima_list.h, and
 * ima_measurements_show() in security/integrity/ima/ima_fs.c (6.1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ima_list.h"

struct cursor {
	const uint8_t *buf;
	size_t len;
	size_t pos;
};

/* Where a failing record sits, for error messages. */
struct where {
	struct ima_list_parser *p;
	int eof;
};

static size_t remaining(const struct cursor *c)
{
	return c->len - c->pos;
}

static uint32_t get_le32(struct cursor *c)
{
	const uint8_t *b = c->buf + c->pos;

	c->pos += 4;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
	       (uint32_t)b[3] << 24;
}

/* Copy @len bytes of @s into @out, '?' for anything not printable. */
static const char *printable(const void *s, size_t len, char *out, size_t outsz)
{
	const unsigned char *in = s;
	size_t i;

	for (i = 0; i < len && i + 1 < outsz; i++)
		out[i] = (in[i] >= 0x20 && in[i] < 0x7f) ? (char)in[i] : '?';
	out[i] = '\0';
	return out;
}

/*
 * Ensure @n more bytes are in the buffer. Without them the record is
 * incomplete: "need more" while the stream goes on, truncated at its end.
 */
static enum imt_result need(const struct cursor *c, size_t n,
			    const struct where *w, const char *what,
			    struct imt_error *err)
{
	if (remaining(c) >= n)
		return IMT_OK;
	if (!w->eof)
		return imt_error_set(err, IMT_NEED_MORE, w->p->next_index,
				     w->p->offset + c->pos,
				     "record %zu: %s needs %zu bytes, %zu available",
				     w->p->next_index, what, n, remaining(c));
	return imt_error_set(err, IMT_ERR_MALFORMED, w->p->next_index,
			     w->p->offset + c->pos,
			     "record %zu truncated at offset %zu: %s needs %zu bytes, %zu left",
			     w->p->next_index, w->p->offset + c->pos, what, n,
			     remaining(c));
}

/* Report @status for the record being parsed, at cursor position @at. */
static enum imt_result fail(size_t at, const struct where *w,
			    enum imt_result status, struct imt_error *err,
			    const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static enum imt_result fail(size_t at, const struct where *w,
			    enum imt_result status, struct imt_error *err,
			    const char *fmt, ...)
{
	char msg[IMT_ERROR_MSG_MAX - 48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return imt_error_set(err, status, w->p->next_index, w->p->offset + at,
			     "record %zu at offset %zu: %s", w->p->next_index,
			     w->p->offset + at, msg);
}

/* Digest algorithm by name; lists rarely mix them, so cache the last. */
static const struct hash_algo *lookup_algo(struct ima_list_parser *p,
					   const char *name, size_t len)
{
	if (p->last_algo == NULL || len != strlen(p->last_algo->name) ||
	    memcmp(p->last_algo->name, name, len) != 0)
		p->last_algo = hash_algo_by_name(name, len);
	return p->last_algo;
}

/* "sha256:\0<digest>" or, with @typed, "ima:sha256:\0<digest>". */
static enum imt_result decode_digest_algo(struct ima_record *rec,
					  const struct ima_field *f, int typed,
					  size_t at, const struct where *w,
					  struct imt_error *err)
{
	const char *s = (const char *)f->data;
	const char *nul = memchr(s, '\0', f->len);
	const char *algo_name = s;
	const struct hash_algo *algo;
	size_t prefix, digest_len;
	char name[40];

	if (nul == NULL || nul == s || nul[-1] != ':')
		return fail(at, w, IMT_ERR_MALFORMED, err,
			    "field '%s' lacks its \"algo:\\0\" prefix",
			    f->def->id);
	prefix = (size_t)(nul - s);
	if (typed) {
		const char *colon = memchr(s, ':', prefix - 1);

		if (colon == NULL)
			return fail(at, w, IMT_ERR_MALFORMED, err,
				    "field '%s' lacks its digest type",
				    f->def->id);
		algo_name = colon + 1;
		if (rec->digest == NULL) {
			rec->digest_type = s;
			rec->digest_type_len = (size_t)(colon - s);
		}
	}
	algo = lookup_algo(w->p, algo_name, (size_t)(nul - 1 - algo_name));
	if (algo == NULL)
		return fail(at, w, IMT_ERR_UNSUPPORTED, err,
			    "unknown digest algorithm '%s'",
			    printable(algo_name, (size_t)(nul - 1 - algo_name),
				      name, sizeof(name)));
	digest_len = f->len - prefix - 1;
	if (digest_len != algo->size)
		return fail(at, w, IMT_ERR_MALFORMED, err,
			    "%s digest of %zu bytes, expected %zu", algo->name,
			    digest_len, algo->size);
	if (rec->digest == NULL && f->def->role == IMA_ROLE_FILE_DIGEST) {
		rec->digest_algo = algo;
		rec->digest = f->data + prefix + 1;
	}
	return IMT_OK;
}

/* A string field: NUL-terminated, except the legacy 'ima' name. */
static enum imt_result decode_string(struct ima_record *rec,
				     const struct ima_field *f, int legacy,
				     size_t at, const struct where *w,
				     struct imt_error *err)
{
	int is_name = f->def->role == IMA_ROLE_NAME;
	size_t max = legacy ? IMA_EVENT_NAME_LEN_MAX : IMA_PATH_MAX;

	if (is_name && f->len > max)
		return fail(at, w, IMT_ERR_MALFORMED, err,
			    "oversized name: %u bytes, at most %zu", f->len,
			    max);
	if (legacy) {
		if (memchr(f->data, '\0', f->len) != NULL)
			return fail(at, w, IMT_ERR_MALFORMED, err,
				    "'ima' name contains a NUL byte");
	} else if ((f->len > 0 || is_name) &&
		   (f->len == 0 ||
		    memchr(f->data, '\0', f->len) != f->data + f->len - 1)) {
		return fail(at, w, IMT_ERR_MALFORMED, err,
			    "field '%s' is not one NUL-terminated string",
			    f->def->id);
	}
	if (is_name && rec->path == NULL) {
		rec->path = (const char *)f->data;
		rec->path_len = legacy ? f->len : f->len - 1;
	}
	return IMT_OK;
}

/* Check one field's encoding and fill the record's views from it. */
static enum imt_result decode_field(struct ima_record *rec,
				    const struct ima_field *f, int legacy,
				    size_t at, const struct where *w,
				    struct imt_error *err)
{
	switch (f->def->fmt) {
	case IMA_FMT_DIGEST:
		if (f->len != 20 && f->len != 16)
			return fail(at, w, IMT_ERR_MALFORMED, err,
				    "field 'd' holds %u bytes, expected 20 or 16",
				    f->len);
		if (rec->digest == NULL) {
			rec->digest_algo =
				hash_algo_by_name(f->len == 20 ? "sha1" : "md5",
						  f->len == 20 ? 4 : 3);
			rec->digest = f->data;
		}
		return IMT_OK;
	case IMA_FMT_DIGEST_ALGO:
		return decode_digest_algo(rec, f, 0, at, w, err);
	case IMA_FMT_DIGEST_TYPE_ALGO:
		return decode_digest_algo(rec, f, 1, at, w, err);
	case IMA_FMT_STRING:
		return decode_string(rec, f, legacy, at, w, err);
	case IMA_FMT_UINT:
		if (f->len != 0 && f->len != 1 && f->len != 2 && f->len != 4 &&
		    f->len != 8)
			return fail(at, w, IMT_ERR_MALFORMED, err,
				    "field '%s' holds %u bytes, not an integer",
				    f->def->id, f->len);
		return IMT_OK;
	case IMA_FMT_HEX:
		if (f->def->role == IMA_ROLE_BUF && rec->buf == NULL) {
			rec->buf = f->data;
			rec->buf_len = f->len;
		}
		return IMT_OK;
	}
	return fail(at, w, IMT_ERR_INTERNAL, err, "bad field format");
}

/* 'ima' (2008): digest[20], u32 name length, name without NUL. */
static enum imt_result parse_legacy_data(struct ima_record *rec,
					 struct cursor *c,
					 const struct where *w,
					 struct imt_error *err)
{
	size_t start = c->pos, name_at;
	enum imt_result rc;
	uint32_t name_len;

	rc = need(c, IMA_TEMPLATE_DIGEST_SIZE + 4, w, "'ima' digest", err);
	if (rc != IMT_OK)
		return rc;
	rec->fields[0] = (struct ima_field){ rec->tmpl->fields[0],
					     c->buf + c->pos,
					     IMA_TEMPLATE_DIGEST_SIZE };
	c->pos += IMA_TEMPLATE_DIGEST_SIZE;
	name_at = c->pos;
	name_len = get_le32(c);
	if (name_len > IMA_EVENT_NAME_LEN_MAX) {
		return fail(name_at, w, IMT_ERR_MALFORMED, err,
			    "oversized name: %u bytes, at most %d", name_len,
			    IMA_EVENT_NAME_LEN_MAX);
	}
	rc = need(c, name_len, w, "'ima' name", err);
	if (rc != IMT_OK)
		return rc;
	rec->fields[1] = (struct ima_field){ rec->tmpl->fields[1],
					     c->buf + c->pos, name_len };
	c->pos += name_len;
	rec->nfields = 2;
	rec->template_data = c->buf + start;
	rec->template_data_len = (uint32_t)(c->pos - start);
	rc = decode_field(rec, &rec->fields[0], 1, start, w, err);
	if (rc == IMT_OK)
		rc = decode_field(rec, &rec->fields[1], 1, name_at, w, err);
	return rc;
}

/* Any other template: u32 data length, then "u32 len + bytes" per field. */
static enum imt_result parse_template_data(struct ima_record *rec,
					   struct cursor *c,
					   const struct where *w,
					   struct imt_error *err)
{
	size_t len_at = c->pos, data_at, end, i;
	enum imt_result rc;
	uint32_t data_len;

	rc = need(c, 4, w, "template data length", err);
	if (rc != IMT_OK)
		return rc;
	data_len = get_le32(c);
	if (data_len > IMA_TEMPLATE_DATA_MAX) {
		return fail(len_at, w, IMT_ERR_MALFORMED, err,
			    "template data length %u exceeds the maximum %u",
			    data_len, IMA_TEMPLATE_DATA_MAX);
	}
	rc = need(c, data_len, w, "template data", err);
	if (rc != IMT_OK)
		return rc;
	data_at = c->pos;
	end = data_at + data_len;
	rec->template_data = c->buf + data_at;
	rec->template_data_len = data_len;
	for (i = 0; i < rec->tmpl->nfields; i++) {
		const struct ima_field_def *def = rec->tmpl->fields[i];
		size_t field_at = c->pos;
		uint32_t flen;

		if (end - c->pos < 4)
			return fail(field_at, w, IMT_ERR_MALFORMED, err,
				    "template data ends before field '%s'",
				    def->id);
		flen = get_le32(c);
		if (flen > end - c->pos)
			return fail(field_at, w, IMT_ERR_MALFORMED, err,
				    "field '%s' length %u beyond template data (%zu bytes left)",
				    def->id, flen, end - c->pos);
		rec->fields[i] =
			(struct ima_field){ def, c->buf + c->pos, flen };
		c->pos += flen;
		rc = decode_field(rec, &rec->fields[i], 0, field_at, w, err);
		if (rc != IMT_OK)
			return rc;
	}
	rec->nfields = rec->tmpl->nfields;
	if (c->pos != end)
		return fail(c->pos, w, IMT_ERR_MALFORMED, err,
			    "%zu bytes after the last field", end - c->pos);
	return IMT_OK;
}

static int all_zero(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i] != 0)
			return 0;
	}
	return 1;
}

static int all_ff(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i] != 0xff)
			return 0;
	}
	return 1;
}

static enum imt_result parse_header(struct ima_record *rec, struct cursor *c,
				    const struct where *w,
				    struct imt_error *err)
{
	uint32_t name_len;
	char name[IMA_TEMPLATE_NAME_MAX + 1];

	const struct hash_algo *bank = w->p->list_bank;
	size_t dsize = bank != NULL ? bank->size : IMA_TEMPLATE_DIGEST_SIZE;
	size_t header = 4 + dsize + 4;
	enum imt_result rc;

	if (remaining(c) < header && w->eof)
		return fail(0, w, IMT_ERR_MALFORMED, err,
			    "trailing garbage: %zu bytes after the last record, too few for a record header",
			    remaining(c));
	rc = need(c, header, w, "record header", err);
	if (rc != IMT_OK)
		return rc;
	rec->pcr = get_le32(c);
	if (rec->pcr >= IMA_PCR_COUNT)
		return fail(0, w, IMT_ERR_MALFORMED, err,
			    "PCR %u out of range (0-%d)", rec->pcr,
			    IMA_PCR_COUNT - 1);
	memcpy(rec->template_digest, c->buf + c->pos, dsize);
	rec->digest_bank = bank != NULL ? bank : hash_algo_by_name("sha1", 4);
	rec->violation = bank != NULL ? all_ff(rec->template_digest, dsize) :
					all_zero(rec->template_digest, dsize);
	c->pos += dsize;
	name_len = get_le32(c);
	if (name_len > IMA_TEMPLATE_NAME_MAX)
		return fail(c->pos - 4, w, IMT_ERR_MALFORMED, err,
			    "template name length %u exceeds %d", name_len,
			    IMA_TEMPLATE_NAME_MAX);
	rc = need(c, name_len, w, "template name", err);
	if (rc != IMT_OK)
		return rc;
	memcpy(rec->template_name, c->buf + c->pos, name_len);
	rec->template_name[name_len] = '\0';
	/* Lists rarely mix templates: try the previous record's first. */
	if (w->p->last != NULL && name_len == w->p->last_len &&
	    memcmp(w->p->last->name, rec->template_name, name_len) == 0)
		rec->tmpl = w->p->last;
	else
		rec->tmpl = ima_template_lookup(w->p->custom,
						rec->template_name, name_len);
	if (rec->tmpl == NULL && name_len == 0)
		return fail(c->pos - 4, w, IMT_ERR_MALFORMED, err,
			    "zero-length template name (a kernel booted with ima_template_fmt=: register its format for \"\")");
	if (rec->tmpl == NULL || memchr(rec->template_name, '\0', name_len))
		return fail(c->pos, w, IMT_ERR_UNSUPPORTED, err,
			    "unknown template '%s'",
			    printable(c->buf + c->pos, name_len, name,
				      sizeof(name)));
	c->pos += name_len;
	return IMT_OK;
}

void ima_list_parser_init(struct ima_list_parser *p,
			  const struct ima_template_set *custom)
{
	p->next_index = 0;
	p->offset = 0;
	p->custom = custom;
	p->list_bank = NULL;
	p->last = NULL;
	p->last_len = 0;
	p->last_algo = NULL;
}

void ima_list_parser_set_bank(struct ima_list_parser *p,
			      const struct hash_algo *bank)
{
	p->list_bank = bank;
}

enum imt_result ima_list_next(struct ima_list_parser *p, const uint8_t *buf,
			      size_t len, int eof, struct ima_record *rec,
			      struct imt_error *err)
{
	struct cursor c = { buf, len, 0 };
	struct where w = { p, eof };
	enum imt_result rc;

	/* Only the views need clearing; fields[] is filled up to nfields. */
	rec->nfields = 0;
	rec->digest_algo = NULL;
	rec->digest = NULL;
	rec->digest_type = NULL;
	rec->digest_type_len = 0;
	rec->path = NULL;
	rec->path_len = 0;
	rec->buf = NULL;
	rec->buf_len = 0;
	rec->index = p->next_index;
	rec->offset = p->offset;
	rc = parse_header(rec, &c, &w, err);
	if (rc != IMT_OK)
		return rc;
	if (rec->tmpl->legacy)
		rc = parse_legacy_data(rec, &c, &w, err);
	else
		rc = parse_template_data(rec, &c, &w, err);
	if (rc != IMT_OK)
		return rc;
	rec->size = c.pos;
	if (p->last != rec->tmpl) {
		p->last = rec->tmpl;
		p->last_len = strlen(rec->tmpl->name);
	}
	p->next_index++;
	p->offset += c.pos;
	return IMT_OK;
}

int ima_name_is_boot_aggregate(const char *name, size_t len)
{
	return name != NULL && len == sizeof(IMA_BOOT_AGGREGATE) - 1 &&
	       memcmp(name, IMA_BOOT_AGGREGATE, len) == 0;
}

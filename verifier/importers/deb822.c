// SPDX-License-Identifier: GPL-2.0-only
/*
 * deb822.c - RFC 822 style stanzas of Debian control data (deb822.h).
 */
#include <string.h>
#include <strings.h>

#include "deb822.h"

static size_t line_end(const char *buf, size_t len, size_t pos)
{
	const char *nl = memchr(buf + pos, '\n', len - pos);

	return nl ? (size_t)(nl - buf) : len;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int blank_line(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!is_blank(s[i]) && s[i] != '\r')
			return 0;
	}
	return 1;
}

/* A field line: a name of printable bytes other than ':', then ':'. */
static int field_line(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] != ':'; i++) {
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 127)
			return 0;
	}
	return i > 0 && i < n;
}

static int malformed(struct imt_error *err, size_t off, size_t line,
		     const char *what)
{
	imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, off, "line %zu: %s",
		      line, what);
	return -1;
}

int deb822_next(const char *buf, size_t len, struct deb822_cursor *cur,
		struct deb822_stanza *st, struct imt_error *err)
{
	size_t p = cur->pos, line = cur->line, end;

	/* skip blank lines */
	while (p < len) {
		end = line_end(buf, len, p);
		if (!blank_line(buf + p, end - p))
			break;
		p = end + (end < len);
		line++;
	}
	if (p >= len) {
		cur->pos = len;
		cur->line = line;
		return 0;
	}
	st->text = buf + p;
	st->line = line;
	if (is_blank(buf[p]))
		return malformed(err, p, line, "a continuation line first");
	while (p < len) {
		end = line_end(buf, len, p);
		if (blank_line(buf + p, end - p))
			break;
		if (memchr(buf + p, '\0', end - p))
			return malformed(err, p, line, "a NUL byte");
		if (!is_blank(buf[p]) && !field_line(buf + p, end - p))
			return malformed(err, p, line,
					 "not a \"Name: value\" field");
		p = end + (end < len);
		line++;
	}
	st->len = (size_t)(buf + p - st->text);
	cur->pos = p;
	cur->line = line;
	return 1;
}

static void trim(const char **v, size_t *n)
{
	while (*n && (is_blank(**v) || **v == '\n' || **v == '\r')) {
		(*v)++;
		(*n)--;
	}
	while (*n && (is_blank((*v)[*n - 1]) || (*v)[*n - 1] == '\n' ||
		      (*v)[*n - 1] == '\r'))
		(*n)--;
}

int deb822_field(const struct deb822_stanza *st, const char *name,
		 const char **val, size_t *vlen)
{
	size_t nlen = strlen(name), p = 0, end, vend;
	const char *s = st->text;

	while (p < st->len) {
		end = line_end(s, st->len, p);
		if (!is_blank(s[p]) && end - p > nlen && s[p + nlen] == ':' &&
		    strncasecmp(s + p, name, nlen) == 0) {
			/* the value runs over the continuation lines */
			vend = end;
			while (vend + 1 < st->len && is_blank(s[vend + 1]))
				vend = line_end(s, st->len, vend + 1);
			*val = s + p + nlen + 1;
			*vlen = vend - (p + nlen + 1);
			trim(val, vlen);
			return 1;
		}
		p = end + 1;
	}
	return 0;
}

int deb822_word(const char *val, size_t vlen)
{
	size_t i;

	for (i = 0; i < vlen; i++) {
		if ((unsigned char)val[i] <= ' ')
			return 0;
	}
	return vlen > 0;
}

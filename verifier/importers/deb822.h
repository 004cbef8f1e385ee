/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * deb822.h - the RFC 822 style stanzas of Debian control data: a binary
 * package's `control` file and apt's `Packages` index.
 *
 * A stanza is a run of non-blank lines, each "Name: value" or a
 * continuation (starting with a space or a tab) of the field above.
 * Stanzas are separated by blank lines. Parsing is a view over the
 * caller's buffer: nothing is copied.
 */
#ifndef IMATRUST_DEB822_H
#define IMATRUST_DEB822_H

#include <stddef.h>

#include "result.h"

/* Where deb822_next() goes on; start with {0, 1}. */
struct deb822_cursor {
	size_t pos;  /* byte offset */
	size_t line; /* 1-based line number at @pos */
};

struct deb822_stanza {
	const char *text; /* the stanza's first byte */
	size_t len;	  /* up to, without, the blank line after it */
	size_t line;	  /* 1-based line of the first field */
};

/**
 * deb822_next() - the stanza at or after @cur.
 * @buf: the text (need not be NUL-terminated)
 * @len: its length
 * @cur: where to start; moved past the stanza found
 * @st: receives the stanza
 * @err: names the line when a stanza is malformed
 *
 * Blank lines (spaces and tabs only) before a stanza are skipped. A line
 * that is neither a field nor a continuation, a continuation first, a NUL
 * byte or a field without a name is malformed.
 *
 * Return: 1 with a stanza, 0 at the end of @buf, -1 with @err filled.
 */
int deb822_next(const char *buf, size_t len, struct deb822_cursor *cur,
		struct deb822_stanza *st, struct imt_error *err);

/**
 * deb822_field() - the value of field @name in @st.
 * @st: a stanza from deb822_next()
 * @name: field name, matched without regard to case (Debian policy 5.1)
 * @val: receives the value, leading and trailing blanks removed, with its
 *	continuation lines (so a value with '\n' spans several lines)
 * @vlen: receives its length
 *
 * Return: 1 when found (the first one), 0 when @st has no such field.
 */
int deb822_field(const struct deb822_stanza *st, const char *name,
		 const char **val, size_t *vlen);

/**
 * deb822_word() - @val is one non-empty word: no blank, newline or NUL.
 * @val: a value from deb822_field()
 * @vlen: its length
 *
 * Return: 1 or 0.
 */
int deb822_word(const char *val, size_t vlen);

#endif /* IMATRUST_DEB822_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * conf.h - "key = value" configuration text, driven by a key table.
 *
 * Each daemon keeps one config file (proto/DESIGN.md §9 rule 14). What differs
 * between them is only the table: key name, type, where the value goes in
 * the daemon's struct, bounds, default and help text. This module parses
 * the text against such a table; it does no I/O, so the daemon reads the
 * file and decides what to do with an error.
 *
 * Format: one "key = value" per line; '#' starts a comment (to the end of
 * the line); blank lines are ignored; spaces and tabs around key and value
 * and a trailing '\r' are dropped; a key may be set once, but for a
 * CONF_LINES key, whose every value is one more line.
 */
#ifndef IMATRUST_CONF_H
#define IMATRUST_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define CONF_KEYS_MAX 64 /* keys in one table (the duplicate bitmap) */

enum conf_type {
	CONF_STRING, /* NUL-terminated into a char[size] */
	CONF_UINT,   /* decimal into a uint64_t, within [min, max] */
	CONF_LINES,  /* repeatable: each value and a '\n' appended
				 * to a char[size] */
};

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off;	     /* offset of the field in the daemon's struct */
	size_t size;	     /* CONF_STRING: size of the char array */
	uint64_t min, max;   /* CONF_UINT: bounds */
	const char *def;     /* default as text; "" for none */
	int required;	     /* conf_check() fails when still empty */
	const char *choices; /* CONF_STRING: "a|b|c" the value must be
				 * one of, or NULL for any */
	const char *help;
};

/* Table rows for a field @f of struct @st. */
#define CONF_STR(st, n, f, d, r, c, h) \
	{ \
		n, CONF_STRING, offsetof(struct st, f), \
			sizeof(((struct st *)0)->f), 0, 0, d, r, c, h \
	}
#define CONF_LIST(st, n, f, h) \
	{ \
		n, CONF_LINES, offsetof(struct st, f), \
			sizeof(((struct st *)0)->f), 0, 0, "", 0, NULL, h \
	}
#define CONF_NUM(st, n, f, lo, hi, d, h) \
	{ \
		n, CONF_UINT, offsetof(struct st, f), 0, lo, hi, d, 0, NULL, h \
	}

/**
 * conf_defaults() - zero @obj and set every key that has a default.
 * @keys: the key table
 * @nkeys: entries in @keys
 * @obj: the daemon's config struct the table describes
 * @size: sizeof(*obj)
 * @err: filled when a default does not satisfy its own key (a table bug)
 *
 * Return: IMT_OK, or IMT_ERR_INTERNAL for a bad table.
 */
enum imt_result conf_defaults(const struct conf_key *keys, size_t nkeys,
			      void *obj, size_t size, struct imt_error *err);

/**
 * conf_parse() - apply the "key = value" lines of @text to @obj.
 * @keys: the key table
 * @nkeys: entries in @keys, at most CONF_KEYS_MAX
 * @obj: the config struct (defaults already set)
 * @name: the file's name for messages (borrowed)
 * @text: the file's contents (need not be NUL-terminated)
 * @len: bytes in @text
 * @err: on failure, msg is "name:line: what" and record the 1-based line
 *
 * Stops at the first bad line: no '=', unknown key, a key set twice, a
 * string too long or not among its choices, a number that is not decimal
 * or out of bounds, a NUL byte.
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED for a bad line; IMT_ERR_LIMIT for a
 * table longer than CONF_KEYS_MAX.
 */
enum imt_result conf_parse(const struct conf_key *keys, size_t nkeys, void *obj,
			   const char *name, const char *text, size_t len,
			   struct imt_error *err);

/**
 * conf_check() - every required string key has a value.
 * @keys: the key table
 * @nkeys: entries in @keys
 * @obj: the parsed config
 * @err: on failure, msg is "'key' must be set (help)"
 *
 * Return: IMT_OK or IMT_ERR_MALFORMED.
 */
enum imt_result conf_check(const struct conf_key *keys, size_t nkeys,
			   const void *obj, struct imt_error *err);

/**
 * conf_describe() - the help text of @key, for -H and the man page.
 * @key: one row of a table
 * @buf: receives "name = default\n\thelp [min-max]" (no final newline)
 * @size: bytes in @buf
 *
 * Return: the length snprintf() would have written.
 */
int conf_describe(const struct conf_key *key, char *buf, size_t size);

#endif /* IMATRUST_CONF_H */

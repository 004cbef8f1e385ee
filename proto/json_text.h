/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_text.h - text the verifier stores (file paths, which are bytes;
 * reasons, which are JSON text) as JSON values, for its API and its
 * signed results alike.
 */
#ifndef IMATRUST_JSON_TEXT_H
#define IMATRUST_JSON_TEXT_H

#include <stddef.h>

#include <jansson.h>

/**
 * json_reason() - stored reason text as JSON: the parsed value, the text
 * as a string when it does not parse, null when there is none.
 * @text: JSON text or NULL
 *
 * Return: a new reference, or NULL on allocation failure.
 */
json_t *json_reason(const char *text);

/**
 * text_byte_printable() - the one rule for a byte of a path (or any
 * stored text) shown in ASCII: printable ASCII but the backslash stays
 * itself, any other byte becomes the four characters "\xNN" (lower-case
 * hex), so what is shown names the bytes exactly. Reasons (judge.c) and
 * the CLI's output use it; json_path() keeps valid UTF-8 instead, as a
 * JSON string can carry it.
 * @c: the byte
 * @out: receives 1 or 4 characters, not NUL-terminated
 *
 * Return: how many characters were written (1 or 4).
 */
size_t text_byte_printable(unsigned char c, char out[4]);

/**
 * json_path() - a file path as a JSON string. Paths are bytes: a path
 * that is not UTF-8 has each invalid byte written as "\xNN" text.
 * @path: NUL-terminated path, or NULL (gives "")
 *
 * Return: a new reference, or NULL on allocation failure.
 */
json_t *json_path(const char *path);

#endif /* IMATRUST_JSON_TEXT_H */

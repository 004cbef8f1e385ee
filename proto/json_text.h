/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * json_text.h - text the verifier stores (file paths, which are bytes;
 * reasons, which are JSON text) as JSON values, for its API and its
 * signed results alike.
 */
#ifndef IMATRUST_JSON_TEXT_H
#define IMATRUST_JSON_TEXT_H

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
 * json_path() - a file path as a JSON string. Paths are bytes: a path
 * that is not UTF-8 has each invalid byte written as "\xNN" text.
 * @path: NUL-terminated path, or NULL (gives "")
 *
 * Return: a new reference, or NULL on allocation failure.
 */
json_t *json_path(const char *path);

#endif /* IMATRUST_JSON_TEXT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * utc.h - a time as the operator reads it: ISO 8601 in UTC, one format
 * for the verifier's messages and both programs' listings.
 */
#ifndef IMATRUST_UTC_H
#define IMATRUST_UTC_H

#include <stddef.h>
#include <stdint.h>

#define UTC_TEXT_MAX 32 /* "2027-01-31T12:00:00Z" and its NUL, or seconds */

/**
 * utc_text() - @t (seconds since the epoch) as "YYYY-MM-DDTHH:MM:SSZ".
 * @t: the time
 * @buf: receives the text
 * @n: bytes in @buf (UTC_TEXT_MAX)
 *
 * A time gmtime_r() cannot break down is written as its seconds.
 *
 * Return: @buf.
 */
char *utc_text(int64_t t, char *buf, size_t n);

#endif /* IMATRUST_UTC_H */

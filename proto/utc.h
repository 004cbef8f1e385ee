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
#define UTC_DURATION_MAX (100LL * 366 * 86400) /* longer is a typo */

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

/**
 * utc_duration() - @s as a DURATION: a positive number and one unit of
 * s, m, h, d or w ("90d"), at most UTC_DURATION_MAX seconds.
 * @s: the text (NUL-terminated)
 *
 * Return: the seconds, or -1 when @s is not one.
 */
int64_t utc_duration(const char *s);

/**
 * utc_date() - @s as a DATE in UTC: "2027-01-31" (its midnight) or
 * "2027-01-31T12:00:00Z".
 * @s: the text (NUL-terminated)
 *
 * Return: seconds since the epoch, or -1 when @s is neither.
 */
int64_t utc_date(const char *s);

#endif /* IMATRUST_UTC_H */

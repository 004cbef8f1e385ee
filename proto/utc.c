// SPDX-License-Identifier: GPL-2.0-only
/*
 * utc.c - a time as ISO 8601 in UTC, and a time or duration the operator
 * typed (see utc.h).
 */
#define _GNU_SOURCE /* timegm(), strptime() */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utc.h"

char *utc_text(int64_t t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "%lld", (long long)t);
	return buf;
}

int64_t utc_duration(const char *s)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = { { 's', 1 },
		      { 'm', 60 },
		      { 'h', 3600 },
		      { 'd', 86400 },
		      { 'w', 7 * 86400 } };
	char *end;
	long long n;
	size_t i;

	if (s == NULL || s[0] == '-' || s[0] == '+')
		return -1;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || end == s || n <= 0 || end[0] == '\0' ||
	    end[1] != '\0')
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (end[0] == units[i].unit)
			return n <= UTC_DURATION_MAX / units[i].seconds ?
				       n * units[i].seconds :
				       -1;
	return -1;
}

int64_t utc_date(const char *s)
{
	static const char *const forms[] = { "%Y-%m-%dT%H:%M:%SZ", "%Y-%m-%d" };
	const char *end;
	struct tm tm;
	size_t i;

	if (s == NULL)
		return -1;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		memset(&tm, 0, sizeof(tm));
		end = strptime(s, forms[i], &tm);
		if (end != NULL && *end == '\0')
			return (int64_t)timegm(&tm);
	}
	return -1;
}

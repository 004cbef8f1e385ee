// SPDX-License-Identifier: GPL-2.0-only
/*
 * utc.c - a time as ISO 8601 in UTC (see utc.h).
 */
#include <stdio.h>
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

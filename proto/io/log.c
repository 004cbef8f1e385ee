// SPDX-License-Identifier: GPL-2.0-only
/*
 * log.c - leveled log lines on stderr for journald (see log.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* sd-daemon(3) priority prefixes, as syslog levels. */
#define LOG_PFX_ERR "<3>"
#define LOG_PFX_WARNING "<4>"
#define LOG_PFX_INFO "<6>"
#define LOG_PFX_DEBUG "<7>"

#define LOG_LINE_MAX 1024 /* one log line; longer messages are cut */

/* Set once at start-up by the main thread, read by every log call. */
static const char *log_progname;
static enum log_level log_level = LOG_LEVEL_INFO;

void log_init(const char *progname, int verbose)
{
	log_progname = progname;
	log_setverbose(verbose);
}

void log_setverbose(int verbose)
{
	log_level = verbose ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO;
}

int log_getverbose(void)
{
	return log_level >= LOG_LEVEL_DEBUG;
}

void log_setlevel(enum log_level level)
{
	log_level = level;
}

static const struct {
	const char *name;
	enum log_level level;
} log_levels[] = {
	{ "debug", LOG_LEVEL_DEBUG },
	{ "info", LOG_LEVEL_INFO },
	{ "warning", LOG_LEVEL_WARNING },
};

int log_level_parse(const char *name, enum log_level *level)
{
	size_t i;

	for (i = 0; i < sizeof(log_levels) / sizeof(log_levels[0]); i++) {
		if (strcmp(log_levels[i].name, name) == 0) {
			*level = log_levels[i].level;
			return 0;
		}
	}
	return -1;
}

/*
 * Format the whole line first and write it with one call, so lines of
 * concurrent writers do not interleave.  @errnum is appended when > 0.
 */
static void __attribute__((format(printf, 3, 0)))
log_vwrite(const char *pfx, int errnum, const char *fmt, va_list ap)
{
	char line[LOG_LINE_MAX];
	size_t off = 0;
	int n;

	n = snprintf(line, sizeof(line), "%s%s%s", pfx,
		     log_progname ? log_progname : "",
		     log_progname ? ": " : "");
	if (n > 0)
		off = (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1;
	n = vsnprintf(line + off, sizeof(line) - off, fmt, ap);
	if (n > 0)
		off += (size_t)n < sizeof(line) - off ? (size_t)n :
							sizeof(line) - off - 1;
	if (errnum > 0) {
		n = snprintf(line + off, sizeof(line) - off, ": %s",
			     strerror(errnum));
		if (n > 0)
			off += (size_t)n < sizeof(line) - off ?
				       (size_t)n :
				       sizeof(line) - off - 1;
	}
	fprintf(stderr, "%s\n", line);
}

void log_warn(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_PFX_WARNING, saved, fmt, ap);
	va_end(ap);
	errno = saved;
}

void log_warnx(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_PFX_WARNING, 0, fmt, ap);
	va_end(ap);
	errno = saved;
}

void log_info(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (log_level < LOG_LEVEL_INFO)
		return;
	va_start(ap, fmt);
	log_vwrite(LOG_PFX_INFO, 0, fmt, ap);
	va_end(ap);
	errno = saved;
}

void log_debug(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	if (log_level < LOG_LEVEL_DEBUG)
		return;
	va_start(ap, fmt);
	log_vwrite(LOG_PFX_DEBUG, 0, fmt, ap);
	va_end(ap);
	errno = saved;
}

void fatal(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_PFX_ERR, saved, fmt, ap);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_PFX_ERR, 0, fmt, ap);
	va_end(ap);
	exit(1);
}

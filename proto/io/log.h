/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log.h - the daemons' one log API, in the shape of OpenBSD's daemons.
 *
 * Lines go to stderr with an sd-daemon level prefix ("<3>" error, "<4>"
 * warning, "<6>" info, "<7>" debug), which journald turns into the
 * priority of the entry; on a terminal the prefix is plain text. log_warn()
 * and fatal() append ": strerror(errno)"; the ...x variants do not.
 * fatal() and fatalx() are for broken invariants of our own process only
 * (proto/DESIGN.md §9 rule 6): they log and exit(1).
 */
#ifndef IMATRUST_DAEMON_LOG_H
#define IMATRUST_DAEMON_LOG_H

/**
 * log_init() - set the program name and whether debug lines are shown.
 * @progname: prefix of every line, or NULL for none (borrowed, must live)
 * @verbose: 1 to print log_debug() lines, 0 to drop them
 */
void log_init(const char *progname, int verbose);

/**
 * log_setverbose() - show (1) or drop (0) log_debug() lines.
 * @verbose: the new setting
 */
void log_setverbose(int verbose);

/**
 * log_getverbose() - the current setting of log_setverbose().
 */
int log_getverbose(void);

/* The lowest level shown: warnings always, info and debug on request. */
enum log_level {
	LOG_LEVEL_WARNING, /* log_info() and log_debug() dropped */
	LOG_LEVEL_INFO,	   /* log_debug() dropped (log_init default) */
	LOG_LEVEL_DEBUG,   /* everything */
};

/**
 * log_setlevel() - show lines at @level and above.
 * @level: the lowest level shown; log_setverbose(1) is LOG_LEVEL_DEBUG,
 *	   log_setverbose(0) LOG_LEVEL_INFO
 */
void log_setlevel(enum log_level level);

/**
 * log_level_parse() - the level a config's log_level names.
 * @name: "debug", "info" or "warning"
 * @level: receives the level
 *
 * Return: 0, or -1 for another name.
 */
int log_level_parse(const char *name, enum log_level *level);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#endif /* IMATRUST_DAEMON_LOG_H */

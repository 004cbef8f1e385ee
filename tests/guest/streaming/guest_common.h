/* SPDX-License-Identifier: GPL-2.0 */
/*
 * guest_common.h - what the streaming guests' static helpers share
 * (imastream.c, imaexport.c): RESULT lines, making a record, and the size
 * of a record in a binary or ascii list. Each helper is one file, so all
 * of it is static.
 */
#ifndef IMATRUST_GUEST_COMMON_H
#define IMATRUST_GUEST_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* guest.sh's policy measures reads of files this uid owns (fowner=) */
#define GEN_UID 4242

static int failures;
static unsigned long gen_seq;

/* "RESULT fail: <message>[: <errno text>]", then exit 1. */
static inline void die(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	fputs("RESULT fail: ", stdout);
	vprintf(fmt, ap);
	if (e)
		printf(": %s", strerror(e));
	putchar('\n');
	va_end(ap);
	exit(1);
}

/* "RESULT ok <message>" or "RESULT fail: <message>" (counted). */
static inline void result(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(ok ? "RESULT ok " : "RESULT fail: ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
	if (!ok)
		failures++;
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * Add one record: a new file named @tag-PID-SEQ under @dir, owned by
 * GEN_UID, opened for read. With @violation it is read while still open
 * for write (an open_writers violation).
 */
static inline void gen_record(const char *dir, const char *tag, int violation)
{
	char path[4096], data[64];
	int wfd, fd, len;

	snprintf(path, sizeof(path), "%s/%s%d-%lu", dir, tag, getpid(),
		 gen_seq);
	len = snprintf(data, sizeof(data), "%s %d %lu %lld\n", tag, getpid(),
		       gen_seq++, (long long)now_ns());
	wfd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (wfd < 0 || write(wfd, data, len) != len ||
	    fchown(wfd, GEN_UID, GEN_UID) < 0)
		die("create %s", path);
	if (!violation && close(wfd) < 0)
		die("close %s", path);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	close(fd);
	if (violation)
		close(wfd);
	unlink(path);
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Size of the record at @p, or 0 when @len does not hold all of it: a
 * binary record with digests of @dsize bytes, an ascii line when @dsize
 * is 0.
 */
static inline size_t record_size(const uint8_t *p, size_t len, size_t dsize)
{
	const uint8_t *nl;
	size_t off, nlen;

	if (!dsize) {
		nl = memchr(p, '\n', len);
		return nl ? (size_t)(nl - p) + 1 : 0;
	}
	off = 4 + dsize;
	if (len < off + 4)
		return 0;
	nlen = get32(p + off);
	off += 4 + nlen;
	if (nlen == 3 && !memcmp(p + 4 + dsize + 4, "ima", 3)) {
		if (len < off + 20 + 4)
			return 0;
		off += 20 + 4 + get32(p + off + 20);
	} else {
		if (len < off + 4)
			return 0;
		off += 4 + get32(p + off);
	}
	return off <= len ? off : 0;
}

#endif /* IMATRUST_GUEST_COMMON_H */

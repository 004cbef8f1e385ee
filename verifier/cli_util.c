// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_util.c - helpers shared by the imatrust CLI commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"

void cli_warnx(const char *fmt, ...)
{
	va_list ap;

	fputs("imatrust: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *cli_read_file(const char *path, size_t max, size_t *len)
{
	size_t have = 0;
	char *buf = NULL;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cli_warnx("%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(max + 1);
	if (buf == NULL) {
		cli_warnx("%s: out of memory", path);
		goto fail;
	}
	/* Read one byte past @max so an oversized file is noticed. */
	while (have <= max) {
		n = read(fd, buf + have, max + 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_warnx("%s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > max) {
		cli_warnx("%s: larger than %zu bytes", path, max);
		goto fail;
	}
	close(fd);
	*len = have;
	return buf;

fail:
	free(buf);
	close(fd);
	return NULL;
}

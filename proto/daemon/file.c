// SPDX-License-Identifier: GPL-2.0-only
/*
 * file.c - bounded whole-file reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file.h"

char *file_read(const char *path, size_t max, size_t *len, char *errbuf,
		size_t errlen)
{
	size_t have = 0;
	char *buf = NULL;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(max + 1);
	if (buf == NULL) {
		snprintf(errbuf, errlen, "%s: out of memory", path);
		goto fail;
	}
	/* Read one byte past @max so an oversized file is noticed. */
	while (have <= max) {
		n = read(fd, buf + have, max + 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(errbuf, errlen, "%s: %s", path,
				 strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > max) {
		snprintf(errbuf, errlen, "%s: larger than %zu bytes", path,
			 max);
		goto fail;
	}
	close(fd);
	buf[have] = '\0';
	if (len != NULL)
		*len = have;
	return buf;

fail:
	free(buf);
	close(fd);
	return NULL;
}

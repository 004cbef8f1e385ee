// SPDX-License-Identifier: GPL-2.0-only
/*
 * file.c - bounded whole-file reads and atomic replacement.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int file_replace(const char *path, const void *buf, size_t len, char *errbuf,
		 size_t errlen)
{
	return file_replace_owned(path, buf, len, NULL, errbuf, errlen);
}

/* Give the file open at @fd @owner's user and group, when not ours. */
static int give(int fd, const struct stat *owner)
{
	if (owner == NULL ||
	    (owner->st_uid == geteuid() && owner->st_gid == getegid()))
		return 0;
	return fchown(fd, owner->st_uid, owner->st_gid);
}

int file_replace_owned(const char *path, const void *buf, size_t len,
		       const struct stat *owner, char *errbuf, size_t errlen)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int fd, dfd, rc = -1;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path) >=
	    sizeof(tmp)) {
		snprintf(errbuf, errlen, "%s: path too long", path);
		return -1;
	}
	fd = mkstemp(tmp); /* mode 0600 */
	if (fd < 0) {
		snprintf(errbuf, errlen, "%s: cannot create %s: %s", path, tmp,
			 strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0600) < 0 || give(fd, owner) < 0 ||
	    write_all(fd, buf, len) < 0 || fsync(fd) < 0) {
		snprintf(errbuf, errlen, "%s: writing %s: %s", path, tmp,
			 strerror(errno));
		close(fd);
		goto out;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		snprintf(errbuf, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* the rename itself must survive a power loss: sync the directory */
	snprintf(dir, sizeof(dir), "%s", path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fsync(dfd) < 0) {
		snprintf(errbuf, errlen, "%s: syncing its directory: %s", path,
			 strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1; /* renamed: nothing to unlink */
	}
	close(dfd);
	return 0;
out:
	if (rc < 0)
		unlink(tmp);
	return rc;
}

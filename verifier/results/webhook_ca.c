// SPDX-License-Identifier: GPL-2.0-only
/*
 * webhook_ca.c - webhook CA bundles, only from webhook_ca_dir
 * (webhook_ca.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "webhook_ca.h"

#define RULE \
	"a file name in webhook_ca_dir (no '/', not starting with '.', not a symbolic link)"

int webhook_ca_name_check(const char *name, char *why, size_t whylen)
{
	size_t n = strlen(name), i;

	for (i = 0; i < n; i++) {
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			break;
	}
	if (n == 0 || n > WEBHOOK_CA_NAME_MAX || name[0] == '.' ||
	    strchr(name, '/') != NULL || i < n) {
		snprintf(why, whylen, "ca: want %s", RULE);
		return -1;
	}
	return 0;
}

/* Read @fd whole: a regular file of at most WEBHOOK_CA_MAX bytes. */
static char *read_all(int fd, size_t *len, char *why, size_t whylen)
{
	struct stat st;
	char *buf;
	ssize_t r;
	size_t got = 0;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > WEBHOOK_CA_MAX) {
		snprintf(why, whylen,
			 "ca: not a regular file of at most %d "
			 "bytes in webhook_ca_dir",
			 WEBHOOK_CA_MAX);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf != NULL && got < (size_t)st.st_size) {
		r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (buf == NULL || got < (size_t)st.st_size) {
		snprintf(why, whylen, "ca: cannot read the file");
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

char *webhook_ca_read(const char *dir, const char *name, size_t *len, char *why,
		      size_t whylen)
{
	int dfd, fd, e;
	char *text = NULL;

	if (webhook_ca_name_check(name, why, whylen) < 0)
		return NULL;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		snprintf(why, whylen, "ca: webhook_ca_dir %s: %s", dir,
			 strerror(errno));
		return NULL;
	}
	/* O_NONBLOCK: a FIFO put there does not hang the caller */
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	e = errno;
	close(dfd);
	if (fd < 0) {
		snprintf(why, whylen, "ca: %s in webhook_ca_dir: %s", name,
			 e == ELOOP ? "a symbolic link, not followed" :
				      strerror(e));
		return NULL;
	}
	text = read_all(fd, len, why, whylen);
	close(fd);
	if (text != NULL &&
	    strstr(text, "-----BEGIN CERTIFICATE-----") == NULL) {
		snprintf(why, whylen,
			 "ca: %s in webhook_ca_dir holds no PEM "
			 "certificate",
			 name);
		free(text);
		text = NULL;
	}
	return text;
}

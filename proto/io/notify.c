// SPDX-License-Identifier: GPL-2.0-only
/*
 * notify.c - the sd_notify(3) datagram protocol, the part we need.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

#define NOTIFY_MSG_MAX 512 /* one state message */

int notify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t plen;
	socklen_t salen;
	ssize_t n;
	int fd;

	if (path == NULL || path[0] == '\0')
		return 0;
	plen = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || plen >= sizeof(sa.sun_path)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(sa.sun_path, path, plen);
	if (path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract namespace */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen +
			    (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		   (struct sockaddr *)&sa, salen);
	close(fd);
	return n < 0 ? -1 : 1;
}

static int send_with_status(const char *prefix, const char *status)
{
	char msg[NOTIFY_MSG_MAX];

	snprintf(msg, sizeof(msg), "%sSTATUS=%s", prefix, status);
	return notify_send(msg);
}

int notify_ready(const char *status)
{
	return send_with_status("READY=1\n", status);
}

int notify_status(const char *status)
{
	return send_with_status("", status);
}

int notify_stopping(void)
{
	return notify_send("STOPPING=1");
}

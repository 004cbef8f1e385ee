// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_notify.c - sd_notify datagrams arrive at $NOTIFY_SOCKET, a path or
 * an abstract name ('@'); no variable means nothing is sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "notify.h"

/* A datagram socket bound to @name ("/path" or "@abstract"). */
static int listen_at(const char *name)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	memcpy(sa.sun_path, name, n);
	if (name[0] == '@')
		sa.sun_path[0] = '\0';
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n +
			  (name[0] == '/'));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, len), 0);
	return fd;
}

static void expect(int fd, const char *want)
{
	char buf[600];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void test_abstract(void **state)
{
	char name[64];
	int fd;

	(void)state;
	snprintf(name, sizeof(name), "@imatrust-test-notify-%d", getpid());
	fd = listen_at(name);
	setenv("NOTIFY_SOCKET", name, 1);
	assert_true(notify_ready("connecting") >= 0);
	expect(fd, "READY=1\nSTATUS=connecting");
	assert_true(notify_status("verdict trusted, next_index 3") >= 0);
	expect(fd, "STATUS=verdict trusted, next_index 3");
	assert_true(notify_stopping() >= 0);
	expect(fd, "STOPPING=1");
	close(fd);
}

static void test_path(void **state)
{
	char path[] = "/tmp/imatrust-notify-XXXXXX";
	char sock[64];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(path));
	snprintf(sock, sizeof(sock), "%s/notify", path);
	fd = listen_at(sock);
	setenv("NOTIFY_SOCKET", sock, 1);
	assert_true(notify_send("READY=1") >= 0);
	expect(fd, "READY=1");
	close(fd);
	unlink(sock);
	rmdir(path);
	/* nobody listens any more: an error, not a crash */
	assert_int_equal(notify_send("READY=1"), -1);
}

static void test_unset_and_bad(void **state)
{
	(void)state;
	unsetenv("NOTIFY_SOCKET");
	assert_int_equal(notify_send("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "relative/name", 1);
	assert_int_equal(notify_send("READY=1"), -1);
	unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abstract),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_unset_and_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

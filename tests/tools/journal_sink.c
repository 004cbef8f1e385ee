// SPDX-License-Identifier: GPL-2.0-only
/*
 * journal_sink.c - stands in for systemd-journald's native socket in the
 * tests of the verifier's audit entries (tests/cli/test_audit_journal.sh):
 * binds a unix datagram socket at SOCKET and writes each datagram it
 * receives to OUT as "KEY=value" lines, a blank line after each.
 *
 *   journal_sink SOCKET OUT
 *
 * The native protocol (systemd's JOURNAL_NATIVE_PROTOCOL): "KEY=value\n"
 * per field, or, for a value that holds a newline, "KEY\n", the length as
 * 64-bit little endian, the value and "\n". Such a value is written here
 * with each newline as the two characters \n. A datagram that does not
 * parse is written as "MALFORMED"; one passed as a file descriptor (what
 * the library does past the datagram size) as "MEMFD". OUT is flushed
 * after every datagram; SIGTERM ends the program.
 * Exit status: 1 the socket failed, 2 usage or a socket that cannot be
 * bound.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DGRAM_MAX (256 * 1024) /* larger than the kernel's default */

static uint8_t dgram[DGRAM_MAX];

/* Write @len bytes of @p, newlines as "\n". */
static void put_escaped(FILE *out, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (p[i] == '\n')
			fputs("\\n", out);
		else
			fputc(p[i], out);
	}
}

/* One field at @p (@len left): its bytes consumed, or 0 when malformed. */
static size_t put_field(FILE *out, const uint8_t *p, size_t len)
{
	const uint8_t *nl = memchr(p, '\n', len), *eq;
	uint64_t vlen = 0;
	size_t klen;
	int i;

	if (nl == NULL)
		return 0;
	klen = (size_t)(nl - p);
	eq = memchr(p, '=', klen);
	if (eq != NULL) {
		put_escaped(out, p, klen);
		fputc('\n', out);
		return klen + 1;
	}
	if (len - klen - 1 < 8)
		return 0;
	for (i = 7; i >= 0; i--)
		vlen = vlen << 8 | nl[1 + i];
	if (vlen > len - klen - 1 - 8 - 1 || nl[1 + 8 + vlen] != '\n')
		return 0;
	fwrite(p, 1, klen, out);
	fputc('=', out);
	put_escaped(out, nl + 1 + 8, (size_t)vlen);
	fputc('\n', out);
	return klen + 1 + 8 + (size_t)vlen + 1;
}

static void put_dgram(FILE *out, const uint8_t *p, size_t len)
{
	size_t used;

	while (len > 0) {
		used = put_field(out, p, len);
		if (used == 0) {
			fputs("MALFORMED\n", out);
			break;
		}
		p += used;
		len -= used;
	}
	fputc('\n', out);
	fflush(out);
}

static int bind_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { dgram, sizeof(dgram) };
	struct msghdr mh;
	FILE *out;
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: journal_sink SOCKET OUT\n");
		return 2;
	}
	fd = bind_at(argv[1]);
	out = fopen(argv[2], "a");
	if (fd < 0 || out == NULL) {
		perror(fd < 0 ? argv[1] : argv[2]);
		return 2;
	}
	for (;;) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(fd, &mh, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("recvmsg");
			return 1;
		}
		if (mh.msg_controllen > 0) {
			fputs("MEMFD\n\n", out);
			fflush(out);
			continue;
		}
		put_dgram(out, dgram, (size_t)n);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * imatest - small static helper the guest tests run inside the VM.
 *
 *   imatest mmapx UID FILE   map FILE with PROT_EXEC as UID (MMAP_CHECK)
 *   imatest readas UID FILE  read FILE to the end as UID (FILE_CHECK)
 *   imatest unhex            hex text on stdin to bytes on stdout
 *   imatest count FILE       number of records in a binary measurement list
 *   imatest kexec-load KERNEL INITRD CMDLINE
 *                            kexec_file_load() KERNEL (kexec -s -l)
 *   imatest kexec-reboot     reboot into it (kexec -e); no kexec-tools in
 *                            the image
 *   imatest request FILE REQ write "REQ\n" to FILE (CONFIG_IMA_STAGING
 *                            export and delete) in one write(); prints
 *                            "ok" or the errno's name (EACCES, ...)
 *   imatest resume DIR K LIST:DSIZE...
 *                            for each list file (binary with template
 *                            digests of DSIZE bytes, ascii for 0), whose
 *                            first K records came from the kernel before
 *                            a kexec: a reader at EOF is not woken by
 *                            poll() without a record, is woken with
 *                            POLLPRI by a file read as root under DIR, and
 *                            its next read() returns exactly that record;
 *                            lseek()s back to every carried record and
 *                            into each read what a fresh read shows
 *                            there. Prints "RESULT ok ..." or
 *                            "RESULT fail: ..." lines (guest_common.h)
 *
 * Dropping to UID before open() keeps the FILE_CHECK rule of the tcb
 * policy (uid=0) out of the way, so a record for FILE comes from the hook
 * under test only. Exit 0 on success, 1 on failure, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/reboot.h>
#include <poll.h>
#include <sys/wait.h>

#include "streaming/guest_common.h"

static int drop_to(const char *arg)
{
	char *end;
	unsigned long uid;
	gid_t gid;

	errno = 0;
	uid = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || uid > 65534) {
		fprintf(stderr, "imatest: bad uid '%s'\n", arg);
		return -1;
	}
	gid = (gid_t)uid;
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid)) {
		perror("imatest: dropping privileges");
		return -1;
	}
	return 0;
}

static int cmd_mmapx(const char *uid, const char *path)
{
	struct stat st;
	void *p;
	int fd;

	if (drop_to(uid))
		return 1;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "imatest: open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	if (fstat(fd, &st) || st.st_size == 0) {
		fprintf(stderr, "imatest: %s: empty or unreadable\n", path);
		close(fd);
		return 1;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		 fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "imatest: mmap %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	munmap(p, (size_t)st.st_size);
	return 0;
}

static int cmd_readas(const char *uid, const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd;

	if (drop_to(uid))
		return 1;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "imatest: open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "imatest: read %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Whitespace between digits is skipped; an odd digit count is an error. */
static int cmd_unhex(void)
{
	int c, v, hi = -1;

	while ((c = getchar()) != EOF) {
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		v = hexval(c);
		if (v < 0) {
			fprintf(stderr, "imatest: not hex: 0x%02x\n", c);
			return 1;
		}
		if (hi < 0) {
			hi = v;
			continue;
		}
		putchar(hi << 4 | v);
		hi = -1;
	}
	if (hi >= 0) {
		fprintf(stderr, "imatest: odd number of hex digits\n");
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

/* Longest template name the kernel defines is 15 bytes; allow slack. */
#define TEMPLATE_NAME_MAX 32
/* No record the guest tests produce is near this. */
#define LIST_MAX (16 << 20)

static int take(const uint8_t **p, size_t *left, size_t n, const uint8_t **out)
{
	if (*left < n)
		return -1;
	if (out)
		*out = *p;
	*p += n;
	*left -= n;
	return 0;
}

static int take_u32(const uint8_t **p, size_t *left, uint32_t *v)
{
	const uint8_t *b;

	if (take(p, left, 4, &b))
		return -1;
	memcpy(v, b, 4); /* the list is in the guest's native order */
	return 0;
}

/*
 * One record: pcr, sha1 template hash, name length, name, then for "ima"
 * a 20-byte digest and a length-prefixed file name, for every other
 * template a length-prefixed template data blob.
 */
static int skip_record(const uint8_t **p, size_t *left)
{
	const uint8_t *name;
	uint32_t pcr, len;

	if (take_u32(p, left, &pcr) || take(p, left, 20, NULL) ||
	    take_u32(p, left, &len) || len == 0 || len > TEMPLATE_NAME_MAX ||
	    take(p, left, len, &name))
		return -1;
	if (len == 3 && !memcmp(name, "ima", 3)) {
		if (take(p, left, 20, NULL) || take_u32(p, left, &len))
			return -1;
	} else if (take_u32(p, left, &len)) {
		return -1;
	}
	return take(p, left, len, NULL);
}

static int cmd_count(const char *path)
{
	static uint8_t buf[LIST_MAX];
	const uint8_t *p = buf;
	size_t left = 0;
	unsigned long n = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "imatest: open %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	while ((r = read(fd, buf + left, sizeof(buf) - left)) > 0)
		left += (size_t)r;
	close(fd);
	if (r < 0 || left == sizeof(buf)) {
		fprintf(stderr, "imatest: %s: read error or too large\n", path);
		return 1;
	}
	while (left > 0) {
		if (skip_record(&p, &left)) {
			fprintf(stderr, "imatest: %s: truncated record %lu\n",
				path, n);
			return 1;
		}
		n++;
	}
	printf("%lu\n", n);
	return 0;
}

/*
 * Load KERNEL and INITRD with kexec_file_load(), the call that carries the
 * IMA measurement list to the next kernel (CONFIG_IMA_KEXEC).
 */
static int cmd_kexec_load(const char *kernel, const char *initrd,
			  const char *cmdline)
{
	int kfd = open(kernel, O_RDONLY), ifd = open(initrd, O_RDONLY);

	if (kfd < 0 || ifd < 0) {
		fprintf(stderr, "imatest: open %s: %s\n",
			kfd < 0 ? kernel : initrd, strerror(errno));
		return 1;
	}
	if (syscall(SYS_kexec_file_load, kfd, ifd, strlen(cmdline) + 1, cmdline,
		    0UL) < 0) {
		fprintf(stderr, "imatest: kexec_file_load: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

static int cmd_kexec_reboot(void)
{
	sync();
	reboot(LINUX_REBOOT_CMD_KEXEC);
	fprintf(stderr, "imatest: reboot(KEXEC): %s\n", strerror(errno));
	return 1;
}

static const char *errno_name(int e)
{
	static char other[32];

	switch (e) {
	case EACCES:
		return "EACCES";
	case ESTALE:
		return "ESTALE";
	case ENOENT:
		return "ENOENT";
	case EEXIST:
		return "EEXIST";
	case EINVAL:
		return "EINVAL";
	case EBUSY:
		return "EBUSY";
	case EPERM:
		return "EPERM";
	}
	snprintf(other, sizeof(other), "errno %d", e);
	return other;
}

static int cmd_request(const char *file, const char *req)
{
	char line[64];
	int fd, len;
	ssize_t n;

	len = snprintf(line, sizeof(line), "%s\n", req);
	if (len >= (int)sizeof(line))
		return 2;
	fd = open(file, O_WRONLY);
	if (fd < 0) {
		printf("open: %s\n", errno_name(errno));
		return 1;
	}
	n = write(fd, line, len);
	if (n < 0)
		printf("%s\n", errno_name(errno));
	else
		printf(n == len ? "ok\n" : "short write %zd\n", n);
	close(fd);
	return 0;
}

/* The rest of @fd, from its position to EOF, into a new buffer. */
static uint8_t *read_to_eof(int fd, size_t *len)
{
	size_t cap = 1 << 16;
	uint8_t *buf = malloc(cap), *nbuf;
	ssize_t n;

	*len = 0;
	for (;;) {
		if (!buf)
			die("out of memory");
		n = read(fd, buf + *len, cap - *len);
		if (n < 0)
			die("read");
		if (n == 0)
			return buf;
		*len += (size_t)n;
		if (*len == cap) {
			cap *= 2;
			nbuf = realloc(buf, cap);
			if (!nbuf)
				free(buf);
			buf = nbuf;
		}
	}
}

/* The whole of @list through a fresh open. */
static uint8_t *read_fresh(const char *list, size_t *len)
{
	int fd = open(list, O_RDONLY);
	uint8_t *buf;

	if (fd < 0)
		die("open %s", list);
	buf = read_to_eof(fd, len);
	close(fd);
	return buf;
}

/* Create @path with unique content and read it as root: one record. */
static void measure_new(const char *path)
{
	char data[128], buf[256];
	int fd, len;

	len = snprintf(data, sizeof(data), "%s %d %lld\n", path, getpid(),
		       (long long)now_ns());
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0 || write(fd, data, len) != len || close(fd))
		_exit(1);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, buf, sizeof(buf)) != len)
		_exit(1);
	close(fd);
	_exit(0);
}

/* Offset of record @k of @buf (@len bytes), or -1 past the end. */
static long record_offset(const uint8_t *buf, size_t len, size_t dsize, long k)
{
	size_t off = 0, sz;

	while (k-- > 0) {
		sz = record_size(buf + off, len - off, dsize);
		if (!sz)
			return -1;
		off += sz;
	}
	return (long)off;
}

/* lseek() @fd to @off; what it reads to EOF equals @ref from @off on. */
static int seek_matches(int fd, long off, const uint8_t *ref, size_t len)
{
	uint8_t *got;
	size_t n;
	int ok;

	if (lseek(fd, off, SEEK_SET) != off)
		return 0;
	got = read_to_eof(fd, &n);
	ok = n == len - (size_t)off && !memcmp(got, ref + off, n);
	free(got);
	return ok;
}

static void resume_list(const char *dir, long carried, const char *list,
			size_t dsize)
{
	struct pollfd p = { .events = POLLPRI | POLLIN };
	uint8_t *old, *fresh, *got;
	size_t old_len, fresh_len, got_len, sz;
	long k, off, next, bad = -1, seeks = 0;
	char file[512];
	int64_t t0, waited;
	int rc, status;
	pid_t pid;

	p.fd = open(list, O_RDONLY);
	if (p.fd < 0)
		die("open %s", list);
	old = read_to_eof(p.fd, &old_len);
	next = record_offset(old, old_len, dsize, carried);
	result(next > 0,
	       "%s: the list read to EOF (%zu bytes) starts with "
	       "%ld records carried over the kexec (%ld bytes)",
	       list, old_len, carried, next);
	rc = poll(&p, 1, 1000);
	result(rc == 0 && !p.revents,
	       "%s: poll() at EOF without a new record "
	       "times out after 1 s (rc %d, revents %#x)",
	       list, rc, p.revents);

	snprintf(file, sizeof(file), "%s/resume-%d-%lld", dir, getpid(),
		 (long long)now_ns());
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		usleep(300000);
		measure_new(file);
	}
	t0 = now_ns();
	rc = poll(&p, 1, 5000);
	waited = (now_ns() - t0) / 1000000;
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	result(WIFEXITED(status) && !WEXITSTATUS(status),
	       "%s: %s created and read as root", list, file);
	result(rc == 1 && (p.revents & POLLPRI) && waited >= 250,
	       "%s: poll() wakes with POLLPRI for the new record, not before "
	       "it (rc %d, revents %#x, after %lld ms, record at 300 ms)",
	       list, rc, p.revents, (long long)waited);

	got = read_to_eof(p.fd, &got_len);
	fresh = read_fresh(list, &fresh_len);
	sz = got_len ? record_size(got, got_len, dsize) : 0;
	result(fresh_len == old_len + got_len && sz == got_len &&
		       !memcmp(fresh, old, old_len) &&
		       !memcmp(fresh + old_len, got, got_len) &&
		       memmem(got, got_len, file, strlen(file)),
	       "%s: the next read() returns exactly the new record (%zu "
	       "bytes, one record of %zu, list now %zu bytes, was %zu)",
	       list, got_len, sz, fresh_len, old_len);
	free(got);

	/* back to every carried record, and 5 bytes into each */
	for (k = 0; k < carried; k++) {
		off = record_offset(fresh, fresh_len, dsize, k);
		if (off < 0 || !seek_matches(p.fd, off, fresh, fresh_len) ||
		    !seek_matches(p.fd, off + 5, fresh, fresh_len)) {
			bad = k;
			break;
		}
		seeks += 2;
	}
	result(bad < 0 && seeks == 2 * carried,
	       "%s: %ld lseek()s back into "
	       "the %ld carried records read what a fresh read shows there "
	       "(first mismatch at record %ld)",
	       list, seeks, carried, bad);
	close(p.fd);
	free(old);
	free(fresh);
}

static int cmd_resume(int argc, char **argv)
{
	long carried = strtol(argv[3], NULL, 10);
	char list[512], *colon;
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 4; i < argc; i++) {
		snprintf(list, sizeof(list), "%s", argv[i]);
		colon = strrchr(list, ':');
		if (!colon || carried < 1)
			die("usage: imatest resume DIR K LIST:DSIZE...");
		*colon = '\0';
		resume_list(argv[2], carried, list,
			    strtoul(colon + 1, NULL, 10));
	}
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "mmapx"))
		return cmd_mmapx(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "readas"))
		return cmd_readas(argv[2], argv[3]);
	if (argc == 2 && !strcmp(argv[1], "unhex"))
		return cmd_unhex();
	if (argc == 3 && !strcmp(argv[1], "count"))
		return cmd_count(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "kexec-load"))
		return cmd_kexec_load(argv[2], argv[3], argv[4]);
	if (argc == 2 && !strcmp(argv[1], "kexec-reboot"))
		return cmd_kexec_reboot();
	if (argc == 4 && !strcmp(argv[1], "request"))
		return cmd_request(argv[2], argv[3]);
	if (argc >= 5 && !strcmp(argv[1], "resume"))
		return cmd_resume(argc, argv);
	fprintf(stderr,
		"usage: imatest mmapx|readas UID FILE | unhex | "
		"count FILE | kexec-load KERNEL INITRD CMDLINE | "
		"kexec-reboot | request FILE REQ | resume DIR K LIST:DSIZE...\n");
	return 2;
}

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
		fprintf(stderr, "imatest: open %s: %s\n", path, strerror(errno));
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
		fprintf(stderr, "imatest: mmap %s: %s\n", path, strerror(errno));
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
		fprintf(stderr, "imatest: open %s: %s\n", path, strerror(errno));
		return 1;
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0);
	close(fd);
	if (n < 0) {
		fprintf(stderr, "imatest: read %s: %s\n", path, strerror(errno));
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
#define TEMPLATE_NAME_MAX	32
/* No record the guest tests produce is near this. */
#define LIST_MAX		(16 << 20)

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
	memcpy(v, b, 4);	/* the list is in the guest's native order */
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
		fprintf(stderr, "imatest: open %s: %s\n", path, strerror(errno));
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
	if (syscall(SYS_kexec_file_load, kfd, ifd, strlen(cmdline) + 1,
		    cmdline, 0UL) < 0) {
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
	fprintf(stderr, "usage: imatest mmapx|readas UID FILE | unhex | "
		"count FILE | kexec-load KERNEL INITRD CMDLINE | "
		"kexec-reboot\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * imaexport - guest helper for the export-and-delete tests (issue 15,
 * kernel patches 0004-0006, CONFIG_IMA_STAGING).
 *
 *   imaexport DIR SAVE NMEM
 *   imaexport bench DIR NxR...
 *
 * Runs every check below in order against /sys/kernel/security/ima,
 * adding records from files owned by GEN_UID created under DIR (the
 * guest's policy measures them on read, nothing else is measured). Every
 * record deleted from the kernel is first appended, per list file, to
 * SAVE/<file name>, so that SAVE/<file> followed by the list left in the
 * kernel is the whole list, which the host replays against the PCRs.
 * NMEM records are added and deleted for the memory check.
 *
 *  1. files: the list files and their *_staged views are mode 0660;
 *  2. opens: without CAP_SYS_ADMIN no open for writing (EPERM); a writer
 *     excludes readers and other processes (EBUSY) but may open other
 *     views read-write itself;
 *  3. bad requests fail with the documented errno and delete nothing;
 *  4. "N\n" deletes exactly the N oldest records from every view; the
 *     lists left parse and start with record N; open files positioned
 *     past, inside and at the end of the deleted records go on as
 *     documented; poll() wakes for records added after the delete;
 *  5. "A\n" stages the whole list, the staged views show it, new records
 *     go to the emptied list, "D\n" deletes the staged records;
 *  6. deleting NMEM records frees kmalloc slab objects.
 *
 * Prints "# " lines with figures and one "RESULT ok ..." or
 * "RESULT fail: ..." line per check; exits 0 when every check passed.
 *
 * "bench" (tests/bench/kernel-export) times, for each NxR (N records, R
 * repetitions), with the list emptied first and N fresh records each
 * time: the read()s of the sha256 binary and ascii lists from 0 to EOF
 * (three times per list, twice per repetition), then "N\n" written to
 * binary_runtime_measurements_sha256; N fresh records again, then "A\n"
 * and "D\n" written to its _staged file. The first repetition also takes
 * kmalloc slab use and SUnreclaim before the records, after them, after
 * the "N" delete, after the second N and after "D". Prints "#" lines with
 * every sample and one "BENCH" and one "BENCHMEM" line of medians per N.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_common.h"

#define IMA_DIR "/sys/kernel/security/ima"
#define LIST_MAX (64u << 20) /* largest list read into memory */
#define VIEWS_MAX 8	     /* list files tested */
#define DELETE_N 10	     /* records deleted by the "N" check */
#define WAKE_MS 5000	     /* longest wait for a poll() wake-up */

/* One list file: its last snapshot and where its deleted records go. */
struct view {
	char name[64];
	size_t dsize; /* template digest size, 0 for ascii */
	uint8_t *buf; /* snapshot */
	size_t len;
	size_t *b; /* record boundaries: b[0] = 0 ... b[n] = len */
	size_t n;
};

static struct view views[VIEWS_MAX];
static int nviews;
static const char *gen_dir;
static const char *save_dir;

static char *path(const char *name, const char *suffix)
{
	static char p[2][1024];
	static int i;

	i = !i;
	snprintf(p[i], sizeof(p[i]), "%s/%s%s", IMA_DIR, name, suffix);
	return p[i];
}

static void gen(long n, long viol)
{
	long i;

	for (i = 0; i < n; i++)
		gen_record(gen_dir, "e", viol > 0 && i % viol == viol - 1);
}

static long count(void)
{
	char buf[32] = "";
	ssize_t n;
	int fd;

	fd = open(IMA_DIR "/runtime_measurements_count", O_RDONLY);
	if (fd < 0)
		die("open runtime_measurements_count");
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		die("read runtime_measurements_count");
	return strtol(buf, NULL, 10);
}

/* Read @fd to EOF into a new buffer; the length goes to @len. */
static uint8_t *read_rest(int fd, size_t *len)
{
	size_t cap = 1 << 16;
	uint8_t *buf = malloc(cap);
	ssize_t n;

	*len = 0;
	while (buf) {
		if (*len == cap) {
			if (cap >= LIST_MAX)
				die("list larger than %u bytes", LIST_MAX);
			cap *= 2;
			buf = realloc(buf, cap);
			continue;
		}
		n = read(fd, buf + *len, cap - *len);
		if (n < 0)
			die("read");
		if (n == 0)
			return buf;
		*len += n;
	}
	die("out of memory");
	return NULL;
}

/* Read exactly @want bytes from @fd. */
static void read_exact(int fd, size_t want)
{
	uint8_t buf[4096];
	ssize_t n;

	while (want) {
		n = read(fd, buf, want < sizeof(buf) ? want : sizeof(buf));
		if (n <= 0)
			die("read_exact: %zd", n);
		want -= n;
	}
}

/*
 * Record boundaries of @buf into @v->b and @v->n; returns 0, or -1 when
 * the bytes do not parse as whole records.
 */
static int parse(struct view *v)
{
	size_t cap = 1024, off = 0, sz;

	free(v->b);
	v->b = malloc(cap * sizeof(*v->b));
	v->n = 0;
	for (;;) {
		if (!v->b)
			die("out of memory");
		v->b[v->n] = off;
		if (off == v->len)
			return 0;
		sz = record_size(v->buf + off, v->len - off, v->dsize);
		if (!sz)
			return -1;
		off += sz;
		if (++v->n + 1 >= cap) {
			cap *= 2;
			v->b = realloc(v->b, cap * sizeof(*v->b));
		}
	}
}

/* Take a snapshot of every view through fresh read-write opens. */
static void snapshot(void)
{
	struct view *v;
	int fd;

	for (v = views; v < views + nviews; v++) {
		fd = open(path(v->name, ""), O_RDWR);
		if (fd < 0)
			die("open %s", v->name);
		free(v->buf);
		v->buf = read_rest(fd, &v->len);
		close(fd);
		if (parse(v))
			die("%s does not parse", v->name);
	}
}

/* Every view holds @n records, and runtime_measurements_count says so. */
static void check_counts(const char *when, size_t n)
{
	long c = count();
	int i, ok = c == (long)n;

	for (i = 0; i < nviews; i++)
		ok = ok && views[i].n == n;
	result(ok, "%s: runtime_measurements_count %ld, every view %zu records",
	       when, c, n);
}

/* Append the first @n records of every view of @set to SAVE/<name>. */
static void save_head(const struct view *set, size_t n)
{
	const struct view *v;
	char p[512];
	FILE *f;

	for (v = set; v < set + nviews; v++) {
		snprintf(p, sizeof(p), "%s/%s", save_dir, v->name);
		f = fopen(p, "a");
		if (!f || fwrite(v->buf, 1, v->b[n], f) != v->b[n] || fclose(f))
			die("save %s", p);
	}
}

static int open_as_child(const char *p, int flags, int drop_admin)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (drop_admin) {
			if (syscall(SYS_capget, &h, d))
				_exit(100);
			d[0].effective &= ~(1u << CAP_SYS_ADMIN);
			if (syscall(SYS_capset, &h, d))
				_exit(101);
		}
		fd = open(p, flags);
		_exit(fd >= 0 ? 0 : errno);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		die("waitpid");
	return WEXITSTATUS(status);
}

/* open() @p with @flags in this process; its errno, 0 on success. */
static int open_errno(const char *p, int flags)
{
	int fd = open(p, flags);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void check_errno(const char *what, int got, int want)
{
	result(got == want, "%s: %s (want %s)", what,
	       got ? strerror(got) : "success",
	       want ? strerror(want) : "success");
}

static void check_files(void)
{
	struct stat st;
	int i, ok = 1;

	for (i = 0; i < nviews; i++) {
		if (stat(path(views[i].name, ""), &st) ||
		    (st.st_mode & 0777) != 0660)
			ok = 0;
		if (stat(path(views[i].name, "_staged"), &st) ||
		    (st.st_mode & 0777) != 0660)
			ok = 0;
	}
	result(ok, "%d list files and their _staged views exist, mode 0660",
	       nviews);
}

static void check_opens(void)
{
	char bin[1024];
	int r, w;

	snprintf(bin, sizeof(bin), "%s", path(views[0].name, ""));
	check_errno("open for writing without CAP_SYS_ADMIN",
		    open_as_child(bin, O_WRONLY, 1), EPERM);
	check_errno("open for reading without CAP_SYS_ADMIN",
		    open_as_child(bin, O_RDONLY, 1), 0);
	r = open(bin, O_RDONLY);
	if (r < 0)
		die("open %s", bin);
	check_errno("open for writing while a reader has a list open",
		    open_errno(path(views[1].name, ""), O_WRONLY), EBUSY);
	close(r);
	w = open(bin, O_RDWR);
	if (w < 0)
		die("open %s read-write", bin);
	check_errno("open for reading, other process, while a writer has one",
		    open_as_child(path(views[1].name, ""), O_RDONLY, 0), EBUSY);
	check_errno("open read-write, other process, while a writer has one",
		    open_as_child(bin, O_RDWR, 0), EBUSY);
	check_errno("open for reading by the writer itself",
		    open_errno(path(views[1].name, ""), O_RDONLY), EBUSY);
	check_errno("open of another view read-write by the writer",
		    open_errno(path(views[nviews - 1].name, "_staged"), O_RDWR),
		    0);
	close(w);
	check_errno("open for reading once the writer closed",
		    open_errno(bin, O_RDONLY), 0);
}

/* write() @req to @fd; errno, or 0 when all of it was taken. */
static int request(int fd, const char *req)
{
	ssize_t n = write(fd, req, strlen(req));

	if (n < 0)
		return errno;
	return n == (ssize_t)strlen(req) ? 0 : EIO;
}

/* A bad request fails with @want and deletes nothing. */
static void check_bad(int fd, const char *file, const char *req, int want)
{
	uint8_t *before = views[0].buf;
	size_t len = views[0].len;
	char what[128], shown[32];
	int got;

	snprintf(shown, sizeof(shown), "%.*s%s", (int)strcspn(req, "\n"), req,
		 strchr(req, '\n') ? "\\n" : "");
	got = request(fd, req);
	views[0].buf = NULL;
	snapshot();
	snprintf(what, sizeof(what), "\"%s\" to %s", shown, file);
	check_errno(what, got, want);
	result(views[0].len == len && !memcmp(views[0].buf, before, len),
	       "\"%s\" to %s deleted nothing", shown, file);
	free(before);
}

static void check_requests(void)
{
	char big[32];
	int w, s;

	w = open(path(views[0].name, ""), O_RDWR);
	s = open(path(views[0].name, "_staged"), O_RDWR);
	if (w < 0 || s < 0)
		die("open for requests");
	snprintf(big, sizeof(big), "%zu\n", views[0].n + 1);
	check_bad(w, "the list", big, ENOENT);
	check_bad(w, "the list", "0\n", EINVAL);
	check_bad(w, "the list", "-1\n", EINVAL);
	check_bad(w, "the list", "abc\n", EINVAL);
	check_bad(w, "the list", "5", EINVAL);
	check_bad(w, "the list", "A\n", EINVAL);
	check_bad(w, "the list", "D\n", EINVAL);
	check_bad(w, "the list", "99999999999999999999\n", ERANGE);
	check_bad(w, "the list", "0000000000000000000001\n", EINVAL);
	check_bad(s, "the staged list", "D\n", ENOENT);
	check_bad(s, "the staged list", "5\n", EINVAL);
	check_bad(s, "the staged list", "A", EINVAL);
	close(s);
	close(w);
}

/* The bytes of @fd from its position to EOF equal @ref..@ref+@len. */
static void check_rest(const char *what, int fd, const uint8_t *ref, size_t len)
{
	size_t got_len, i;
	uint8_t *got = read_rest(fd, &got_len);

	for (i = 0; i < got_len && i < len && got[i] == ref[i]; i++)
		;
	result(got_len == len && i == len,
	       "%s (%zu bytes, want %zu, "
	       "equal up to %zu)",
	       what, got_len, len, i);
	free(got);
}

/* poll() on @fd reports POLLPRI once records come, not before. */
static void check_wake(const char *what, int fd, long records)
{
	struct pollfd p = { .fd = fd, .events = POLLPRI | POLLIN };
	int rc, status;
	pid_t pid;

	result(poll(&p, 1, 0) == 0, "%s: poll() at EOF reports nothing", what);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		usleep(300000);
		gen(records, 0);
		_exit(0);
	}
	rc = poll(&p, 1, WAKE_MS);
	result(rc == 1 && (p.revents & POLLPRI),
	       "%s: poll() wakes with POLLPRI for a new record (rc %d, "
	       "revents %#x)",
	       what, rc, p.revents);
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
}

static void check_delete(void)
{
	struct view *a = &views[1], *h = &views[nviews - 2];
	size_t n0 = views[0].n, k = n0 - 5, j = 2, i;
	struct view old[VIEWS_MAX];
	size_t left;
	char what[96];
	int w, m, hf;
	off_t end;

	/* w at the end, m at record k, hf inside record j, deleted */
	w = open(path(views[0].name, ""), O_RDWR);
	m = open(path(a->name, ""), O_RDWR);
	hf = open(path(h->name, ""), O_RDWR);
	if (w < 0 || m < 0 || hf < 0)
		die("open for delete");
	read_exact(w, views[0].len);
	read_exact(m, a->b[k]);
	read_exact(hf, h->b[j] + 7);

	save_head(views, DELETE_N);
	for (i = 0; i < (size_t)nviews; i++) {
		old[i] = views[i];
		views[i].buf = NULL;
		views[i].b = NULL;
	}
	check_errno("\"10\\n\" to the list", request(w, "10\n"), 0);
	snapshot();
	check_counts("after deleting 10", n0 - DELETE_N);
	for (i = 0; i < (size_t)nviews; i++)
		result(views[i].len == old[i].len - old[i].b[DELETE_N] &&
			       !memcmp(views[i].buf,
				       old[i].buf + old[i].b[DELETE_N],
				       views[i].len),
		       "%s: the 10 oldest records gone, the rest parses and "
		       "starts with record 10",
		       views[i].name);

	end = lseek(w, 0, SEEK_CUR);
	result(end == (off_t)old[0].len,
	       "file at the end keeps its offset across the delete (%lld, "
	       "want %zu)",
	       (long long)end, old[0].len);
	check_wake("file at the end, after the delete", w, 3);
	snapshot();
	left = old[0].len - old[0].b[DELETE_N]; /* bytes before the new */
	check_rest("file at the end reads the 3 new records, nothing else", w,
		   views[0].buf + left, views[0].len - left);
	snprintf(what, sizeof(what),
		 "file at record %zu goes on with it, "
		 "now record %zu",
		 k, k - DELETE_N);
	check_rest(what, m, a->buf + a->b[k - DELETE_N],
		   a->len - a->b[k - DELETE_N]);
	check_rest("file inside deleted record 2 goes on with the first left",
		   hf, h->buf, h->len);
	end = lseek(hf, 0, SEEK_SET);
	result(end == (off_t)old[nviews - 2].b[DELETE_N],
	       "a seek to 0 lands on the first record left (%lld, want %zu)",
	       (long long)end, old[nviews - 2].b[DELETE_N]);
	check_rest("and reads the whole list from there", hf, h->buf, h->len);
	for (i = 0; i < (size_t)nviews; i++) {
		free(old[i].buf);
		free(old[i].b);
	}
	close(hf);
	close(m);
	close(w);
}

static void check_stage(void)
{
	struct view old[VIEWS_MAX];
	int w, s, i, fd, rc;
	size_t n1 = views[0].n, len;
	uint8_t *got;

	w = open(path(views[0].name, ""), O_RDWR);
	s = open(path(views[0].name, "_staged"), O_RDWR);
	if (w < 0 || s < 0)
		die("open for staging");
	read_exact(w, views[0].len);
	check_rest("staged list empty before \"A\"", s, NULL, 0);
	for (i = 0; i < nviews; i++) {
		old[i] = views[i];
		views[i].buf = NULL;
		views[i].b = NULL;
	}
	check_errno("\"A\\n\" to the staged list", request(s, "A\n"), 0);
	check_errno("\"A\\n\" again", request(s, "A\n"), EEXIST);
	snapshot();
	check_counts("after staging", 0);
	for (i = 0; i < nviews; i++) {
		fd = open(path(old[i].name, "_staged"), O_RDWR);
		if (fd < 0)
			die("open %s_staged", old[i].name);
		check_rest(path(old[i].name, "_staged"), fd, old[i].buf,
			   old[i].len);
		close(fd);
	}
	save_head(old, n1);
	for (i = 0; i < nviews; i++) {
		free(old[i].buf);
		free(old[i].b);
	}
	check_wake("file at the end, after staging", w, 2);
	snapshot();
	check_counts("2 records after staging", 2);
	check_rest("file at the end reads the 2 records added after staging", w,
		   views[0].buf, views[0].len);
	rc = request(s, "D\n");
	check_errno("\"D\\n\" to the staged list", rc, 0);
	check_errno("\"D\\n\" again", request(s, "D\n"), ENOENT);
	snapshot();
	check_counts("after deleting the staged records", 2);
	fd = open(path(views[nviews - 1].name, "_staged"), O_RDWR);
	got = read_rest(fd, &len);
	result(len == 0, "%s_staged empty after \"D\"", views[nviews - 1].name);
	free(got);
	close(fd);
	close(s);
	close(w);
}

/* kmalloc slab objects and bytes in use, from /proc/slabinfo */
static void slab_use(long *objs, long *bytes, long *unrecl)
{
	char line[512], name[64];
	long active, total, size;
	FILE *f;

	*objs = 0;
	*bytes = 0;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		die("open /proc/slabinfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld %ld %ld", name, &active, &total,
			   &size) != 4 ||
		    strncmp(name, "kmalloc-", 8))
			continue;
		*objs += active;
		*bytes += active * size;
	}
	fclose(f);
	*unrecl = -1;
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "SUnreclaim: %ld kB", unrecl);
	if (f)
		fclose(f);
}

static void check_memory(long nmem)
{
	long o0, b0, u0, o1, b1, u1, o2, b2, u2;
	char req[32];
	int w;

	sync();
	slab_use(&o0, &b0, &u0);
	gen(nmem, 0);
	snapshot();
	slab_use(&o1, &b1, &u1);
	save_head(views, views[0].n);
	w = open(path(views[0].name, ""), O_RDWR);
	if (w < 0)
		die("open for the memory check");
	snprintf(req, sizeof(req), "%zu\n", views[0].n);
	check_errno("deleting every record", request(w, req), 0);
	close(w);
	sleep(1);
	slab_use(&o2, &b2, &u2);
	printf("# memory: %zu records; kmalloc objects %ld -> %ld -> %ld, "
	       "bytes %ld -> %ld -> %ld; SUnreclaim %ld -> %ld -> %ld kB\n",
	       views[0].n, o0, o1, o2, b0, b1, b2, u0, u1, u2);
	result(o1 - o0 >= 3 * nmem,
	       "%ld records took %ld kmalloc objects (at least 3 per record)",
	       nmem, o1 - o0);
	result(o1 - o2 >= 3 * nmem / 2 && b1 - b2 >= 48 * nmem,
	       "deleting them freed %ld kmalloc objects, %ld bytes (at "
	       "least 1.5 objects, 48 bytes per record)",
	       o1 - o2, b1 - b2);
	result(u2 < u1, "SUnreclaim dropped: %ld -> %ld kB", u1, u2);
	snapshot();
	check_counts("after deleting every record", 0);
}

/* The list files present: legacy binary first, legacy ascii second. */
static void find_views(void)
{
	static const struct {
		const char *name;
		size_t dsize;
	} all[] = {
		{ "binary_runtime_measurements", 20 },
		{ "ascii_runtime_measurements", 0 },
		{ "binary_runtime_measurements_sha1", 20 },
		{ "ascii_runtime_measurements_sha1", 0 },
		{ "binary_runtime_measurements_sha256", 32 },
		{ "ascii_runtime_measurements_sha256", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (access(path(all[i].name, ""), F_OK))
			continue;
		snprintf(views[nviews].name, sizeof(views[nviews].name), "%s",
			 all[i].name);
		views[nviews++].dsize = all[i].dsize;
	}
	if (nviews < 4)
		die("only %d list files", nviews);
}

#define BENCH_LIST "binary_runtime_measurements_sha256"
#define BENCH_ASCII "ascii_runtime_measurements_sha256"
#define BENCH_READS 3 /* reads of each list per N fresh records */
#define BENCH_REPS_MAX 16

/* Microseconds the read()s of @name from 0 to EOF take, fresh open. */
static double time_read(const char *name, size_t *bytes)
{
	static uint8_t buf[1 << 20];
	int64_t t0, t;
	ssize_t n;
	int fd;

	fd = open(path(name, ""), O_RDONLY);
	if (fd < 0)
		die("open %s", name);
	*bytes = 0;
	t0 = now_ns();
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*bytes += n;
	t = now_ns() - t0;
	if (n < 0)
		die("read %s", name);
	close(fd);
	return t / 1000.0;
}

/* Microseconds the write() of @req to @fd takes; dies when it fails. */
static double time_request(int fd, const char *what, const char *req)
{
	int64_t t0 = now_ns();
	int rc = request(fd, req);
	int64_t t = now_ns() - t0;

	if (rc) {
		errno = rc;
		die("%s: request %.*s", what, (int)strcspn(req, "\n"), req);
	}
	return t / 1000.0;
}

/* Delete every record of the measurement list (nothing is staged). */
static void bench_clear(void)
{
	long c = count();
	char req[32];
	int fd;

	if (!c)
		return;
	fd = open(path(BENCH_LIST, ""), O_RDWR);
	if (fd < 0)
		die("open %s", BENCH_LIST);
	snprintf(req, sizeof(req), "%ld\n", c);
	time_request(fd, "clear", req);
	close(fd);
	if (count())
		die("list not empty after clearing %ld records", c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Slab use, sampled after the RCU-deferred frees had time to run. */
struct slab_sample {
	long objs, bytes, unrecl;
};

static void slab_sample(struct slab_sample *s)
{
	sleep(1);
	slab_use(&s->objs, &s->bytes, &s->unrecl);
}

/* Add @n records, each new (empty list assumed); print how long it took. */
static void bench_gen(long n)
{
	int64_t t0 = now_ns();

	gen(n, 0);
	if (count() != n)
		die("%ld records after adding %ld", count(), n);
	printf("# added %ld records in %.1f s\n", n, (now_ns() - t0) / 1e9);
}

/* Time BENCH_READS reads of both lists into @rb and @ra from @i on. */
static void bench_reads(double *rb, double *ra, int i, size_t *bb, size_t *ab)
{
	int k;

	for (k = 0; k < BENCH_READS; k++) {
		rb[i + k] = time_read(BENCH_LIST, bb);
		ra[i + k] = time_read(BENCH_ASCII, ab);
		printf("# read %s %.0f us (%zu bytes), %s %.0f us (%zu bytes)\n",
		       BENCH_LIST, rb[i + k], *bb, BENCH_ASCII, ra[i + k], *ab);
	}
}

static void bench_size(long n, int reps)
{
	double rb[2 * BENCH_READS * BENCH_REPS_MAX];
	double ra[2 * BENCH_READS * BENCH_REPS_MAX];
	double dn[BENCH_REPS_MAX], sa[BENCH_REPS_MAX], sd[BENCH_REPS_MAX];
	double ad[BENCH_REPS_MAX];
	struct slab_sample m[5];
	size_t bb = 0, ab = 0, len;
	char req[32];
	int r, fd, nr = 0;
	uint8_t *rest;

	snprintf(req, sizeof(req), "%ld\n", n);
	for (r = 0; r < reps; r++) {
		bench_clear();
		if (!r)
			slab_sample(&m[0]);
		bench_gen(n);
		if (!r)
			slab_sample(&m[1]);
		bench_reads(rb, ra, nr, &bb, &ab);
		nr += BENCH_READS;
		fd = open(path(BENCH_LIST, ""), O_RDWR);
		if (fd < 0)
			die("open %s", BENCH_LIST);
		dn[r] = time_request(fd, "delete N", req);
		close(fd);
		if (count())
			die("%ld records left after deleting %ld", count(), n);
		if (!r)
			slab_sample(&m[2]);

		bench_gen(n);
		if (!r)
			slab_sample(&m[3]);
		bench_reads(rb, ra, nr, &bb, &ab);
		nr += BENCH_READS;
		fd = open(path(BENCH_LIST, "_staged"), O_RDWR);
		if (fd < 0)
			die("open %s_staged", BENCH_LIST);
		sa[r] = time_request(fd, "stage", "A\n");
		if (count())
			die("%ld records left after staging", count());
		sd[r] = time_request(fd, "delete staged", "D\n");
		rest = read_rest(fd, &len);
		free(rest);
		close(fd);
		if (len)
			die("%zu bytes staged after D", len);
		ad[r] = sa[r] + sd[r];
		if (!r)
			slab_sample(&m[4]);
		printf("# %ld records, repetition %d: delete N %.0f us, A %.0f us,"
		       " D %.0f us\n",
		       n, r + 1, dn[r], sa[r], sd[r]);
	}
	printf("BENCH size=%ld reps=%d reads=%d read_bin_us=%.0f "
	       "read_ascii_us=%.0f delete_n_us=%.0f stage_a_us=%.0f "
	       "delete_d_us=%.0f a_plus_d_us=%.0f bin_bytes=%zu "
	       "ascii_bytes=%zu\n",
	       n, reps, nr, median(rb, nr), median(ra, nr), median(dn, reps),
	       median(sa, reps), median(sd, reps), median(ad, reps), bb, ab);
	printf("BENCHMEM size=%ld objs=%ld,%ld,%ld,%ld,%ld "
	       "bytes=%ld,%ld,%ld,%ld,%ld sunreclaim_kb=%ld,%ld,%ld,%ld,%ld\n",
	       n, m[0].objs, m[1].objs, m[2].objs, m[3].objs, m[4].objs,
	       m[0].bytes, m[1].bytes, m[2].bytes, m[3].bytes, m[4].bytes,
	       m[0].unrecl, m[1].unrecl, m[2].unrecl, m[3].unrecl, m[4].unrecl);
}

/* imaexport bench DIR NxR...: see the top of the file. */
static int cmd_bench(int argc, char **argv)
{
	long n, reps;
	char *x;
	int i;

	gen_dir = argv[2];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(path(BENCH_LIST, "_staged"), F_OK))
		die("no %s_staged (CONFIG_IMA_STAGING?)", BENCH_LIST);
	for (i = 3; i < argc; i++) {
		n = strtol(argv[i], &x, 10);
		reps = *x == 'x' ? strtol(x + 1, &x, 10) : 1;
		if (n <= 0 || *x || reps < 1 || reps > BENCH_REPS_MAX)
			die("bench: bad size %s (N or NxR, R <= %d)", argv[i],
			    BENCH_REPS_MAX);
		bench_size(n, (int)reps);
	}
	return 0;
}

int main(int argc, char **argv)
{
	long nmem;

	if (argc >= 4 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
	if (argc != 4)
		die("usage: imaexport DIR SAVE NMEM");
	gen_dir = argv[1];
	save_dir = argv[2];
	nmem = strtol(argv[3], NULL, 10);
	setvbuf(stdout, NULL, _IOLBF, 0);
	find_views();
	check_files();
	gen(40, 7);
	snapshot();
	printf("# %zu records to start with\n", views[0].n);
	check_counts("start", views[0].n);
	check_opens();
	check_requests();
	check_delete();
	snapshot();
	check_stage();
	check_memory(nmem);
	return failures ? 1 : 0;
}

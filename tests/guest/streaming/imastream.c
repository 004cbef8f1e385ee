// SPDX-License-Identifier: GPL-2.0-only
/*
 * imastream - guest helper for the streaming measurement list tests.
 *
 *   imastream gen DIR N [VIOL]          add N records (every VIOL-th one
 *                                       with an open_writers violation)
 *   imastream patterns LIST DSIZE WINDOW NSEEK [NBACK]
 *                                       bytes of read/seek mixes = one read
 *                                       (NBACK: seeks back to passed
 *                                       records, default 300)
 *   imastream poll LIST DIR ROUNDS IDLE wake-up latency, idle wake-ups
 *   imastream follow LIST DIR K DSIZE   tail -f with poll(): K new records
 *                                       seen exactly once
 *   imastream bench LIST DIR ROUNDS     time reading the 10 newest records
 *                                       through a file at EOF
 *   imastream seekbench LIST DSIZE ROUNDS
 *                                       time a seek back to a record in the
 *                                       middle of the list and reading 10
 *                                       records, through a file at EOF
 *
 * LIST is a measurement list file; DSIZE is the template digest size of
 * a binary list (20 for the legacy files) or 0 for an ascii one. Records
 * come from files owned by GEN_UID created under DIR, which the
 * test policy measures on read ("measure func=FILE_CHECK mask=MAY_READ
 * fowner=4242"), so nothing else adds records during a test.
 *
 * Prints "# " comment lines with figures and one line "RESULT ok" or
 * "RESULT fail: why" per check; exits 0 when every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest_common.h"

#define LIST_MAX (256u << 20)	/* largest list read into memory */
#define ROUNDS_MAX 1000		/* poll and bench rounds */
#define BENCH_RECORDS 10	/* records added per bench round */
#define WAKE_LIMIT_NS 10000000L /* 10 ms */

static void cmd_gen(const char *dir, long n, long viol)
{
	int64_t t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		gen_record(dir, "r", viol > 0 && i % viol == viol - 1);
	printf("# gen: %ld records in %.1f s\n", n, (now_ns() - t0) / 1e9);
}

static int open_list(const char *list)
{
	int fd = open(list, O_RDONLY);

	if (fd < 0)
		die("open %s", list);
	return fd;
}

/* Read from @fd until EOF in @chunk-sized reads; returns bytes read. */
static size_t read_all(int fd, uint8_t *buf, size_t max, size_t chunk)
{
	size_t len = 0;
	ssize_t n;

	for (;;) {
		if (len + chunk > max)
			die("list larger than %zu bytes", max);
		n = read(fd, buf + len, chunk);
		if (n < 0)
			die("read");
		if (n == 0)
			return len;
		len += n;
	}
}

/* Record boundaries of @buf: bounds[0] = 0 ... bounds[n] = @len. */
static size_t *boundaries(const uint8_t *buf, size_t len, size_t dsize,
			  size_t *n)
{
	size_t *b = NULL, cap = 0, off = 0, sz;

	*n = 0;
	for (;;) {
		if (*n + 1 >= cap) {
			cap = cap ? cap * 2 : 1024;
			b = realloc(b, cap * sizeof(*b));
			if (!b)
				die("out of memory");
		}
		b[*n] = off;
		if (off == len)
			return b;
		sz = record_size(buf + off, len - off, dsize);
		if (!sz)
			die("unparsable record at offset %zu", off);
		off += sz;
		(*n)++;
	}
}

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void check_same(const char *what, const uint8_t *got, size_t glen,
		       const uint8_t *ref, size_t rlen)
{
	size_t i;

	if (glen == rlen && !memcmp(got, ref, rlen)) {
		result(1, "%s", what);
		return;
	}
	for (i = 0; i < glen && i < rlen && got[i] == ref[i]; i++)
		;
	result(0, "%s: %zu bytes vs %zu, first difference at %zu", what, glen,
	       rlen, i);
}

/* Small reads of pseudo-random sizes from @from to EOF. */
static void pat_random_reads(const char *list, const uint8_t *ref, size_t len,
			     size_t from, uint32_t maxread, uint8_t *buf)
{
	uint32_t seed = 12345;
	size_t got = 0;
	ssize_t n;
	int fd = open_list(list);

	if (from && lseek(fd, from, SEEK_SET) != (off_t)from)
		die("lseek");
	for (;;) {
		n = read(fd, buf + got, 1 + lcg(&seed) % maxread);
		if (n < 0)
			die("read");
		if (n == 0)
			break;
		got += n;
		if (got > len)
			break;
	}
	close(fd);
	check_same(maxread > 64 ? "reads of 1..8192 bytes equal one read" :
				  "reads of 1..64 bytes equal one read",
		   buf, got, ref + from, len - from);
}

/*
 * One read() per record of the window, each record read again after a
 * seek back to its start and followed by a seek to its end, then reads
 * after EOF.
 */
static void pat_records(const char *list, const uint8_t *ref, size_t len,
			const size_t *b, size_t nrec, size_t first,
			uint8_t *buf)
{
	uint8_t again[65536];
	size_t i, sz, got = 0, bad = 0;
	ssize_t n;
	int fd = open_list(list);

	if (lseek(fd, b[first], SEEK_SET) != (off_t)b[first])
		die("lseek");
	for (i = first; i < nrec; i++) {
		sz = b[i + 1] - b[i];
		if (sz > sizeof(again))
			die("record of %zu bytes", sz);
		n = read(fd, buf + got, sz);
		if (n != (ssize_t)sz)
			die("short read of record %zu: %zd", i, n);
		if (lseek(fd, -(off_t)sz, SEEK_CUR) != (off_t)b[i])
			die("lseek back");
		if (read(fd, again, sz) != (ssize_t)sz ||
		    memcmp(again, buf + got, sz))
			bad++;
		if (lseek(fd, 0, SEEK_CUR) != (off_t)b[i + 1] ||
		    lseek(fd, b[i + 1], SEEK_SET) != (off_t)b[i + 1])
			die("lseek to record end");
		got += sz;
	}
	for (i = 0; i < 3; i++)
		if (read(fd, again, sizeof(again)) != 0)
			bad++;
	close(fd);
	check_same("a read() per record with seeks to record edges equals one read",
		   buf, got, ref + b[first], len - b[first]);
	result(bad == 0,
	       "re-read after seeking back, reads after EOF (%zu bad)", bad);
}

/* Seeks to pseudo-random offsets, each followed by a read. */
static void pat_seeks(const char *list, const uint8_t *ref, size_t len,
		      long nseek, uint8_t *buf)
{
	uint32_t seed = 777;
	long i, bad = 0;
	size_t off, want;
	ssize_t n;
	int fd = open_list(list);

	for (i = 0; i < nseek; i++) {
		off = len ? lcg(&seed) % len : 0;
		want = 1 + lcg(&seed) % 4096;
		if (want > len - off)
			want = len - off;
		if (lseek(fd, off, SEEK_SET) != (off_t)off)
			die("lseek");
		n = read(fd, buf, want);
		if (n < 0)
			die("read");
		/* seq_read may return less than asked: compare what came */
		if (memcmp(buf, ref + off, n) || (n == 0 && want))
			bad++;
	}
	close(fd);
	result(bad == 0, "%ld random seeks read what one read has (%ld bad)",
	       nseek, bad);
}

/* Read @want bytes at @off with pread(), however seq_read splits them. */
static size_t pread_full(int fd, uint8_t *buf, size_t want, size_t off)
{
	size_t got = 0;
	ssize_t n;

	while (got < want) {
		n = pread(fd, buf + got, want - got, off + got);
		if (n < 0)
			die("pread");
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* Read @want bytes at the file position, however seq_read splits them. */
static size_t read_full(int fd, uint8_t *buf, size_t want)
{
	size_t got = 0;
	ssize_t n;

	while (got < want) {
		n = read(fd, buf + got, want - got);
		if (n < 0)
			die("read");
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/*
 * Through a file that has read the whole list: lseek() back to @nseek
 * pseudo-random record boundaries (records @first.. of the list, so
 * mostly far behind the end) and read 1..3 records; pread() 1..3 records
 * at other random boundaries and at offsets inside records, each followed
 * by a read() that must continue at the file position, which pread()
 * does not move.
 */
static void pat_seek_back(const char *list, const uint8_t *ref, size_t len,
			  const size_t *b, size_t nrec, size_t first,
			  long nseek, uint8_t *buf)
{
	uint32_t seed = 4242;
	size_t i, k, want, off, got, fpos, span = nrec - first;
	long s, bad_seek = 0, bad_pread = 0, bad_read = 0;
	int fd = open_list(list);

	if (!span)
		return;
	read_all(fd, buf, LIST_MAX, 1 << 20);
	for (s = 0; s < nseek; s++) {
		k = first + lcg(&seed) % span;
		i = k + 1 + lcg(&seed) % 3;
		if (i > nrec)
			i = nrec;
		want = b[i] - b[k];
		if (lseek(fd, b[k], SEEK_SET) != (off_t)b[k])
			die("lseek");
		got = read_full(fd, buf, want);
		if (got != want || memcmp(buf, ref + b[k], want))
			bad_seek++;
		fpos = b[k] + got;

		/* pread() at a boundary, then at an offset inside a record */
		k = first + lcg(&seed) % span;
		i = k + 1 + lcg(&seed) % 3;
		if (i > nrec)
			i = nrec;
		off = b[k] + (s & 1 ? lcg(&seed) % (b[k + 1] - b[k]) : 0);
		want = b[i] - off;
		got = pread_full(fd, buf, want, off);
		if (got != want || memcmp(buf, ref + off, want))
			bad_pread++;

		want = len - fpos < 64 ? len - fpos : 64;
		got = read_full(fd, buf, want);
		if (got != want || memcmp(buf, ref + fpos, want))
			bad_read++;
	}
	close(fd);
	result(bad_seek == 0 && bad_pread == 0 && bad_read == 0,
	       "%ld seeks and preads back to passed boundaries and into passed records read what one read has (%ld/%ld/%ld bad)",
	       nseek, bad_seek, bad_pread, bad_read);
}

/*
 * Through a file that has seeked to the end of the list (rather than read
 * it: a seek renders every record once, and the patched kernel keeps its
 * boundaries from seeks as from reads): walk @nback record boundaries
 * backward from the middle of records @first.., seeking to each and
 * reading its record, so that consecutive seeks land on every distance
 * from the boundaries a reader may keep.
 */
static void pat_walk_back(const char *list, const uint8_t *ref, size_t len,
			  const size_t *b, size_t nrec, size_t first,
			  size_t nback, uint8_t *buf)
{
	size_t i, from, to, sz, got, bad = 0;
	int fd = open_list(list);

	if (lseek(fd, len, SEEK_SET) != (off_t)len)
		die("lseek to the end");
	to = first + (nrec - first) / 2 + nback / 2;
	if (to > nrec)
		to = nrec;
	from = to > first + nback ? to - nback : first;
	for (i = to; i-- > from;) {
		sz = b[i + 1] - b[i];
		if (lseek(fd, b[i], SEEK_SET) != (off_t)b[i])
			die("lseek");
		got = read_full(fd, buf, sz);
		if (got != sz || memcmp(buf, ref + b[i], sz))
			bad++;
	}
	close(fd);
	result(bad == 0,
	       "backward walk over records %zu..%zu, a seek and read per record, reads what one read has (%zu bad)",
	       from, to, bad);
}

static void cmd_patterns(const char *list, size_t dsize, size_t window,
			 long nseek, size_t nback)
{
	uint8_t *ref, *buf;
	size_t len, len2, nrec, first, *b;
	int64_t t0;
	int fd;

	ref = malloc(LIST_MAX);
	buf = malloc(LIST_MAX);
	if (!ref || !buf)
		die("out of memory");
	fd = open_list(list);
	t0 = now_ns();
	len = read_all(fd, ref, LIST_MAX, 1 << 20);
	close(fd);
	b = boundaries(ref, len, dsize, &nrec);
	printf("# %s: %zu records, %zu bytes, full read %.1f ms\n", list, nrec,
	       len, (now_ns() - t0) / 1e6);
	first = window && window < nrec ? nrec - window : 0;

	pat_random_reads(list, ref, len, b[first], 8192, buf);
	pat_random_reads(list, ref, len, b[first], 64, buf);
	pat_records(list, ref, len, b, nrec, first, buf);
	pat_seeks(list, ref, len, nseek, buf);
	pat_seek_back(list, ref, len, b, nrec, first, nback, buf);
	pat_walk_back(list, ref, len, b, nrec, first, nback, buf);

	fd = open_list(list);
	len2 = read_all(fd, buf, LIST_MAX, 4096);
	close(fd);
	check_same("list unchanged during the test (4096-byte reads)", buf,
		   len2, ref, len);
	free(b);
	free(ref);
	free(buf);
}

struct poll_shared {
	volatile int ready;
	volatile int done;
	int64_t before[ROUNDS_MAX];
	int64_t after[ROUNDS_MAX];
	int64_t wake[ROUNDS_MAX];
	long records_seen;
	long wakeups;
	long empty_wakeups;
	long idle_wakeups;
	volatile int idle;
};

/* The reader: wake on EPOLLPRI, note the time, read what is new. */
static void poll_reader(const char *list, struct poll_shared *sh)
{
	struct pollfd pfd = { .events = POLLPRI | POLLIN };
	uint8_t buf[65536];
	ssize_t n, total;
	int64_t t;
	int rc;

	pfd.fd = open_list(list);
	while (read(pfd.fd, buf, sizeof(buf)) > 0)
		;
	sh->ready = 1;
	while (!sh->done) {
		rc = poll(&pfd, 1, 200);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			die("poll");
		if (rc == 0)
			continue;
		t = now_ns();
		if (!(pfd.revents & POLLPRI))
			die("poll revents %#x without POLLPRI", pfd.revents);
		total = 0;
		while ((n = read(pfd.fd, buf, sizeof(buf))) > 0)
			total += n;
		if (sh->wakeups < ROUNDS_MAX)
			sh->wake[sh->wakeups] = t;
		sh->wakeups++;
		if (!total)
			sh->empty_wakeups++;
		else
			sh->records_seen += total ? 1 : 0;
		if (sh->idle)
			sh->idle_wakeups++;
	}
	_exit(0);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

static void cmd_poll(const char *list, const char *dir, long rounds, long idle)
{
	struct poll_shared *sh;
	int64_t lat_after[ROUNDS_MAX], lat_before[ROUNDS_MAX];
	struct timespec gap = { 0, 100000000 };
	long i, slow = 0;
	pid_t pid;
	int st;

	if (rounds < 1 || rounds > ROUNDS_MAX)
		die("rounds must be 1..%d", ROUNDS_MAX);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		die("mmap");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		poll_reader(list, sh);
	while (!sh->ready)
		usleep(1000);
	for (i = 0; i < rounds; i++) {
		nanosleep(&gap, NULL);
		sh->before[i] = now_ns();
		gen_record(dir, "r", 0);
		sh->after[i] = now_ns();
	}
	nanosleep(&gap, NULL);
	sh->idle = 1;
	sleep(idle);
	sh->done = 1;
	waitpid(pid, &st, 0);

	result(sh->wakeups == rounds,
	       "one wake-up per record: %ld wake-ups for %ld records",
	       sh->wakeups - sh->idle_wakeups, rounds);
	result(sh->empty_wakeups == 0 && sh->idle_wakeups == 0,
	       "no wake-up without a record (%ld empty, %ld in %lds idle)",
	       sh->empty_wakeups, sh->idle_wakeups, idle);
	if (sh->wakeups != rounds)
		return;
	for (i = 0; i < rounds; i++) {
		lat_before[i] = sh->wake[i] - sh->before[i];
		lat_after[i] = sh->wake[i] - sh->after[i];
		if (lat_after[i] > WAKE_LIMIT_NS)
			slow++;
	}
	qsort(lat_before, rounds, sizeof(int64_t), cmp64);
	qsort(lat_after, rounds, sizeof(int64_t), cmp64);
	printf("# wake-up after the record's syscall returned: median %.3f ms, max %.3f ms\n",
	       lat_after[rounds / 2] / 1e6, lat_after[rounds - 1] / 1e6);
	printf("# wake-up after the record's syscall started (hash + extend + wake): median %.3f ms, max %.3f ms\n",
	       lat_before[rounds / 2] / 1e6, lat_before[rounds - 1] / 1e6);
	result(slow == 0,
	       "reader wakes within 10 ms of each record (%ld of %ld late)",
	       slow, rounds);
}

/* tail -f with poll(): follow from EOF until @k new records were read. */
static void cmd_follow(const char *list, const char *dir, long k, size_t dsize)
{
	struct pollfd pfd = { .events = POLLPRI };
	uint8_t *ref, *got;
	size_t start, glen = 0, off = 0, sz, len;
	long seen = 0, i;
	ssize_t n;
	pid_t pid;
	int st, fd;

	ref = malloc(LIST_MAX);
	got = malloc(LIST_MAX);
	if (!ref || !got)
		die("out of memory");
	pfd.fd = open_list(list);
	start = read_all(pfd.fd, got, LIST_MAX, 65536);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* bursts and gaps */
		for (i = 0; i < k; i++) {
			gen_record(dir, "r", 0);
			if (i % 7 == 3)
				usleep(20000);
		}
		_exit(0);
	}
	glen = 0;
	while (seen < k) {
		if (poll(&pfd, 1, 20000) <= 0)
			break;
		while ((n = read(pfd.fd, got + glen, 65536)) > 0)
			glen += n;
		while ((sz = record_size(got + off, glen - off, dsize))) {
			off += sz;
			seen++;
		}
	}
	waitpid(pid, &st, 0);
	close(pfd.fd);
	fd = open_list(list);
	len = read_all(fd, ref, LIST_MAX, 1 << 20);
	close(fd);
	result(seen == k && off == glen,
	       "follower saw %ld of %ld records, whole", seen, k);
	check_same("followed bytes equal the list from where following began",
		   got, glen, ref + start, len - start);
	free(ref);
	free(got);
}

/* Time reading the BENCH_RECORDS newest records through a file at EOF. */
static void cmd_bench(const char *list, const char *dir, long rounds)
{
	int64_t t[ROUNDS_MAX], t0;
	uint8_t *buf = malloc(LIST_MAX);
	size_t got;
	long i, j;
	int fd;

	if (!buf || rounds < 1 || rounds > ROUNDS_MAX)
		die("bench setup");
	fd = open_list(list);
	got = read_all(fd, buf, LIST_MAX, 1 << 20);
	printf("# bench: list of %zu bytes read\n", got);
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < BENCH_RECORDS; j++)
			gen_record(dir, "r", 0);
		t0 = now_ns();
		got = read_all(fd, buf, LIST_MAX, 65536);
		t[i] = now_ns() - t0;
		if (!got)
			die("no new records read");
	}
	close(fd);
	qsort(t, rounds, sizeof(int64_t), cmp64);
	printf("BENCH median_us=%.1f min_us=%.1f max_us=%.1f rounds=%ld\n",
	       t[rounds / 2] / 1e3, t[0] / 1e3, t[rounds - 1] / 1e3, rounds);
	free(buf);
}

/*
 * Time an lseek() back to a record boundary in the middle of the list and
 * the read()s of the 10 records from there, through a file that has read
 * the whole list. Each round takes another boundary among the 1024
 * records around the middle, so the figure covers every distance from
 * the boundaries a reader may keep.
 */
static void cmd_seekbench(const char *list, size_t dsize, long rounds)
{
	int64_t t[ROUNDS_MAX], t0;
	uint8_t *ref = malloc(LIST_MAX), *buf = malloc(LIST_MAX);
	size_t len, nrec, k, want, got, *b;
	long i, bad = 0;
	int fd;

	if (!ref || !buf || rounds < 1 || rounds > ROUNDS_MAX)
		die("seekbench setup");
	fd = open_list(list);
	len = read_all(fd, ref, LIST_MAX, 1 << 20);
	b = boundaries(ref, len, dsize, &nrec);
	if (nrec < 2 * BENCH_RECORDS)
		die("seekbench: %zu records", nrec);
	for (i = 0; i < rounds; i++) {
		k = nrec / 2;
		if (nrec >= 2048)
			k = k - 512 + (size_t)(i * 397) % 1024;
		want = b[k + BENCH_RECORDS] - b[k];
		t0 = now_ns();
		if (lseek(fd, b[k], SEEK_SET) != (off_t)b[k])
			die("lseek");
		got = read_full(fd, buf, want);
		t[i] = now_ns() - t0;
		if (got != want || memcmp(buf, ref + b[k], want))
			bad++;
	}
	close(fd);
	qsort(t, rounds, sizeof(int64_t), cmp64);
	printf("SEEKBENCH median_us=%.1f min_us=%.1f max_us=%.1f rounds=%ld records=%zu\n",
	       t[rounds / 2] / 1e3, t[0] / 1e3, t[rounds - 1] / 1e3, rounds,
	       nrec);
	result(bad == 0,
	       "seek back to the middle and read %d records: bytes of one read (%ld bad)",
	       BENCH_RECORDS, bad);
	free(b);
	free(ref);
	free(buf);
}

static long num(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0)
		die("bad number '%s'", s);
	return v;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	errno = 0;
	if (argc >= 4 && !strcmp(argv[1], "gen"))
		cmd_gen(argv[2], num(argv[3]), argc > 4 ? num(argv[4]) : 0);
	else if ((argc == 6 || argc == 7) && !strcmp(argv[1], "patterns"))
		cmd_patterns(argv[2], num(argv[3]), num(argv[4]), num(argv[5]),
			     argc == 7 ? num(argv[6]) : 300);
	else if (argc == 5 && !strcmp(argv[1], "seekbench"))
		cmd_seekbench(argv[2], num(argv[3]), num(argv[4]));
	else if (argc == 6 && !strcmp(argv[1], "poll"))
		cmd_poll(argv[2], argv[3], num(argv[4]), num(argv[5]));
	else if (argc == 6 && !strcmp(argv[1], "follow"))
		cmd_follow(argv[2], argv[3], num(argv[4]), num(argv[5]));
	else if (argc == 5 && !strcmp(argv[1], "bench"))
		cmd_bench(argv[2], argv[3], num(argv[4]));
	else {
		fprintf(stderr, "usage: see the comment at the top of %s\n",
			__FILE__);
		return 2;
	}
	return failures ? 1 : 0;
}

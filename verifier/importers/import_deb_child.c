// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_deb_child.c - a .deb parsed in a child process under limits
 * (import_deb_child.h): the child's side writes import_deb_wire.h's
 * frames, the verifier's side reads them.
 */
#define _GNU_SOURCE /* memfd_create, pipe2, close_range, sigabbrev_np */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "import_deb_child.h"
#include "import_deb_wire.h"

#define CHILD_OUT_BUF (64u << 10) /* frames written at once */
#define CHILD_ALGOS_TEXT 128	  /* argv[2]: "sha256,sha1,..." */

extern char **environ;

const struct import_deb_child_limits import_deb_child_defaults = {
	.as_bytes = IMPORT_DEB_CHILD_AS_MAX,
	.cpu_seconds = IMPORT_DEB_CHILD_CPU_MAX,
	.wall_seconds = IMPORT_DEB_CHILD_WALL_MAX,
};

/* ---- the child --------------------------------------------------------- */

struct child_out {
	uint8_t buf[CHILD_OUT_BUF];
	size_t used;
	size_t nalgos, nth; /* references of the file at hand */
	uint8_t frame[IMPORT_DEB_WIRE_FRAME_MAX];
	size_t flen;
};

static void out_flush(struct child_out *o)
{
	size_t off = 0;
	ssize_t n;

	while (off < o->used) {
		n = write(1, o->buf + off, o->used - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(3); /* the verifier went away */
		off += (size_t)n;
	}
	o->used = 0;
}

static void out_frame(struct child_out *o, uint8_t type, const void *p,
		      size_t n)
{
	if (o->used + IMPORT_DEB_WIRE_HEADER + n > sizeof(o->buf))
		out_flush(o);
	import_deb_wire_frame(o->buf + o->used, type, (uint32_t)n);
	memcpy(o->buf + o->used + IMPORT_DEB_WIRE_HEADER, p, n);
	o->used += IMPORT_DEB_WIRE_HEADER + n;
}

/* A file comes once per bank, in the banks' order: one 'F' frame. */
static int child_ref(void *arg, const struct import_ref *r,
		     struct imt_error *err)
{
	struct child_out *o = arg;
	size_t plen = strlen(r->path);

	if (o->nth == 0) {
		o->frame[0] = r->conffile ? 1 : 0;
		o->flen = 1;
	}
	if (o->flen + r->digest_len > sizeof(o->frame))
		goto big;
	memcpy(o->frame + o->flen, r->digest, r->digest_len);
	o->flen += r->digest_len;
	if (++o->nth < o->nalgos)
		return 0;
	o->nth = 0;
	if (plen > IMPORT_DEB_WIRE_PATH_MAX ||
	    o->flen + plen > sizeof(o->frame))
		goto big;
	memcpy(o->frame + o->flen, r->path, plen);
	out_frame(o, 'F', o->frame, o->flen + plen);
	return 0;
big:
	return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			     "%.64s...: path too long", r->path),
	       -1;
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void child_end(struct child_out *o, const struct deb_info *in)
{
	uint8_t e[25 + 3 * DEB_NAME_MAX];
	size_t n = 25;

	put64(e, in->files);
	put64(e + 8, in->control_files);
	put64(e + 16, in->bytes);
	e[24] = in->multi_arch_same ? 1 : 0;
	n += (size_t)sprintf((char *)e + n, "%s", in->package) + 1;
	n += (size_t)sprintf((char *)e + n, "%s", in->version) + 1;
	n += (size_t)sprintf((char *)e + n, "%s", in->architecture) + 1;
	out_frame(o, 'E', e, n);
}

/* An allocation that failed is the memory limit, most likely. */
static void child_error(struct child_out *o, const struct imt_error *err,
			uint64_t as)
{
	uint8_t x[1 + IMT_ERROR_MSG_MAX + 96];
	int n;

	x[0] = (uint8_t)err->status;
	if (as && (err->status == IMT_ERR_INTERNAL ||
		   strstr(err->msg, "alloc") || strstr(err->msg, "memory"))) {
		x[0] = IMT_ERR_LIMIT;
		n = snprintf((char *)x + 1, sizeof(x) - 1,
			     "%s (the parser's memory limit, "
			     "IMPORT_DEB_CHILD_AS_MAX: %" PRIu64 " MiB)",
			     err->msg, as >> 20);
	} else {
		n = snprintf((char *)x + 1, sizeof(x) - 1, "%s", err->msg);
	}
	if (n < 0 || (size_t)n >= sizeof(x) - 1)
		n = (int)sizeof(x) - 2;
	out_frame(o, 'X', x, 1 + (size_t)n);
}

int import_deb_child_confine(uint64_t as, unsigned long cpu)
{
	struct rlimit rl = { 0, 0 };

	close_range(3, ~0u, 0);
	signal(SIGPIPE, SIG_IGN);
	if (setrlimit(RLIMIT_CORE, &rl))
		return -1;
	rl = (struct rlimit){ cpu, cpu + 1 };
	if (setrlimit(RLIMIT_CPU, &rl))
		return -1;
#ifndef __SANITIZE_ADDRESS__ /* ASan reserves terabytes of shadow */
	rl = (struct rlimit){ as, as };
	if (as && setrlimit(RLIMIT_AS, &rl))
		return -1;
#else
	(void)as;
#endif
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

static size_t split_algos(char *s, const char **algos)
{
	size_t n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok && n < IMPORT_ALGOS_MAX;
	     tok = strtok_r(NULL, ",", &save))
		algos[n++] = tok;
	return tok ? 0 : n;
}

int import_deb_child_main(int argc, char **argv)
{
	static struct child_out o;
	const struct import_sink sink = { .ref = child_ref, .arg = &o };
	const char *algos[IMPORT_ALGOS_MAX];
	struct deb_info info;
	struct imt_error err;
	uint64_t as;
	struct stat st;
	void *map;

	if (argc != 5 || strlen(argv[2]) >= CHILD_ALGOS_TEXT)
		return 2;
	as = strtoull(argv[3], NULL, 10);
	if (import_deb_child_confine(as, strtoul(argv[4], NULL, 10)))
		return 2;
	o.nalgos = split_algos(argv[2], algos);
	if (o.nalgos == 0 || fstat(0, &st) || st.st_size < 0)
		return 2;
	out_frame(&o, 'V', &(uint8_t){ IMPORT_DEB_WIRE_VERSION }, 1);
	map = st.st_size == 0 ? (void *)"" :
				mmap(NULL, (size_t)st.st_size, PROT_READ,
				     MAP_PRIVATE, 0, 0);
	if (map == MAP_FAILED) {
		imt_error_set(&err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "cannot map the package: %s", strerror(errno));
		child_error(&o, &err, as);
	} else if (import_deb(map, (size_t)st.st_size, algos, o.nalgos, &info,
			      &sink, &err) == 0)
		child_end(&o, &info);
	else
		child_error(&o, &err, as);
	out_flush(&o);
	return 0;
}

/* ---- the verifier's side ----------------------------------------------- */

static int child_fail(struct imt_error *err, enum imt_result st,
		      const char *why)
{
	imt_error_set(err, st, IMT_NO_POS, IMT_NO_POS, "%s", why);
	return -1;
}

/* The .deb in a memfd the child reads as its descriptor 0. */
static int deb_memfd(const uint8_t *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;
	int fd = memfd_create("imatrust-deb", MFD_CLOEXEC);

	while (fd >= 0 && off < len) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return -1;
		}
		off += (size_t)n;
	}
	return fd;
}

static int spawn(const char *exe, const struct import_deb_child_limits *lim,
		 const char *const *algos, size_t nalgos, int in, int out,
		 pid_t *pid)
{
	char atext[CHILD_ALGOS_TEXT] = "", as[24], cpu[16];
	char *argv[] = { (char *)"imatrust-deb-parser",
			 (char *)IMPORT_DEB_CHILD_ARG,
			 atext,
			 as,
			 cpu,
			 NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	size_t i;
	int rc;

	for (i = 0; i < nalgos; i++) {
		if (strlen(atext) + strlen(algos[i]) + 2 > sizeof(atext))
			return -1;
		strcat(strcat(atext, i ? "," : ""), algos[i]);
	}
	snprintf(as, sizeof(as), "%" PRIu64, lim->as_bytes);
	snprintf(cpu, sizeof(cpu), "%u", lim->cpu_seconds);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(pid, exe, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc == 0 ? 0 : -1;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The child's frames into the reader until its end of file: 0 then
 * (r->state tells whether the stream ended well), -1 with @err (a frame
 * refused, the wall clock limit).
 */
static int read_frames(int fd, struct import_deb_wire_reader *r,
		       unsigned int wall_seconds, struct imt_error *err)
{
	static const size_t size = CHILD_OUT_BUF + IMPORT_DEB_WIRE_HEADER +
				   IMPORT_DEB_WIRE_FRAME_MAX;
	int64_t end = now_ms() + (int64_t)wall_seconds * 1000;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint8_t *buf = malloc(size);
	size_t have = 0, used;
	ssize_t n = 1;
	int rc = -1;

	if (buf == NULL)
		return child_fail(err, IMT_ERR_INTERNAL, "out of memory");
	while (n != 0) {
		if (now_ms() >= end ||
		    poll(&pfd, 1, (int)(end - now_ms())) == 0) {
			imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				      IMT_NO_POS,
				      "limit IMPORT_DEB_CHILD_WALL_MAX reached: "
				      "the package parser took more than %u s",
				      wall_seconds);
			goto out;
		}
		n = read(fd, buf + have, size - have);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			child_fail(err, IMT_ERR_INTERNAL, "reading the parser");
			goto out;
		}
		have += (size_t)n;
		if (import_deb_wire_read(r, buf, have, &used, err))
			goto out;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	rc = 0; /* a frame cut short: how the child ended says why */
out:
	free(buf);
	return rc;
}

/* How the child ended, when its frames did not end well. */
static int child_status(int status, const struct import_deb_child_limits *l,
			struct imt_error *err)
{
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (sig == SIGXCPU || sig == SIGKILL)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "limit IMPORT_DEB_CHILD_CPU_MAX reached: "
				     "the package parser was stopped (SIG%s) "
				     "after %u s of CPU, or out of memory",
				     sigabbrev_np(sig) ?: "?", l->cpu_seconds),
		       -1;
	if (sig)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "the package parser died "
				     "(SIG%s) on this package",
				     sigabbrev_np(sig) ?: "?"),
		       -1;
	return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			     "the package parser stopped (exit status %d) "
			     "without an end",
			     WEXITSTATUS(status)),
	       -1;
}

static int reap(pid_t pid, int kill_it)
{
	int status = 0;

	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

int import_deb_child(const char *exe, const struct import_deb_child_limits *lim,
		     const uint8_t *buf, size_t len, const char *const *algos,
		     size_t nalgos, struct deb_info *info,
		     const struct import_sink *sink, struct imt_error *err)
{
	struct import_deb_wire_reader r;
	int fd, p[2] = { -1, -1 }, rc, status;
	pid_t pid;

	if (info != NULL)
		memset(info, 0, sizeof(*info));
	if (import_deb_wire_reader_init(&r, algos, nalgos, sink, err))
		return -1;
	fd = deb_memfd(buf, len);
	if (fd < 0 || pipe2(p, O_CLOEXEC) ||
	    spawn(exe, lim, algos, nalgos, fd, p[1], &pid)) {
		if (fd >= 0)
			close(fd);
		if (p[0] >= 0) {
			close(p[0]);
			close(p[1]);
		}
		return child_fail(err, IMT_ERR_INTERNAL,
				  "the package parser does not start");
	}
	close(fd);
	close(p[1]);
	rc = read_frames(p[0], &r, lim->wall_seconds, err);
	close(p[0]);
	status = reap(pid, rc < 0);
	if (rc == 0 && r.state != IMPORT_DEB_WIRE_DONE)
		rc = child_status(status, lim, err);
	if (rc == 0 && info != NULL)
		*info = r.info;
	return rc;
}

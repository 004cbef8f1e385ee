/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_deb_child.h - a .deb parsed in a child process, so that the
 * verifier, which faces the network, never runs libarchive on a package
 * someone else made.
 *
 * import_deb_child() writes the package into a memfd, starts @exe
 * again (the verifier's own binary: IMPORT_DEB_CHILD_EXE) with
 * IMPORT_DEB_CHILD_ARG, and reads its references back over a pipe
 * (import_deb_wire.h), checking every frame and the package limits of
 * import_deb.h again. The child closes every other descriptor, takes
 * RLIMIT_AS, RLIMIT_CPU, no core and no new privileges, then runs
 * import_deb() on the memfd. A child that dies, runs out of its limits,
 * sends a bad frame or takes longer than the wall clock limit is an
 * error for that package; the sink may have been given some references
 * by then (the caller stores nothing: import_store.h).
 */
#ifndef IMATRUST_IMPORT_DEB_CHILD_H
#define IMATRUST_IMPORT_DEB_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "import_deb.h"
#include "result.h"

#define IMPORT_DEB_CHILD_ARG "--import-deb-child" /* argv[1] */
#define IMPORT_DEB_CHILD_EXE "/proc/self/exe"
/* address space of the child: the binary, a 48 MiB .deb mapped, xz's
 * and zstd's windows (64 and 128 MiB at most in real packages) */
#define IMPORT_DEB_CHILD_AS_MAX (1024ull << 20)
/* CPU seconds: DEB_WORK_MAX takes about 30 s, decompression included */
#define IMPORT_DEB_CHILD_CPU_MAX 90u
#define IMPORT_DEB_CHILD_WALL_MAX 300u /* seconds the verifier waits */

struct import_deb_child_limits {
	uint64_t as_bytes;	   /* RLIMIT_AS (0: none) */
	unsigned int cpu_seconds;  /* RLIMIT_CPU */
	unsigned int wall_seconds; /* then the child is killed */
};

/* The limits above, for the verifier. */
extern const struct import_deb_child_limits import_deb_child_defaults;

/**
 * import_deb_child() - import_deb() of @buf, in a child process.
 * @exe: the program to start, whose main() hands argv to
 *	import_deb_child_main() when argv[1] is IMPORT_DEB_CHILD_ARG
 * @lim: the child's limits
 * @buf, @len, @algos, @nalgos, @info, @sink, @err: as import_deb()
 *
 * Return: 0, or -1 with @err: the child's own error (as import_deb()'s,
 * limits as IMT_ERR_LIMIT naming the limit), IMT_ERR_LIMIT when it was
 * stopped by its CPU, memory or wall clock limit, IMT_ERR_MALFORMED
 * when it died otherwise (a crash on this package) or sent what the
 * reader refuses, IMT_ERR_INTERNAL when it could not start.
 */
int import_deb_child(const char *exe, const struct import_deb_child_limits *lim,
		     const uint8_t *buf, size_t len, const char *const *algos,
		     size_t nalgos, struct deb_info *info,
		     const struct import_sink *sink, struct imt_error *err);

/**
 * import_deb_child_confine() - what the child does first: close every
 * descriptor above 2, no core file, RLIMIT_CPU @cpu seconds (SIGXCPU,
 * then SIGKILL a second later), RLIMIT_AS @as bytes (0: none; never
 * under AddressSanitizer), no new privileges.
 *
 * Return: 0, or -1 when a limit could not be set.
 */
int import_deb_child_confine(uint64_t as, unsigned long cpu);

/**
 * import_deb_child_main() - the child: argv[2] the algorithms ("sha256,
 * sha1"), argv[3] RLIMIT_AS, argv[4] RLIMIT_CPU; the .deb on
 * descriptor 0, the frames written to descriptor 1.
 *
 * Return: the exit status (0 once an end or an error frame is written).
 */
int import_deb_child_main(int argc, char **argv);

#endif /* IMATRUST_IMPORT_DEB_CHILD_H */

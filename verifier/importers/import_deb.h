/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_deb.h - reference digests from a Debian binary package (.deb).
 *
 * A .deb is an ar archive: "debian-binary" ("2.x\n"), control.tar[.gz|
 * .xz|.zst], data.tar[.gz|.xz|.zst|.bz2] (members named "_..." may come
 * between them and after, and are ignored as dpkg does). libarchive reads
 * every layer, streaming: the data is decompressed once and each block is
 * hashed in every requested algorithm while it is in cache.
 *
 * What reaches the sink, in this order, every one IMPORT_REF_FILE:
 * 1. the control members dpkg copies byte for byte into its database, as
 *    /var/lib/dpkg/info/PACKAGE.MEMBER (PACKAGE:ARCH.MEMBER for
 *    "Multi-Arch: same"): every member but "control" (maintainer scripts,
 *    conffiles, md5sums, shlibs, symbols, triggers, templates, ...), since
 *    dpkg runs and reads them as root and IMA measures them;
 * 2. every regular file of data.tar under its installed absolute path
 *    ("./usr/bin/ls" is "/usr/bin/ls"), with @conffile set for the paths
 *    that "conffiles" lists; a hard link gets the digests of its target.
 * Directories, symbolic links and device nodes have no digest.
 *
 * Nothing reaches the sink before the control part was read to its end
 * and found valid. A data.tar found truncated or corrupt after some files
 * were given is an error too: the caller imports a package in one
 * transaction and stores nothing of it then. import_deb_files() delivers
 * a package only once it has been read whole.
 */
#ifndef IMATRUST_IMPORT_DEB_H
#define IMATRUST_IMPORT_DEB_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "result.h"

#define DEB_NAME_MAX 128	   /* package, version, architecture */
#define DEB_CONTROL_MAX (4u << 20) /* the control and conffiles files */
/*
 * What one package may cost, whoever made it (an archive imported is
 * not the operator's). The figures of real packages (Debian 12, the apt
 * cache of a build host) they leave room for:
 *	files		golang-1.19-src 11,751; texlive-fonts-extra ~100k
 *	path bytes	golang-1.19-src 652 KB (55 per file)
 *	uncompressed	libmlir-19-dev 365 MB (x4 banks: 1.5 GB of work)
 *	ratio		libmlir-19-dev 15.7, llvm-19-dev 8.2, chromium 3.7
 * Each is checked as the package is read, and refused at once with an
 * IMT_ERR_LIMIT naming it.
 */
#define DEB_FILES_MAX 250000u	       /* data.tar files (hard links too) */
#define DEB_PATH_BYTES_MAX (64u << 20) /* their installed paths, summed */
/* uncompressed bytes x banks: what hashing one package costs */
#define DEB_WORK_MAX (8ull << 30)
/*
 * Uncompressed bytes per byte of the .deb, beyond DEB_RATIO_SLACK: a
 * compression bomb (1 GiB of zeros is 38 KB of xz) is refused after
 * tens of MB, not after DEB_WORK_MAX.
 */
#define DEB_RATIO_MAX 64u
#define DEB_RATIO_SLACK (64u << 20) /* what any package may unpack to */

struct deb_info {
	char package[DEB_NAME_MAX];
	char version[DEB_NAME_MAX];
	char architecture[DEB_NAME_MAX];
	int multi_arch_same;  /* "Multi-Arch: same" */
	size_t control_files; /* control members given to the sink */
	size_t files;	      /* data.tar files given (hard links too) */
	uint64_t bytes;	      /* uncompressed bytes hashed (once each) */
	uint64_t path_bytes;  /* data.tar paths given, summed */
};

/**
 * import_deb() - parse the .deb in @buf and hand its digests to @sink.
 * @buf: the whole .deb
 * @len: its length
 * @algos: kernel hash names ("sha256", "sha1", "sha512", ...; see
 *	proto/hash_algo.h), each file is given once per algorithm
 * @nalgos: 1 to IMPORT_ALGOS_MAX
 * @info: receives what the package is (may be NULL)
 * @sink: receives the references (only @sink->ref is called)
 * @err: on failure, what was wrong, naming the member and the field:
 *	"not a Debian package: ...", "control.tar.xz: control: no Version
 *	field", "data.tar.xz: truncated", or the sink's own error
 *
 * Return: 0, or -1 with @err filled.
 */
int import_deb(const uint8_t *buf, size_t len, const char *const *algos,
	       size_t nalgos, struct deb_info *info,
	       const struct import_sink *sink, struct imt_error *err);

/* The references of one package, held until it is delivered. */
struct deb_refs;

/**
 * import_deb_replay() - give the references held in @refs to @sink, in the
 * order import_deb() would have.
 * @refs: from a deb_batch callback
 * @sink: receives them
 * @err: the sink's error
 *
 * Return: 0, or -1 with @err filled by the sink.
 */
int import_deb_replay(const struct deb_refs *refs,
		      const struct import_sink *sink, struct imt_error *err);

/* One .deb of a batch. */
struct deb_job {
	const char *path; /* the .deb file */
	/* when @sha256 is not NULL: the size and SHA-256 the file must have
	 * (an apt index's), checked before it is read as a package */
	uint64_t size;
	const uint8_t *sha256;
};

/**
 * typedef deb_batch_fn - a package of a batch is read.
 * @arg: the caller's
 * @index: its index in the jobs
 * @job: the job
 * @perr: NULL when the package was read whole, else why it was not
 *	(unreadable, size or SHA-256 mismatch, malformed)
 * @info: what the package is (meaningful when @perr is NULL)
 * @refs: its references for import_deb_replay() (NULL when @perr is set)
 * @err: fill and return -1 to stop the batch
 *
 * Return: 0 to go on, -1 to stop.
 */
typedef int (*deb_batch_fn)(void *arg, size_t index, const struct deb_job *job,
			    const struct imt_error *perr,
			    const struct deb_info *info,
			    const struct deb_refs *refs, struct imt_error *err);

/**
 * import_deb_files() - read many .deb files on @nthreads threads.
 * @jobs: the packages
 * @njobs: how many
 * @algos: as import_deb()
 * @nalgos: as import_deb()
 * @nthreads: 1 or more threads (each reads one package at a time)
 * @fn: called once per job, strictly in the order of @jobs and one call
 *	at a time, from the worker threads (never two at once): a package
 *	read ahead waits (its references held in memory) until the ones
 *	before it are delivered
 * @arg: for @fn
 * @err: @fn's error when it stopped the batch, or a thread failure
 *
 * Files are mapped read-only (mmap); the batch holds at most @nthreads
 * packages' references at a time.
 *
 * Return: 0 once every job was delivered, -1 when @fn stopped the batch
 * (no job after that one is delivered) or threads could not start.
 */
int import_deb_files(const struct deb_job *jobs, size_t njobs,
		     const char *const *algos, size_t nalgos,
		     unsigned int nthreads, deb_batch_fn fn, void *arg,
		     struct imt_error *err);

#endif /* IMATRUST_IMPORT_DEB_H */

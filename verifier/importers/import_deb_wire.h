/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_deb_wire.h - what the package parser child (import_deb_child.h)
 * sends the verifier: one .deb's references, framed, over a pipe.
 *
 * Format, version 1 (IMPORT_DEB_WIRE_VERSION), every integer big endian:
 *
 *	frame	= type(1) length(4) payload(length), length at most
 *		  IMPORT_DEB_WIRE_FRAME_MAX
 *	'V'	version(1): first, once
 *	'F'	one file: flags(1, bit 0: a conffile), then its digests in
 *		the banks asked, in their order, each of its algorithm's
 *		size, then the path (the rest: absolute, no NUL byte)
 *	'E'	the end, once, last: files(8) control_files(8) bytes(8)
 *		multi_arch_same(1) then package, version and architecture,
 *		each ended by a NUL byte (import_deb()'s struct deb_info)
 *	'X'	the child's error, last, instead of 'E': status(1, an
 *		enum imt_result) then the message (the rest, no NUL byte)
 *
 * The reader trusts nothing the child says: each frame is checked, the
 * files and path bytes are counted against the package limits of
 * import_deb.h, the end must count what came, and nothing may follow it.
 */
#ifndef IMATRUST_IMPORT_DEB_WIRE_H
#define IMATRUST_IMPORT_DEB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "import.h"
#include "import_deb.h"
#include "result.h"

#define IMPORT_DEB_WIRE_VERSION 1
#define IMPORT_DEB_WIRE_HEADER 5 /* type and length */
/* a path: DEB_PATH_MAX, and ".dpkg-new" or /var/lib/dpkg/info/ around */
#define IMPORT_DEB_WIRE_PATH_MAX 4608
#define IMPORT_DEB_WIRE_FRAME_MAX 8192 /* payload bytes of one frame */
/* references besides the data files: control members, twice each */
#define IMPORT_DEB_WIRE_CONTROL_MAX 160

/* Reading one child's stream into a sink. */
struct import_deb_wire_reader {
	/* set by the caller */
	size_t nalgos;
	const char *const *algos;      /* kernel hash names */
	size_t size[IMPORT_ALGOS_MAX]; /* digest bytes of each */
	const struct import_sink *sink;
	/* the stream so far */
	int state;		   /* IMPORT_DEB_WIRE_* */
	uint64_t refs, path_bytes; /* 'F' frames and their paths */
	struct deb_info info;	   /* the end's, once read */
	char path[IMPORT_DEB_WIRE_PATH_MAX + 1];
};

enum {
	IMPORT_DEB_WIRE_START, /* no frame yet: 'V' is due */
	IMPORT_DEB_WIRE_FILES, /* 'F' frames, until 'E' or 'X' */
	IMPORT_DEB_WIRE_DONE,  /* 'E' read: nothing may follow */
};

/**
 * import_deb_wire_reader_init() - a reader of @nalgos banks @algos
 * (hash_algo.h names) that gives each file to @sink.
 *
 * Return: 0, or -1 with @err for an algorithm hash_algo.h does not know.
 */
int import_deb_wire_reader_init(struct import_deb_wire_reader *r,
				const char *const *algos, size_t nalgos,
				const struct import_sink *sink,
				struct imt_error *err);

/**
 * import_deb_wire_read() - read the whole frames at the start of @buf.
 * @buf: bytes received, @len of them
 * @used: receives how many were read (the rest is a frame cut short:
 *	give it again with what follows)
 * @err: why the stream is refused: a malformed frame, a limit, the
 *	child's own error ('X', its status and message), the sink's
 *
 * Return: 0, or -1 with @err. r->state is IMPORT_DEB_WIRE_DONE once the
 * stream ended well; r->info is the package then.
 */
int import_deb_wire_read(struct import_deb_wire_reader *r, const uint8_t *buf,
			 size_t len, size_t *used, struct imt_error *err);

/**
 * import_deb_wire_frame() - write the header of a frame of @type and
 * @len payload bytes into @out (IMPORT_DEB_WIRE_HEADER bytes).
 */
void import_deb_wire_frame(uint8_t *out, uint8_t type, uint32_t len);

#endif /* IMATRUST_IMPORT_DEB_WIRE_H */

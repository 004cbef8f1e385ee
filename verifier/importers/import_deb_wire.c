// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_deb_wire.c - the package parser child's frames, read and
 * checked (import_deb_wire.h): a cursor over (buffer, length).
 */
#include <string.h>

#include "hash_algo.h"
#include "import_deb_wire.h"

/* imt_error_set() without a position, as a 0 / -1 function returns it */
#define wire_fail(err, st, ...) \
	(imt_error_set((err), (st), IMT_NO_POS, IMT_NO_POS, __VA_ARGS__), -1)

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void import_deb_wire_frame(uint8_t *out, uint8_t type, uint32_t len)
{
	out[0] = type;
	out[1] = (uint8_t)(len >> 24);
	out[2] = (uint8_t)(len >> 16);
	out[3] = (uint8_t)(len >> 8);
	out[4] = (uint8_t)len;
}

int import_deb_wire_reader_init(struct import_deb_wire_reader *r,
				const char *const *algos, size_t nalgos,
				const struct import_sink *sink,
				struct imt_error *err)
{
	const struct hash_algo *ha;
	size_t i;

	memset(r, 0, sizeof(*r));
	if (nalgos < 1 || nalgos > IMPORT_ALGOS_MAX)
		return wire_fail(err, IMT_ERR_LIMIT,
				 "1 to %d algorithms, not %zu",
				 IMPORT_ALGOS_MAX, nalgos);
	for (i = 0; i < nalgos; i++) {
		ha = hash_algo_by_name(algos[i], strlen(algos[i]));
		if (ha == NULL)
			return wire_fail(err, IMT_ERR_UNSUPPORTED,
					 "unsupported hash algorithm \"%s\"",
					 algos[i]);
		r->size[i] = ha->size;
	}
	r->algos = algos;
	r->nalgos = nalgos;
	r->sink = sink;
	return 0;
}

/* 'F': one file, given to the sink once per bank. */
static int wire_file(struct import_deb_wire_reader *r, const uint8_t *p,
		     size_t n, struct imt_error *err)
{
	struct import_ref ref = { .kind = IMPORT_REF_FILE };
	size_t i, off = 1, plen;

	for (i = 0; i < r->nalgos; i++)
		off += r->size[i];
	if (n <= off || (p[0] & ~1u) != 0)
		return wire_fail(err, IMT_ERR_MALFORMED,
				 "parser: file %llu: bad frame",
				 (unsigned long long)r->refs + 1);
	plen = n - off;
	if (plen > IMPORT_DEB_WIRE_PATH_MAX || p[off] != '/' ||
	    memchr(p + off, '\0', plen) != NULL)
		return wire_fail(err, IMT_ERR_MALFORMED,
				 "parser: file %llu: bad path",
				 (unsigned long long)r->refs + 1);
	/* the limits of import_deb.h, counted here again: never trusted */
	r->refs++;
	r->path_bytes += plen;
	if (r->refs > (uint64_t)DEB_FILES_MAX + IMPORT_DEB_WIRE_CONTROL_MAX)
		return wire_fail(err, IMT_ERR_LIMIT,
				 "limit DEB_FILES_MAX reached: %llu files "
				 "from the parser, at most %u",
				 (unsigned long long)r->refs, DEB_FILES_MAX);
	if (r->path_bytes >
	    (uint64_t)DEB_PATH_BYTES_MAX +
		    IMPORT_DEB_WIRE_CONTROL_MAX * IMPORT_DEB_WIRE_PATH_MAX)
		return wire_fail(err, IMT_ERR_LIMIT,
				 "limit DEB_PATH_BYTES_MAX reached: %llu bytes "
				 "of paths from the parser, at most %u",
				 (unsigned long long)r->path_bytes,
				 DEB_PATH_BYTES_MAX);
	memcpy(r->path, p + off, plen);
	r->path[plen] = '\0';
	ref.path = r->path;
	ref.conffile = p[0] & 1;
	for (i = 0, off = 1; i < r->nalgos; off += r->size[i++]) {
		ref.algo = r->algos[i];
		ref.digest = p + off;
		ref.digest_len = r->size[i];
		if (r->sink->ref(r->sink->arg, &ref, err))
			return -1;
	}
	return 0;
}

/* One NUL-ended name of the end frame into @out (DEB_NAME_MAX). */
static int wire_name(const uint8_t *p, size_t n, size_t *off, char *out)
{
	const uint8_t *z = memchr(p + *off, '\0', n - *off);
	size_t len;

	if (z == NULL)
		return -1;
	len = (size_t)(z - (p + *off));
	if (len == 0 || len >= DEB_NAME_MAX)
		return -1;
	memcpy(out, p + *off, len + 1);
	*off += len + 1;
	return 0;
}

/* 'E': the package, and what it counted, which must be what came. */
static int wire_end(struct import_deb_wire_reader *r, const uint8_t *p,
		    size_t n, struct imt_error *err)
{
	struct deb_info *in = &r->info;
	size_t off = 25;

	if (n < off + 6 || p[24] > 1)
		return wire_fail(err, IMT_ERR_MALFORMED, "parser: bad end");
	in->files = (size_t)get64(p);
	in->control_files = (size_t)get64(p + 8);
	in->bytes = get64(p + 16);
	in->multi_arch_same = p[24];
	if (wire_name(p, n, &off, in->package) ||
	    wire_name(p, n, &off, in->version) ||
	    wire_name(p, n, &off, in->architecture) || off != n)
		return wire_fail(err, IMT_ERR_MALFORMED,
				 "parser: bad end: the package's names");
	if (get64(p) + get64(p + 8) != r->refs ||
	    in->control_files > IMPORT_DEB_WIRE_CONTROL_MAX)
		return wire_fail(err, IMT_ERR_MALFORMED,
				 "parser: the end counts %llu files, %llu came",
				 (unsigned long long)(get64(p) + get64(p + 8)),
				 (unsigned long long)r->refs);
	if (in->bytes > DEB_WORK_MAX / r->nalgos)
		return wire_fail(err, IMT_ERR_LIMIT,
				 "limit DEB_WORK_MAX reached: %llu bytes x "
				 "%zu banks hashed, at most %llu",
				 (unsigned long long)in->bytes, r->nalgos,
				 DEB_WORK_MAX);
	in->path_bytes = r->path_bytes;
	r->state = IMPORT_DEB_WIRE_DONE;
	return 0;
}

/* 'X': the child's error, as it said it (its status bounded). */
static int wire_error(const uint8_t *p, size_t n, struct imt_error *err)
{
	enum imt_result st = IMT_ERR_MALFORMED;
	int len;

	if (n < 1)
		return wire_fail(err, IMT_ERR_MALFORMED, "parser: bad error");
	len = n - 1 > IMT_ERROR_MSG_MAX ? IMT_ERROR_MSG_MAX : (int)n - 1;
	if (p[0] == IMT_ERR_UNSUPPORTED || p[0] == IMT_ERR_LIMIT ||
	    p[0] == IMT_ERR_INTERNAL)
		st = (enum imt_result)p[0];
	return wire_fail(err, st, "%.*s", len, (const char *)p + 1);
}

static int wire_frame(struct import_deb_wire_reader *r, uint8_t type,
		      const uint8_t *p, size_t n, struct imt_error *err)
{
	if (r->state == IMPORT_DEB_WIRE_START) {
		if (type != 'V' || n != 1 || p[0] != IMPORT_DEB_WIRE_VERSION)
			return wire_fail(err, IMT_ERR_MALFORMED,
					 "parser: not version %d of its "
					 "frames",
					 IMPORT_DEB_WIRE_VERSION);
		r->state = IMPORT_DEB_WIRE_FILES;
		return 0;
	}
	if (r->state == IMPORT_DEB_WIRE_DONE)
		return wire_fail(err, IMT_ERR_MALFORMED,
				 "parser: a frame after the end");
	switch (type) {
	case 'F':
		return wire_file(r, p, n, err);
	case 'E':
		return wire_end(r, p, n, err);
	case 'X':
		return wire_error(p, n, err);
	}
	return wire_fail(err, IMT_ERR_MALFORMED, "parser: frame type %u", type);
}

int import_deb_wire_read(struct import_deb_wire_reader *r, const uint8_t *buf,
			 size_t len, size_t *used, struct imt_error *err)
{
	size_t off = 0;
	uint32_t n;

	*used = 0;
	while (len - off >= IMPORT_DEB_WIRE_HEADER) {
		n = get32(buf + off + 1);
		if (n > IMPORT_DEB_WIRE_FRAME_MAX)
			return wire_fail(err, IMT_ERR_MALFORMED,
					 "parser: a frame of %u bytes, at "
					 "most %d",
					 n, IMPORT_DEB_WIRE_FRAME_MAX);
		if (len - off - IMPORT_DEB_WIRE_HEADER < n)
			break;
		if (wire_frame(r, buf[off], buf + off + IMPORT_DEB_WIRE_HEADER,
			       n, err))
			return -1;
		off += IMPORT_DEB_WIRE_HEADER + n;
		*used = off;
	}
	return 0;
}

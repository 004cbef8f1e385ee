// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_deb_wire.c - libFuzzer target: the frames a package parser child
 * sends the verifier (import_deb_wire_read()). Byte 0 picks the banks
 * (1 to 4 of sha256, sha1, sha512, sha384), the rest is the stream, read
 * whole and then again cut at byte 1 and the rest.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_deb_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const algos[] = { "sha256", "sha1", "sha512", "sha384" };

struct seen {
	size_t refs;
	size_t nalgos;
};

static int ref(void *arg, const struct import_ref *r, struct imt_error *err)
{
	struct seen *s = arg;

	(void)err;
	/* an absolute path of the length it says, the bank's digest size */
	if (r->kind != IMPORT_REF_FILE || r->path[0] != '/' ||
	    strlen(r->path) > IMPORT_DEB_WIRE_PATH_MAX ||
	    strcmp(r->algo, algos[s->refs % s->nalgos]) != 0)
		abort();
	s->refs++;
	return 0;
}

/* Read @data in two pieces cut at @cut; the reader's state. */
static int read_cut(const uint8_t *data, size_t size, size_t nalgos, size_t cut,
		    struct import_deb_wire_reader *r, struct seen *s)
{
	const struct import_sink sink = { .ref = ref, .arg = s };
	static uint8_t buf[1 << 20];
	struct imt_error err;
	size_t used, have;

	s->refs = 0;
	s->nalgos = nalgos;
	if (import_deb_wire_reader_init(r, algos, nalgos, &sink, &err))
		abort();
	if (import_deb_wire_read(r, data, cut, &used, &err))
		return -1;
	if (used > cut || size - used > sizeof(buf))
		return -1;
	/* the caller keeps what was not read and appends the rest */
	have = cut - used;
	memcpy(buf, data + used, have);
	memcpy(buf + have, data + cut, size - cut);
	if (import_deb_wire_read(r, buf, have + size - cut, &used, &err))
		return -1;
	return used == have + size - cut ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_deb_wire_reader r, r2;
	struct seen s, s2;
	size_t nalgos;
	int rc, rc2;

	if (size < 1)
		return 0;
	nalgos = (size_t)data[0] % 4 + 1;
	rc = read_cut(data + 1, size - 1, nalgos, size - 1, &r, &s);
	rc2 = read_cut(data + 1, size - 1, nalgos, size > 1, &r2, &s2);
	/* where the bytes are cut changes nothing */
	if (rc != rc2 || r.state != r2.state || s.refs != s2.refs)
		abort();
	if (rc == 0 && r.state == IMPORT_DEB_WIRE_DONE &&
	    (s.refs != (r.info.files + r.info.control_files) * nalgos ||
	     r.info.files > DEB_FILES_MAX + IMPORT_DEB_WIRE_CONTROL_MAX ||
	     r.info.bytes * nalgos > DEB_WORK_MAX || !r.info.package[0]))
		abort();
	return 0;
}

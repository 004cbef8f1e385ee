// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_deb.c - libFuzzer target: a Debian package (import_deb()): the ar,
 * the compressors and tars libarchive reads, the control file, conffiles,
 * paths and hard links.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_deb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int ref(void *arg, const struct import_ref *r, struct imt_error *err)
{
	size_t *n = arg;

	(void)err;
	/* one absolute path of one installed file, a sha256 digest */
	if (r->kind != IMPORT_REF_FILE || r->path[0] != '/' ||
	    strstr(r->path, "/../") || strstr(r->path, "//") ||
	    strstr(r->path, "/./") || r->digest_len != 32 ||
	    strcmp(r->algo, "sha256") != 0)
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const algos[] = { "sha256" };
	const struct import_sink sink = { .ref = ref };
	struct import_sink s = sink;
	struct deb_info info;
	struct imt_error err;
	size_t n = 0;

	s.arg = &n;
	if (import_deb(data, size, algos, 1, &info, &s, &err) == 0 &&
	    n != info.files + info.control_files)
		abort();
	return 0;
}

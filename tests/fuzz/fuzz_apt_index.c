// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_apt_index.c - libFuzzer target: an apt `Packages` index, plain,
 * gzip or xz (import_apt_index()).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "import_apt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a ".." component anywhere in @f */
static int climbs(const char *f)
{
	const char *p = f;

	for (; p; p = strchr(p, '/'), p = p ? p + 1 : NULL) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return 1;
	}
	return 0;
}

static int entry(void *arg, const struct apt_entry *e, struct imt_error *err)
{
	size_t *n = arg;

	(void)err;
	/* what a caller joins to a directory stays under it */
	if (!e->package[0] || !e->version[0] || !e->architecture[0] ||
	    e->filename[0] == '/' || climbs(e->filename) || e->stanza != *n + 1)
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct imt_error err;
	size_t n = 0;

	if (import_apt_index(data, size, entry, &n, &err) != 0 && n != 0)
		abort(); /* entries given from a bad index */
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fz_fixture.c - read a fixture file once and keep it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz_fixture.h"

#ifndef FIXTURE_DIR
#define FIXTURE_DIR "tests/fixtures"
#endif

#define FZ_FIXTURE_MAX (1u << 20)
#define FZ_FIXTURES 64 /* files a harness may load */

/* Everything loaded stays here, reachable (no leak reports), read once. */
static struct {
	char name[64];
	struct fz_blob blob;
} loaded[FZ_FIXTURES];

struct fz_blob fz_fixture(const char *name)
{
	const char *dir = getenv("IMATRUST_FIXTURES");
	char path[4096];
	uint8_t *buf;
	size_t len, i;
	FILE *f;

	for (i = 0; i < FZ_FIXTURES && loaded[i].name[0] != '\0'; i++) {
		if (strcmp(loaded[i].name, name) == 0)
			return loaded[i].blob;
	}
	if (i == FZ_FIXTURES || strlen(name) >= sizeof(loaded[i].name)) {
		fprintf(stderr, "fuzz: too many fixtures, or %s\n", name);
		abort();
	}

	snprintf(path, sizeof(path), "%s/%s", dir != NULL ? dir : FIXTURE_DIR,
		 name);
	f = fopen(path, "rb");
	buf = malloc(FZ_FIXTURE_MAX);
	if (f == NULL || buf == NULL) {
		fprintf(stderr, "fuzz: cannot read fixture %s\n", path);
		abort();
	}
	len = fread(buf, 1, FZ_FIXTURE_MAX, f);
	fclose(f);
	snprintf(loaded[i].name, sizeof(loaded[i].name), "%s", name);
	loaded[i].blob = (struct fz_blob){ buf, len };
	return loaded[i].blob;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fixture.h - load files from tests/fixtures/ in unit tests.
 */
#ifndef IMATRUST_TEST_FIXTURE_H
#define IMATRUST_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must name tests/fixtures"
#endif

/* The three real-kernel boots of tests/fixtures/ima/. */
static const char *const ima_fixtures[] = {
	"ima-ng-sha256",
	"ima-sig-sha256",
	"ima-sha1",
};

#define IMA_FIXTURE_COUNT (sizeof(ima_fixtures) / sizeof(ima_fixtures[0]))

/* Read tests/fixtures/<rel> whole, NUL-terminated; aborts on failure. */
static inline uint8_t *fixture_read(const char *rel, size_t *len)
{
	char path[512];
	uint8_t *buf;
	long size;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, rel);
	f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "cannot open fixture %s\n", path);
		abort();
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)size + 1);
	if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size)
		abort();
	buf[size] = '\0';
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* Read tests/fixtures/ima/<dir>/<name> whole. */
static inline uint8_t *fixture_load(const char *dir, const char *name,
				    size_t *len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "ima/%s/%s", dir, name);
	return fixture_read(rel, len);
}

#endif /* IMATRUST_TEST_FIXTURE_H */

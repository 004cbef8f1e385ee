/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * deb_fixture.h - the .deb fixtures of test_import_deb.c and
 * test_import_apt.c: tests/fixtures/deb/make-debs.sh builds them into a
 * fresh directory (dpkg-deb, ar, tar, dpkg-scanpackages, apt-ftparchive),
 * and a sink that records what an importer gives as "HEX  PATH" lines.
 */
#ifndef IMATRUST_TEST_DEB_FIXTURE_H
#define IMATRUST_TEST_DEB_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "file.h"

static char deb_dir[256];

static int deb_fixture_setup(void **state)
{
	char cmd[1024];

	(void)state;
	snprintf(deb_dir, sizeof(deb_dir), "%s/imt-deb-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(deb_dir))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s/deb/make-debs.sh %s", FIXTURE_DIR,
		 deb_dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int deb_fixture_teardown(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", deb_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* The contents of fixture file @name; *@len its length. */
static char *deb_read(const char *name, size_t *len)
{
	char path[512], why[256];
	char *buf;

	snprintf(path, sizeof(path), "%s/%s", deb_dir, name);
	buf = file_read(path, 64u << 20, len, why, sizeof(why));
	if (!buf)
		fprintf(stderr, "%s\n", why);
	return buf;
}

struct rec {
	char **lines; /* "HEX  PATH", as sha256sum prints */
	char **algo;
	int *conffile;
	size_t n, cap;
	size_t fail_at; /* the sink fails at this ref (0: never) */
};

static int rec_ref(void *arg, const struct import_ref *ref,
		   struct imt_error *err)
{
	struct rec *r = arg;
	char *l;
	size_t i;

	if (r->fail_at && r->n + 1 == r->fail_at)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "the sink says no"),
		       -1;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->lines = realloc(r->lines, r->cap * sizeof(*r->lines));
		r->algo = realloc(r->algo, r->cap * sizeof(*r->algo));
		r->conffile = realloc(r->conffile, r->cap * sizeof(int));
	}
	l = malloc(2 * ref->digest_len + strlen(ref->path) + 3);
	for (i = 0; i < ref->digest_len; i++)
		sprintf(l + 2 * i, "%02x", ref->digest[i]);
	sprintf(l + 2 * i, "  %s", ref->path);
	r->lines[r->n] = l;
	r->algo[r->n] = strdup(ref->algo);
	r->conffile[r->n] = ref->conffile;
	r->n++;
	return 0;
}

static void rec_free(struct rec *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->lines[i]);
		free(r->algo[i]);
	}
	free(r->lines);
	free(r->algo);
	free(r->conffile);
	memset(r, 0, sizeof(*r));
}

#endif /* IMATRUST_TEST_DEB_FIXTURE_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_refs.c - references as a distribution's packages bring them
 * (bench_refs.h).
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "bench_refs.h"
#include "db_ref.h"

#define BENCH_REFS_TIME 1700000000 /* when the packages were imported */

void bench_ref_path(size_t i, char *out, size_t n)
{
	snprintf(out, n, "/usr/lib/p%zu/f%zu", i / BENCH_REFS_PER_SOURCE, i);
}

void bench_ref_digest(size_t i, uint8_t d[32])
{
	char path[64];

	bench_ref_path(i, path, sizeof(path));
	EVP_Digest(path, strlen(path), d, NULL, EVP_sha256(), NULL);
}

/* One package of references, from @first, as one import. */
static int import_source(struct db *db, size_t first, size_t n,
			 struct imt_error *err)
{
	char name[64], pkg[32], path[64];
	struct db_source_meta meta = {
		.package = pkg,
		.version = "1.0-1",
		.arch = "amd64",
	};
	struct db_ref_source src = {
		.kind = DB_SOURCE_DEB,
		.name = name,
		.meta = &meta,
	};
	struct db_ref_entry e = { .path = path,
				  .algo = "sha256",
				  .digest_len = 32 };
	uint8_t d[32];
	size_t i;

	snprintf(pkg, sizeof(pkg), "p%zu", first / BENCH_REFS_PER_SOURCE);
	snprintf(name, sizeof(name), "%s_1.0-1_amd64", pkg);
	if (db_ref_import_begin(db, &src, BENCH_REFS_TIME, err) < 0)
		return -1;
	for (i = first; i < first + n; i++) {
		bench_ref_path(i, path, sizeof(path));
		bench_ref_digest(i, d);
		e.digest = d;
		e.conffile = i % BENCH_REFS_PER_SOURCE == 0;
		if (db_ref_add_entry(db, &src, &e, BENCH_REFS_TIME, err) < 0) {
			db_ref_import_abort(db);
			return -1;
		}
	}
	return db_ref_import_commit(db, err);
}

int bench_refs_import(struct db *db, size_t refs, struct imt_error *err)
{
	size_t i, n;

	for (i = 0; i < refs; i += BENCH_REFS_PER_SOURCE) {
		n = refs - i < BENCH_REFS_PER_SOURCE ? refs - i :
						       BENCH_REFS_PER_SOURCE;
		if (import_source(db, i, n, err) < 0)
			return -1;
	}
	return 0;
}

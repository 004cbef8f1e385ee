/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_refs.h - references as a distribution's packages bring them, for
 * the benches that explain records among many (bench_explain.c,
 * bench_read_latency.c): reference @i is file f@i of package
 * p(@i / BENCH_REFS_PER_SOURCE), its digest SHA-256 of its path, each
 * package one Debian import with a conffile.
 */
#ifndef IMATRUST_BENCH_REFS_H
#define IMATRUST_BENCH_REFS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

#define BENCH_REFS_PER_SOURCE 100 /* files of one imported package */

/* Reference @i's path, into @out of @n bytes (64 is enough). */
void bench_ref_path(size_t i, char *out, size_t n);

/* Reference @i's digest: SHA-256 of its path. */
void bench_ref_digest(size_t i, uint8_t d[32]);

/* References 0..@refs-1 into @db, a package (one import) at a time. */
int bench_refs_import(struct db *db, size_t refs, struct imt_error *err);

#endif /* IMATRUST_BENCH_REFS_H */

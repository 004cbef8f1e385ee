/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_db.h - where a harness keeps its database: on tmpfs when /dev/shm is
 * writable (SQLite's fsyncs would otherwise set the pace), else $TMPDIR.
 */
#ifndef IMATRUST_FZ_DB_H
#define IMATRUST_FZ_DB_H

#include <stddef.h>

/**
 * fz_db_path() - a database path of this process for harness @name.
 * @out: receives the path
 * @len: its size
 * @name: the harness ("evidence")
 */
void fz_db_path(char *out, size_t len, const char *name);

/** fz_db_remove() - the database at @path with its -wal and -shm files. */
void fz_db_remove(const char *path);

#endif /* IMATRUST_FZ_DB_H */

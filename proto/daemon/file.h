/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file.h - read a whole small file (a config, a certificate, a token),
 * refusing one above a stated maximum. Shared by both daemons and the CLI:
 * the one bounded-read loop of the project.
 */
#ifndef IMATRUST_FILE_H
#define IMATRUST_FILE_H

#include <stddef.h>

/**
 * file_read() - the contents of @path, NUL-terminated.
 * @path: the file
 * @max: refuse a file larger than this many bytes
 * @len: receives the number of bytes read (may be NULL)
 * @errbuf: receives "PATH: reason" on failure
 * @errlen: size of @errbuf
 *
 * Return: a buffer the caller frees, or NULL (cannot open or read, larger
 * than @max, out of memory).
 */
char *file_read(const char *path, size_t max, size_t *len, char *errbuf,
		size_t errlen);

#endif /* IMATRUST_FILE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file.h - read a whole small file (a config, a certificate, a token),
 * refusing one above a stated maximum, and replace one atomically. Shared
 * by both daemons and the CLI: the one bounded-read loop and the one
 * crash-safe write of the project.
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

/**
 * file_replace() - put @len bytes at @path, all or nothing.
 * @path: the file; its directory must exist
 * @buf: the contents
 * @len: bytes in @buf
 * @errbuf: receives "PATH: reason" on failure
 * @errlen: size of @errbuf
 *
 * A new file (mkstemp(): O_EXCL, mode 0600) in the same directory is
 * written, synced, renamed over @path, and the directory synced: after a
 * crash or a power loss @path holds the old contents or the new ones,
 * never a mix, and a successful return means the new ones are on disk.
 *
 * Return: 0, or -1 (the temporary file removed).
 */
int file_replace(const char *path, const void *buf, size_t len, char *errbuf,
		 size_t errlen);

struct stat;

/**
 * file_replace_owned() - file_replace(), the new file given the owner and
 * group of @owner before it is renamed into place: a file root replaces
 * for a daemon that runs as another user stays the daemon's.
 * @path: the file; its directory must exist
 * @buf: the contents
 * @len: bytes in @buf
 * @owner: whose file it is to be (st_uid, st_gid); NULL: the caller's
 * @errbuf: receives "PATH: reason" on failure
 * @errlen: size of @errbuf
 *
 * Return: 0, or -1 (the temporary file removed); -1 also when the owner
 * cannot be given (only root may give a file away).
 */
int file_replace_owned(const char *path, const void *buf, size_t len,
		       const struct stat *owner, char *errbuf, size_t errlen);

#endif /* IMATRUST_FILE_H */

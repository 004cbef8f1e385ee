/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_efi.h - EFI applications' Authenticode digests, the 'efi' sources
 * (db_efi.c). The conventions every function follows, and the limits, are
 * db.h's.
 */
#ifndef IMATRUST_DB_EFI_H
#define IMATRUST_DB_EFI_H

#include "db.h"

/* One EFI file's digest in one bank, to store with db_efi_import(). */
struct db_efi_entry {
	const char *file_name; /* base name, e.g. "systemd-bootx64.efi" */
	const char *algo;      /* "sha256", "sha1", ... */
	const uint8_t *digest; /* the Authenticode digest */
	size_t digest_len;
};

/* Which 'efi' source holds a digest (db_efi_find()); copies. */
struct db_efi_hit {
	char source[DB_NAME_MAX + 1];
	char version[DB_NAME_MAX + 1]; /* "" when the import named none */
	char file_name[DB_NAME_MAX + 1];
};

/**
 * db_efi_import() - store @n digests as the 'efi' source @name.
 * @db: the database
 * @name: the source name (1 to DB_NAME_MAX bytes)
 * @version: stored as the source's version when not NULL
 * @entries: the digests
 * @n: number of @entries
 * @now: the source's imported_at when it is created
 * @added: set to the number of digests that were not stored before
 * @err: filled on failure
 *
 * One transaction: either every entry is stored or none. A digest the
 * source already holds is left as it is, so importing the same files
 * again changes nothing (*@added is 0).
 *
 * Return: 0, or -1 (bad argument, or the database failed).
 */
int db_efi_import(struct db *db, const char *name, const char *version,
		  const struct db_efi_entry *entries, size_t n, int64_t now,
		  size_t *added, struct imt_error *err);

/**
 * db_efi_find() - whether any 'efi' source holds (@algo, @digest).
 * @db: the database
 * @algo: the bank algorithm name
 * @digest: the digest bytes
 * @len: bytes in @digest
 * @hit: filled with the first such source (lowest id) when found
 * @err: filled on failure
 *
 * Return: 1 when found, 0 when no source holds it, -1 on failure.
 */
int db_efi_find(struct db *db, const char *algo, const uint8_t *digest,
		size_t len, struct db_efi_hit *hit, struct imt_error *err);

#endif /* IMATRUST_DB_EFI_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_efi.h - EFI applications as references: the Authenticode
 * digests of each image in each bank; import_efi_rows.h makes them the
 * rows db_efi_import() stores.
 *
 * No I/O: the CLI reads the files, the route gets them base64 in JSON;
 * both call import_efi_add() on the bytes. No storage either: the CLI
 * includes this header and never sees db/.
 */
#ifndef IMATRUST_IMPORT_EFI_H
#define IMATRUST_IMPORT_EFI_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "pe_authenticode.h"
#include "result.h"

#define IMPORT_EFI_FILES_MAX 64 /* images in one import */
#define IMPORT_EFI_BANKS_MAX 4	/* banks (sha1, sha256, sha384, sha512) */
#define IMPORT_EFI_NAME_MAX 255 /* bytes of a base name (DB_NAME_MAX) */

struct import_efi_file {
	char name[IMPORT_EFI_NAME_MAX + 1]; /* base name */
	struct pe_info info;
	uint8_t digest[IMPORT_EFI_BANKS_MAX][HASH_ALGO_MAX_SIZE];
};

/* The images of one import and the banks they are hashed in. */
struct import_efi {
	const struct hash_algo *bank[IMPORT_EFI_BANKS_MAX];
	size_t nbanks;
	struct import_efi_file file[IMPORT_EFI_FILES_MAX];
	size_t nfiles;
};

/**
 * import_efi_banks() - set the banks of @imp from "sha256,sha1".
 * @imp: the import (zeroed by the caller)
 * @list: comma-separated bank names, each once
 * @err: filled on failure, naming the bad name
 *
 * Return: IMT_OK, IMT_ERR_MALFORMED or IMT_ERR_LIMIT.
 */
enum imt_result import_efi_banks(struct import_efi *imp, const char *list,
				 struct imt_error *err);

/**
 * import_efi_add() - hash one image in every bank of @imp.
 * @imp: the import, banks set
 * @path: the file's name or path; its base name is stored
 * @buf: the whole file
 * @len: bytes in @buf
 * @err: filled on failure, the message starting with the base name
 *
 * A file whose base name is already in @imp is refused: two different
 * images would be indistinguishable by name.
 *
 * Return: IMT_OK, the errors of pe_authenticode_digest() (not a PE image,
 * malformed), IMT_ERR_MALFORMED (bad or repeated name) or IMT_ERR_LIMIT.
 */
enum imt_result import_efi_add(struct import_efi *imp, const char *path,
			       const uint8_t *buf, size_t len,
			       struct imt_error *err);

#endif /* IMATRUST_IMPORT_EFI_H */

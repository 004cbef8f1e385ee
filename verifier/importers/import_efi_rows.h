/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_efi_rows.h - an EFI import (import_efi.h) as the rows of one
 * 'efi' source, for db_efi_import(). Apart from import_efi.h so that the
 * CLI, which hashes images too, never sees db/.
 */
#ifndef IMATRUST_IMPORT_EFI_ROWS_H
#define IMATRUST_IMPORT_EFI_ROWS_H

#include <stddef.h>

#include "db_efi.h"
#include "import_efi.h"

struct import_efi_rows {
	struct db_efi_entry entry[IMPORT_EFI_FILES_MAX * IMPORT_EFI_BANKS_MAX];
	size_t n;
};

/**
 * import_efi_rows() - the rows of @imp: each file in each bank, in the
 * order of its files, then of its banks.
 * @imp: the import
 * @rows: filled; its rows borrow names and digests from @imp (valid while
 *	  @imp lives and is not changed)
 */
void import_efi_rows(const struct import_efi *imp,
		     struct import_efi_rows *rows);

#endif /* IMATRUST_IMPORT_EFI_ROWS_H */

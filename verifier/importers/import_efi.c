// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_efi.c - the Authenticode digests of EFI images, per bank, as
 * the rows of one 'efi' source.
 */
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "import_efi.h"
#include "import_efi_rows.h"

_Static_assert(IMPORT_EFI_NAME_MAX <= DB_NAME_MAX,
	       "an image's name is stored as a reference's file name");

enum imt_result import_efi_banks(struct import_efi *imp, const char *list,
				 struct imt_error *err)
{
	const char *p = list;
	size_t i;

	imp->nbanks = 0;
	while (p != NULL && *p != 0) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		const struct hash_algo *a = hash_algo_by_name(p, n);

		if (a == NULL || !a->bank)
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     IMT_NO_POS,
					     "bank \"%.*s\": want sha1, sha256, sha384 or sha512",
					     (int)n, p);
		for (i = 0; i < imp->nbanks; i++)
			if (imp->bank[i] == a)
				return imt_error_set(err, IMT_ERR_MALFORMED,
						     IMT_NO_POS, IMT_NO_POS,
						     "bank %s given twice",
						     a->name);
		if (imp->nbanks == IMPORT_EFI_BANKS_MAX)
			return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
					     IMT_NO_POS, "more than %d banks",
					     IMPORT_EFI_BANKS_MAX);
		imp->bank[imp->nbanks++] = a;
		p = comma ? comma + 1 : NULL;
	}
	if (imp->nbanks == 0)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS, "no bank given");
	return IMT_OK;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

enum imt_result import_efi_add(struct import_efi *imp, const char *path,
			       const uint8_t *buf, size_t len,
			       struct imt_error *err)
{
	const char *name = base_name(path);
	struct import_efi_file *f;
	enum imt_result rc;
	size_t i;

	if (name[0] == 0 || strlen(name) > IMPORT_EFI_NAME_MAX)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "%s: want a file name of 1 to %d bytes",
				     path, IMPORT_EFI_NAME_MAX);
	for (i = 0; i < imp->nfiles; i++)
		if (strcmp(imp->file[i].name, name) == 0)
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     IMT_NO_POS,
					     "%s: a file of that name is already in this import",
					     name);
	if (imp->nfiles == IMPORT_EFI_FILES_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "%s: more than %d files in one import",
				     name, IMPORT_EFI_FILES_MAX);
	f = &imp->file[imp->nfiles];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%s", name);
	rc = pe_describe(buf, len, &f->info, err);
	for (i = 0; rc == IMT_OK && i < imp->nbanks; i++)
		rc = pe_authenticode_digest(buf, len, imp->bank[i],
					    f->digest[i], err);
	if (rc != IMT_OK) {
		char msg[IMT_ERROR_MSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return imt_error_set(err, rc, IMT_NO_POS,
				     err ? err->offset : IMT_NO_POS,
				     "%s: not an EFI image: %s", name, msg);
	}
	imp->nfiles++;
	return IMT_OK;
}

void import_efi_rows(const struct import_efi *imp, struct import_efi_rows *rows)
{
	size_t i, b;

	rows->n = 0;
	for (i = 0; i < imp->nfiles; i++) {
		for (b = 0; b < imp->nbanks; b++) {
			struct db_efi_entry *e = &rows->entry[rows->n++];

			e->file_name = imp->file[i].name;
			e->algo = imp->bank[b]->name;
			e->digest = imp->file[i].digest[b];
			e->digest_len = imp->bank[b]->size;
		}
	}
}

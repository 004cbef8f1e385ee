// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_efi.c - the banks of an EFI import, one image's digests per
 * bank as db_efi_entry rows, and the refusals (not PE, repeated name).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import_efi_rows.h"

#define SEED FIXTURE_DIR "/../fuzz/corpus/fuzz_pe/linux-stub"

static uint8_t *read_seed(size_t *len)
{
	static uint8_t buf[8192];
	FILE *f = fopen(SEED, "rb");

	assert_non_null(f);
	*len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(*len > 0);
	return buf;
}

static void test_banks(void **state)
{
	struct import_efi *imp = calloc(1, sizeof(*imp));
	struct imt_error err;

	(void)state;
	assert_non_null(imp);
	assert_int_equal(import_efi_banks(imp, "sha256,sha1", &err), IMT_OK);
	assert_int_equal(imp->nbanks, 2);
	assert_string_equal(imp->bank[1]->name, "sha1");
	assert_int_equal(import_efi_banks(imp, "md5", &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "bank \"md5\""));
	assert_int_equal(import_efi_banks(imp, "sha1,sha1", &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "sha1 given twice"));
	assert_int_equal(import_efi_banks(imp, "", &err), IMT_ERR_MALFORMED);
	assert_int_equal(import_efi_banks(imp, "sha1,", &err), IMT_OK);
	free(imp);
}

static void test_entries(void **state)
{
	struct import_efi *imp = calloc(1, sizeof(*imp));
	struct import_efi_rows rows;
	const struct db_efi_entry *e = rows.entry;
	uint8_t want[32];
	struct imt_error err;
	size_t len;
	uint8_t *buf = read_seed(&len);

	(void)state;
	assert_non_null(imp);
	assert_int_equal(import_efi_banks(imp, "sha256,sha1", &err), IMT_OK);
	assert_int_equal(import_efi_add(imp, "/boot/efi/stub.efi", buf, len,
					&err),
			 IMT_OK);
	import_efi_rows(imp, &rows);
	assert_int_equal(rows.n, 2);
	assert_string_equal(e[0].file_name, "stub.efi");
	assert_string_equal(e[0].algo, "sha256");
	assert_int_equal(e[0].digest_len, 32);
	assert_string_equal(e[1].algo, "sha1");
	assert_int_equal(e[1].digest_len, 20);
	assert_int_equal(pe_authenticode_digest(buf, len,
						hash_algo_bank("sha256"), want,
						&err),
			 IMT_OK);
	assert_memory_equal(e[0].digest, want, 32);
	/* the same name again is refused: the two would be confused */
	assert_int_equal(import_efi_add(imp, "other/stub.efi", buf, len, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "stub.efi: a file of that name"));
	assert_int_equal(imp->nfiles, 1);
	free(imp);
}

static void test_not_pe_named(void **state)
{
	struct import_efi *imp = calloc(1, sizeof(*imp));
	static const uint8_t text[] = "#!/bin/sh\n"
				      "# a script is no image, however long\n"
				      "echo not an image\n";
	struct import_efi_rows rows;
	struct imt_error err;

	(void)state;
	assert_non_null(imp);
	assert_int_equal(import_efi_banks(imp, "sha256", &err), IMT_OK);
	assert_int_equal(import_efi_add(imp, "/tmp/run.sh", text,
					sizeof(text) - 1, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "run.sh: not an EFI image: no MZ"));
	import_efi_rows(imp, &rows);
	assert_int_equal(rows.n, 0);
	assert_int_equal(import_efi_add(imp, "dir/", text, sizeof(text) - 1,
					&err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "want a file name"));
	free(imp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_banks),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_not_pe_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

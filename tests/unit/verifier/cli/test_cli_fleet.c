// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_cli_fleet.c - the BOOT cell of `imatrust machines --boot` from the
 * verifier's boot-log answer: a UEFI log without Secure Boot events is
 * UEFI, not BIOS (issue 34); a SHA-1-only log says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../fixture.h"
#include "../../proto/eventlog_build.h"
#include "boot_log_json.h"
#include "cli.h"
#include "tcg_log.h"

static struct elb b, d;

/* The cell for the decoded JSON of log @b, as the verifier serves it. */
static const char *cell_of_log(char *buf, size_t n)
{
	struct imt_error err;
	json_t *j = boot_log_json(b.buf, b.len, BOOT_LOG_DECODED, &err);

	assert_non_null(j);
	cli_fleet_boot_cell(200, j, buf, n);
	json_decref(j);
	return buf;
}

static void test_uefi_without_secure_boot(void **state)
{
	char cell[32];

	(void)state;
	/* an SEV guest or a cloud VM: EFI events, no SecureBoot, no app */
	elb_open_default(&b);
	elb_event(&b, 0, EV_EFI_PLATFORM_FIRMWARE_BLOB, "0123456789abcdef", 16);
	elb_separator(&b, 7, 0);
	elb_event(&b, 5, EV_EFI_ACTION, "Exit Boot Services Invocation", 29);
	assert_string_equal(cell_of_log(cell, sizeof(cell)), "UEFI SB ?");
	/* SeaBIOS-like: no EV_EFI_* event */
	elb_open_default(&b);
	elb_event(&b, 0, EV_POST_CODE, "post", 4);
	elb_separator(&b, 0, 0xffffffffu);
	assert_string_equal(cell_of_log(cell, sizeof(cell)), "BIOS");
	/* Secure Boot measured off (the variable absent: no data) */
	elb_open_default(&b);
	elb_reset(&d);
	elb_variable(&d, elb_guid_global, "SecureBoot", "", 0);
	elb_event(&b, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, d.buf, (uint32_t)d.len);
	assert_string_equal(cell_of_log(cell, sizeof(cell)), "UEFI SB off");
}

static void test_other_answers(void **state)
{
	char cell[32];
	json_t *j;

	(void)state;
	elb_reset(&b);
	elb_legacy_event(&b, 0, EV_S_CRTM_VERSION, "v", 1);
	assert_string_equal(cell_of_log(cell, sizeof(cell)), "SHA-1 log");
	cli_fleet_boot_cell(404, NULL, cell, sizeof(cell));
	assert_string_equal(cell, "no log");
	cli_fleet_boot_cell(422, NULL, cell, sizeof(cell));
	assert_string_equal(cell, "log 422");
	/* a verifier without facts.uefi: Secure Boot or an application */
	j = json_loads("{\"facts\":{\"secure_boot\":true}}", 0, NULL);
	cli_fleet_boot_cell(200, j, cell, sizeof(cell));
	assert_string_equal(cell, "UEFI SB on");
	json_decref(j);
	j = json_loads("{\"facts\":{\"secure_boot\":null,"
		       "\"applications\":[]}}",
		       0, NULL);
	cli_fleet_boot_cell(200, j, cell, sizeof(cell));
	assert_string_equal(cell, "BIOS");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uefi_without_secure_boot),
		cmocka_unit_test(test_other_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

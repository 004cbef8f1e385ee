// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_boot_facts.c - the facts a boot policy rules on, from synthetic
 * logs (one rule each) and the real OVMF logs of tests/fixtures/eventlog/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../fixture.h"
#include "boot_facts.h"
#include "eventlog_build.h"
#include "hex.h"

static struct elb b, d;
static struct boot_facts f;

static void add_var(uint32_t type, const uint8_t *guid, const char *name,
		    const void *data, size_t len)
{
	elb_reset(&d);
	elb_variable(&d, guid, name, data, len);
	elb_event(&b, 7, type, d.buf, (uint32_t)d.len);
}

static void add_app(const char *path)
{
	static struct elb dp;

	elb_reset(&dp);
	elb_dp_file(&dp, path);
	elb_reset(&d);
	elb_image_load(&d, dp.buf, dp.len);
	elb_event(&b, 4, EV_EFI_BOOT_SERVICES_APPLICATION, d.buf,
		  (uint32_t)d.len);
}

static void synthetic_boot(void)
{
	static struct elb list;
	uint8_t *der, hash[32];
	size_t dlen, i;

	der = fixture_read("ima-sig/rsa.der", &dlen);
	memset(hash, 0x77, sizeof(hash));
	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	elb_reset(&list);
	elb_siglist(&list, elb_guid_x509, der, dlen, 1);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "PK",
		list.buf, list.len);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "KEK",
		list.buf, list.len);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "db", list.buf,
		list.len);
	elb_reset(&list);
	elb_siglist(&list, elb_guid_sha256, hash, 32, 3);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "dbx", list.buf,
		list.len);
	for (i = 0; i < 8; i++)
		elb_separator(&b, (uint32_t)i, 0);
	add_app("\\EFI\\BOOT\\BOOTX64.EFI");
	elb_reset(&list);
	elb_put(&list, "\x11\x22", 2);
	elb_put(&list, der, 14);
	elb_put(&list, der, dlen);
	add_var(EV_EFI_VARIABLE_AUTHORITY, elb_guid_db, "db", list.buf,
		16 + dlen);
	elb_reset(&d);
	elb_utf16(&d, "root=/dev/vda2 ro", 1);
	elb_event(&b, 12, EV_IPL, d.buf, (uint32_t)d.len);
	add_app("\\vmlinuz");
	free(der);
}

static void test_synthetic_facts(void **state)
{
	struct imt_error err;
	char hex[65];

	(void)state;
	synthetic_boot();
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, 1);
	assert_int_equal(f.flags, 0);
	assert_int_equal(f.separated, 0xff);
	assert_int_equal(f.vars[BOOT_VAR_DB].count, 1);
	assert_int_equal(f.vars[BOOT_VAR_DB].certs[0].kind, EFI_SIG_X509);
	assert_string_equal(f.vars[BOOT_VAR_DB].certs[0].cn, "rsa");
	hex_encode(f.vars[BOOT_VAR_DB].certs[0].sha256, 32, hex);
	assert_string_equal(hex, "033df4f69f5281372cac80757073de121240c2928207df373d8fa6ad0aef9734");
	assert_int_equal(f.vars[BOOT_VAR_DBX].count, 3);
	assert_int_equal(f.vars[BOOT_VAR_DBX].certs[2].sha256[0], 0x77);
	assert_int_equal(f.nauth, 1);
	assert_memory_equal(f.auth[0].sha256, f.vars[BOOT_VAR_DB].certs[0].sha256,
			    32);
	assert_int_equal(f.napps, 2);
	assert_string_equal(f.apps[1].path + strlen(f.apps[1].path) - 8,
			    "\\vmlinuz");
	assert_int_equal(f.apps[0].ndigests, 2);
	assert_int_equal(f.apps[0].digests[1].alg_id, 0x000b);
	assert_true(f.has_cmdline);
	assert_string_equal(f.cmdline, "root=/dev/vda2 ro");
}

static void test_no_secure_boot_event(void **state)
{
	struct imt_error err;

	(void)state;
	elb_open_default(&b);
	elb_separator(&b, 7, 0);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, -1);
	assert_false(f.vars[BOOT_VAR_PK].measured);
	assert_int_equal(f.flags, 0);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\0", 1);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	/* Measured, but after PCR 7's separator: noted and suspicious. */
	assert_int_equal(f.secure_boot, 0);
	assert_int_equal(f.flags, BOOT_FACT_AFTER_SEPARATOR);
	assert_int_equal(f.flag_event, 2);
}

static void test_suspicious(void **state)
{
	struct imt_error err;
	size_t i;

	(void)state;
	elb_open_default(&b);
	elb_separator(&b, 0, 0xffffffffu);	/* conventional BIOS: normal */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, 0);
	elb_open_default(&b);
	elb_separator(&b, 0, 1);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_SEPARATOR_ERROR);
	elb_separator(&b, 0, 0);	/* a second separator in PCR 0 */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_true(f.flags & BOOT_FACT_AFTER_SEPARATOR);

	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "db", "junk", 4);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_REPEATED | BOOT_FACT_UNDECODABLE);
	assert_int_equal(f.flag_event, 2);

	elb_open_default(&b);
	for (i = 0; i < BOOT_FACTS_APPS_MAX + 3; i++)
		add_app("\\a.efi");
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_OVERFLOW);
	assert_int_equal(f.napps, BOOT_FACTS_APPS_MAX);
	assert_int_equal(f.apps_total, BOOT_FACTS_APPS_MAX + 3);
	b.len -= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err),
			 IMT_ERR_MALFORMED);
}

static void load(const char *dir, const char *name, uint8_t **buf,
		 size_t *len)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "eventlog/%s/%s", dir, name);
	*buf = fixture_read(rel, len);
}

static void test_real_logs(void **state)
{
	static const char *const dirs[] = { "patched-sb", "patched-nosb" };
	struct imt_error err;
	uint8_t *log, *cmd, *sb;
	size_t len, clen, slen, i;

	(void)state;
	for (i = 0; i < 2; i++) {
		load(dirs[i], "binary_bios_measurements", &log, &len);
		load(dirs[i], "cmdline", &cmd, &clen);
		load(dirs[i], "secure-boot", &sb, &slen);
		assert_int_equal(boot_facts_extract(log, len, &f, &err), IMT_OK);
		if (f.flags)
			fail_msg("%s: flags 0x%x at event %zu", dirs[i],
				 f.flags, f.flag_event);
		assert_int_equal(f.secure_boot, sb[0] - '0');
		assert_int_equal(f.separated, 0xff);
		assert_int_equal(f.napps, 2);
		assert_non_null(strstr(f.apps[0].path, "BOOTX64.EFI"));
		assert_true(f.has_cmdline);
		while (clen && cmd[clen - 1] == '\n')
			clen--;
		cmd[clen] = '\0';
		assert_string_equal(f.cmdline, (char *)cmd);
		assert_true(f.has_load_options_tag);
		/* real OVMF + systemd-boot: PCR 12's text is what PCR 9 tags */
		assert_true(f.cmdline_digest_ok);
		assert_memory_equal(f.cmdline_sha256, f.load_options_sha256,
				    32);
		assert_true(f.vars[BOOT_VAR_DBX].measured);
		if (f.secure_boot) {
			assert_int_equal(f.vars[BOOT_VAR_DB].count, 1);
			assert_int_equal(f.vars[BOOT_VAR_DB].certs[0].kind,
					 EFI_SIG_X509);
			assert_true(f.nauth >= 1);
			assert_memory_equal(f.auth[0].sha256,
					    f.vars[BOOT_VAR_DB].certs[0].sha256,
					    32);
			assert_int_equal(f.vars[BOOT_VAR_PK].count, 1);
		} else {
			assert_int_equal(f.vars[BOOT_VAR_DB].count, 0);
			assert_int_equal(f.nauth, 0);
		}
		free(log);
		free(cmd);
		free(sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_facts),
		cmocka_unit_test(test_no_secure_boot_event),
		cmocka_unit_test(test_suspicious),
		cmocka_unit_test(test_real_logs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

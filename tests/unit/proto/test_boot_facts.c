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

/* A variable event as EDK2 logs EV_EFI_VARIABLE_BOOT: the digests are
 * of VariableData alone. */
static void add_var_data_digest(uint32_t type, const char *name,
				const void *data, size_t len)
{
	uint8_t md[64];
	uint32_t i;

	elb_reset(&d);
	elb_variable(&d, elb_guid_global, name, data, len);
	elb_u32(&b, 7);
	elb_u32(&b, type);
	elb_u32(&b, b.nbanks);
	for (i = 0; i < b.nbanks; i++) {
		elb_u16(&b, b.alg[i]);
		elb_hash(b.alg[i], b.size[i], data, len, md);
		elb_put(&b, md, b.size[i]);
	}
	elb_u32(&b, (uint32_t)d.len);
	elb_put(&b, d.buf, d.len);
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
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "PK", list.buf,
		list.len);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "KEK", list.buf,
		list.len);
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
	assert_string_equal(hex,
			    "033df4f69f5281372cac80757073de121240c2928207df373d8fa6ad0aef9734");
	assert_int_equal(f.vars[BOOT_VAR_DBX].count, 3);
	assert_int_equal(f.vars[BOOT_VAR_DBX].certs[2].sha256[0], 0x77);
	assert_int_equal(f.nauth, 1);
	assert_memory_equal(f.auth[0].sha256,
			    f.vars[BOOT_VAR_DB].certs[0].sha256, 32);
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

	/* no data: the variable is absent, Secure Boot off (PFP 3.3.4.8) */
	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"", 0);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, 0);
	assert_int_equal(f.flags, 0);
	assert_int_equal(f.secure_boot_event.index, 1);
	/* a value neither 0 nor 1 is no answer: unknown, and undecodable */
	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\2", 1);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, BOOT_SB_UNKNOWN);
	assert_int_equal(f.secure_boot_event.why, BOOT_UNDECODABLE);
	assert_int_equal(f.flags, BOOT_FACT_UNDECODABLE);
	/* a second, good SecureBoot does not make it known */
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, BOOT_SB_UNKNOWN);
	assert_int_equal(f.secure_boot_event.index, 1);
	assert_true(f.flags & BOOT_FACT_REPEATED);
}

static void test_suspicious(void **state)
{
	struct imt_error err;
	size_t i;

	(void)state;
	elb_open_default(&b);
	elb_separator(&b, 0, 0xffffffffu); /* conventional BIOS: normal */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, 0);
	elb_open_default(&b);
	elb_separator(&b, 0, 1);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_SEPARATOR_ERROR);
	elb_separator(&b, 0, 0); /* a second separator in PCR 0 */
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
	/* each flag keeps its own first event */
	assert_int_equal(boot_facts_flag_event(&f, BOOT_FACT_REPEATED)->index,
			 2);
	assert_int_equal(boot_facts_flag_event(&f, BOOT_FACT_UNDECODABLE)->index,
			 3);
	assert_null(boot_facts_flag_event(&f, BOOT_FACT_OVERFLOW));
	/* a db that does not decode is not known, though bound */
	assert_int_equal(f.vars[BOOT_VAR_DB].unknown, BOOT_UNDECODABLE);
	assert_int_equal(f.vars[BOOT_VAR_DB].event.index, 3);

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

/* A variable event of @type into @pcr. */
static void add_var_pcr(uint32_t pcr, uint32_t type, const char *name,
			const void *data, size_t len)
{
	elb_reset(&d);
	elb_variable(&d, elb_guid_global, name, data, len);
	elb_event(&b, pcr, type, d.buf, (uint32_t)d.len);
}

/* What real firmware measures into PCR 1 after its separator (another
 * boot option tried, handoff): shown, not refused. */
static void test_pcr1_after_separator(void **state)
{
	struct imt_error err;
	const struct boot_flag_event *e;

	(void)state;
	elb_open_default(&b);
	elb_separator(&b, 1, 0);
	add_var_pcr(1, EV_EFI_VARIABLE_BOOT, "BootOrder", "\1\0", 2);
	add_var_pcr(1, EV_EFI_VARIABLE_BOOT2, "Boot0001", "boot", 4);
	add_var_pcr(1, EV_EFI_VARIABLE_DRIVER_CONFIG, "Setup", "x", 1);
	elb_event(&b, 1, EV_EFI_HANDOFF_TABLES, "smbios-table-ptr-", 17);
	elb_event(&b, 1, EV_EFI_HANDOFF_TABLES2, "smbios", 6);
	elb_event(&b, 1, EV_PLATFORM_CONFIG_FLAGS, "flags", 5);
	elb_event(&b, 1, EV_TABLE_OF_DEVICES, "devs", 4);
	elb_event(&b, 1, EV_NONHOST_CONFIG, "bmc", 3);
	elb_event(&b, 1, EV_NONHOST_INFO, "bmc", 3);
	elb_event(&b, 1, EV_CPU_MICROCODE, "ucode", 5);
	elb_event(&b, 1, EV_EFI_PLATFORM_FIRMWARE_BLOB, "0123456789abcdef", 16);
	elb_event(&b, 1, EV_EFI_PLATFORM_FIRMWARE_BLOB2, "blob", 4);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, 0);
	assert_true(f.uefi);

	/* an earlier flag of another kind, then a boot variable out of
	 * place (PCR 0 after its separator): the flag names that event */
	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "db", "junk", 4);
	elb_separator(&b, 0, 0);
	elb_separator(&b, 1, 0);
	add_var_pcr(1, EV_EFI_VARIABLE_BOOT, "BootOrder", "\1\0", 2);
	add_var_pcr(0, EV_EFI_VARIABLE_BOOT, "BootOrder", "\1\0", 2);
	elb_event(&b, 1, EV_EFI_ACTION, "late", 4);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags,
			 BOOT_FACT_UNDECODABLE | BOOT_FACT_AFTER_SEPARATOR);
	assert_int_equal(f.flag_event, 1);
	e = boot_facts_flag_event(&f, BOOT_FACT_AFTER_SEPARATOR);
	assert_non_null(e);
	assert_int_equal(e->index, 5);
	assert_int_equal(e->pcr, 0);
	assert_int_equal(e->type, EV_EFI_VARIABLE_BOOT);
	/* nothing else of PCR 1's list is allowed in PCR 2-7 either */
	elb_open_default(&b);
	elb_separator(&b, 7, 0);
	elb_event(&b, 7, EV_EFI_HANDOFF_TABLES, "t", 1);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_AFTER_SEPARATOR);
	assert_int_equal(boot_facts_flag_event(&f, BOOT_FACT_AFTER_SEPARATOR)
				 ->pcr,
			 7);
}

/*
 * SeaBIOS booting from a disk: its separators, then the boot attempt,
 * the MBR and the partition table, as the BIOS specification orders them
 * (a real SeaBIOS VM's log did this). Only where that specification
 * puts them: the MBR in PCR 5 is out of place.
 */
static void test_bios_ipl_after_separator(void **state)
{
	struct imt_error err;

	(void)state;
	elb_open_default(&b);
	elb_separator(&b, 4, 0xffffffffu);
	elb_separator(&b, 5, 0xffffffffu);
	elb_event(&b, 4, EV_ACTION, "Booting BCV device 80h (HDD)", 28);
	elb_event(&b, 4, EV_IPL, "MBR", 3);
	elb_event(&b, 5, EV_IPL_PARTITION_DATA, "partitions", 10);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, 0);
	assert_false(f.uefi);
	elb_event(&b, 5, EV_IPL, "MBR", 3);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_AFTER_SEPARATOR);
	assert_int_equal(boot_facts_flag_event(&f, BOOT_FACT_AFTER_SEPARATOR)
				 ->pcr,
			 5);
}

/* UEFI is any EV_EFI_* event, Secure Boot measured or not (the fleet's
 * "BIOS" came from the absence of SecureBoot and applications). */
static void test_uefi(void **state)
{
	struct imt_error err;

	(void)state;
	elb_open_default(&b);
	elb_event(&b, 0, EV_POST_CODE, "post", 4);
	elb_event(&b, 0, EV_NO_ACTION, "StartupLocality\0\0", 17);
	elb_separator(&b, 0, 0xffffffffu);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_false(f.uefi);
	elb_event(&b, 4, EV_EFI_EVENT_BASE, "base", 4); /* not an event */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_false(f.uefi);
	elb_event(&b, 5, EV_EFI_ACTION, "Exit Boot Services Invocation", 29);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_true(f.uefi);
	assert_int_equal(f.secure_boot, BOOT_SB_NOT_MEASURED);
}

static void load(const char *dir, const char *name, uint8_t **buf, size_t *len)
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
		assert_int_equal(boot_facts_extract(log, len, &f, &err),
				 IMT_OK);
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

static void assert_ref(const struct boot_event_ref *r, size_t index,
		       uint32_t pcr, uint32_t type, const char *name,
		       enum boot_unknown why)
{
	assert_int_equal(r->index, index);
	assert_int_equal(r->pcr, pcr);
	assert_int_equal(r->type, type);
	assert_string_equal(r->name, name);
	assert_int_equal(r->why, why);
}

/* shim's GUID of SbatLevel and MokList (605dab50-e046-4300-...). */
static const uint8_t guid_shim[16] = {
	0x50, 0xab, 0x5d, 0x60, 0x46, 0xe0, 0x00, 0x43,
	0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23,
};

/* synthetic_boot() with shim's variables, the end of each event kept. */
static size_t shim_boot(size_t *ends)
{
	size_t n = 0;

	elb_open_default(&b);
	ends[n++] = b.len; /* the header, event 0 */
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	ends[n++] = b.len;
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "PK", "", 0);
	ends[n++] = b.len;
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "KEK", "", 0);
	ends[n++] = b.len;
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "db", "", 0);
	ends[n++] = b.len;
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "dbx", "", 0);
	ends[n++] = b.len;
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, guid_shim, "SbatLevel",
		"sbat,1,2021030218\n", 19);
	ends[n++] = b.len;
	elb_separator(&b, 7, 0);
	ends[n++] = b.len;
	elb_reset(&d);
	elb_put(&d, "MokList\0", 8); /* shim: PCR 14, EV_IPL */
	elb_event(&b, 14, EV_IPL, d.buf, (uint32_t)d.len);
	ends[n++] = b.len;
	elb_reset(&d);
	elb_variable(&d, guid_shim, "MokListTrusted", "\1", 1);
	elb_event(&b, 7, EV_EFI_VARIABLE_AUTHORITY, d.buf, (uint32_t)d.len);
	ends[n++] = b.len;
	return n;
}

/*
 * shim's events: SbatLevel (PCR 7) and MokListTrusted (an authority in
 * PCR 7) are read; unbound, they count as such, and SecureBoot, PK,
 * KEK, db, dbx stay known (each measured, bound). MokList in PCR 14 is
 * not read at all.
 */
static void test_shim_variables(void **state)
{
	struct imt_error err;
	size_t ends[16];

	(void)state;
	shim_boot(ends);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nunbound, 0);
	assert_int_equal(f.secure_boot, 1);
	/* MokListTrusted's one byte is no signature entry: no authority,
	 * and nothing undecodable (real shim logs all have it) */
	assert_int_equal(f.flags, 0);
	assert_int_equal(f.nauth, 0);
	b.buf[ends[6] - 2] ^= 1; /* SbatLevel's data */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nunbound, 1);
	assert_ref(&f.unbound, 6, 7, EV_EFI_VARIABLE_DRIVER_CONFIG, "SbatLevel",
		   BOOT_UNBOUND);
	assert_int_equal(f.secure_boot, 1);
	assert_int_equal(f.vars[BOOT_VAR_DBX].unknown, BOOT_KNOWN);
	b.buf[ends[6] - 2] ^= 1;
	b.buf[ends[8] - 2] ^= 1; /* MokList: not read */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nunbound, 0);
	b.buf[ends[8] - 2] ^= 1;
	b.buf[ends[9] - 1] ^= 1; /* MokListTrusted */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nunbound, 1);
	assert_true(f.auth[0].unknown);
	assert_ref(&f.unbound, 9, 7, EV_EFI_VARIABLE_AUTHORITY,
		   "MokListTrusted", BOOT_UNBOUND);
	b.buf[ends[9] - 1] ^= 1;
	/* SecureBoot renamed: absent by name, unknown by that event */
	b.buf[ends[1] - 3] ^= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, BOOT_SB_UNKNOWN);
	assert_int_equal(f.secure_boot_event.index, 1);
	b.buf[ends[1] - 3] ^= 1;
}

/* A UKI boot: SecureBoot, a separator, then systemd-stub's PCR 11 pairs. */
static size_t uki_boot(size_t *ends)
{
	static const char *const names[] = { ".linux", ".osrel", ".cmdline",
					     ".initrd" };
	static const char *const contents[] = { "MZkernel", "ID=debian\n",
						"root=/dev/vda2 ro",
						"initrd-bytes" };
	size_t i, n = 0;

	elb_open_default(&b);
	ends[n++] = b.len;
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_global, "SecureBoot",
		"\1", 1);
	ends[n++] = b.len;
	elb_separator(&b, 7, 0);
	ends[n++] = b.len;
	for (i = 0; i < 4; i++) {
		/* the name event: 72 bytes of header and sha1, sha256 */
		ends[n++] = b.len + 72 + 2 * (strlen(names[i]) + 1);
		elb_uki_section(&b, names[i], contents[i], strlen(contents[i]));
		ends[n++] = b.len;
	}
	return n;
}

/*
 * The UKI's sections from PCR 11: each name bound to its name event's
 * digests, each contents digest the next event's; a name event with one
 * data byte changed (digests kept) makes that section unknown, naming
 * the event; data that does not decode is unknown as such.
 */
static void test_uki_sections(void **state)
{
	struct imt_error err;
	uint8_t want[32];
	size_t ends[16];

	(void)state;
	uki_boot(ends);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nunbound, 0);
	assert_int_equal(f.nuki, 4);
	assert_int_equal(f.uki_total, 4);
	assert_string_equal(f.uki[0].name, ".linux");
	assert_string_equal(f.uki[2].name, ".cmdline");
	assert_int_equal(f.uki[2].event.index, 7);
	assert_int_equal(f.uki[2].event.why, BOOT_KNOWN);
	assert_int_equal(f.uki[2].contents_event, 8);
	assert_int_equal(f.uki[2].ndigests, 2);
	assert_int_equal(f.uki[2].digests[1].alg_id, 0x000b);
	EVP_Digest("root=/dev/vda2 ro", 17, want, NULL, EVP_sha256(), NULL);
	assert_memory_equal(f.uki[2].digests[1].value, want, 32);
	assert_int_equal(f.flags, 0);
	/* ".cmdline" made ".cmdlind" in the name event's data */
	b.buf[ends[7] - 4] ^= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_string_equal(f.uki[2].name, "");
	assert_ref(&f.uki[2].event, 7, 11, EV_IPL, "", BOOT_UNBOUND);
	assert_int_equal(f.uki[2].event.bad_alg, 0x0004);
	assert_int_equal(f.nunbound, 1);
	assert_int_equal(f.unbound.index, 7);
	assert_string_equal(f.uki[3].name, ".initrd");
	b.buf[ends[7] - 4] ^= 1;
	/* its high byte: not UTF-16 of ASCII */
	b.buf[ends[7] - 3] ^= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_ref(&f.uki[2].event, 7, 11, EV_IPL, "", BOOT_UNDECODABLE);
	b.buf[ends[7] - 3] ^= 1;
	/* the contents event's data names nothing: not read */
	b.buf[ends[8] - 4] ^= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nunbound, 0);
	assert_string_equal(f.uki[2].name, ".cmdline");
	b.buf[ends[8] - 4] ^= 1;
}

/*
 * The pairs go by position among PCR 11's extended events, whatever
 * their type: an event relabelled away from EV_IPL does not shift them.
 * An odd event out leaves the last section without contents.
 */
static void test_uki_positions(void **state)
{
	struct imt_error err;
	size_t ends[16];

	(void)state;
	uki_boot(ends);
	/* the .osrel name event (5) relabelled EV_EVENT_TAG: the type
	 * field is 4 bytes after the event's PCR */
	b.buf[ends[4] + 4] = 0x06;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nuki, 4);
	assert_string_equal(f.uki[1].name, ".osrel");
	assert_string_equal(f.uki[2].name, ".cmdline");
	uki_boot(ends);
	elb_event(&b, 11, EV_NO_ACTION, "x", 1); /* not extended */
	elb_reset(&d);
	elb_utf16(&d, ".dtb", 1);
	elb_event_of(&b, 11, EV_IPL, ".dtb", 5, d.buf, (uint32_t)d.len);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nuki, 5);
	assert_string_equal(f.uki[4].name, ".dtb");
	assert_int_equal(f.uki[4].contents_event, 0);
}

/* More sections than kept: the first kept, the rest counted, flagged. */
static void test_uki_overflow(void **state)
{
	struct imt_error err;
	size_t i;

	(void)state;
	elb_open_default(&b);
	for (i = 0; i < BOOT_FACTS_UKI_MAX + 2; i++)
		elb_uki_section(&b, ".x", &i, sizeof(i));
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nuki, BOOT_FACTS_UKI_MAX);
	assert_int_equal(f.uki_total, BOOT_FACTS_UKI_MAX + 2);
	assert_true(f.flags & BOOT_FACT_OVERFLOW);
	assert_int_equal(f.uki[BOOT_FACTS_UKI_MAX - 1].contents_event,
			 2 * BOOT_FACTS_UKI_MAX);
}

/*
 * shim 15.x logs SbatLevel with tpm_measure_variable(): an authority
 * event in PCR 7 whose digest is of the whole UEFI_VARIABLE_DATA. Bound,
 * its text is the fact (and it is no authority); one data byte changed,
 * digests kept, it is unknown, naming the event. Its vendor certificate,
 * "Shim", is the DER certificate alone.
 */
static void test_sbat_level(void **state)
{
	static const char sbat[] = "sbat,1,2023012900\nshim,2\ngrub,3\n"
				   "grub.debian,4\n";
	struct imt_error err;
	uint8_t *der, want[32];
	size_t dlen, end;

	(void)state;
	der = fixture_read("ima-sig/rsa.der", &dlen);
	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_AUTHORITY, guid_shim, "SbatLevel", sbat,
		strlen(sbat));
	end = b.len;
	add_var(EV_EFI_VARIABLE_AUTHORITY, guid_shim, "Shim", der, dlen);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_true(f.sbat_measured);
	assert_int_equal(f.sbat_unknown, BOOT_KNOWN);
	assert_string_equal(f.sbat, sbat);
	assert_int_equal(f.sbat_event.index, 1);
	assert_int_equal(f.nauth, 1);
	assert_int_equal(f.auth[0].event, 2);
	assert_int_equal(f.auth[0].kind, EFI_SIG_X509);
	EVP_Digest(der, dlen, want, NULL, EVP_sha256(), NULL);
	assert_memory_equal(f.auth[0].sha256, want, 32);
	b.buf[end - 2] ^= 1; /* "grub.debian,4" made "grub.debian,5" */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.sbat_unknown, BOOT_UNBOUND);
	assert_string_equal(f.sbat, "");
	assert_ref(&f.sbat_event, 1, 7, EV_EFI_VARIABLE_AUTHORITY, "SbatLevel",
		   BOOT_UNBOUND);
	/* its name is not bound: it may be an authority, unknown too */
	assert_int_equal(f.nauth, 2);
	assert_true(f.auth[0].unknown);
	b.buf[end - 2] ^= 1;
	/* renamed SbatLevem: no SbatLevel by name, unknown by that event */
	b.buf[end - 2 - strlen(sbat)] ^= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_false(f.sbat_measured);
	assert_int_equal(f.sbat_unknown, BOOT_UNBOUND);
	assert_int_equal(f.sbat_event.index, 1);
	free(der);
}

/* A synthetic dbx of SHA-256 entries: one entry's byte changed. */
static void test_forged_dbx_entry(void **state)
{
	static struct elb list;
	struct imt_error err;
	uint8_t hash[32];

	(void)state;
	memset(hash, 0x5a, sizeof(hash));
	elb_open_default(&b);
	elb_reset(&list);
	elb_siglist(&list, elb_guid_sha256, hash, 32, 2);
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "dbx", list.buf,
		list.len);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.vars[BOOT_VAR_DBX].count, 2);
	b.buf[b.len - 1] ^= 0xff; /* the second entry's hash */
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.vars[BOOT_VAR_DBX].unknown, BOOT_UNBOUND);
	assert_int_equal(f.vars[BOOT_VAR_DBX].count, 0);
	assert_ref(&f.vars[BOOT_VAR_DBX].event, 1, 7,
		   EV_EFI_VARIABLE_DRIVER_CONFIG, "dbx", BOOT_UNBOUND);
	/* a later, bound dbx does not make it known again */
	add_var(EV_EFI_VARIABLE_DRIVER_CONFIG, elb_guid_db, "dbx", list.buf,
		list.len);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.vars[BOOT_VAR_DBX].unknown, BOOT_UNBOUND);
	assert_true(f.flags & BOOT_FACT_REPEATED);
}

/*
 * Authorities count in PCR 7 only; the command line's digests must be
 * its text's in every bank, and equal the tag's in every bank.
 */
static void test_authority_pcr_and_cmdline_banks(void **state)
{
	static const uint8_t tagged[8 + 4] = {
		0xed, 0x22, 0x3b, 0x8f, 4, 0, 0, 0, 'o', 'p', 't', 0,
	};
	struct imt_error err;
	uint8_t md[32];
	size_t at;

	(void)state;
	elb_open_default(&b);
	elb_reset(&d);
	elb_variable(&d, elb_guid_db, "db", "0123456789abcdef0", 17);
	elb_event(&b, 14, EV_EFI_VARIABLE_AUTHORITY, d.buf, (uint32_t)d.len);
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_int_equal(f.nauth, 0);

	/* PCR 12's text, and PCR 9's tag whose digests are of that text */
	elb_open_default(&b);
	elb_reset(&d);
	elb_utf16(&d, "ro quiet", 1);
	elb_event(&b, 12, EV_IPL, d.buf, (uint32_t)d.len);
	at = b.len;
	elb_u32(&b, 9);
	elb_u32(&b, EV_EVENT_TAG);
	elb_u32(&b, 2);
	elb_u16(&b, 0x0004);
	elb_hash(0x0004, 20, d.buf, d.len, md);
	elb_put(&b, md, 20);
	elb_u16(&b, 0x000b);
	elb_hash(0x000b, 32, d.buf, d.len, md);
	elb_put(&b, md, 32);
	elb_u32(&b, sizeof(tagged));
	elb_put(&b, tagged, sizeof(tagged));
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_true(f.cmdline_bound);
	/* the tag's sha1 differs (a quote of sha1 would not bind it) */
	b.buf[at + 12 + 2] ^= 1;
	assert_int_equal(boot_facts_extract(b.buf, b.len, &f, &err), IMT_OK);
	assert_true(f.cmdline_digest_ok);
	assert_memory_equal(f.cmdline_sha256, f.load_options_sha256, 32);
	assert_false(f.cmdline_bound);
}

/* XOR @mask into byte @back from the end of event @index's data. */
static void flip(uint8_t *log, size_t len, size_t index, size_t back,
		 uint8_t mask)
{
	struct tcg_log l;
	struct tcg_event ev;

	assert_int_equal(tcg_log_open(&l, log, len, NULL), IMT_OK);
	do
		assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	while (ev.index < index);
	assert_true(back < ev.len);
	log[ev.data - log + ev.len - 1 - back] ^= mask;
}

/*
 * Issue 34: the real Secure-Boot-off log with SecureBoot's one data byte
 * made 1 and every digest kept replays as before; the fact is unknown.
 */
static void test_forged_secure_boot(void **state)
{
	struct imt_error err;
	uint8_t *log;
	size_t len;

	(void)state;
	load("patched-nosb", "binary_bios_measurements", &log, &len);
	flip(log, len, 4, 0, 1);
	assert_int_equal(boot_facts_extract(log, len, &f, &err), IMT_OK);
	assert_int_equal(f.secure_boot, BOOT_SB_UNKNOWN);
	assert_ref(&f.secure_boot_event, 4, 7, EV_EFI_VARIABLE_DRIVER_CONFIG,
		   "SecureBoot", BOOT_UNBOUND);
	assert_int_equal(f.secure_boot_event.bad_alg, 0x0004);
	assert_int_equal(f.nunbound, 1);
	assert_int_equal(f.unbound.index, 4);
	/* the others are still known: PK measured with no data is empty */
	assert_int_equal(f.vars[BOOT_VAR_PK].unknown, BOOT_KNOWN);
	assert_true(f.vars[BOOT_VAR_PK].measured);
	assert_int_equal(f.flags, 0);
	free(log);
}

/* PK, KEK, db of the Secure Boot log: one byte of each, digests kept. */
static void test_forged_variables(void **state)
{
	static const char *const name[] = { "PK", "KEK", "db" };
	struct imt_error err;
	uint8_t *log;
	size_t len, v, k;

	(void)state;
	for (v = 0; v < 3; v++) {
		load("patched-sb", "binary_bios_measurements", &log, &len);
		flip(log, len, 5 + v, 40, 0x01); /* inside the DER */
		assert_int_equal(boot_facts_extract(log, len, &f, &err),
				 IMT_OK);
		assert_int_equal(f.vars[v].unknown, BOOT_UNBOUND);
		assert_true(f.vars[v].measured);
		assert_int_equal(f.vars[v].count, 0);
		assert_ref(&f.vars[v].event, 5 + v, 7,
			   EV_EFI_VARIABLE_DRIVER_CONFIG, name[v],
			   BOOT_UNBOUND);
		for (k = 0; k < BOOT_VAR_COUNT; k++) {
			if (k != v)
				assert_int_equal(f.vars[k].unknown, BOOT_KNOWN);
		}
		assert_int_equal(f.secure_boot, 1);
		free(log);
	}
}

/*
 * dbx of the real logs holds no data: its name is the byte to change.
 * The renamed event no longer says dbx, but it is not bound, so dbx,
 * left unmeasured, is unknown by it; so is the authority of event 22.
 */
static void test_forged_dbx_and_authority(void **state)
{
	struct imt_error err;
	uint8_t *log;
	size_t len;

	(void)state;
	load("patched-sb", "binary_bios_measurements", &log, &len);
	flip(log, len, 8, 1, 0x01); /* "dbx" -> "dby" */
	assert_int_equal(boot_facts_extract(log, len, &f, &err), IMT_OK);
	assert_false(f.vars[BOOT_VAR_DBX].measured);
	assert_int_equal(f.vars[BOOT_VAR_DBX].unknown, BOOT_UNBOUND);
	assert_ref(&f.vars[BOOT_VAR_DBX].event, 8, 7,
		   EV_EFI_VARIABLE_DRIVER_CONFIG, "dby", BOOT_UNBOUND);
	assert_int_equal(f.vars[BOOT_VAR_DB].unknown, BOOT_KNOWN);
	assert_int_equal(f.secure_boot, 1);
	flip(log, len, 8, 1, 0x01);
	flip(log, len, 22, 100, 0x80);
	assert_int_equal(boot_facts_extract(log, len, &f, &err), IMT_OK);
	assert_int_equal(f.nauth, 1);
	assert_true(f.auth[0].unknown);
	assert_int_equal(f.auth[0].event, 22);
	assert_ref(&f.unbound, 22, 7, EV_EFI_VARIABLE_AUTHORITY, "db",
		   BOOT_UNBOUND);
	assert_int_equal(f.vars[BOOT_VAR_DBX].unknown, BOOT_KNOWN);
	free(log);
}

/* A separator's value and the command line count only when digested. */
static void test_forged_separator_and_cmdline(void **state)
{
	struct imt_error err;
	const struct boot_flag_event *e;
	uint8_t *log;
	size_t len;

	(void)state;
	load("patched-nosb", "binary_bios_measurements", &log, &len);
	flip(log, len, 9, 0, 0x01); /* PCR 7's separator 0 -> error */
	assert_int_equal(boot_facts_extract(log, len, &f, &err), IMT_OK);
	assert_int_equal(f.flags, BOOT_FACT_SEPARATOR_UNKNOWN);
	e = boot_facts_flag_event(&f, BOOT_FACT_SEPARATOR_UNKNOWN);
	assert_non_null(e);
	assert_int_equal(e->index, 9);
	assert_int_equal(e->pcr, 7);
	assert_int_equal(e->type, EV_SEPARATOR);
	assert_null(boot_facts_flag_event(&f, BOOT_FACT_SEPARATOR_ERROR));
	assert_int_equal(f.separated, 0xff);
	flip(log, len, 9, 0, 0x01);
	/* systemd-boot's PCR 12 text with one character changed */
	flip(log, len, 25, 2, 0x01);
	assert_int_equal(boot_facts_extract(log, len, &f, &err), IMT_OK);
	assert_true(f.has_cmdline);
	assert_false(f.cmdline_digest_ok);
	assert_false(f.cmdline_bound);
	assert_ref(&f.unbound, 25, 12, EV_IPL, "", BOOT_UNBOUND);
	free(log);
}

/* Every event of a real log that the facts read is bound, by its rule. */
static void test_real_logs_bound(void **state)
{
	static const char *const dirs[] = {
		"patched-sb",
		"patched-nosb",
		"stock-sb",
		"seabios",
	};
	static const uint32_t read[] = {
		EV_SEPARATOR,
		EV_ACTION,
		EV_EFI_ACTION,
		EV_IPL,
		EV_EFI_VARIABLE_DRIVER_CONFIG,
		EV_EFI_VARIABLE_BOOT,
		EV_EFI_VARIABLE_AUTHORITY,
	};
	struct tcg_log l;
	struct tcg_event ev;
	struct imt_error err;
	uint8_t *log;
	size_t len, i, k, n;

	(void)state;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		load(dirs[i], "binary_bios_measurements", &log, &len);
		assert_int_equal(boot_facts_extract(log, len, &f, &err),
				 IMT_OK);
		assert_int_equal(f.nunbound, 0);
		for (k = 0; k < BOOT_VAR_COUNT; k++)
			assert_int_equal(f.vars[k].unknown, BOOT_KNOWN);
		assert_int_not_equal(f.secure_boot, BOOT_SB_UNKNOWN);
		assert_int_equal(tcg_log_open(&l, log, len, NULL), IMT_OK);
		n = 0;
		while (!tcg_log_done(&l)) {
			assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
			for (k = 0; k < sizeof(read) / sizeof(read[0]); k++) {
				if (ev.type != read[k])
					continue;
				if (!boot_event_bound(&ev, NULL))
					fail_msg("%s: event %zu", dirs[i],
						 ev.index);
				n++;
			}
		}
		assert_true(n >= 8);
		free(log);
	}
}

/*
 * EV_EFI_VARIABLE_BOOT: OVMF digests VariableData only, so its name is
 * not bound but its data is; the whole structure is accepted too.
 */
static void test_variable_boot_rule(void **state)
{
	struct tcg_log l;
	struct tcg_event ev;
	uint8_t *log;
	size_t len;

	(void)state;
	load("patched-nosb", "binary_bios_measurements", &log, &len);
	flip(log, len, 10, 8, 0x01); /* BootOrder -> BootOrdes: no digest */
	assert_int_equal(tcg_log_open(&l, log, len, NULL), IMT_OK);
	do
		assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	while (ev.index < 10);
	assert_int_equal(ev.type, EV_EFI_VARIABLE_BOOT);
	assert_true(boot_event_bound(&ev, NULL));
	flip(log, len, 10, 0, 0x01); /* its data: digested */
	assert_false(boot_event_bound(&ev, NULL));
	free(log);
	/* the PFP 1.05 form: the whole UEFI_VARIABLE_DATA */
	elb_open_default(&b);
	add_var(EV_EFI_VARIABLE_BOOT, elb_guid_global, "BootOrder", "\0\0", 2);
	assert_int_equal(tcg_log_open(&l, b.buf, b.len, NULL), IMT_OK);
	assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	assert_true(boot_event_bound(&ev, NULL));
	/* the EDK2 form built here; any other type never takes it */
	elb_open_default(&b);
	add_var_data_digest(EV_EFI_VARIABLE_BOOT, "BootOrder", "\1\0", 2);
	add_var_data_digest(EV_EFI_VARIABLE_DRIVER_CONFIG, "SecureBoot", "\1",
			    1);
	assert_int_equal(tcg_log_open(&l, b.buf, b.len, NULL), IMT_OK);
	assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	assert_true(boot_event_bound(&ev, NULL));
	assert_int_equal(tcg_log_next(&l, &ev, NULL), IMT_OK);
	assert_false(boot_event_bound(&ev, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_facts),
		cmocka_unit_test(test_no_secure_boot_event),
		cmocka_unit_test(test_suspicious),
		cmocka_unit_test(test_pcr1_after_separator),
		cmocka_unit_test(test_bios_ipl_after_separator),
		cmocka_unit_test(test_uefi),
		cmocka_unit_test(test_real_logs),
		cmocka_unit_test(test_forged_secure_boot),
		cmocka_unit_test(test_forged_variables),
		cmocka_unit_test(test_forged_dbx_and_authority),
		cmocka_unit_test(test_forged_separator_and_cmdline),
		cmocka_unit_test(test_real_logs_bound),
		cmocka_unit_test(test_variable_boot_rule),
		cmocka_unit_test(test_shim_variables),
		cmocka_unit_test(test_forged_dbx_entry),
		cmocka_unit_test(test_authority_pcr_and_cmdline_banks),
		cmocka_unit_test(test_uki_sections),
		cmocka_unit_test(test_uki_positions),
		cmocka_unit_test(test_uki_overflow),
		cmocka_unit_test(test_sbat_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

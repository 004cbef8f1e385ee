// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_efi_event.c - the UEFI event data decoders, on structures built
 * by eventlog_build.h, each good shape and the bad ones that matter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "efi_event.h"
#include "eventlog_build.h"
#include "../fixture.h"
#include "hex.h"

static struct elb b;

static void test_guid_and_text(void **state)
{
	static const uint8_t u16[] = { 'a',  0,	   0xe9, 0,    0x3d, 0xd8,
				       0x00, 0xde, 0x00, 0xd8, 'z',  0,
				       0,    0,	   'x',	 0 };
	struct imt_error err;
	char s[EFI_GUID_TEXT], t[32];

	(void)state;
	efi_guid_text(elb_guid_global, s);
	assert_string_equal(s, "8be4df61-93ca-11d2-aa0d-00e098032b8c");
	assert_int_equal(efi_utf16_text(u16, sizeof(u16), t, sizeof(t), &err),
			 IMT_OK);
	/* é, U+1F600 from a pair, a lone surrogate, stop at U+0000. */
	assert_string_equal(t, "a\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdz");
	assert_int_equal(efi_utf16_text(u16, 3, t, sizeof(t), &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(efi_utf16_text(u16, sizeof(u16), t, 5, &err),
			 IMT_ERR_LIMIT);
	efi_ascii_text((const uint8_t *)"ok\x01\xff\0\0", 6, t, sizeof(t));
	assert_string_equal(t, "ok??");
}

static void test_variable(void **state)
{
	struct efi_variable v;
	struct imt_error err;

	(void)state;
	elb_reset(&b);
	elb_variable(&b, elb_guid_global, "SecureBoot", "\1", 1);
	assert_int_equal(efi_variable_parse(b.buf, b.len, &v, &err), IMT_OK);
	assert_string_equal(v.name, "SecureBoot");
	assert_int_equal(v.len, 1);
	assert_int_equal(v.data[0], 1);
	assert_true(efi_variable_is(&v, "SecureBoot"));
	assert_false(efi_variable_is(&v, "db"));
	/* The name under another vendor GUID is not the same variable. */
	b.buf[0] ^= 1;
	assert_int_equal(efi_variable_parse(b.buf, b.len, &v, &err), IMT_OK);
	assert_false(efi_variable_is(&v, "SecureBoot"));
	assert_int_equal(efi_variable_parse(b.buf, b.len - 1, &v, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "VariableDataLength 1, 0 bytes"));
	b.buf[16] = 0xff;
	assert_int_equal(efi_variable_parse(b.buf, b.len, &v, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "UnicodeNameLength"));
	assert_int_equal(efi_variable_parse(b.buf, 20, &v, &err),
			 IMT_ERR_MALFORMED);
}

static void test_siglist(void **state)
{
	struct efi_siglist it;
	struct efi_sig sig;
	struct imt_error err;
	uint8_t hash[32], digest[32];
	uint8_t *der;
	size_t dlen;
	char cn[64], hex[65];

	(void)state;
	der = fixture_read("ima-sig/rsa.der", &dlen);
	memset(hash, 0x5a, sizeof(hash));
	elb_reset(&b);
	elb_siglist(&b, elb_guid_x509, der, dlen, 1);
	elb_siglist(&b, elb_guid_sha256, hash, 32, 0);
	elb_siglist(&b, elb_guid_sha256, hash, 32, 2);
	efi_siglist_init(&it, b.buf, b.len);
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, EFI_SIG_X509);
	assert_int_equal(sig.len, dlen);
	assert_int_equal(efi_sig_cert(&sig, digest, cn, sizeof(cn)), IMT_OK);
	hex_encode(digest, 32, hex);
	assert_string_equal(hex,
			    "033df4f69f5281372cac80757073de121240c2928207df373d8fa6ad0aef9734");
	assert_string_equal(cn, "rsa");
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_OK);
	assert_int_equal(sig.kind, EFI_SIG_SHA256);
	assert_int_equal(sig.list, 2);
	assert_memory_equal(sig.data, hash, 32);
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_OK);
	assert_int_equal(sig.index, 1);
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_NEED_MORE);

	/* A list size past the chain, a size not dividing, a bad hash. */
	efi_siglist_init(&it, b.buf, b.len - 1);
	while (efi_siglist_next(&it, &sig, &err) == IMT_OK)
		;
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "EFI_SIGNATURE_LIST 2"));
	elb_reset(&b);
	elb_siglist(&b, elb_guid_sha256, hash, 31, 1);
	efi_siglist_init(&it, b.buf, b.len);
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "not 48"));
	b.buf[24] = 20;
	efi_siglist_init(&it, b.buf, b.len);
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "does not divide"));
	/* Not a certificate: digest still, no CN. */
	elb_reset(&b);
	elb_siglist(&b, elb_guid_x509, "junk", 4, 1);
	efi_siglist_init(&it, b.buf, b.len);
	assert_int_equal(efi_siglist_next(&it, &sig, &err), IMT_OK);
	assert_int_equal(efi_sig_cert(&sig, digest, cn, sizeof(cn)), IMT_OK);
	assert_string_equal(cn, "");
	free(der);
}

/* PciRoot/Pci/MAC/Uri/an unknown node, End instance, Offset, End. */
static size_t dp_pci(uint8_t *out)
{
	static const uint8_t mac[32] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	static struct elb d;

	elb_reset(&d);
	elb_put(&d, "\x02\x01\x0c\x00\xd0\x41\x03\x0a\0\0\0\0", 12);
	elb_put(&d, "\x01\x01\x06\x00\x01\x02", 6);
	elb_put(&d, "\x03\x0b\x25\x00", 4);
	elb_put(&d, mac, 32);
	elb_u8(&d, 1);
	elb_put(&d, "\x03\x18\x08\x00http", 8);
	elb_put(&d, "\x09\x09\x06\x00\xbe\xef", 6);
	elb_put(&d, "\x7f\x01\x04\x00", 4);
	elb_put(&d, "\x04\x08\x18\x00\0\0\0\0", 8);
	elb_u64(&d, 0x10);
	elb_u64(&d, 0x20);
	elb_put(&d, "\x7f\xff\x04\x00", 4);
	memcpy(out, d.buf, d.len);
	return d.len;
}

static void test_devpath(void **state)
{
	struct efi_image_load im;
	struct imt_error err;
	char t[EFI_DEVPATH_TEXT_MAX];
	uint8_t dp[256];
	size_t dplen = dp_pci(dp);

	(void)state;
	assert_int_equal(efi_devpath_text(dp, dplen, t, sizeof(t), &err),
			 IMT_OK);
	assert_string_equal(t,
			    "PciRoot(0x0)/Pci(0x2,0x1)/MAC(525400123456,0x1)/Uri(http)/Path(9,9,beef),Offset(0x10,0x20)");
	elb_reset(&b);
	elb_dp_file(&b, "\\EFI\\BOOT\\BOOTX64.EFI");
	assert_int_equal(efi_devpath_text(b.buf, b.len, t, sizeof(t), &err),
			 IMT_OK);
	assert_string_equal(t,
			    "HD(1,GPT,04030201-0000-0000-0000-000000000000,0x800,0x100000)/\\EFI\\BOOT\\BOOTX64.EFI");
	assert_int_equal(efi_devpath_text(b.buf, b.len, t, 20, &err),
			 IMT_ERR_LIMIT);
	b.buf[2] = 3; /* node length below 4 */
	assert_int_equal(efi_devpath_text(b.buf, b.len, t, sizeof(t), &err),
			 IMT_ERR_MALFORMED);
	b.buf[2] = 20; /* HD node too short for its type */
	b.buf[20] = 0x7f;
	assert_int_equal(efi_devpath_text(b.buf, b.len, t, sizeof(t), &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "needs 42"));
	elb_reset(&b);
	elb_image_load(&b, dp, dplen);
	assert_int_equal(efi_image_load_parse(b.buf, b.len, &im, &err), IMT_OK);
	assert_int_equal(im.length, 0x20000);
	assert_int_equal(im.devpath_len, dplen);
	assert_int_equal(im.slack, 0);
	/* EDK2's 8 bytes after the path, shim's 9 after an empty one (the
	 * real logs of the GCE RHEL 8 and shim-booted Ubuntu machines), up
	 * to EFI_IMAGE_LOAD_SLACK_MAX: shown, not refused */
	memset(b.buf + b.len, 0, EFI_IMAGE_LOAD_SLACK_MAX + 1);
	assert_int_equal(efi_image_load_parse(b.buf, b.len + 8, &im, &err),
			 IMT_OK);
	assert_int_equal(im.devpath_len, dplen);
	assert_int_equal(im.slack, 8);
	assert_int_equal(efi_image_load_parse(b.buf,
					      b.len + EFI_IMAGE_LOAD_SLACK_MAX,
					      &im, &err),
			 IMT_OK);
	assert_int_equal(efi_image_load_parse(b.buf,
					      b.len + EFI_IMAGE_LOAD_SLACK_MAX +
						      1,
					      &im, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "LengthOfDevicePath"));
	/* a path longer than the data */
	assert_int_equal(efi_image_load_parse(b.buf, b.len - 1, &im, &err),
			 IMT_ERR_MALFORMED);
	elb_reset(&b);
	elb_image_load(&b, "", 0);
	memset(b.buf + b.len, 0xaf, 9);
	assert_int_equal(efi_image_load_parse(b.buf, b.len + 9, &im, &err),
			 IMT_OK);
	assert_int_equal(im.devpath_len, 0);
	assert_int_equal(im.slack, 9);
}

static void test_gpt_and_load_option(void **state)
{
	static const uint8_t efi_sys[16] = { 0x28, 0x73, 0x2a, 0xc1 };
	struct efi_load_option o;
	struct efi_gpt_part p;
	struct efi_gpt g;
	struct imt_error err;
	uint8_t hdr[92] = "EFI PART";
	uint8_t entry[128] = { 0 };

	(void)state;
	hdr[84] = 128;
	memcpy(entry, efi_sys, 16);
	entry[32] = 0x08;
	entry[56] = 'E';
	entry[58] = 'S';
	elb_reset(&b);
	elb_put(&b, hdr, 92);
	elb_u64(&b, 1);
	elb_put(&b, entry, 128);
	assert_int_equal(efi_gpt_parse(b.buf, b.len, &g, &err), IMT_OK);
	assert_int_equal(g.nparts, 1);
	efi_gpt_part(&g, 0, &p);
	assert_string_equal(p.name, "ES");
	assert_int_equal(p.first_lba, 8);
	assert_int_equal(efi_gpt_parse(b.buf, b.len - 1, &g, &err),
			 IMT_ERR_MALFORMED);
	b.buf[93] = 1;
	assert_int_equal(efi_gpt_parse(b.buf, b.len, &g, &err), IMT_ERR_LIMIT);
	b.buf[0] = 'X';
	assert_int_equal(efi_gpt_parse(b.buf, b.len, &g, &err),
			 IMT_ERR_MALFORMED);

	elb_reset(&b);
	elb_u32(&b, 1);
	elb_u16(&b, 4);
	elb_utf16(&b, "debian", 1);
	elb_put(&b, "\x7f\xff\x04\x00", 4);
	elb_put(&b, "opt", 3);
	assert_int_equal(efi_load_option_parse(b.buf, b.len, &o, &err), IMT_OK);
	assert_string_equal(o.description, "debian");
	assert_int_equal(o.devpath_len, 4);
	assert_int_equal(o.optional_len, 3);
	assert_int_equal(efi_load_option_parse(b.buf, 10, &o, &err),
			 IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "Description"));
}

static void test_small_structures(void **state)
{
	struct efi_tagged_event t;
	struct efi_blob bl;
	struct imt_error err;
	uint32_t v;

	(void)state;
	elb_reset(&b);
	elb_u32(&b, EFI_TAG_LINUX_LOAD_OPTIONS);
	elb_u32(&b, 3);
	elb_put(&b, "abc", 3);
	assert_int_equal(efi_tagged_event_parse(b.buf, b.len, &t, &err),
			 IMT_OK);
	assert_int_equal(t.id, EFI_TAG_LINUX_LOAD_OPTIONS);
	assert_int_equal(efi_tagged_event_parse(b.buf, b.len - 1, &t, &err),
			 IMT_ERR_MALFORMED);

	elb_reset(&b);
	elb_u8(&b, 3);
	elb_put(&b, "fv0", 3);
	elb_u64(&b, 0xffc00000);
	elb_u64(&b, 0x400000);
	assert_int_equal(efi_blob_parse(b.buf, b.len, 1, &bl, &err), IMT_OK);
	assert_int_equal(bl.length, 0x400000);
	assert_int_equal(bl.desc_len, 3);
	assert_int_equal(efi_blob_parse(b.buf + 4, b.len - 4, 0, &bl, &err),
			 IMT_OK);
	assert_int_equal(efi_blob_parse(b.buf, b.len, 0, &bl, &err),
			 IMT_ERR_MALFORMED);

	elb_reset(&b);
	elb_u64(&b, 1);
	elb_put(&b, elb_guid_global, 16);
	elb_u64(&b, 0x1000);
	assert_int_equal(efi_handoff_parse(b.buf, b.len, 0, &bl, &err), IMT_OK);
	assert_int_equal(bl.base, 1);
	assert_int_equal(efi_handoff_parse(b.buf, b.len - 8, 0, &bl, &err),
			 IMT_ERR_MALFORMED);
	b.buf[1] = 1;
	assert_int_equal(efi_handoff_parse(b.buf, b.len, 0, &bl, &err),
			 IMT_ERR_LIMIT);

	assert_int_equal(efi_separator_parse((const uint8_t *)"\1\0\0\0", 4, &v,
					     &err),
			 IMT_OK);
	assert_int_equal(v, 1);
	assert_int_equal(efi_separator_parse((const uint8_t *)"\xff\xff\xff\xff",
					     4, &v, &err),
			 IMT_OK);
	assert_int_equal(v, 0xffffffffu);
	assert_int_equal(efi_separator_parse((const uint8_t *)"\2\0\0\0", 4, &v,
					     &err),
			 IMT_ERR_MALFORMED);
	assert_int_equal(efi_separator_parse((const uint8_t *)"\0\0\0", 3, &v,
					     &err),
			 IMT_ERR_MALFORMED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guid_and_text),
		cmocka_unit_test(test_variable),
		cmocka_unit_test(test_siglist),
		cmocka_unit_test(test_devpath),
		cmocka_unit_test(test_gpt_and_load_option),
		cmocka_unit_test(test_small_structures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

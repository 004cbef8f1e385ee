// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_pe_authenticode.c - PE/COFF layout checks and the Authenticode hash
 * on images built here, field by field. The digests of real EFI files
 * against pesign and sbsign are checked by tests/cli/test_ref_efi.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>

#include "pe_authenticode.h"

#define LFANEW 0x40
#define OPT (LFANEW + 24)
#define HDRS 0x200
#define SEC_SIZE 0x200
#define TAIL 16
#define IMG_LEN (HDRS + 2 * SEC_SIZE + TAIL)
#define CERT_LEN 24 /* one WIN_CERTIFICATE of 20 bytes, padded */
#define BUF_MAX (IMG_LEN + CERT_LEN + 64)

struct img {
	uint8_t b[BUF_MAX];
	size_t len;
	int pe32;
	size_t checksum, cert_dir, table;
};

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v & 0xffff);
	put16(p + 2, v >> 16);
}

static void put_section(struct img *m, int i, const char *name, uint32_t ptr,
			uint32_t size)
{
	uint8_t *s = m->b + m->table + (size_t)i * 40;

	memcpy(s, name, strlen(name));
	put32(s + 16, size);
	put32(s + 20, ptr);
}

/*
 * An image: headers to HDRS, ".data" listed before ".text" but placed
 * after it (the hash goes in file order), 16 bytes after the sections.
 */
static void build(struct img *m, int pe32, uint32_t nrva)
{
	size_t dirs = OPT + (pe32 ? 96 : 112);
	size_t i;

	memset(m, 0, sizeof(*m));
	m->pe32 = pe32;
	m->len = IMG_LEN;
	for (i = HDRS; i < IMG_LEN; i++)
		m->b[i] = (uint8_t)(i * 7 + 1);
	m->b[0] = 'M';
	m->b[1] = 'Z';
	put32(m->b + 0x3c, LFANEW);
	memcpy(m->b + LFANEW, "PE\0\0", 4);
	put16(m->b + LFANEW + 4, PE_MACHINE_X86_64);
	put16(m->b + LFANEW + 6, 2);
	put16(m->b + LFANEW + 20, (unsigned int)(dirs - OPT + 16 * 8));
	put16(m->b + OPT, pe32 ? 0x10b : 0x20b);
	put32(m->b + OPT + 60, HDRS);
	put32(m->b + OPT + 64, 0x12345678);
	put16(m->b + OPT + 68, PE_SUBSYSTEM_EFI_APPLICATION);
	put32(m->b + dirs - 4, nrva);
	m->checksum = OPT + 64;
	m->cert_dir = dirs + 4 * 8;
	m->table = dirs + 16 * 8;
	put_section(m, 0, ".data", HDRS + SEC_SIZE, SEC_SIZE);
	put_section(m, 1, ".text", HDRS, SEC_SIZE);
}

/* Append a certificate table of one entry and point the directory at it. */
static void sign(struct img *m)
{
	memset(m->b + m->len, 0xee, CERT_LEN);
	put32(m->b + m->len, 20);
	put32(m->b + m->cert_dir, (uint32_t)m->len);
	put32(m->b + m->cert_dir + 4, CERT_LEN);
	m->len += CERT_LEN;
}

/* The expected hash, range by range as the Authenticode spec lists them. */
static void expect(const struct img *m, int has_dir, uint8_t *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t skip = has_dir ? m->cert_dir : HDRS;

	assert_non_null(ctx);
	assert_true(EVP_DigestInit_ex(ctx, EVP_sha256(), NULL));
	EVP_DigestUpdate(ctx, m->b, m->checksum);
	EVP_DigestUpdate(ctx, m->b + m->checksum + 4, skip - m->checksum - 4);
	if (has_dir)
		EVP_DigestUpdate(ctx, m->b + skip + 8, HDRS - skip - 8);
	EVP_DigestUpdate(ctx, m->b + HDRS, IMG_LEN - HDRS);
	assert_true(EVP_DigestFinal_ex(ctx, out, NULL));
	EVP_MD_CTX_free(ctx);
}

static enum imt_result digest(const struct img *m, uint8_t *out,
			      struct imt_error *err)
{
	return pe_authenticode_digest(m->b, m->len, hash_algo_bank("sha256"),
				      out, err);
}

static void check_layout(int pe32, uint32_t nrva)
{
	uint8_t got[32], want[32];
	struct imt_error err;
	struct pe_info info;
	struct img m;

	build(&m, pe32, nrva);
	expect(&m, nrva > 4, want);
	assert_int_equal(digest(&m, got, &err), IMT_OK);
	assert_memory_equal(got, want, 32);
	assert_int_equal(pe_describe(m.b, m.len, &info, &err), IMT_OK);
	assert_int_equal(info.pe32plus, !pe32);
	assert_int_equal(info.machine, PE_MACHINE_X86_64);
	assert_int_equal(info.subsystem, PE_SUBSYSTEM_EFI_APPLICATION);
	assert_int_equal(info.sections, 2);
	assert_int_equal(info.signatures, 0);
	assert_string_equal(pe_machine_name(info.machine), "x86_64");
}

static void test_pe32plus(void **state)
{
	(void)state;
	check_layout(0, 16);
}

static void test_pe32(void **state)
{
	(void)state;
	check_layout(1, 16);
}

/* Four directories: no Certificate Table entry to leave out. */
static void test_no_cert_dir(void **state)
{
	(void)state;
	check_layout(0, 4);
}

/* Neither the CheckSum nor the signature changes the digest; code does. */
static void test_what_is_hashed(void **state)
{
	uint8_t plain[32], got[32];
	struct imt_error err;
	struct pe_info info;
	struct img m;

	(void)state;

	build(&m, 0, 16);
	assert_int_equal(digest(&m, plain, &err), IMT_OK);
	put32(m.b + m.checksum, 0);
	sign(&m);
	assert_int_equal(digest(&m, got, &err), IMT_OK);
	assert_memory_equal(got, plain, 32);
	assert_int_equal(pe_describe(m.b, m.len, &info, &err), IMT_OK);
	assert_int_equal(info.signatures, 1);
	assert_int_equal(info.cert_offset, IMG_LEN);
	assert_int_equal(info.cert_size, CERT_LEN);
	m.b[m.len - 1] ^= 1; /* inside the signature */
	assert_int_equal(digest(&m, got, &err), IMT_OK);
	assert_memory_equal(got, plain, 32);
	m.b[HDRS + 5] ^= 1; /* inside .text */
	assert_int_equal(digest(&m, got, &err), IMT_OK);
	assert_memory_not_equal(got, plain, 32);
	m.b[HDRS + 5] ^= 1;
	m.b[IMG_LEN - 1] ^= 1; /* in the data after the last section */
	assert_int_equal(digest(&m, got, &err), IMT_OK);
	assert_memory_not_equal(got, plain, 32);
}

static void test_truncated(void **state)
{
	static const struct {
		size_t len;
		const char *msg;
	} cuts[] = {
		{ 0, "ends inside the MZ header" },
		{ 0x3f, "ends inside the MZ header" },
		{ LFANEW + 23, "e_lfanew 64 out of range for a file of 87" },
		{ OPT + 1, "ends inside the optional header" },
		{ OPT + 100, "ends inside the optional header" },
		{ OPT + 240 + 40, "ends inside the section table" },
		{ HDRS - 1, "SizeOfHeaders 512 out of range" },
		{ HDRS + 100,
		  "section 1 .data: PointerToRawData + SizeOfRawData beyond the file" },
		{ IMG_LEN - TAIL - 1, "section 1 .data: PointerToRawData" },
	};
	struct imt_error err;
	uint8_t out[32];
	struct img m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		build(&m, 0, 16);
		m.len = cuts[i].len;
		assert_int_equal(digest(&m, out, &err), IMT_ERR_MALFORMED);
		if (strstr(err.msg, cuts[i].msg) == NULL)
			fail_msg("cut at %zu: \"%s\", want \"%s\"", cuts[i].len,
				 err.msg, cuts[i].msg);
	}
}

static void set_e_lfanew(struct img *m)
{
	put32(m->b + 0x3c, 0xfffffff0);
}

static void set_not_mz(struct img *m)
{
	m->b[1] = 'X';
}

static void set_not_pe(struct img *m)
{
	m->b[LFANEW + 1] = 'X';
}

static void set_small_opt(struct img *m)
{
	put16(m->b + LFANEW + 20, 100);
}

static void set_many_rva(struct img *m)
{
	put16(m->b + LFANEW + 20, 112 + 8 * 4);
	put32(m->b + OPT + 108, 16);
}

static void set_big_section(struct img *m)
{
	put32(m->b + m->table + 40 + 16, 0xffffffff);
	put32(m->b + m->table + 40 + 20, 0xffffffff);
}

static void set_cert_overlap(struct img *m)
{
	sign(m);
	put32(m->b + m->cert_dir, HDRS + SEC_SIZE + 0x100);
	put32(m->b + m->cert_dir + 4,
	      (uint32_t)m->len - (HDRS + SEC_SIZE + 0x100));
	/* one entry covering it, so only the overlap is wrong */
	put32(m->b + HDRS + SEC_SIZE + 0x100,
	      (uint32_t)m->len - (HDRS + SEC_SIZE + 0x100));
}

static void set_cert_not_at_end(struct img *m)
{
	sign(m);
	m->len += 8;
}

static void set_cert_beyond(struct img *m)
{
	sign(m);
	put32(m->b + m->cert_dir + 4, 0xfffffff8);
}

static void set_cert_unaligned(struct img *m)
{
	sign(m);
	put32(m->b + m->cert_dir, IMG_LEN + 4);
	put32(m->b + m->cert_dir + 4, CERT_LEN - 4);
}

static void set_cert_entry(struct img *m)
{
	sign(m);
	put32(m->b + IMG_LEN, CERT_LEN + 8);
}

static void set_magic(struct img *m)
{
	put16(m->b + OPT, 0x107);
}

static void set_sections(struct img *m)
{
	put16(m->b + LFANEW + 6, PE_MAX_SECTIONS + 1);
}

static const struct {
	void (*change)(struct img *m);
	enum imt_result rc;
	const char *msg;
} bad[] = {
	{ set_not_mz, IMT_ERR_MALFORMED, "no MZ signature" },
	{ set_e_lfanew, IMT_ERR_MALFORMED, "e_lfanew 4294967280 out of range" },
	{ set_not_pe, IMT_ERR_MALFORMED, "no PE signature at e_lfanew 64" },
	{ set_small_opt, IMT_ERR_MALFORMED,
	  "SizeOfOptionalHeader 100 too small for a PE32+" },
	{ set_many_rva, IMT_ERR_MALFORMED,
	  "NumberOfRvaAndSizes 16 beyond SizeOfOptionalHeader 144" },
	{ set_big_section, IMT_ERR_MALFORMED,
	  "section 2 .text: PointerToRawData + SizeOfRawData beyond the file" },
	{ set_cert_overlap, IMT_ERR_MALFORMED,
	  "section 1 .data: PointerToRawData + SizeOfRawData beyond the certificate table" },
	{ set_cert_not_at_end, IMT_ERR_MALFORMED,
	  "Certificate Table ends at 1576, not at the end of the file (1584 bytes)" },
	{ set_cert_beyond, IMT_ERR_MALFORMED,
	  "Certificate Table 1552+4294967288 must be 8-byte aligned after the headers and within the file" },
	{ set_cert_unaligned, IMT_ERR_MALFORMED, "must be 8-byte aligned" },
	{ set_cert_entry, IMT_ERR_MALFORMED,
	  "WIN_CERTIFICATE dwLength 32 at 1552 out of range" },
	{ set_magic, IMT_ERR_UNSUPPORTED,
	  "magic 0x107 is neither PE32 nor PE32+" },
	{ set_sections, IMT_ERR_LIMIT, "NumberOfSections 97 exceeds 96" },
};

static void test_bad_fields(void **state)
{
	struct imt_error err;
	struct pe_info info;
	uint8_t out[32];
	struct img m;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build(&m, 0, 16);
		bad[i].change(&m);
		assert_int_equal(digest(&m, out, &err), bad[i].rc);
		if (strstr(err.msg, bad[i].msg) == NULL)
			fail_msg("case %zu: \"%s\", want \"%s\"", i, err.msg,
				 bad[i].msg);
		assert_int_equal(pe_describe(m.b, m.len, &info, &err),
				 bad[i].rc);
	}
}

/* The sha256 of @n bytes at @p, then @zeros zero bytes. */
static void loaded(const uint8_t *p, size_t n, size_t zeros, uint8_t *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	uint8_t z = 0;

	assert_non_null(ctx);
	assert_true(EVP_DigestInit_ex(ctx, EVP_sha256(), NULL));
	EVP_DigestUpdate(ctx, p, n);
	while (zeros-- > 0)
		EVP_DigestUpdate(ctx, &z, 1);
	assert_true(EVP_DigestFinal_ex(ctx, out, NULL));
	EVP_MD_CTX_free(ctx);
}

/*
 * A section as systemd-stub measures it: VirtualSize bytes as loaded, the
 * raw data cut to it or zeros after it; a section not there is not found.
 */
static void test_section_digest(void **state)
{
	const struct hash_algo *sha256 = hash_algo_bank("sha256");
	uint8_t got[32], want[32];
	struct imt_error err;
	struct img m;
	int found;

	(void)state;
	build(&m, 0, 16);
	put32(m.b + m.table + 8, 100);		     /* .data's VirtualSize */
	put32(m.b + m.table + 40 + 8, SEC_SIZE + 3); /* .text's */
	assert_int_equal(pe_section_digest(m.b, m.len, ".data", sha256, got,
					   &found, &err),
			 IMT_OK);
	assert_true(found);
	loaded(m.b + HDRS + SEC_SIZE, 100, 0, want);
	assert_memory_equal(got, want, 32);
	assert_int_equal(pe_section_digest(m.b, m.len, ".text", sha256, got,
					   &found, &err),
			 IMT_OK);
	assert_true(found);
	loaded(m.b + HDRS, SEC_SIZE, 3, want);
	assert_memory_equal(got, want, 32);
	assert_int_equal(pe_section_digest(m.b, m.len, ".tex", sha256, got,
					   &found, &err),
			 IMT_OK);
	assert_false(found);
	assert_int_equal(pe_section_digest(m.b, m.len, ".linux", sha256, got,
					   &found, &err),
			 IMT_OK);
	assert_false(found);
	put32(m.b + m.table + 8, SEC_SIZE + PE_SECTION_PAD_MAX + 1);
	assert_int_equal(pe_section_digest(m.b, m.len, ".data", sha256, got,
					   &found, &err),
			 IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "section .data: VirtualSize"));
	m.len = HDRS + SEC_SIZE + 10; /* .data cut */
	assert_int_equal(pe_section_digest(m.b, m.len, ".data", sha256, got,
					   &found, &err),
			 IMT_ERR_MALFORMED);
	assert_false(found);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pe32plus),
		cmocka_unit_test(test_pe32),
		cmocka_unit_test(test_no_cert_dir),
		cmocka_unit_test(test_what_is_hashed),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_section_digest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * pe_authenticode.c - PE/COFF layout checks and the Authenticode hash.
 *
 * Offsets are those of the PE/COFF specification (Microsoft, "PE Format")
 * and the order of hashing that of "Windows Authenticode Portable
 * Executable Signature Format" §"Calculating the PE Image Hash", which
 * EDK2's DxeTpm2MeasureBootLib follows when it measures an image. All
 * arithmetic on file fields is done in uint64_t, where a sum of two
 * 32-bit fields cannot wrap, and compared with the file length.
 */
#include <string.h>

#include <openssl/evp.h>

#include "pe_authenticode.h"

#define DOS_HEADER_SIZE 0x40
#define DOS_LFANEW 0x3c
#define COFF_SIZE 20
#define OPT_MAGIC_PE32 0x10b
#define OPT_MAGIC_PE32PLUS 0x20b
#define OPT_SIZE_OF_HEADERS 60
#define OPT_CHECKSUM 64
#define OPT_SUBSYSTEM 68
#define OPT_NUM_RVA_PE32 92
#define OPT_NUM_RVA_PE32PLUS 108
#define DATA_DIR_SIZE 8
#define DIR_SECURITY 4 /* the Certificate Table entry */
#define SECTION_SIZE 40
#define WIN_CERT_HEADER 8 /* dwLength, wRevision, wCertificateType */

struct pe_section {
	uint32_t raw_ptr;    /* PointerToRawData */
	uint32_t raw_size;   /* SizeOfRawData */
	unsigned int number; /* 1-based, as in the section table */
};

/* Everything the hash needs, found by pe_layout_parse(). */
struct pe_layout {
	struct pe_info info;
	size_t checksum;  /* file offset of CheckSum */
	size_t cert_dir;  /* file offset of the Certificate Table entry */
	int has_cert_dir; /* NumberOfRvaAndSizes > DIR_SECURITY */
	size_t size_of_headers;
	unsigned int nhashed; /* sections with raw data, in sec[] */
	struct pe_section sec[PE_MAX_SECTIONS]; /* by PointerToRawData */
};

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static enum imt_result truncated(struct imt_error *err, size_t len, size_t off,
				 const char *what)
{
	return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, off,
			     "file of %zu bytes ends inside the %s (offset %zu)",
			     len, what, off);
}

/* Section name for messages: printable bytes of the 8-byte field. */
static void section_name(const uint8_t *p, char *out)
{
	int i;

	for (i = 0; i < 8 && p[i] != 0; i++)
		out[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	out[i] = 0;
}

static enum imt_result parse_headers(const uint8_t *buf, size_t len,
				     struct pe_layout *l, size_t *sec_table,
				     struct imt_error *err)
{
	uint64_t lfanew, opt, opt_size, nrva_off, need;
	uint32_t nrva;
	uint16_t magic;

	if (len < DOS_HEADER_SIZE)
		return truncated(err, len, 0, "MZ header");
	if (buf[0] != 'M' || buf[1] != 'Z')
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
				     "no MZ signature: not a PE/COFF image");
	lfanew = get32(buf + DOS_LFANEW);
	if (lfanew < DOS_HEADER_SIZE || lfanew + 4 + COFF_SIZE > len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     DOS_LFANEW,
				     "e_lfanew %llu out of range for a file of %zu bytes",
				     (unsigned long long)lfanew, len);
	if (memcmp(buf + lfanew, "PE\0\0", 4) != 0)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     (size_t)lfanew,
				     "no PE signature at e_lfanew %llu",
				     (unsigned long long)lfanew);
	l->info.machine = get16(buf + lfanew + 4);
	l->info.sections = get16(buf + lfanew + 6);
	opt_size = get16(buf + lfanew + 20);
	opt = lfanew + 4 + COFF_SIZE;
	if (l->info.sections > PE_MAX_SECTIONS)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				     (size_t)lfanew + 6,
				     "NumberOfSections %u exceeds %d",
				     l->info.sections, PE_MAX_SECTIONS);
	if (opt + 2 > len)
		return truncated(err, len, (size_t)opt, "optional header");
	magic = get16(buf + opt);
	if (magic != OPT_MAGIC_PE32 && magic != OPT_MAGIC_PE32PLUS)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     (size_t)opt,
				     "optional header magic 0x%x is neither PE32 nor PE32+",
				     magic);
	l->info.pe32plus = magic == OPT_MAGIC_PE32PLUS;
	nrva_off = opt +
		   (l->info.pe32plus ? OPT_NUM_RVA_PE32PLUS : OPT_NUM_RVA_PE32);
	if (opt_size < nrva_off + 4 - opt)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     (size_t)lfanew + 20,
				     "SizeOfOptionalHeader %llu too small for a %s header",
				     (unsigned long long)opt_size,
				     l->info.pe32plus ? "PE32+" : "PE32");
	if (opt + opt_size > len)
		return truncated(err, len, (size_t)opt, "optional header");
	nrva = get32(buf + nrva_off);
	need = nrva_off + 4 - opt +
	       (uint64_t)(nrva > DIR_SECURITY ? DIR_SECURITY + 1 : nrva) *
		       DATA_DIR_SIZE;
	if (opt_size < need)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     (size_t)nrva_off,
				     "NumberOfRvaAndSizes %u beyond SizeOfOptionalHeader %llu",
				     nrva, (unsigned long long)opt_size);
	l->info.subsystem = get16(buf + opt + OPT_SUBSYSTEM);
	l->checksum = (size_t)opt + OPT_CHECKSUM;
	l->has_cert_dir = nrva > DIR_SECURITY;
	l->cert_dir = (size_t)(nrva_off + 4) + DIR_SECURITY * DATA_DIR_SIZE;
	*sec_table = (size_t)(opt + opt_size);
	if ((uint64_t)*sec_table + (uint64_t)l->info.sections * SECTION_SIZE >
	    len)
		return truncated(err, len, *sec_table, "section table");
	l->size_of_headers = get32(buf + opt + OPT_SIZE_OF_HEADERS);
	need = l->has_cert_dir ? l->cert_dir + DATA_DIR_SIZE : l->checksum + 4;
	if (l->size_of_headers < need || l->size_of_headers > len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     (size_t)opt + OPT_SIZE_OF_HEADERS,
				     "SizeOfHeaders %zu out of range (%llu to %zu)",
				     l->size_of_headers,
				     (unsigned long long)need, len);
	return IMT_OK;
}

/* The certificate table: 8-byte aligned whole entries ending the file. */
static enum imt_result parse_cert_table(const uint8_t *buf, size_t len,
					struct pe_layout *l,
					struct imt_error *err)
{
	uint64_t off, end, pos;

	l->info.cert_offset = 0;
	l->info.cert_size = 0;
	l->info.signatures = 0;
	if (!l->has_cert_dir || get32(buf + l->cert_dir + 4) == 0)
		return IMT_OK;
	off = get32(buf + l->cert_dir);
	end = off + get32(buf + l->cert_dir + 4);
	if (off < l->size_of_headers || end > len || off % 8 || end % 8)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     l->cert_dir,
				     "Certificate Table %llu+%llu must be 8-byte aligned after the headers and within the file of %zu bytes",
				     (unsigned long long)off,
				     (unsigned long long)(end - off), len);
	if (end != len)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     (size_t)end,
				     "Certificate Table ends at %llu, not at the end of the file (%zu bytes)",
				     (unsigned long long)end, len);
	for (pos = off; pos < end; l->info.signatures++) {
		uint64_t n;

		if (end - pos < WIN_CERT_HEADER)
			return truncated(err, len, (size_t)pos,
					 "WIN_CERTIFICATE header");
		n = get32(buf + pos);
		if (n < WIN_CERT_HEADER || n > end - pos)
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     (size_t)pos,
					     "WIN_CERTIFICATE dwLength %llu at %llu out of range",
					     (unsigned long long)n,
					     (unsigned long long)pos);
		pos += (n + 7) & ~(uint64_t)7;
	}
	l->info.cert_offset = (uint32_t)off;
	l->info.cert_size = (uint32_t)(end - off);
	return IMT_OK;
}

/*
 * Each section with raw data, checked against the file and the
 * certificate table, then sorted by PointerToRawData (insertion sort,
 * stable: equal offsets keep table order).
 */
static enum imt_result parse_sections(const uint8_t *buf, size_t len,
				      size_t table, struct pe_layout *l,
				      struct imt_error *err)
{
	uint64_t limit = l->info.cert_size ? l->info.cert_offset : len;
	unsigned int i, j;

	l->nhashed = 0;
	for (i = 0; i < l->info.sections; i++) {
		const uint8_t *s = buf + table + (size_t)i * SECTION_SIZE;
		struct pe_section cur = {
			.raw_size = get32(s + 16),
			.raw_ptr = get32(s + 20),
			.number = i + 1,
		};
		char name[9];

		if (cur.raw_size == 0)
			continue;
		if ((uint64_t)cur.raw_ptr + cur.raw_size > limit) {
			section_name(s, name);
			return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
					     table + (size_t)i * SECTION_SIZE,
					     "section %u %s: PointerToRawData + SizeOfRawData beyond the %s",
					     cur.number, name,
					     l->info.cert_size ?
						     "certificate table" :
						     "file");
		}
		for (j = l->nhashed;
		     j > 0 && l->sec[j - 1].raw_ptr > cur.raw_ptr; j--)
			l->sec[j] = l->sec[j - 1];
		l->sec[j] = cur;
		l->nhashed++;
	}
	return IMT_OK;
}

/* @table receives the section table's file offset. */
static enum imt_result layout_parse(const uint8_t *buf, size_t len,
				    struct pe_layout *l, size_t *table,
				    struct imt_error *err)
{
	enum imt_result rc;

	*table = 0;
	memset(&l->info, 0, sizeof(l->info));
	rc = parse_headers(buf, len, l, table, err);
	if (rc == IMT_OK)
		rc = parse_cert_table(buf, len, l, err);
	if (rc == IMT_OK)
		rc = parse_sections(buf, len, *table, l, err);
	return rc;
}

enum imt_result pe_describe(const uint8_t *buf, size_t len,
			    struct pe_info *info, struct imt_error *err)
{
	struct pe_layout l;
	enum imt_result rc;
	size_t table;

	rc = layout_parse(buf, len, &l, &table, err);
	if (rc == IMT_OK)
		*info = l.info;
	return rc;
}

/* Feed the ranges of the Authenticode hash to @ctx; 1 on success. */
static int hash_image(EVP_MD_CTX *ctx, const uint8_t *buf, size_t len,
		      const struct pe_layout *l)
{
	size_t skip = l->has_cert_dir ? l->cert_dir : l->size_of_headers;
	uint64_t hashed = l->size_of_headers, tail_end;
	unsigned int i;
	int ok;

	ok = EVP_DigestUpdate(ctx, buf, l->checksum) &&
	     EVP_DigestUpdate(ctx, buf + l->checksum + 4,
			      skip - (l->checksum + 4));
	if (l->has_cert_dir)
		ok = ok && EVP_DigestUpdate(ctx, buf + skip + DATA_DIR_SIZE,
					    l->size_of_headers -
						    (skip + DATA_DIR_SIZE));
	for (i = 0; ok && i < l->nhashed; i++) {
		ok = EVP_DigestUpdate(ctx, buf + l->sec[i].raw_ptr,
				      l->sec[i].raw_size);
		hashed += l->sec[i].raw_size;
	}
	/*
	 * The spec (and EDK2) take the rest from SUM_OF_BYTES_HASHED, not
	 * from the end of the last section; equal in any linker's output.
	 */
	tail_end = len - (uint64_t)l->info.cert_size;
	if (ok && hashed < tail_end)
		ok = EVP_DigestUpdate(ctx, buf + hashed,
				      (size_t)(tail_end - hashed));
	return ok;
}

enum imt_result pe_authenticode_digest(const uint8_t *buf, size_t len,
				       const struct hash_algo *algo,
				       uint8_t *out, struct imt_error *err)
{
	enum imt_result rc = IMT_OK;
	EVP_MD_CTX *ctx = NULL;
	struct pe_layout l;
	const EVP_MD *md;
	size_t table;

	rc = layout_parse(buf, len, &l, &table, err);
	if (rc != IMT_OK)
		return rc;
	md = EVP_get_digestbyname(algo->name);
	ctx = EVP_MD_CTX_new();
	if (md == NULL || ctx == NULL || !EVP_DigestInit_ex(ctx, md, NULL) ||
	    !hash_image(ctx, buf, len, &l) ||
	    !EVP_DigestFinal_ex(ctx, out, NULL))
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS, "cannot hash with %s",
				   algo->name);
	EVP_MD_CTX_free(ctx);
	return rc;
}

/* Feed the section at @s to @ctx as loaded: VirtualSize bytes, the raw
 * data and then zeros past SizeOfRawData; 1 on success. */
static int hash_loaded(EVP_MD_CTX *ctx, const uint8_t *buf, const uint8_t *s)
{
	static const uint8_t zeros[4096];
	uint32_t vsize = get32(s + 8), raw = get32(s + 16);
	uint32_t n = vsize < raw ? vsize : raw, pad = vsize - n;
	int ok = n == 0 || EVP_DigestUpdate(ctx, buf + get32(s + 20), n);

	for (; ok && pad > 0; pad -= n) {
		n = pad < sizeof(zeros) ? pad : (uint32_t)sizeof(zeros);
		ok = EVP_DigestUpdate(ctx, zeros, n);
	}
	return ok;
}

/* The header of section @name in the table at @table, or NULL. */
static const uint8_t *find_section(const uint8_t *buf, size_t table,
				   unsigned int n, const char *name)
{
	size_t k = strlen(name);
	unsigned int i;

	for (i = 0; k <= 8 && i < n; i++) {
		const uint8_t *s = buf + table + (size_t)i * SECTION_SIZE;

		if (memcmp(s, name, k) == 0 && (k == 8 || s[k] == 0))
			return s;
	}
	return NULL;
}

enum imt_result pe_section_digest(const uint8_t *buf, size_t len,
				  const char *name,
				  const struct hash_algo *algo, uint8_t *out,
				  int *found, struct imt_error *err)
{
	enum imt_result rc;
	EVP_MD_CTX *ctx = NULL;
	struct pe_layout l;
	const uint8_t *s;
	const EVP_MD *md;
	size_t table;

	*found = 0;
	rc = layout_parse(buf, len, &l, &table, err);
	s = rc == IMT_OK ? find_section(buf, table, l.info.sections, name) :
			   NULL;
	if (s == NULL)
		return rc;
	if (get32(s + 8) > (uint64_t)get32(s + 16) + PE_SECTION_PAD_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				     (size_t)(s - buf),
				     "section %s: VirtualSize more than %u "
				     "bytes beyond SizeOfRawData",
				     name, PE_SECTION_PAD_MAX);
	md = EVP_get_digestbyname(algo->name);
	ctx = EVP_MD_CTX_new();
	if (md == NULL || ctx == NULL || !EVP_DigestInit_ex(ctx, md, NULL) ||
	    !hash_loaded(ctx, buf, s) || !EVP_DigestFinal_ex(ctx, out, NULL))
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS, "cannot hash with %s",
				   algo->name);
	else
		*found = 1;
	EVP_MD_CTX_free(ctx);
	return rc;
}

static const struct {
	uint16_t machine;
	const char *name;
} machines[] = {
	{ PE_MACHINE_X86_64, "x86_64" },   { PE_MACHINE_I386, "i386" },
	{ PE_MACHINE_AARCH64, "aarch64" }, { PE_MACHINE_ARM, "arm" },
	{ PE_MACHINE_RISCV64, "riscv64" },
};

const char *pe_machine_name(uint16_t machine)
{
	size_t i;

	for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
		if (machines[i].machine == machine)
			return machines[i].name;
	return "unknown";
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * eventlog_build.h - writes synthetic TCG crypto-agile event logs for the
 * tests: a Spec ID header with the banks asked for, then events whose
 * digests are the banks' hashes of their data (or given bytes), so each
 * rule of the parser and replay has a log made for it.
 */
#ifndef IMATRUST_TEST_EVENTLOG_BUILD_H
#define IMATRUST_TEST_EVENTLOG_BUILD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#define ELB_MAX (2u << 20)
#define ELB_BANKS_MAX 8

struct elb {
	uint8_t buf[ELB_MAX];
	size_t len;
	uint32_t nbanks;
	uint16_t alg[ELB_BANKS_MAX];
	uint16_t size[ELB_BANKS_MAX];
};

/**
 * elb_put() - append @n bytes.
 * @b: the builder
 * @p: the bytes
 * @n: how many (the buffer must hold them)
 */
static inline void elb_put(struct elb *b, const void *p, size_t n)
{
	if (b->len + n > ELB_MAX)
		abort();
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

/**
 * elb_u8() - append one byte.
 * @b: the builder
 * @v: the value
 */
static inline void elb_u8(struct elb *b, uint8_t v)
{
	elb_put(b, &v, 1);
}

/**
 * elb_u16() - append a little-endian u16.
 * @b: the builder
 * @v: the value
 */
static inline void elb_u16(struct elb *b, uint16_t v)
{
	uint8_t p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	elb_put(b, p, 2);
}

/**
 * elb_u32() - append a little-endian u32.
 * @b: the builder
 * @v: the value
 */
static inline void elb_u32(struct elb *b, uint32_t v)
{
	elb_u16(b, (uint16_t)v);
	elb_u16(b, (uint16_t)(v >> 16));
}

/**
 * elb_u64() - append a little-endian u64.
 * @b: the builder
 * @v: the value
 */
static inline void elb_u64(struct elb *b, uint64_t v)
{
	elb_u32(b, (uint32_t)v);
	elb_u32(b, (uint32_t)(v >> 32));
}

/**
 * elb_utf16() - append @s (ASCII) as UTF-16LE, with a NUL when @nul.
 * @b: the builder
 * @s: the text
 * @nul: non-zero to end it with U+0000
 */
static inline void elb_utf16(struct elb *b, const char *s, int nul)
{
	for (; *s; s++)
		elb_u16(b, (uint8_t)*s);
	if (nul)
		elb_u16(b, 0);
}

/**
 * elb_open() - start a log whose Spec ID lists @n banks.
 * @b: the builder
 * @alg: TPM2_ALG_IDs
 * @size: their digest sizes
 * @n: number of banks
 */
static inline void elb_open(struct elb *b, const uint16_t *alg,
			    const uint16_t *size, uint32_t n)
{
	static const uint8_t zero[20];
	uint32_t i;

	memset(b, 0, sizeof(*b));
	b->nbanks = n;
	for (i = 0; i < n && i < ELB_BANKS_MAX; i++) {
		b->alg[i] = alg[i];
		b->size[i] = size[i];
	}
	elb_u32(b, 0);
	elb_u32(b, 3);
	elb_put(b, zero, 20);
	elb_u32(b, 16 + 8 + 4 + 4 * n + 1);
	elb_put(b, "Spec ID Event03", 16);
	elb_u32(b, 0); /* platformClass: client */
	elb_u8(b, 0);  /* minor */
	elb_u8(b, 2);  /* major */
	elb_u8(b, 0);  /* errata */
	elb_u8(b, 2);  /* uintnSize: UINT64 */
	elb_u32(b, n);
	for (i = 0; i < n; i++) {
		elb_u16(b, alg[i]);
		elb_u16(b, size[i]);
	}
	elb_u8(b, 0); /* vendorInfoSize */
}

/**
 * elb_open_default() - start a log with sha1 and sha256 banks.
 * @b: the builder
 */
static inline void elb_open_default(struct elb *b)
{
	static const uint16_t alg[] = { 0x0004, 0x000b };
	static const uint16_t size[] = { 20, 32 };

	elb_open(b, alg, size, 2);
}

/**
 * elb_hash() - the digest of bank @alg over @data; 0xab bytes for an
 * algorithm OpenSSL does not know here.
 * @alg: TPM2_ALG_ID
 * @size: digest size
 * @data: the bytes
 * @len: how many
 * @out: receives @size bytes
 */
static inline void elb_hash(uint16_t alg, uint16_t size, const void *data,
			    size_t len, uint8_t *out)
{
	const char *name = alg == 0x0004 ? "sha1" :
			   alg == 0x000b ? "sha256" :
			   alg == 0x000c ? "sha384" :
			   alg == 0x000d ? "sha512" :
					   NULL;

	if (!name) {
		memset(out, 0xab, size);
		return;
	}
	EVP_Digest(data, len, out, NULL, EVP_get_digestbyname(name), NULL);
}

/**
 * elb_event() - append an event whose digests hash @data.
 * @b: the builder
 * @pcr: pcrIndex
 * @type: eventType
 * @data: event bytes
 * @len: how many
 */
static inline void elb_event(struct elb *b, uint32_t pcr, uint32_t type,
			     const void *data, uint32_t len)
{
	uint8_t d[64];
	uint32_t i;

	elb_u32(b, pcr);
	elb_u32(b, type);
	elb_u32(b, b->nbanks);
	for (i = 0; i < b->nbanks; i++) {
		elb_u16(b, b->alg[i]);
		elb_hash(b->alg[i], b->size[i], data, len, d);
		elb_put(b, d, b->size[i]);
	}
	elb_u32(b, len);
	elb_put(b, data, len);
}

/**
 * elb_event_of() - append an event whose digests hash @hashed, not @data
 * (an image, a UKI section, MokList: the data only describes it).
 * @b: the builder
 * @pcr: pcrIndex
 * @type: eventType
 * @hashed: the bytes the digests are of
 * @hlen: how many
 * @data: event bytes
 * @len: how many
 */
static inline void elb_event_of(struct elb *b, uint32_t pcr, uint32_t type,
				const void *hashed, size_t hlen,
				const void *data, uint32_t len)
{
	uint8_t d[64];
	uint32_t i;

	elb_u32(b, pcr);
	elb_u32(b, type);
	elb_u32(b, b->nbanks);
	for (i = 0; i < b->nbanks; i++) {
		elb_u16(b, b->alg[i]);
		elb_hash(b->alg[i], b->size[i], hashed, hlen, d);
		elb_put(b, d, b->size[i]);
	}
	elb_u32(b, len);
	elb_put(b, data, len);
}

/**
 * elb_uki_section() - append systemd-stub's (252) two PCR 11 EV_IPL
 * events of a UKI section: digests of @name with its NUL, then of
 * @contents; the data of both is @name as UTF-16LE with U+0000.
 * @b: the builder
 * @name: ".linux", ".cmdline", ...
 * @contents: the section's bytes
 * @len: how many
 */
static inline void elb_uki_section(struct elb *b, const char *name,
				   const void *contents, size_t len)
{
	uint8_t u16[64];
	size_t i, n = strlen(name);

	for (i = 0; i <= n && 2 * i + 1 < sizeof(u16); i++) {
		u16[2 * i] = (uint8_t)name[i];
		u16[2 * i + 1] = 0;
	}
	elb_event_of(b, 11, 0x0000000d, name, n + 1, u16,
		     (uint32_t)(2 * (n + 1)));
	elb_event_of(b, 11, 0x0000000d, contents, len, u16,
		     (uint32_t)(2 * (n + 1)));
}

/**
 * elb_legacy_event() - append a TCG 1.2 (SHA-1-only) event hashing @data:
 * u32 pcrIndex, u32 eventType, SHA-1 digest, u32 eventSize, data. Start
 * such a log with elb_reset(), not elb_open().
 * @b: the builder
 * @pcr: pcrIndex
 * @type: eventType
 * @data: event bytes
 * @len: how many
 */
static inline void elb_legacy_event(struct elb *b, uint32_t pcr, uint32_t type,
				    const void *data, uint32_t len)
{
	uint8_t d[20];

	elb_u32(b, pcr);
	elb_u32(b, type);
	elb_hash(0x0004, 20, data, len, d);
	elb_put(b, d, 20);
	elb_u32(b, len);
	elb_put(b, data, len);
}

/**
 * elb_separator() - append EV_SEPARATOR of @value into @pcr.
 * @b: the builder
 * @pcr: pcrIndex
 * @value: 0, or 1 for the error separator
 */
static inline void elb_separator(struct elb *b, uint32_t pcr, uint32_t value)
{
	uint8_t v[4] = { (uint8_t)value, (uint8_t)(value >> 8),
			 (uint8_t)(value >> 16), (uint8_t)(value >> 24) };

	elb_event(b, pcr, 0x00000004, v, 4);
}

/**
 * elb_extend() - what extending @pcr by @digest gives, for expectations.
 * @name: OpenSSL name of the bank
 * @pcr: the value, updated in place
 * @digest: the extended digest
 * @size: digest size
 */
static inline void elb_extend(const char *name, uint8_t *pcr,
			      const uint8_t *digest, size_t size)
{
	uint8_t both[128];

	memcpy(both, pcr, size);
	memcpy(both + size, digest, size);
	EVP_Digest(both, 2 * size, pcr, NULL, EVP_get_digestbyname(name), NULL);
}

/* GUIDs as the firmware writes them (first three fields little-endian). */
static const uint8_t elb_guid_global[16] = {
	0x61, 0xdf, 0xe4, 0x8b, 0xca, 0x93, 0xd2, 0x11,
	0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c,
};
static const uint8_t elb_guid_db[16] = {
	0xcb, 0xb2, 0x19, 0xd7, 0x3a, 0x3d, 0x96, 0x45,
	0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f,
};
static const uint8_t elb_guid_x509[16] = {
	0xa1, 0x59, 0xc0, 0xa5, 0xe4, 0x94, 0xa7, 0x4a,
	0x87, 0xb5, 0xab, 0x15, 0x5c, 0x2b, 0xf0, 0x72,
};
static const uint8_t elb_guid_sha256[16] = {
	0x26, 0x16, 0xc4, 0xc1, 0x4c, 0x50, 0x92, 0x40,
	0xac, 0xa9, 0x41, 0xf9, 0x36, 0x93, 0x43, 0x28,
};

/**
 * elb_reset() - empty @b, to build event data rather than a log.
 * @b: the builder
 */
static inline void elb_reset(struct elb *b)
{
	b->len = 0;
}

/**
 * elb_variable() - append UEFI_VARIABLE_DATA.
 * @b: the builder
 * @guid: vendor GUID
 * @name: ASCII name
 * @data: variable data
 * @len: bytes of @data
 */
static inline void elb_variable(struct elb *b, const uint8_t *guid,
				const char *name, const void *data, size_t len)
{
	elb_put(b, guid, 16);
	elb_u64(b, strlen(name));
	elb_u64(b, len);
	elb_utf16(b, name, 0);
	elb_put(b, data, len);
}

/**
 * elb_siglist() - append one EFI_SIGNATURE_LIST of @n entries of @size
 * bytes each (owner GUID excluded), all of @entry.
 * @b: the builder
 * @type: SignatureType GUID
 * @entry: the entry data, @n times
 * @size: bytes of one entry
 * @n: number of entries
 */
static inline void elb_siglist(struct elb *b, const uint8_t *type,
			       const void *entry, size_t size, size_t n)
{
	static const uint8_t owner[16] = { 0x11, 0x22 };
	size_t i;

	elb_put(b, type, 16);
	elb_u32(b, (uint32_t)(28 + n * (16 + size)));
	elb_u32(b, 0);
	elb_u32(b, (uint32_t)(16 + size));
	for (i = 0; i < n; i++) {
		elb_put(b, owner, 16);
		elb_put(b, entry, size);
	}
}

/**
 * elb_image_load() - append UEFI_IMAGE_LOAD_EVENT with device path @dp.
 * @b: the builder
 * @dp: device path bytes
 * @len: bytes of @dp
 */
static inline void elb_image_load(struct elb *b, const void *dp, size_t len)
{
	elb_u64(b, 0x7e000000);
	elb_u64(b, 0x20000);
	elb_u64(b, 0);
	elb_u64(b, len);
	elb_put(b, dp, len);
}

/**
 * elb_dp_file() - append a device path HD(1,GPT,..)/\<path> + End.
 * @b: the builder
 * @path: ASCII file path
 */
static inline void elb_dp_file(struct elb *b, const char *path)
{
	static const uint8_t sig[16] = { 0x01, 0x02, 0x03, 0x04 };

	elb_u8(b, 4);
	elb_u8(b, 1);
	elb_u16(b, 42);
	elb_u32(b, 1);
	elb_u64(b, 0x800);
	elb_u64(b, 0x100000);
	elb_put(b, sig, 16);
	elb_u8(b, 2);
	elb_u8(b, 2);
	elb_u8(b, 4);
	elb_u8(b, 4);
	elb_u16(b, (uint16_t)(4 + 2 * strlen(path) + 2));
	elb_utf16(b, path, 1);
	elb_u8(b, 0x7f);
	elb_u8(b, 0xff);
	elb_u16(b, 4);
}

#endif /* IMATRUST_TEST_EVENTLOG_BUILD_H */

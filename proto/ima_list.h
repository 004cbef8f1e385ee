/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_list.h - cursor over the binary IMA measurement list.
 *
 * Format (binary_runtime_measurements, little-endian as on x86 or with
 * ima_canonical_fmt), one record after another:
 *
 *	u32 pcr
 *	u8  template_digest[20]		SHA-1 of the template data (the
 *					per-bank lists of imatrust's kernel
 *					series: that bank's digest, all-0xff
 *					for a violation)
 *	u32 template_name_len
 *	char template_name[]		not NUL-terminated
 *	u32 template_data_len		absent for the 'ima' template
 *	u8  template_data[]		fields, each "u32 len + bytes";
 *					'ima': digest[20] + u32 len + name
 *
 * The parser never copies record bytes: a struct ima_record borrows the
 * caller's buffer, and is valid only while that buffer is.
 */
#ifndef IMATRUST_IMA_LIST_H
#define IMATRUST_IMA_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "ima_template.h"
#include "result.h"

#define IMA_PCR_COUNT 24		 /* PCRs of a PC client TPM */
#define IMA_TEMPLATE_DIGEST_SIZE 20	 /* the legacy lists show SHA-1 */
#define IMA_TEMPLATE_DATA_MAX (1u << 20) /* larger is a corrupt length */

struct ima_field {
	const struct ima_field_def *def;
	const uint8_t *data; /* borrowed */
	uint32_t len;
};

struct ima_record {
	size_t index;  /* 0-based position in the list */
	size_t offset; /* byte offset of the record */
	size_t size;   /* bytes the record occupies */
	uint32_t pcr;
	uint8_t template_digest[HASH_ALGO_MAX_SIZE];
	const struct hash_algo *digest_bank; /* of template_digest */
	int violation;			     /* all-zero digest (legacy lists),
					 * all-0xff (per-bank lists) */
	char template_name[IMA_TEMPLATE_NAME_MAX + 1];
	const struct ima_template *tmpl;
	const uint8_t *template_data; /* borrowed, as listed */
	uint32_t template_data_len;
	size_t nfields;
	struct ima_field fields[IMA_TEMPLATE_FIELDS_MAX];

	/* Views decoded from the fields; NULL/0 when the template lacks them. */
	const struct hash_algo *digest_algo; /* file digest algorithm */
	const uint8_t *digest;
	const char *digest_type; /* "ima"/"verity" (d-ngv2), else NULL */
	size_t digest_type_len;
	const char *path; /* event name, not NUL-terminated */
	size_t path_len;
	const uint8_t *buf; /* ima-buf payload */
	uint32_t buf_len;
};

struct ima_list_parser {
	size_t next_index; /* index the next record will get */
	size_t offset;	   /* stream offset of the next record */
	const struct ima_template_set *custom; /* borrowed; may be NULL */
	const struct hash_algo *list_bank;     /* bank of a per-bank list */
	/* Caches for the next lookups; set by the parser. */
	const struct ima_template *last;   /* previous record's template */
	size_t last_len;		   /* strlen(last->name) */
	const struct hash_algo *last_algo; /* previous digest algorithm */
};

/**
 * ima_list_parser_init() - prepare a parser for a list starting at record 0.
 * @p: the parser
 * @custom: templates registered by the caller, or NULL (borrowed)
 */
void ima_list_parser_init(struct ima_list_parser *p,
			  const struct ima_template_set *custom);

/**
 * ima_list_parser_set_bank() - read a per-bank list of bank @bank.
 * @p: an initialised parser
 * @bank: the bank of binary_runtime_measurements_<bank>, whose template
 *	  digests are @bank->size bytes; NULL for the legacy lists
 */
void ima_list_parser_set_bank(struct ima_list_parser *p,
			      const struct hash_algo *bank);

/**
 * ima_list_next() - parse the record at the start of @buf.
 * @p: the parser; advanced past the record on success
 * @buf: bytes of the list starting at a record boundary
 * @len: number of bytes available in @buf (must be > 0)
 * @eof: non-zero when no bytes follow @buf in the stream
 * @rec: receives the record on IMT_OK; it borrows @buf
 * @err: filled on any result other than IMT_OK
 *
 * Feeding a list in pieces is supported: when @buf ends inside a record
 * and @eof is zero the result is IMT_NEED_MORE and @p is unchanged, so the
 * caller appends more bytes and calls again with the same record start.
 *
 * Return: IMT_OK (record in @rec, its size in @rec->size); IMT_NEED_MORE;
 * IMT_ERR_MALFORMED (truncated at @eof, bad lengths, PCR out of range,
 * bad field encoding); IMT_ERR_UNSUPPORTED (unknown template or digest
 * algorithm); IMT_ERR_LIMIT (a length above the stated maximum). Errors
 * carry the record index and the byte offset of the offending field.
 */
enum imt_result ima_list_next(struct ima_list_parser *p, const uint8_t *buf,
			      size_t len, int eof, struct ima_record *rec,
			      struct imt_error *err);

/*
 * The first record of every boot is "boot_aggregate", over PCRs 0-7 (sha1)
 * or 0-9; the one owner of that name and of the rule that it is record 0.
 */
#define IMA_BOOT_AGGREGATE "boot_aggregate"

/**
 * ima_name_is_boot_aggregate() - whether @name (@len bytes, not
 * NUL-terminated) is "boot_aggregate".
 */
int ima_name_is_boot_aggregate(const char *name, size_t len);

/**
 * ima_is_boot_aggregate() - whether record @index named @name (@len
 * bytes) is its boot's boot_aggregate: record 0, and named so. A record
 * of that name anywhere else is an ordinary file's.
 */
static inline int ima_is_boot_aggregate(uint64_t index, const char *name,
					size_t len)
{
	return index == 0 && ima_name_is_boot_aggregate(name, len);
}

#endif /* IMATRUST_IMA_LIST_H */

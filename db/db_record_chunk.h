/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_record_chunk.h - a boot's records stored as chunks: one row holds up
 * to DB_CHUNK_MAX consecutive records, their verdicts as a string of one
 * letter each and the rest packed in one body (0017_record_chunks.sql
 * says why). Internal to db/.
 *
 * The body is, for each record in index order:
 *
 *	varint pcr
 *	varint n, n bytes of template, NUL
 *	varint n, n bytes of path, NUL
 *	varint n, n bytes of digest algorithm, NUL
 *	varint n, n bytes of digest
 *	varint n, n bytes of the ima-sig signature (0: none)
 *
 * varint: LEB128, 7 bits a byte, least significant first, at most 5
 * bytes. The strings keep their NUL so a decoded record points into the
 * body instead of copying it.
 */
#ifndef IMATRUST_DB_RECORD_CHUNK_H
#define IMATRUST_DB_RECORD_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "db_boot.h"

#define DB_CHUNK_MAX 256 /* records in one chunk row */

/* The letter that stands for @v in a chunk's verdicts, or 0 (db_verdict.c) */
char db_verdict_letter(enum db_verdict v);
/* The verdict letter @c stands for: 0, or -1 for no verdict. */
int db_verdict_from_letter(char c, enum db_verdict *v);

/* Bytes db_chunk_pack() writes for @r. */
size_t db_chunk_record_size(const struct db_record *r);

/*
 * db_chunk_pack() - append @r to @out, which has db_chunk_record_size(r)
 * bytes free; returns the bytes written.
 */
size_t db_chunk_pack(const struct db_record *r, uint8_t *out);

/* Reads a chunk's records one by one (db_chunk_next()). */
struct db_chunk_reader {
	const uint8_t *p, *end;
	const char *verdicts; /* a letter per record, NUL-terminated */
	uint64_t index;	      /* the index of the next record */
};

void db_chunk_reader_init(struct db_chunk_reader *rd, uint64_t first_index,
			  const char *verdicts, const uint8_t *body,
			  size_t len);

/*
 * db_chunk_next() - decode the next record into @r, pointing into the
 * body: 1 a record, 0 the end, -1 a corrupt chunk (a short body, a field
 * without its NUL, a letter that is no verdict, or more records than
 * letters or letters than records).
 */
int db_chunk_next(struct db_chunk_reader *rd, struct db_record *r);

#endif

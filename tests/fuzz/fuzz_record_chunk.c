// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_record_chunk.c - libFuzzer target: the reader of a stored chunk of
 * records (db/db_record_chunk.h), on letters and bodies it did not write.
 *
 * A chunk comes back from the database, which only db_records_store()
 * writes; the reader still takes nothing on trust, since a damaged file,
 * a restore from elsewhere or a bug in a writer would otherwise become an
 * out-of-bounds read on every listing of that boot.
 *
 * Input: one byte N, N bytes of verdict letters (NUL-terminated here: a
 * NUL among them ends them early), then the body, in a buffer of exactly
 * its size so that AddressSanitizer sees any read past it.
 *
 * Oracles (an abort() is reported like a crash):
 *  - every record read points inside the body, its strings end inside
 *    it, and its index counts up from the chunk's first;
 *  - its verdict is its letter's;
 *  - packed again with db_chunk_pack() in db_chunk_record_size() bytes,
 *    it reads back to the same fields;
 *  - a clean end (0) comes with every letter used.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db_boot.h"
#include "db_record_chunk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FIRST_INDEX 1000

static void check(int ok)
{
	if (!ok)
		abort();
}

/* @p lies in [body, end), and so does @len bytes from it */
static int inside(const void *p, size_t len, const uint8_t *body,
		  const uint8_t *end)
{
	const uint8_t *q = p;

	return q >= body && q <= end && len <= (size_t)(end - q);
}

static void check_string(const char *s, const uint8_t *body, const uint8_t *end)
{
	check(s != NULL && inside(s, 1, body, end));
	check(memchr(s, '\0', (size_t)(end - (const uint8_t *)s)) != NULL);
}

static int same_bytes(const uint8_t *a, size_t alen, const uint8_t *b,
		      size_t blen)
{
	return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

/* db_chunk_pack() of @r reads back to @r */
static void check_repack(const struct db_record *r, char letter)
{
	size_t n = db_chunk_record_size(r);
	uint8_t *out = malloc(n);
	char letters[2] = { letter, '\0' };
	struct db_chunk_reader rd;
	struct db_record back;

	check(out != NULL);
	check(db_chunk_pack(r, out) == n);
	db_chunk_reader_init(&rd, r->index, letters, out, n);
	check(db_chunk_next(&rd, &back) == 1);
	check(back.index == r->index && back.pcr == r->pcr &&
	      back.verdict == r->verdict);
	check(strcmp(back.template, r->template) == 0 &&
	      strcmp(back.path, r->path) == 0 &&
	      strcmp(back.digest_algo, r->digest_algo) == 0);
	check(same_bytes(back.digest, back.digest_len, r->digest,
			 r->digest_len));
	check(same_bytes(back.sig, back.sig_len, r->sig, r->sig_len));
	check(db_chunk_next(&rd, &back) == 0);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct db_chunk_reader rd;
	struct db_record r;
	size_t nletters, blen, i;
	uint8_t *body;
	char *letters;
	int rc;

	if (size == 0)
		return 0;
	nletters = data[0] < size - 1 ? data[0] : size - 1;
	letters = malloc(nletters + 1);
	blen = size - 1 - nletters;
	body = malloc(blen > 0 ? blen : 1);
	check(letters != NULL && body != NULL);
	memcpy(letters, data + 1, nletters);
	letters[nletters] = '\0';
	memcpy(body, data + 1 + nletters, blen);

	db_chunk_reader_init(&rd, FIRST_INDEX, letters, body, blen);
	for (i = 0; (rc = db_chunk_next(&rd, &r)) == 1; i++) {
		enum db_verdict v;

		check(i < strlen(letters));
		check(r.index == FIRST_INDEX + i);
		check(db_verdict_from_letter(letters[i], &v) == 0 &&
		      r.verdict == v);
		check_string(r.template, body, body + blen);
		check_string(r.path, body, body + blen);
		check_string(r.digest_algo, body, body + blen);
		check(r.digest_len == 0 ||
		      inside(r.digest, r.digest_len, body, body + blen));
		check(r.sig_len == 0 ||
		      inside(r.sig, r.sig_len, body, body + blen));
		check_repack(&r, letters[i]);
	}
	check(rc == 0 || rc == -1);
	if (rc == 0)
		check(i == strlen(letters));
	free(letters);
	free(body);
	return 0;
}

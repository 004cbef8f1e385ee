// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_record_chunk.c - a chunk of records packed and read back field
 * by field, and every damaged chunk refused instead of read past its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "db_boot.h"
#include "db_record_chunk.h"

static const uint8_t digest32[32] = { 0x00, 0x80, 0xff, 0x01, [31] = 0x7f };
static const uint8_t sig[300] = { 0x03, 0x02, [299] = 0xee };

/* Three records: an ima-sig with a long signature, an empty name, PCR
 * numbers and lengths on both sides of a varint byte. */
static const struct db_record recs[] = {
	{ .index = 7,
	  .pcr = 10,
	  .template = "ima-sig",
	  .path = "/usr/bin/ls",
	  .digest_algo = "sha256",
	  .digest = digest32,
	  .digest_len = 32,
	  .verdict = DB_VERDICT_SIGNED,
	  .sig = sig,
	  .sig_len = 300 },
	{ .index = 8,
	  .pcr = 127,
	  .template = "ima-buf",
	  .path = "",
	  .digest_algo = "sha1",
	  .digest = digest32,
	  .digest_len = 20,
	  .verdict = DB_VERDICT_BAD_SIGNATURE },
	{ .index = 9,
	  .pcr = 0xffffffffu,
	  .template = "ima-ng",
	  .path = "/etc/x",
	  .digest_algo = "sha256",
	  .digest = NULL,
	  .digest_len = 0,
	  .verdict = DB_VERDICT_VIOLATION },
};

#define NRECS (sizeof(recs) / sizeof(recs[0]))

static uint8_t *pack_all(size_t *len, char *letters)
{
	size_t i, size = 0;
	uint8_t *body, *p;

	for (i = 0; i < NRECS; i++)
		size += db_chunk_record_size(&recs[i]);
	body = malloc(size);
	assert_non_null(body);
	p = body;
	for (i = 0; i < NRECS; i++) {
		size_t n = db_chunk_pack(&recs[i], p);

		assert_int_equal(n, db_chunk_record_size(&recs[i]));
		p += n;
		letters[i] = db_verdict_letter(recs[i].verdict);
	}
	letters[NRECS] = '\0';
	*len = size;
	return body;
}

static void assert_same(const struct db_record *got,
			const struct db_record *want)
{
	assert_int_equal(got->index, want->index);
	assert_int_equal(got->pcr, want->pcr);
	assert_string_equal(got->template, want->template);
	assert_string_equal(got->path, want->path);
	assert_string_equal(got->digest_algo, want->digest_algo);
	assert_int_equal(got->digest_len, want->digest_len);
	if (want->digest_len > 0)
		assert_memory_equal(got->digest, want->digest,
				    want->digest_len);
	else
		assert_null(got->digest);
	assert_int_equal(got->sig_len, want->sig_len);
	if (want->sig_len > 0)
		assert_memory_equal(got->sig, want->sig, want->sig_len);
	else
		assert_null(got->sig);
	assert_int_equal(got->verdict, want->verdict);
}

static void test_round_trip(void **state)
{
	struct db_chunk_reader rd;
	struct db_record r;
	char letters[NRECS + 1];
	size_t len, i;
	uint8_t *body = pack_all(&len, letters);

	(void)state;
	assert_string_equal(letters, "sbv");
	db_chunk_reader_init(&rd, 7, letters, body, len);
	for (i = 0; i < NRECS; i++) {
		assert_int_equal(db_chunk_next(&rd, &r), 1);
		assert_same(&r, &recs[i]);
	}
	assert_int_equal(db_chunk_next(&rd, &r), 0);
	assert_int_equal(db_chunk_next(&rd, &r), 0);
	free(body);
}

/* Read a chunk to its end: the count of records, or -1 when refused. */
static int read_all(const uint8_t *body, size_t len, const char *letters)
{
	struct db_chunk_reader rd;
	struct db_record r;
	int n = 0, rc;

	db_chunk_reader_init(&rd, 0, letters, body, len);
	while ((rc = db_chunk_next(&rd, &r)) == 1)
		n++;
	return rc < 0 ? -1 : n;
}

/*
 * Every truncation is refused (run under valgrind or ASan: a copy of
 * exactly the truncated length, so a read past it is caught), as are
 * letters that do not match the records, a letter that is no verdict and
 * a varint longer than 32 bits.
 */
static void test_damage_refused(void **state)
{
	char letters[NRECS + 1];
	size_t len, cut, nul;
	uint8_t *body = pack_all(&len, letters);
	static const uint8_t long_varint[] = { 0x80, 0x80, 0x80, 0x80, 0x10 };
	static const uint8_t six_bytes[] = {
		0x80, 0x80, 0x80, 0x80, 0x80, 0x00
	};

	(void)state;
	assert_int_equal(read_all(body, len, letters), (int)NRECS);
	for (cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut > 0 ? cut : 1);

		memcpy(copy, body, cut);
		assert_int_equal(read_all(copy, cut, letters), -1);
		free(copy);
	}
	assert_int_equal(read_all(body, len, "sb"), -1);
	assert_int_equal(read_all(body, len, "sbvk"), -1);
	assert_int_equal(read_all(body, len, "sbz"), -1);
	assert_int_equal(read_all(long_varint, sizeof(long_varint), "k"), -1);
	assert_int_equal(read_all(six_bytes, sizeof(six_bytes), "k"), -1);
	/* the first path's NUL (after pcr, template, the path's length and
	 * text) overwritten: refused, not read on into the next field */
	nul = 1 + (1 + strlen("ima-sig") + 1) + 1 + strlen("/usr/bin/ls");
	assert_int_equal(body[nul], 0);
	body[nul] = 'X';
	assert_int_equal(read_all(body, len, letters), -1);
	free(body);
}

/* Each verdict has its own letter, and only those letters read back. */
static void test_letters(void **state)
{
	enum db_verdict v, got;
	char seen[256] = { 0 };
	int c, letters = 0;

	(void)state;
	for (v = DB_VERDICT_KNOWN; v <= DB_VERDICT_BAD_SIGNATURE; v++) {
		char l = db_verdict_letter(v);

		assert_true(l != 0);
		assert_int_equal(seen[(unsigned char)l], 0);
		seen[(unsigned char)l] = 1;
		assert_int_equal(db_verdict_from_letter(l, &got), 0);
		assert_int_equal(got, v);
	}
	assert_int_equal(db_verdict_letter((enum db_verdict)99), 0);
	for (c = 0; c < 256; c++)
		letters += db_verdict_from_letter((char)c, &got) == 0;
	assert_int_equal(letters, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damage_refused),
		cmocka_unit_test(test_letters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_match.h - how many records of a batch a quoted PCR 10 covers.
 *
 * An agent quotes, then reads the list; records the kernel adds in
 * between are in the batch but not in the quote. The verifier replays
 * the batch from its stored running PCR 10 and accepts the quote if it
 * equals the value after some record k of the batch (k may be 0): records
 * up to k are proven, the rest wait for the next quote. A quote that
 * matches no prefix is a failure (proto/DESIGN.md §4).
 */
#ifndef IMATRUST_IMA_MATCH_H
#define IMATRUST_IMA_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "ima_list.h"
#include "result.h"

struct ima_match_result {
	size_t covered;	      /* records proven by the quote */
	size_t covered_bytes; /* their bytes, from the batch's start */
	uint8_t pcr10[HASH_ALGO_MAX_SIZE]; /* running value after them */
	/* the whole batch, also when no prefix matched (IMT_ERR_MISMATCH) */
	size_t records;			       /* records in the batch */
	uint8_t end_pcr10[HASH_ALGO_MAX_SIZE]; /* running value after all */
	size_t other_pcr; /* list index of the first record for a PCR
				 * other than 10, SIZE_MAX when none */
};

/**
 * ima_match_batch() - replay @bytes and find where @quoted is reached.
 * @bank: the quoted bank's algorithm
 * @running: PCR 10 before the batch (all-zero at boot), @bank->size bytes
 * @quoted: PCR 10 as quoted, @bank->size bytes
 * @bytes: whole records, as the list holds them
 * @len: bytes in @bytes
 * @first_index: the list index of the first record in @bytes
 * @custom: extra templates, or NULL
 * @res: receives the longest proven prefix on IMT_OK
 * @err: filled on failure
 *
 * Records for other PCRs leave PCR 10 alone, so a quote of PCR 10 proves
 * nothing about them; @res->other_pcr names the first, for the caller to
 * refuse.
 *
 * Return: IMT_OK; IMT_ERR_MISMATCH when no prefix of the batch reaches
 * @quoted, or a record's listed sha1 digest is wrong; the parser's error
 * (with list index and offset) for malformed records.
 */
enum imt_result
ima_match_batch(const struct hash_algo *bank, const uint8_t *running,
		const uint8_t *quoted, const uint8_t *bytes, size_t len,
		size_t first_index, const struct ima_template_set *custom,
		struct ima_match_result *res, struct imt_error *err);

#endif /* IMATRUST_IMA_MATCH_H */

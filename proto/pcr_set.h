/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pcr_set.h - the PCR values of one bank, and what is derived from them.
 */
#ifndef IMATRUST_PCR_SET_H
#define IMATRUST_PCR_SET_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "result.h"

#define PCR_SET_COUNT 24	     /* PCRs of a PC client TPM */
#define PCR_SET_TEXT_MAX (64 * 1024) /* a PCR text file larger is bogus */

struct pcr_set {
	const struct hash_algo *algo;
	uint32_t present; /* bit i set when value[i] is known */
	uint8_t value[PCR_SET_COUNT][HASH_ALGO_MAX_SIZE];
};

/**
 * pcr_set_init() - empty set for bank @algo.
 * @set: the set
 * @algo: the bank's algorithm (a hash_algo with ->bank set)
 */
void pcr_set_init(struct pcr_set *set, const struct hash_algo *algo);

/**
 * pcr_set_parse_text() - read lines "INDEX HEX" (one PCR per line).
 * @set: initialised set; values are added to it
 * @buf: the text (need not be NUL-terminated)
 * @len: bytes in @buf
 * @err: filled on failure, with the line number in ->record
 *
 * This is the format of /sys/class/tpm/tpm0/pcr-<alg>/<n> values written
 * as "n value". Blank lines and lines starting with '#' are skipped.
 *
 * Return: IMT_OK, IMT_ERR_MALFORMED (bad index, bad hex, wrong digest
 * size for the bank, duplicate index) or IMT_ERR_LIMIT (@len too large).
 */
enum imt_result pcr_set_parse_text(struct pcr_set *set, const char *buf,
				   size_t len, struct imt_error *err);

/**
 * pcr_set_parse_values() - read PCR values as people and tools write them.
 * @set: initialised set; the values of its bank are added to it
 * @buf: the text (need not be NUL-terminated)
 * @len: bytes in @buf
 * @err: filled on failure, with the line number in ->record
 *
 * Two forms, mixed freely, one or more per line:
 *	tpm2_pcrread's output: a line "BANK:" starts a bank's section, lines
 *	"INDEX : 0xHEX" give its values ("INDEX: 0xHEX" from 10 on, as its
 *	"%-2d:" prints them);
 *	words "[BANK:]INDEX=HEX" (HEX with or without 0x);
 *	lines "INDEX HEX", as pcr_set_parse_text() reads them.
 * Values of another bank than @set's are checked for their index and
 * skipped; a value without a bank before any "BANK:" line is @set's.
 * '#' starts a comment to the end of the line.
 *
 * Return: IMT_OK, IMT_ERR_MALFORMED (a line of neither form, a bad
 * index, bad hex or size, an index twice) or IMT_ERR_LIMIT (@len).
 */
enum imt_result pcr_set_parse_values(struct pcr_set *set, const char *buf,
				     size_t len, struct imt_error *err);

/**
 * pcr_set_boot_aggregate() - IMA's boot_aggregate over this bank.
 * @set: PCR values; PCRs 0-7 (sha1) or 0-9 (other banks) must be present
 * @out: receives @set->algo->size bytes
 * @err: filled on failure
 *
 * As ima_calc_boot_aggregate() in Linux 6.1: the hash over PCRs 0-7,
 * plus 8-9 for any bank but sha1 (left out there for compatibility with
 * the 2008 definition).
 *
 * Return: IMT_OK, IMT_ERR_MALFORMED when a needed PCR is missing, or
 * IMT_ERR_INTERNAL when the crypto library fails.
 */
enum imt_result pcr_set_boot_aggregate(const struct pcr_set *set, uint8_t *out,
				       struct imt_error *err);

#endif /* IMATRUST_PCR_SET_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_verify.h - check a measurement list against PCR values.
 *
 * Feed the records in order; at the end, PCR 10 of every bank given is
 * compared with the replay, and the boot_aggregate record (record 0) with
 * the hash over the PCRs of the bank its digest names.
 */
#ifndef IMATRUST_IMA_VERIFY_H
#define IMATRUST_IMA_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "ima_list.h"
#include "pcr_set.h"
#include "result.h"

#define IMA_VERIFY_BANKS_MAX 4
#define IMA_MEASURE_PCR 10 /* CONFIG_IMA_MEASURE_PCR_IDX */

enum ima_ba_status {
	IMA_BA_OK,
	IMA_BA_MISMATCH,
	IMA_BA_MISSING,	    /* record 0 is not boot_aggregate */
	IMA_BA_NOT_CHECKED, /* its bank's PCRs 0-7/0-9 were not given */
};

struct ima_verify_report {
	size_t records;
	size_t violations;
	size_t nbanks;
	struct {
		const struct hash_algo *algo;
		int pcr_ok; /* replay equals the given PCR 10 */
		uint8_t replayed[HASH_ALGO_MAX_SIZE];
	} banks[IMA_VERIFY_BANKS_MAX];
	enum ima_ba_status boot_aggregate;
	const struct hash_algo *ba_algo; /* bank of the record, or NULL */
	int ba_last_pcr;		 /* 7 (sha1) or 9 */
};

struct ima_verify;

/**
 * ima_verify_new() - start checking against @n PCR sets.
 * @sets: one set per bank, each holding at least PCR 10 (borrowed: must
 *	  outlive the returned object)
 * @n: number of sets, 1 to IMA_VERIFY_BANKS_MAX, distinct banks
 * @err: filled on failure
 *
 * Return: the checker (free with ima_verify_free()), or NULL.
 */
struct ima_verify *ima_verify_new(const struct pcr_set *sets, size_t n,
				  struct imt_error *err);

/**
 * ima_verify_free() - release @v; NULL is allowed.
 * @v: the checker
 */
void ima_verify_free(struct ima_verify *v);

/**
 * ima_verify_record() - replay the next record into every bank.
 * @v: the checker
 * @rec: the next record of the list
 * @err: filled on failure
 *
 * Return: IMT_OK, or the ima_replay_extend() error (the listed SHA-1
 * digest does not match the template data, an altered violation).
 */
enum imt_result ima_verify_record(struct ima_verify *v,
				  const struct ima_record *rec,
				  struct imt_error *err);

/**
 * ima_verify_finish() - compare the replay with the PCR values.
 * @v: the checker, after the last record
 * @report: receives every check's outcome
 * @err: on IMT_ERR_MISMATCH, names the first failing bank and check
 *
 * Return: IMT_OK when PCR 10 matches in every bank and boot_aggregate
 * matches or could not be checked; IMT_ERR_MISMATCH otherwise;
 * IMT_ERR_INTERNAL on crypto failure.
 */
enum imt_result ima_verify_finish(struct ima_verify *v,
				  struct ima_verify_report *report,
				  struct imt_error *err);

#endif /* IMATRUST_IMA_VERIFY_H */

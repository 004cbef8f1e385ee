/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ima_replay.h - replay IMA records into the PCRs of one TPM bank.
 *
 * The list shows only SHA-1 template digests, but the kernel extends every
 * allocated bank with that bank's hash of the template data; a verifier
 * therefore recomputes the template hash per bank. Violation records
 * (all-zero template digest) extend all-0xff of the bank's size instead.
 */
#ifndef IMATRUST_IMA_REPLAY_H
#define IMATRUST_IMA_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "ima_list.h"
#include "result.h"

struct ima_replay;

/**
 * ima_replay_new() - start a replay of bank @algo from all-zero PCRs.
 * @algo: a bank algorithm (hash_algo_bank())
 * @err: filled on failure
 *
 * Return: a replay owned by the caller (free with ima_replay_free()), or
 * NULL when @algo is not a bank or the crypto library fails.
 */
struct ima_replay *ima_replay_new(const struct hash_algo *algo,
				  struct imt_error *err);

/**
 * ima_replay_free() - release @r; NULL is allowed.
 * @r: the replay
 */
void ima_replay_free(struct ima_replay *r);

/**
 * ima_replay_algo() - the bank @r replays.
 * @r: the replay
 *
 * Return: the algorithm passed to ima_replay_new().
 */
const struct hash_algo *ima_replay_algo(const struct ima_replay *r);

/**
 * ima_replay_template_hash() - what the kernel extended for @rec into
 * this bank.
 * @r: the replay (its bank selects the hash)
 * @rec: a parsed record
 * @out: receives ima_replay_algo(@r)->size bytes
 * @err: filled on failure
 *
 * For the bank whose digests the list shows (sha1 for the legacy lists)
 * the result is also compared with the listed digest, so altered template
 * data is caught even without a quote.
 *
 * Return: IMT_OK; IMT_ERR_MISMATCH when the listed SHA-1 digest differs
 * from the template data's, or a violation record carries a non-zero file
 * digest; IMT_ERR_INTERNAL on crypto failure.
 */
enum imt_result ima_replay_template_hash(struct ima_replay *r,
					 const struct ima_record *rec,
					 uint8_t *out, struct imt_error *err);

/**
 * ima_replay_extend() - extend @rec into its PCR: PCR = H(PCR || hash).
 * @r: the replay
 * @rec: a parsed record
 * @err: filled on failure
 *
 * Return: as ima_replay_template_hash(); on error no PCR changes.
 */
enum imt_result ima_replay_extend(struct ima_replay *r,
				  const struct ima_record *rec,
				  struct imt_error *err);

/**
 * ima_replay_extend_listed() - ima_replay_extend() with the template
 * digest the list shows, not one computed from the template data.
 * @r: the replay
 * @rec: a parsed record
 * @err: filled on failure
 *
 * For carrying a bank the quote did not cover, when another bank's replay
 * of the same records proved their template data: what this adds is the
 * list's word, and a list that lied about it only makes a later quote of
 * this bank fail. A record whose listed digest is not of this bank (or a
 * violation) is extended as ima_replay_extend() does.
 *
 * Return: as ima_replay_extend().
 */
enum imt_result ima_replay_extend_listed(struct ima_replay *r,
					 const struct ima_record *rec,
					 struct imt_error *err);

/**
 * ima_replay_pcr() - running value of PCR @index after the records so far.
 * @r: the replay
 * @index: PCR index below IMA_PCR_COUNT
 *
 * Return: ima_replay_algo(@r)->size bytes, owned by @r and valid until the
 * next extend.
 */
const uint8_t *ima_replay_pcr(const struct ima_replay *r, unsigned int index);

/**
 * ima_replay_set_pcr() - resume a replay from a stored running value.
 * @r: the replay
 * @index: PCR index below IMA_PCR_COUNT
 * @value: ima_replay_algo(@r)->size bytes
 */
void ima_replay_set_pcr(struct ima_replay *r, unsigned int index,
			const uint8_t *value);

#endif /* IMATRUST_IMA_REPLAY_H */

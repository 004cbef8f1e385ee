/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * attest.h - the checks of one piece of evidence (proto/DESIGN.md §4),
 * in two classes that must never mix:
 *
 *  1. attest_authenticate(): is this the enrolled TPM's quote over the
 *     nonce the sender names? What fails here anyone can send, so it
 *     changes nothing: the engine answers 4xx and records it, rate-limited.
 *  2. attest_check(): the PCR digest and selection, the pinned bank, the
 *     TPM's boot counters, the replay of the new records to the quoted
 *     PCR 10, boot_aggregate, the PCR of every record. What fails here
 *     the TPM signed (once the engine has seen the nonce is the machine's
 *     outstanding one): the machine is "failed".
 *
 * CPU only: signatures, hashing, parsing. No database and no v->lock;
 * the engine (engine.h) loads the machine before and stores after.
 */
#ifndef IMATRUST_ATTEST_H
#define IMATRUST_ATTEST_H

#include <stdint.h>

#include "boot_memo.h"
#include "db.h"
#include "db_boot.h"
#include "db_machine.h"
#include "hash_algo.h"
#include "judge.h"
#include "tpm_quote.h"
#include "verifier.h"
#include "wire.h"

#define ATTEST_PCR_MASK 0x7ffu /* PCRs 0-10 must be quoted */
#define ATTEST_MSG_MAX 256
#define ATTEST_CHECK_MAX 32
/* the banks a boot keeps its running PCR 10 of (attest_bank()) */
#define ATTEST_BANKS 4
#define ATTEST_WIDE 2 /* attest_bank() from here on is kept per boot */

/* One piece of evidence on its way through the checks. */
struct attest {
	const struct wire_evidence *ev;
	struct db_machine m; /* loaded by the engine */
	struct db_boot boot;
	int have_boot;
	int new_boot; /* the quote's resetCount is past the boot's */
	/* @boot's row as re-read under the write lock (the engine's
	 * reload()), when it is still that boot at the same index */
	struct db_boot boot_locked;
	int have_boot_locked;
	int resume; /* restartCount only: a TPM resume, unless the
				 * quote does not continue the stored PCR 10 */
	struct tpm_quote quote;
	uint16_t hash_alg; /* of the quote's signature */
	uint64_t next;	   /* the index the batch must start at */
	/* records [gap_from, gap_to) were deleted from the machine before
	 * they were stored (history.h); gap_to 0: none */
	uint64_t gap_from, gap_to;
	/* the batch: the records sent, after any held back (backlog.h) */
	const uint8_t *bytes;
	size_t len;
	uint64_t start;	   /* list index of its first record */
	uint8_t *joined;   /* owned when held bytes were joined */
	uint64_t held_end; /* non-zero: held, proven up to ->next only */
	/*
	 * PCR 10 before and after the proven records, per bank in
	 * attest_bank()'s order. sha1 and sha256 are kept for every boot;
	 * a wide bank (sha384, sha512) from the boot's first quote in it
	 * (0018_wide_banks.sql): kept[k] 0, the boot does not carry it.
	 */
	uint8_t pcr10[ATTEST_BANKS][HASH_ALGO_MAX_SIZE];
	int kept[ATTEST_BANKS];
	uint8_t ba[HASH_ALGO_MAX_SIZE];
	size_t ba_len;
	/* the proven records, judged by the engine */
	size_t n;
	struct db_record *recs;
	struct judge_input *in;
	char *paths; /* NUL-terminated copies, one arena */
	size_t violations;
	/* the firmware event log stored for the loaded boot; its bytes only
	 * when attest_boot_log_bytes_needed() said so */
	struct db_boot_log boot_log;
	int have_boot_log;
	int boot_log_memo; /* the stored log passed against these PCRs
				 * before (boot_memo.h), under key: */
	uint8_t boot_log_key[BOOT_MEMO_KEY_SIZE];
	int boot_log_kept; /* the engine stored the evidence's log */
	/* the machine's outstanding nonce, read with the machine (step 1) */
	uint8_t nonce[DB_NONCE_MAX];
	size_t nonce_len;
	int have_nonce;
	int whole; /* one-shot (engine_verify()): the list from 0,
				 * proven whole, no backlog, no batch cut */
	/* the check that failed and why */
	char check[ATTEST_CHECK_MAX];
	char msg[ATTEST_MSG_MAX];
};

/**
 * attest_authenticate() - the quote is the enrolled AK's, over the
 * evidence's nonce: structure, signature, qualifyingData.
 * @v: the verifier (its AK cache)
 * @a: the evidence, with @a->m loaded
 *
 * Return: 0, or -1 with @a->check and @a->msg set.
 */
int attest_authenticate(struct verifier *v, struct attest *a);

/**
 * attest_authenticate_key() - attest_authenticate() under the AK @ak,
 * which the caller holds (a one-shot check's given AK).
 * Return: 0, or -1 with @a->check and @a->msg set.
 */
int attest_authenticate_key(struct attest *a, EVP_PKEY *ak);

/**
 * attest_boot_log_bytes_needed() - must the engine read the bytes of the
 * boot's stored firmware event log (@a->boot_log has its digest) for
 * attest_check()?
 * @v: the verifier (its boot memo)
 * @a: the evidence, with @a->boot_log's digest loaded
 *
 * Not when the evidence carries a log (compared by digest), nor when the
 * stored log passed before against the PCRs 0-9 this evidence says were
 * quoted; attest_check() relies on that pass only after proving those
 * PCRs against the quote.
 *
 * Return: 1 or 0.
 */
int attest_boot_log_bytes_needed(struct verifier *v, struct attest *a);

/**
 * attest_check() - everything the TPM vouches for beyond authenticity:
 * PCR digest and selection, bank, counters, replay, boot_aggregate.
 * @v: the verifier (its backlog)
 * @a: authenticated evidence, with @a->boot loaded
 *
 * On success the proven records are in @a->recs/@a->in (@a->n of them,
 * not yet judged) with the running PCR 10 after them. With @a->whole,
 * a record past what the quote proves fails the replay, naming it.
 *
 * Return: 0, or -1 with @a->check and @a->msg set.
 */
int attest_check(struct verifier *v, struct attest *a);

/**
 * attest_bank() - the bank a boot keeps as @a->pcr10[@k].
 * @k: 0 to ATTEST_BANKS - 1: sha1, sha256, sha384, sha512
 *
 * Return: the bank, or NULL past ATTEST_BANKS.
 */
const struct hash_algo *attest_bank(size_t k);

/**
 * attest_bank_index() - @bank's place in @a->pcr10.
 * @bank: a PCR bank
 *
 * Return: its index, or ATTEST_BANKS when it is not a kept bank.
 */
size_t attest_bank_index(const struct hash_algo *bank);

/**
 * attest_running() - the running PCR 10 of the quoted bank in @a.
 * @a: the evidence; its bank is a kept one (check_pcrs() saw to it)
 *
 * Return: @a->pcr10's row of the evidence's bank.
 */
uint8_t *attest_running(struct attest *a);

/** attest_release() - free what the checks allocated in @a. */
void attest_release(struct attest *a);

/**
 * attest_fail() - record which check failed in @a, for the engine too.
 * Return: -1, for the caller to pass on.
 */
int attest_fail(struct attest *a, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* IMATRUST_ATTEST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_memo.h - firmware event log checks that passed, remembered.
 *
 * boot_check_evidence() replays a boot's whole firmware event log (about
 * 30 us for a QEMU guest's 7 KB log, more for a real machine's), and the
 * log must first be read from the database. A heartbeat would pay both
 * every time, though neither the stored log nor the quoted PCRs change
 * within a boot. The check's outcome is a function of the log's bytes,
 * the bank, which PCRs the quote selects and their values (10 aside,
 * IMA's) alone, so a pass is remembered under the
 * SHA-256 of exactly those: an entry can never vouch for another log or
 * other PCR values, whichever verifier instance stored the log, and
 * nothing needs invalidating. Direct-mapped and bounded (BOOT_MEMO_SLOTS
 * keys of 32 bytes): a collision only costs the replay again.
 * Thread-safe (its own lock).
 */
#ifndef IMATRUST_BOOT_MEMO_H
#define IMATRUST_BOOT_MEMO_H

#include <stdint.h>

#include "pcr_set.h"

#define BOOT_MEMO_SLOTS 65536 /* 2 MiB of keys */
#define BOOT_MEMO_KEY_SIZE 32

struct boot_memo;

/** boot_memo_new() - an empty memo; NULL when out of memory. */
struct boot_memo *boot_memo_new(void);

/** boot_memo_free() - NULL is allowed. */
void boot_memo_free(struct boot_memo *m);

/**
 * boot_memo_key() - the key of a check of the log whose SHA-256 is
 * @log_sha256 against @quoted: its bank, its present mask (the quote's
 * selection, PCR 10 left out) and the values of those PCRs.
 * Return: 0, or -1 when @quoted lacks one of PCRs 0-9 or hashing fails
 * (then there is nothing to remember or find).
 */
int boot_memo_key(const uint8_t log_sha256[32], const struct pcr_set *quoted,
		  uint8_t key[BOOT_MEMO_KEY_SIZE]);

/**
 * boot_memo_passed() - did a check of @key pass before?
 * @m: the memo, or NULL (then never)
 * Return: 1 or 0.
 */
int boot_memo_passed(struct boot_memo *m,
		     const uint8_t key[BOOT_MEMO_KEY_SIZE]);

/**
 * boot_memo_pass() - remember that the check of @key passed; it takes the
 * slot of whatever key was there.
 * @m: the memo, or NULL (then nothing happens)
 */
void boot_memo_pass(struct boot_memo *m, const uint8_t key[BOOT_MEMO_KEY_SIZE]);

#endif /* IMATRUST_BOOT_MEMO_H */

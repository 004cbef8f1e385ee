/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_check.h - the measured-boot check of one piece of evidence: the
 * firmware event log of its boot against the PCRs its quote covers.
 *
 * The engine calls it after the quote's signature and nonce verified, for
 * every evidence of a boot that has a log (the one the evidence carries,
 * else the one stored for the boot), so a later quote whose PCRs 0-9 (or
 * 11-23 the log extends) disagree with the stored log is caught too. No
 * lock is held.
 */
#ifndef IMATRUST_BOOT_CHECK_H
#define IMATRUST_BOOT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "pcr_set.h"
#include "result.h"

#define BOOT_CHECK_REASON_MAX 256 /* bytes of a reason, NUL included */

/**
 * boot_check_evidence() - does the firmware event log @log agree with the
 * quoted PCRs @quoted, and does the boot it describes pass the boot
 * policy?
 * @log: the raw TCG crypto-agile event log (binary_bios_measurements)
 * @len: its length
 * @quoted: the PCR values the verified quote covers (one bank); its
 *	    present mask must be the quote's selection, nothing more
 * @reason: receives why, when the result is not IMT_OK
 * @reason_len: its size
 *
 * A SHA-1-only log of the TCG 1.2 format (tcg_log_legacy()) cannot be
 * replayed in a TPM 2.0 bank: it is IMT_OK unchecked, and the boot
 * policy's "legacy_log" judges the machine as one without a usable log.
 *
 * Every PCR 11-23 the log extends must be in @quoted (else refused,
 * naming the PCR) and is compared with PCRs 0-9; PCR 10 never is. PCR
 * 11 also agrees when systemd-pcrphase's words explain the difference
 * (boot_check_pcrphase()).
 *
 * Return: IMT_OK; any other result makes the evidence "failed" with
 * @reason.
 */
enum imt_result boot_check_evidence(const uint8_t *log, size_t len,
				    const struct pcr_set *quoted, char *reason,
				    size_t reason_len);

/**
 * boot_check_pcrphase() - the systemd-pcrphase phase that explains PCR
 * 11's quoted value from the log's replay.
 * @replayed: PCR 11 as the firmware event log replays it
 * @quoted: PCR 11 as quoted
 * @algo: their bank
 * systemd 252 extends PCR 11 after the firmware log with the hash of
 * each of "enter-initrd", "leave-initrd", "sysinit", "ready", "shutdown",
 * "final" (from "sysinit" without an initrd), with no event in that log.
 * boot_check_evidence() takes PCR 11 as agreeing when this is not NULL.
 * Return: "" when the values are equal, the last phase word of a prefix
 * of that sequence that gives @quoted, or NULL when none does.
 */
const char *boot_check_pcrphase(const uint8_t *replayed, const uint8_t *quoted,
				const struct hash_algo *algo);

#endif /* IMATRUST_BOOT_CHECK_H */

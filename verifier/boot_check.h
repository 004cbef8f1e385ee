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
 * naming the PCR) and is compared with PCRs 0-9; PCR 10 never is.
 *
 * Return: IMT_OK; any other result makes the evidence "failed" with
 * @reason.
 */
enum imt_result boot_check_evidence(const uint8_t *log, size_t len,
				    const struct pcr_set *quoted, char *reason,
				    size_t reason_len);

#endif /* IMATRUST_BOOT_CHECK_H */

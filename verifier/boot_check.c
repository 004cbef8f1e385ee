// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_check.c - the firmware event log against the quoted PCRs: the log
 * is replayed in the quote's bank and PCRs 0-9 (what the firmware, the
 * boot loader and the EFI stub extend, and what IMA's boot_aggregate
 * covers) and every PCR 11-23 the log extends (systemd-stub's 11-13,
 * shim's 14, ...) must be quoted and equal the quoted values. PCR 10 is
 * IMA's: never replayed from this log. proto/DESIGN.md §4, §12.
 */
#include <stdio.h>

#include "boot_check.h"
#include "tcg_log.h"

/* PCRs 0-9: the boot chain up to the kernel (boot_aggregate's PCRs). */
#define BOOT_CHECK_PCRS 0x3ffu
#define BOOT_CHECK_IMA_PCR 10

/*
 * The PCRs to compare: 0-9 and those 11-23 the log extends, each of which
 * the quote (@quoted->present) must select, or its events would hide.
 */
static enum imt_result compared_pcrs(const uint8_t *log, size_t len,
				     const struct pcr_set *quoted,
				     uint32_t *mask, char *reason,
				     size_t reason_len)
{
	uint32_t extended, missing;
	struct imt_error err;
	enum imt_result rc;
	int pcr;

	rc = tcg_log_extended(log, len, &extended, &err);
	if (rc != IMT_OK) {
		snprintf(reason, reason_len, "firmware event log: %s", err.msg);
		return rc;
	}
	extended &= ~(BOOT_CHECK_PCRS | 1u << BOOT_CHECK_IMA_PCR);
	missing = extended & ~quoted->present;
	for (pcr = 0; pcr < PCR_SET_COUNT; pcr++) {
		if (missing & (1u << pcr)) {
			snprintf(reason, reason_len,
				 "the firmware event log extends PCR %d, which the quote does not select: its events would go unproven",
				 pcr);
			return IMT_ERR_MISMATCH;
		}
	}
	*mask = BOOT_CHECK_PCRS | extended;
	return IMT_OK;
}

enum imt_result boot_check_evidence(const uint8_t *log, size_t len,
				    const struct pcr_set *quoted, char *reason,
				    size_t reason_len)
{
	struct pcr_set replayed;
	struct imt_error err;
	enum imt_result rc;
	uint32_t mask;

	reason[0] = '\0';
	/* it proves nothing, and fails nothing: the policy judges it as
	 * no log ("legacy_log", boot_policy.c) */
	if (tcg_log_legacy(log, len))
		return IMT_OK;
	pcr_set_init(&replayed, quoted->algo);
	rc = tcg_log_replay(log, len, &replayed, 1, &err);
	if (rc != IMT_OK) {
		snprintf(reason, reason_len, "firmware event log: %s", err.msg);
		return rc;
	}
	rc = compared_pcrs(log, len, quoted, &mask, reason, reason_len);
	if (rc != IMT_OK)
		return rc;
	rc = tcg_pcrs_compare(&replayed, quoted, mask, NULL, &err);
	if (rc != IMT_OK)
		snprintf(reason, reason_len,
			 "firmware event log disagrees with the quote: %s",
			 err.msg);
	return rc;
}

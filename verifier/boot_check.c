// SPDX-License-Identifier: GPL-2.0-only
/*
 * boot_check.c - the firmware event log against the quoted PCRs: the log
 * is replayed in the quote's bank and PCRs 0-9 (what the firmware, the
 * boot loader and the EFI stub extend, and what IMA's boot_aggregate
 * covers) must equal the quoted values. proto/DESIGN.md §12.
 */
#include <stdio.h>

#include "boot_check.h"
#include "tcg_log.h"

/* PCRs 0-9: the boot chain up to the kernel (boot_aggregate's PCRs). */
#define BOOT_CHECK_PCRS 0x3ffu

enum imt_result boot_check_evidence(const uint8_t *log, size_t len,
				    const struct pcr_set *quoted, char *reason,
				    size_t reason_len)
{
	struct pcr_set replayed;
	struct imt_error err;
	enum imt_result rc;

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
	rc = tcg_pcrs_compare(&replayed, quoted, BOOT_CHECK_PCRS, NULL, &err);
	if (rc != IMT_OK)
		snprintf(reason, reason_len,
			 "firmware event log disagrees with the quote: %s",
			 err.msg);
	return rc;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * boot_baseline.h - a boot compared with the machine's baseline boot,
 * for a policy whose boot section says "baseline": "first-boot"
 * (proto/DESIGN.md §12).
 */
#ifndef IMATRUST_BOOT_BASELINE_H
#define IMATRUST_BOOT_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

/* PCRs compared: the boot chain up to the kernel (boot_check.c's). */
#define BOOT_BASELINE_PCRS 0x3ffu
/* Bytes of an event's description in a reason (two fit in one). */
#define BOOT_BASELINE_DESC_MAX 160

/**
 * boot_baseline_judge() - does the boot of @log measure what the baseline
 * @base measured, in PCRs 0-9?
 * @policy: the policy's name, for the reason
 * @log: the current boot's log (replayed against its quote before)
 * @len: bytes in @log
 * @base: the baseline log
 * @base_len: bytes in @base
 * @approved_by: who approved the baseline, "" when taken on first use
 * @reason: receives the JSON reason of a difference:
 *	    {"check":"boot","rule":"baseline","policy":P,"pcr":N,
 *	    "event":N,"type":T,"digest":"sha256:hex","description":TEXT,
 *	    "baseline_digest":...,"baseline_description":TEXT,"why":TEXT}:
 *	    the first PCR (0-9) whose replay differs and, in it, the first
 *	    event of @log whose digest is not the baseline's event at that
 *	    place, with what each says (boot-log's description: a
 *	    variable's name and value, a boot option, a path; cut to
 *	    BOOT_BASELINE_DESC_MAX, dropped when the reason would not fit
 *	    @reason_max); when this boot has fewer events there, the
 *	    baseline's first missing one as baseline_event, baseline_type,
 *	    baseline_digest and baseline_description
 * @reason_max: its size
 * @err: filled on failure
 *
 * Both logs are compared in SHA-256 when both have that bank, else SHA-1.
 * Return: 1 the same, 0 different (@reason), -1 failure (a log that does
 * not parse, no common bank).
 */
int boot_baseline_judge(const char *policy, const uint8_t *log, size_t len,
			const uint8_t *base, size_t base_len,
			const char *approved_by, char *reason,
			size_t reason_max, struct imt_error *err);

#endif /* IMATRUST_BOOT_BASELINE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * history.h - a boot whose oldest records were deleted from the machine
 * (proto/PROTOCOL.md "Deleted records", verifier/README.md "History
 * incomplete").
 *
 * The machine's kernel can delete its oldest measurement records; PCR 10
 * still aggregates them. Evidence says where the kernel's list now starts
 * (list_start L) and, when L > 0, PCR 10 right before it as the agent
 * replayed it (list_start_pcr). With S the verifier's next index of the
 * boot (0 for a boot it stored nothing of):
 *
 *  - L <= S: the agent deleted only what the verifier stored; replay goes
 *    on from the verifier's own running value. When L == S the agent's
 *    list_start_pcr must equal it (else "failed": the two replays
 *    disagree).
 *  - L > S: records [S, L) are gone for good. The boot goes on at L from
 *    list_start_pcr (without it, "failed": nothing can be proven), and
 *    the gap is stored with the boot. The quote still binds every record
 *    from L on. A gap in a boot first seen that way (S == 0) is ruled by
 *    the policy's "history_incomplete" (refuse: untrusted; accept: a
 *    note); one after stored records (S > 0) is always untrusted.
 *
 * history.c holds the attest side, history_judge.c the judging side.
 */
#ifndef IMATRUST_HISTORY_H
#define IMATRUST_HISTORY_H

#include "db_boot.h"
#include "judge.h"
#include "policy.h"

struct attest;

/**
 * history_apply() - where the batch of @a must start, after check_boot().
 * @a: its ->next and running PCR 10 values are the stored boot's (or 0
 *     for a new boot); moved to list_start and list_start_pcr on a gap,
 *     which ->gap_from and ->gap_to then describe
 *
 * Return: 0, or -1 with attest_fail() ("history", "list_start_pcr").
 */
int history_apply(struct attest *a);

/**
 * history_judge() - the policy's word on boot @b's history.
 * @p: the machine's policy
 * @b: the boot, with its history_* fields
 * @reason: the JSON reason when refused; when accepted, the note on the
 *	    gap ("" when the history is complete)
 *
 * Return: 1 acceptable, 0 not (untrusted with @reason).
 */
int history_judge(const struct policy *p, const struct db_boot *b,
		  char reason[JUDGE_REASON_MAX]);

/**
 * history_with_note() - @reason (a JSON object) with "history": @note.
 * Return: a new string the caller frees, or NULL (out of memory, or not
 * JSON objects).
 */
char *history_with_note(const char *reason, const char *note);

#endif /* IMATRUST_HISTORY_H */

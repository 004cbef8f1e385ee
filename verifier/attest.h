/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * attest.h - judge one piece of evidence (proto/DESIGN.md §4-5): the quote, the
 * boot it belongs to, the replay of the new records against it, their
 * verdicts, the machine's state, and the next nonce.
 *
 * The CPU work (signature, replay) runs without v->lock; the database
 * part runs under it, in one transaction: records, running PCR 10, state,
 * events and the next nonce are stored together or not at all.
 */
#ifndef IMATRUST_ATTEST_H
#define IMATRUST_ATTEST_H

#include <stdint.h>

#include "verifier.h"
#include "wire.h"

#define ATTEST_PCR_MASK 0x7ffu	/* PCRs 0-10 must be quoted */
#define ATTEST_MSG_MAX 256

/* What to answer: a verdict (status 200), or an HTTP error. */
struct attest_answer {
	unsigned int status;		/* 200, or 4xx/5xx with @message */
	char message[ATTEST_MSG_MAX];
	struct wire_verdict verdict;	/* valid with status 200 */
};

/**
 * attest_evidence() - process @ev from its agent.
 * @v: the verifier
 * @ev: the decoded evidence
 * @now: seconds since the epoch
 * @ans: receives the answer
 *
 * Invalid evidence (signature, nonce, PCR selection, counters, replay,
 * boot_aggregate) is a verdict "failed" with the reason stored in the
 * machine's events, not an HTTP error: it was processed. HTTP errors are
 * for agents that cannot send evidence yet (404 unknown, 403 not
 * activated or pending) and storage failures (503).
 */
void attest_evidence(struct verifier *v, const struct wire_evidence *ev,
		     int64_t now, struct attest_answer *ans);

/**
 * attest_nonce() - a fresh nonce and the machine's state and next index
 * (POST /nonce, and the answer to activation).
 * @v: the verifier
 * @id: the agent id
 * @now: seconds since the epoch
 * @ans: receives the answer (404 unknown, 403 not activated)
 */
void attest_nonce(struct verifier *v, const char *id, int64_t now,
		  struct attest_answer *ans);

#endif /* IMATRUST_ATTEST_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rejudge.h - judge the stored records again after references were added
 * (proto/DESIGN.md §5: an untrusted boot stays untrusted unless the
 * references change; then its stored records are judged again at once).
 *
 * Only records judged unknown or mismatch can change (an added reference
 * cannot make a known record worse), so only those are read, through the
 * partial index that exists for this. Deleting references does not
 * re-judge: records judged known stay known until the next boot.
 */
#ifndef IMATRUST_REJUDGE_H
#define IMATRUST_REJUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "verifier.h"

#define REJUDGE_MACHINES_PAGE 256	/* machine ids read per listing */
#define REJUDGE_RECORDS_PAGE 1000	/* records judged per round */

struct rejudge_stats {
	size_t machines;	/* machines that had records to judge again */
	size_t records;		/* records whose verdict changed */
	size_t now_trusted;	/* untrusted machines that became trusted */
};

/**
 * rejudge_all() - re-judge the unknown and mismatch records of every
 * machine's current boot; an untrusted machine whose records are all
 * acceptable now becomes trusted (the state event carries @reason).
 * Other states are left alone (a failed machine's evidence stays
 * invalid; stale, pending and enrolling machines wait for evidence), but
 * their records' verdicts are updated. Call with v->lock held.
 * @v: the verifier
 * @reason: JSON text for the state change, e.g.
 *          {"check":"rejudge","source":{"kind":"deb","name":"..."}}
 * @now: the time of the state events
 * @stats: receives the counts (zeroed first)
 * @err: filled on a storage failure
 *
 * Return: 0, or -1 on a storage failure (machines handled before it keep
 * their new verdicts and states).
 */
int rejudge_all(struct verifier *v, const char *reason, int64_t now,
		struct rejudge_stats *stats, struct imt_error *err);

#endif /* IMATRUST_REJUDGE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rejudge.h - judge the stored records of the current boots again after
 * references changed, both ways (proto/DESIGN.md §5: "untrusted lasts until
 * reboot, unless an operator adds the missing reference, which
 * re-evaluates the stored records at once"; and a withdrawn reference
 * takes back what it vouched for, at once too).
 *
 * Which records can change:
 * - unknown and mismatch ones, after any change (a partial index);
 * - known ones whose digest was withdrawn (the queue that the withdrawal
 *   wrote in its own transaction; each current boot read once);
 * - with any_path = allow, after an import: known ones that no reference
 *   names for their own path (an added reference may pin the path).
 *
 * Nothing here holds v->lock for long: machines are taken one at a time,
 * their records in rounds of REJUDGE_RECORDS_PAGE, each round and each
 * state change a short transaction of its own, so evidence keeps being
 * answered. Evidence stored meanwhile was judged against the references
 * as they are then, which already include the whole change.
 */
#ifndef IMATRUST_REJUDGE_H
#define IMATRUST_REJUDGE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "verifier.h"

#define REJUDGE_MACHINES_PAGE 256 /* machine ids read per listing */
#define REJUDGE_RECORDS_PAGE 1000 /* records judged per lock hold */
/*
 * Regex matches (records x the regex rules of their policy) per lock
 * hold: a policy of many regexes judges fewer records at a time, so the
 * evidence waiting for the lock waits one such page (about 0.5 us a
 * match: 100 ms), never a machine's whole boot.
 */
#define REJUDGE_REGEX_WORK 200000
#define REJUDGE_RECORDS_PAGE_MIN 16	/* however many regexes */
#define REJUDGE_PAUSE_CHUNK_NS 2000000	/* lock left free after a chunk */
#define REJUDGE_PAUSE_MACHINE_NS 100000 /* ... after a machine */

/* What changed, for rejudge_all(). */
enum rejudge_change {
	REJUDGE_ADDED = 1,     /* references were added (an import) */
	REJUDGE_WITHDRAWN = 2, /* references were withdrawn */
	REJUDGE_POLICY = 4,    /* a policy or a key changed: every record */
};

struct rejudge_stats {
	size_t machines;      /* machines that had records to judge again */
	size_t records;	      /* records whose verdict changed */
	size_t now_trusted;   /* untrusted machines that became trusted */
	size_t now_untrusted; /* trusted machines that became untrusted */
};

/**
 * rejudge_all() - re-judge what @changes may have changed in every
 * machine's current boot, and move states both ways: an untrusted machine
 * whose records are all acceptable becomes trusted (the event's reason is
 * @cause); a trusted machine with a record that is no longer acceptable
 * becomes untrusted, the reason naming the record as the evidence path
 * does (judge_reason()) with "cause": @cause. Other states are left alone
 * (a failed machine's evidence stays invalid; stale, pending and
 * enrolling machines wait for evidence, which judges the stored records),
 * but their records' verdicts are updated.
 *
 * Call WITHOUT v->lock: it takes the lock per round. The caller
 * serializes reference changes (cluster_change_begin()): after the last
 * machine the queue of withdrawn digests is emptied.
 * @v: the verifier
 * @changes: REJUDGE_ADDED and/or REJUDGE_WITHDRAWN (digests queued by
 *           earlier withdrawals are judged whatever @changes says)
 * @cause: JSON object text, e.g.
 *         {"check":"rejudge","source":{"kind":"deb","name":"..."}}
 * @now: the time of the state events
 * @stats: receives the counts (zeroed first)
 * @err: filled on a storage failure
 *
 * Return: 0, or -1 on a storage failure (machines handled before it keep
 * their new verdicts and states; the queue stays for the next re-judge).
 */
int rejudge_all(struct verifier *v, unsigned int changes, const char *cause,
		int64_t now, struct rejudge_stats *stats,
		struct imt_error *err);

/**
 * rejudge_stats_json() - @ans with the counts of @st added
 * (machines_rejudged, records_changed, machines_now_trusted,
 * machines_now_untrusted); NULL (and @ans released) when out of memory.
 */
json_t *rejudge_stats_json(json_t *ans, const struct rejudge_stats *st);

/* A test hook: called with v->lock released at the named points. */
typedef void (*rejudge_hook_fn)(const char *point, void *arg);

/**
 * rejudge_set_hook() - for tests only: call @fn at "import:chunk" (after
 * each stored chunk of an import), "withdraw:chunk" and "rejudge:machine"
 * (after each machine). NULL removes it. Process-wide.
 */
void rejudge_set_hook(rejudge_hook_fn fn, void *arg);

struct policy;

/**
 * rejudge_page() - records judged per lock hold under policy @p:
 * REJUDGE_RECORDS_PAGE, fewer as it holds more regex rules
 * (REJUDGE_REGEX_WORK), at least REJUDGE_RECORDS_PAGE_MIN.
 */
size_t rejudge_page(const struct policy *p);

/**
 * rejudge_hook() - between two lock holds of a reference change: leave
 * v->lock free a moment (REJUDGE_PAUSE_*: the mutex is not fair, so the
 * evidence waiting for it gets it), then run the test hook for @point.
 */
void rejudge_hook(const char *point);

#endif /* IMATRUST_REJUDGE_H */

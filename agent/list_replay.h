/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list_replay.h - the agent's own replay of PCR 10 over the list it reads,
 * with the values after the last LIST_REPLAY_RING records.
 *
 * A quote must go out with the PCR values its digest covers. The agent
 * reads the PCRs, quotes, and reads the update counter again; when a
 * record was extended meanwhile, the values read before are not the
 * quoted ones. PCR 10 is the one that moves, and its quoted value is one
 * of the values this replay went through: the one whose PCR digest
 * equals the quote's. Without it, a machine that measures without pause
 * could never be quoted.
 */
#ifndef IMATRUST_AGENT_LIST_REPLAY_H
#define IMATRUST_AGENT_LIST_REPLAY_H

#include <stdint.h>

#include "hash_algo.h"
#include "ima_list.h"
#include "result.h"

#define LIST_REPLAY_RING 4096 /* values kept: records a quote may lag */

struct list_replay;

/**
 * list_replay_new() - a replay of PCR 10 of @bank from record @base.
 * @bank: the quoted bank
 * @base: the first record the list shows (the records this boot deleted)
 * @pcr: PCR 10 before record @base (all zero when @base is 0)
 * @err: filled on failure
 *
 * Return: the replay (free with list_replay_free()), or NULL.
 */
struct list_replay *list_replay_new(const struct hash_algo *bank, uint64_t base,
				    const uint8_t *pcr, struct imt_error *err);

/**
 * list_replay_restart() - go on from record @base if the replay is behind it.
 * @lr: the replay
 * @base: the first record the list now shows (after a delete)
 * @pcr: PCR 10 before record @base (what the export state keeps)
 *
 * Records the kernel deleted before the replay read them can never be
 * read again; the value after them is known, so the replay goes on from
 * there. A replay at or past @base is left as it is.
 */
void list_replay_restart(struct list_replay *lr, uint64_t base,
			 const uint8_t *pcr);

/**
 * list_replay_free() - release @lr; NULL is allowed.
 * @lr: the replay
 */
void list_replay_free(struct list_replay *lr);

/**
 * list_replay_record() - extend @rec if it is the next record.
 * @lr: the replay
 * @rec: a record as the follower parsed it (list_follow_observe())
 *
 * Records already replayed (a reader that went back) are ignored; a
 * record past the next one, or one whose template data does not hash,
 * stops the replay (list_replay_find() then finds nothing).
 */
void list_replay_record(struct list_replay *lr, const struct ima_record *rec);

/**
 * list_replay_find() - the newest kept value that @match accepts.
 * @lr: the replay
 * @match: called with a candidate PCR 10 value, newest first; returns 1
 *	   for the one sought
 * @arg: passed to @match
 * @index: receives how many records the value covers
 *
 * Return: the value (owned by @lr, valid until the next record), or NULL.
 */
const uint8_t *list_replay_find(const struct list_replay *lr,
				int (*match)(void *arg, const uint8_t *pcr10),
				void *arg, uint64_t *index);

#endif /* IMATRUST_AGENT_LIST_REPLAY_H */

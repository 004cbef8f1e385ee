// SPDX-License-Identifier: GPL-2.0-only
/*
 * list_replay.c - the agent's replay of PCR 10 (list_replay.h).
 *
 * ring[ring_at(k)] holds PCR 10 after records [0, k), for k in
 * [next - kept + 1, next]. The ring is LIST_REPLAY_RING values of the
 * bank's size (not HASH_ALGO_MAX_SIZE's: half the pages for sha256).
 */
#include <stdlib.h>
#include <string.h>

#include "ima_replay.h"
#include "ima_verify.h"
#include "list_replay.h"

struct list_replay {
	struct ima_replay *r;
	size_t size;   /* digest bytes */
	uint64_t next; /* the record to extend next */
	uint64_t kept; /* values in the ring, 1 to the ring's size */
	int broken;
	uint8_t ring[]; /* LIST_REPLAY_RING * size bytes */
};

/* Where in the ring the value after records [0, @k) is. */
static size_t ring_at(const struct list_replay *lr, uint64_t k)
{
	return (size_t)(k % LIST_REPLAY_RING) * lr->size;
}

/* Go on from record @base, PCR 10 being @pcr before it. */
static void start_at(struct list_replay *lr, uint64_t base, const uint8_t *pcr)
{
	ima_replay_set_pcr(lr->r, IMA_MEASURE_PCR, pcr);
	lr->next = base;
	lr->kept = 1;
	lr->broken = 0;
	memcpy(lr->ring + ring_at(lr, base), pcr, lr->size);
}

struct list_replay *list_replay_new(const struct hash_algo *bank, uint64_t base,
				    const uint8_t *pcr, struct imt_error *err)
{
	struct list_replay *lr =
		calloc(1, sizeof(*lr) + (size_t)LIST_REPLAY_RING * bank->size);

	if (lr == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return NULL;
	}
	lr->r = ima_replay_new(bank, err);
	if (lr->r == NULL) {
		free(lr);
		return NULL;
	}
	lr->size = bank->size;
	start_at(lr, base, pcr);
	return lr;
}

void list_replay_restart(struct list_replay *lr, uint64_t base,
			 const uint8_t *pcr)
{
	if (lr->broken || lr->next < base)
		start_at(lr, base, pcr);
}

void list_replay_free(struct list_replay *lr)
{
	if (lr == NULL)
		return;
	ima_replay_free(lr->r);
	free(lr);
}

void list_replay_record(struct list_replay *lr, const struct ima_record *rec)
{
	if (lr->broken || rec->index < lr->next)
		return;
	if (rec->index > lr->next ||
	    ima_replay_extend(lr->r, rec, NULL) != IMT_OK) {
		lr->broken = 1;
		return;
	}
	lr->next++;
	memcpy(lr->ring + ring_at(lr, lr->next),
	       ima_replay_pcr(lr->r, IMA_MEASURE_PCR), lr->size);
	if (lr->kept < LIST_REPLAY_RING)
		lr->kept++;
}

const uint8_t *list_replay_find(const struct list_replay *lr,
				int (*match)(void *arg, const uint8_t *pcr10),
				void *arg, uint64_t *index)
{
	const uint8_t *v;
	uint64_t i;

	if (lr->broken)
		return NULL;
	for (i = 0; i < lr->kept; i++) {
		v = lr->ring + ring_at(lr, lr->next - i);
		if (match(arg, v)) {
			*index = lr->next - i;
			return v;
		}
	}
	return NULL;
}

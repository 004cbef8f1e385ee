// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_verify.c - check a measurement list against PCR values.
 */
#include <stdlib.h>
#include <string.h>

#include "ima_list.h"
#include "ima_replay.h"
#include "ima_verify.h"

struct ima_verify {
	const struct pcr_set *sets; /* borrowed */
	size_t n;
	struct ima_replay *replays[IMA_VERIFY_BANKS_MAX];
	size_t records;
	size_t violations;
	const struct hash_algo *ba_algo; /* set when record 0 is
						 * boot_aggregate */
	uint8_t ba_digest[HASH_ALGO_MAX_SIZE];
};

struct ima_verify *ima_verify_new(const struct pcr_set *sets, size_t n,
				  struct imt_error *err)
{
	struct ima_verify *v;
	size_t i, j;

	if (n == 0 || n > IMA_VERIFY_BANKS_MAX) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "between 1 and %d PCR banks, not %zu",
			      IMA_VERIFY_BANKS_MAX, n);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (sets[i].algo == sets[j].algo) {
				imt_error_set(err, IMT_ERR_MALFORMED,
					      IMT_NO_POS, IMT_NO_POS,
					      "bank %s given twice",
					      sets[i].algo->name);
				return NULL;
			}
		}
	}
	v = calloc(1, sizeof(*v));
	if (v == NULL) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return NULL;
	}
	v->sets = sets;
	for (i = 0; i < n; i++) {
		v->replays[i] = ima_replay_new(sets[i].algo, err);
		if (v->replays[i] == NULL) {
			ima_verify_free(v);
			return NULL;
		}
		v->n++;
	}
	return v;
}

void ima_verify_free(struct ima_verify *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->n; i++)
		ima_replay_free(v->replays[i]);
	free(v);
}

enum imt_result ima_verify_record(struct ima_verify *v,
				  const struct ima_record *rec,
				  struct imt_error *err)
{
	enum imt_result rc;
	size_t i;

	for (i = 0; i < v->n; i++) {
		rc = ima_replay_extend(v->replays[i], rec, err);
		if (rc != IMT_OK)
			return rc;
	}
	if (rec->digest != NULL &&
	    ima_is_boot_aggregate(rec->index, rec->path, rec->path_len)) {
		v->ba_algo = rec->digest_algo;
		memcpy(v->ba_digest, rec->digest, rec->digest_algo->size);
	}
	v->records++;
	v->violations += rec->violation != 0;
	return IMT_OK;
}

static const struct pcr_set *find_set(const struct ima_verify *v,
				      const struct hash_algo *algo)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		if (v->sets[i].algo == algo)
			return &v->sets[i];
	}
	return NULL;
}

static enum imt_result check_boot_aggregate(const struct ima_verify *v,
					    struct ima_verify_report *r,
					    struct imt_error *err)
{
	uint32_t need;
	uint8_t expect[HASH_ALGO_MAX_SIZE];
	const struct pcr_set *set;
	enum imt_result rc;

	r->ba_algo = v->ba_algo;
	if (v->ba_algo == NULL) {
		r->boot_aggregate = IMA_BA_MISSING;
		return IMT_OK;
	}
	r->ba_last_pcr = strcmp(v->ba_algo->name, "sha1") == 0 ? 7 : 9;
	need = (2u << r->ba_last_pcr) - 1;
	set = find_set(v, v->ba_algo);
	if (set == NULL || (set->present & need) != need) {
		r->boot_aggregate = IMA_BA_NOT_CHECKED;
		return IMT_OK;
	}
	rc = pcr_set_boot_aggregate(set, expect, err);
	if (rc != IMT_OK)
		return rc;
	r->boot_aggregate = memcmp(expect, v->ba_digest, v->ba_algo->size) ?
				    IMA_BA_MISMATCH :
				    IMA_BA_OK;
	return IMT_OK;
}

enum imt_result ima_verify_finish(struct ima_verify *v,
				  struct ima_verify_report *r,
				  struct imt_error *err)
{
	enum imt_result rc;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->records = v->records;
	r->violations = v->violations;
	r->nbanks = v->n;
	for (i = 0; i < v->n; i++) {
		const struct hash_algo *algo = v->sets[i].algo;

		r->banks[i].algo = algo;
		memcpy(r->banks[i].replayed,
		       ima_replay_pcr(v->replays[i], IMA_MEASURE_PCR),
		       algo->size);
		r->banks[i].pcr_ok =
			(v->sets[i].present & (1u << IMA_MEASURE_PCR)) &&
			memcmp(r->banks[i].replayed,
			       v->sets[i].value[IMA_MEASURE_PCR],
			       algo->size) == 0;
	}
	rc = check_boot_aggregate(v, r, err);
	if (rc != IMT_OK)
		return rc;
	for (i = 0; i < r->nbanks; i++) {
		if (!r->banks[i].pcr_ok)
			return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
					     IMT_NO_POS,
					     "%s: PCR %d does not match the replay of %zu records",
					     r->banks[i].algo->name,
					     IMA_MEASURE_PCR, r->records);
	}
	if (r->boot_aggregate == IMA_BA_MISSING)
		return imt_error_set(err, IMT_ERR_MISMATCH, 0, 0,
				     "boot_aggregate: record 0 is not boot_aggregate");
	if (r->boot_aggregate == IMA_BA_MISMATCH)
		return imt_error_set(err, IMT_ERR_MISMATCH, 0, 0,
				     "boot_aggregate: record 0 does not match %s PCRs 0-%d",
				     r->ba_algo->name, r->ba_last_pcr);
	return IMT_OK;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * ima_match.c - match a quoted PCR 10 against a prefix of a batch.
 */
#include <stdint.h>
#include <string.h>

#include "ima_match.h"
#include "ima_replay.h"
#include "ima_verify.h"

enum imt_result
ima_match_batch(const struct hash_algo *bank, const uint8_t *running,
		const uint8_t *quoted, const uint8_t *bytes, size_t len,
		size_t first_index, const struct ima_template_set *custom,
		struct ima_match_result *res, struct imt_error *err)
{
	struct ima_replay *r = ima_replay_new(bank, err);
	struct ima_list_parser p;
	struct ima_record rec;
	enum imt_result rc = IMT_OK;
	size_t pos = 0, count = 0;
	int matched;

	if (r == NULL)
		return err != NULL ? err->status : IMT_ERR_INTERNAL;
	ima_list_parser_init(&p, custom);
	/* The parser counts from the batch; errors name list indexes. */
	p.next_index = first_index;
	ima_replay_set_pcr(r, IMA_MEASURE_PCR, running);
	res->records = 0;
	res->other_pcr = SIZE_MAX;
	memcpy(res->end_pcr10, running, bank->size);
	matched = memcmp(running, quoted, bank->size) == 0;
	if (matched) {
		res->covered = 0;
		res->covered_bytes = 0;
		memcpy(res->pcr10, running, bank->size);
	}
	while (pos < len) {
		rc = ima_list_next(&p, bytes + pos, len - pos, 1, &rec, err);
		if (rc == IMT_OK)
			rc = ima_replay_extend(r, &rec, err);
		if (rc != IMT_OK)
			goto out;
		pos += rec.size;
		if (rec.pcr != IMA_MEASURE_PCR && res->other_pcr == SIZE_MAX)
			res->other_pcr = first_index + count;
		count++;
		/*
		 * Keep the longest match: records for other PCRs leave
		 * PCR 10 unchanged, and belong to the proven part too.
		 */
		if (memcmp(ima_replay_pcr(r, IMA_MEASURE_PCR), quoted,
			   bank->size) == 0) {
			matched = 1;
			res->covered = count;
			res->covered_bytes = pos;
			memcpy(res->pcr10, quoted, bank->size);
		}
	}
	res->records = count;
	memcpy(res->end_pcr10, ima_replay_pcr(r, IMA_MEASURE_PCR), bank->size);
	if (!matched)
		rc = imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				   IMT_NO_POS,
				   "%s PCR 10 quoted matches no prefix of records %zu-%zu",
				   bank->name, first_index,
				   first_index + count - (count > 0));
out:
	ima_replay_free(r);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ima_list.c - libFuzzer target: the measurement list parser, and
 * replay and ascii rendering of whatever it accepts.
 *
 * The first input byte picks how the list is fed: whole, or in pieces
 * of that many bytes, so the "need more" path is fuzzed as well.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ima_ascii.h"
#include "ima_list.h"
#include "ima_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void use_record(const struct ima_record *rec, struct ima_replay *sha1,
		       struct ima_replay *sha256)
{
	char line[256];

	ima_replay_extend(sha1, rec, NULL);
	ima_replay_extend(sha256, rec, NULL);
	ima_ascii_format(rec, line, sizeof(line));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ima_replay *sha1 = ima_replay_new(hash_algo_bank("sha1"), NULL);
	struct ima_replay *sha256 =
		ima_replay_new(hash_algo_bank("sha256"), NULL);
	struct ima_list_parser p;
	struct ima_record rec;
	size_t piece, have, pos = 0;

	if (size == 0)
		goto out;
	piece = data[0] == 0 ? size : data[0];
	data++;
	size--;
	ima_list_parser_init(&p, NULL);
	have = piece < size ? piece : size;
	while (pos < size) {
		enum imt_result rc = ima_list_next(&p, data + pos, have - pos,
						   have == size, &rec, NULL);

		if (rc == IMT_NEED_MORE) {
			have = have + piece < size ? have + piece : size;
			continue;
		}
		if (rc != IMT_OK)
			break;
		if (rec.size == 0 || rec.size > have - pos)
			abort(); /* the parser must never overrun */
		use_record(&rec, sha1, sha256);
		pos += rec.size;
		if (have < pos)
			have = pos;
	}
out:
	ima_replay_free(sha1);
	ima_replay_free(sha256);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_replay.c - what a verifier does per record: parse, replay the
 * sha256 bank, look the file digest up among the references.
 *
 *	bench-replay LIST PCRS_SHA256 REFS
 *
 * Prints "records N seconds S records_per_s R"; exits 1 when the replay
 * does not end at the expected PCR 10 or a digest is not found.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "digest_set.h"
#include "ima_replay.h"
#include "list_reader.h"
#include "pcr_set.h"

struct bench {
	struct ima_replay *replay;
	struct digest_set *refs;
	size_t records;
	size_t unknown;
	struct imt_error err;
};

static int per_record(const struct ima_record *rec, void *arg)
{
	struct bench *b = arg;

	/* The lookup's cache miss overlaps the two hashes of the replay. */
	digest_set_prefetch(b->refs, rec->digest);
	if (ima_replay_extend(b->replay, rec, &b->err) != IMT_OK)
		return 1;
	if (rec->index > 0 && !digest_set_contains(b->refs, rec->digest))
		b->unknown++;
	b->records++;
	return 0;
}

static struct digest_set *load_refs(const char *path)
{
	size_t len, i;
	char *buf = cli_read_file(path, 64u << 20, &len);
	struct digest_set *s;

	if (buf == NULL)
		return NULL;
	s = digest_set_new(32, len / 32, (uint64_t)time(NULL) * 2654435761u);
	for (i = 0; s != NULL && i + 32 <= len; i += 32)
		digest_set_add(s, (const uint8_t *)buf + i);
	free(buf);
	return s;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	struct timespec t0, t1;
	struct pcr_set want;
	size_t len;
	double secs;
	char *text;
	int fd, ret;

	if (argc != 4) {
		fprintf(stderr, "usage: bench-replay LIST PCRS_SHA256 REFS\n");
		return 2;
	}
	pcr_set_init(&want, hash_algo_bank("sha256"));
	text = cli_read_file(argv[2], PCR_SET_TEXT_MAX, &len);
	if (text == NULL || pcr_set_parse_text(&want, text, len, &b.err))
		return 2;
	free(text);
	b.refs = load_refs(argv[3]);
	b.replay = ima_replay_new(want.algo, &b.err);
	fd = open(argv[1], O_RDONLY);
	if (b.refs == NULL || b.replay == NULL || fd < 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = list_reader_run(fd, NULL, NULL, per_record, &b, &b.err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	if (ret != 0) {
		fprintf(stderr, "bench-replay: %s\n", b.err.msg);
		return 1;
	}
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("records %zu seconds %.3f records_per_s %.0f\n", b.records,
	       secs, (double)b.records / secs);
	if (memcmp(ima_replay_pcr(b.replay, 10), want.value[10], 32) != 0 ||
	    b.unknown != 0) {
		fprintf(stderr, "bench-replay: wrong PCR 10 or %zu unknown digests\n",
			b.unknown);
		return 1;
	}
	ima_replay_free(b.replay);
	digest_set_free(b.refs);
	return 0;
}

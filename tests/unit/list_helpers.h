/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * list_helpers.h - parse whole lists and build records in unit tests.
 */
#ifndef IMATRUST_TEST_LIST_HELPERS_H
#define IMATRUST_TEST_LIST_HELPERS_H

#include <string.h>

#include "hash_algo.h"
#include "ima_build.h"
#include "ima_list.h"

#define TEST_RECORDS_MAX 64

/* Parse @len bytes as a whole list; returns the first non-OK status. */
static inline enum imt_result parse_all(const uint8_t *buf, size_t len,
					const struct ima_template_set *set,
					struct ima_record *recs, size_t *count,
					struct imt_error *err)
{
	struct ima_list_parser p;
	struct ima_record rec;
	size_t pos = 0;
	enum imt_result rc;

	*count = 0;
	ima_list_parser_init(&p, set);
	while (pos < len) {
		rc = ima_list_next(&p, buf + pos, len - pos, 1, &rec, err);
		if (rc != IMT_OK)
			return rc;
		if (recs != NULL && *count < TEST_RECORDS_MAX)
			recs[*count] = rec;
		(*count)++;
		pos += rec.size;
	}
	return IMT_OK;
}

/* Append an ima-ng record for @path with a digest of repeated @fill. */
static inline size_t build_ng(uint8_t *out, size_t outsz, const char *path,
			      uint8_t fill, int violation)
{
	const struct hash_algo *sha256 = hash_algo_by_name("sha256", 6);
	uint8_t digest[32], dng[64];
	struct ima_build_field f[2];

	memset(digest, violation ? 0 : fill, sizeof(digest));
	f[0].data = dng;
	f[0].len = ima_build_digest_ng(dng, sha256, digest);
	f[1].data = path;
	f[1].len = (uint32_t)strlen(path) + 1;
	return ima_build_record(out, outsz, 10, "ima-ng", f, 2, violation);
}

#endif /* IMATRUST_TEST_LIST_HELPERS_H */

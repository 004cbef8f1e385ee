// SPDX-License-Identifier: GPL-2.0-only
/*
 * judge.c - one record's verdict under the reference digests and policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hex.h"
#include "judge.h"

int judge_record(struct verifier *v, const struct judge_input *in,
		 enum db_verdict *verdict, struct imt_error *err)
{
	enum db_ref_class cls;

	if (in->violation) {
		*verdict = DB_VERDICT_VIOLATION;
		return 0;
	}
	if (in->boot_aggregate) {
		*verdict = DB_VERDICT_EXCLUDED;
		return 0;
	}
	/* no digest, or no name (no reference can name it): unknown */
	if (in->algo == NULL || in->digest == NULL || in->path == NULL ||
	    in->path[0] == '\0') {
		*verdict = DB_VERDICT_UNKNOWN;
		return 0;
	}
	if (db_ref_lookup(v->db, in->path, in->algo, in->digest,
			  in->digest_len, &cls, err) < 0)
		return -1;
	switch (cls) {
	case DB_REF_KNOWN:
		*verdict = DB_VERDICT_KNOWN;
		break;
	case DB_REF_MISMATCH:
		*verdict = DB_VERDICT_MISMATCH;
		break;
	case DB_REF_KNOWN_ANY_PATH:
		*verdict = strcmp(v->cfg.any_path, "allow") == 0 ?
			   DB_VERDICT_KNOWN : DB_VERDICT_UNKNOWN;
		break;
	default:
		*verdict = DB_VERDICT_UNKNOWN;
		break;
	}
	return 0;
}

int judge_acceptable(const struct verifier *v, enum db_verdict verdict)
{
	switch (verdict) {
	case DB_VERDICT_KNOWN:
	case DB_VERDICT_EXCLUDED:
		return 1;
	case DB_VERDICT_VIOLATION:
		return strcmp(v->cfg.violations, "allow") == 0;
	default:
		return 0;
	}
}

/*
 * A path is bytes, not necessarily UTF-8, and JSON text must be: bytes
 * outside printable ASCII become "\xNN" (as text), so the reason is
 * always valid and still names the file. Cut at @max bytes of output.
 */
static void printable_path(const char *path, char *out, size_t max)
{
	static const char hexd[] = "0123456789abcdef";
	size_t o = 0;

	for (; path != NULL && *path != '\0' && o + 5 < max; path++) {
		uint8_t c = (uint8_t)*path;

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			out[o++] = (char)c;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hexd[c >> 4];
		out[o++] = hexd[c & 15];
	}
	out[o] = '\0';
}

void judge_reason(uint64_t index, const struct judge_input *in,
		  enum db_verdict verdict, char out[JUDGE_REASON_MAX])
{
	char digest[2 * DB_DIGEST_MAX + 32] = "", path[512];
	json_t *j;
	char *s;

	if (in->algo != NULL && in->digest != NULL &&
	    in->digest_len <= DB_DIGEST_MAX) {
		size_t n = (size_t)snprintf(digest, sizeof(digest), "%s:",
					    in->algo);

		if (n + 2 * in->digest_len < sizeof(digest))
			hex_encode(in->digest, in->digest_len, digest + n);
	}
	printable_path(in->path, path, sizeof(path));
	j = json_pack("{s:s,s:I,s:s,s:s,s:s}", "check", "record",
		      "index", (json_int_t)index, "path", path,
		      "digest", digest, "verdict", db_verdict_name(verdict));
	s = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;
	snprintf(out, JUDGE_REASON_MAX, "%s",
		 s != NULL && strlen(s) < JUDGE_REASON_MAX ? s :
		 "{\"check\":\"record\"}");
	free(s);
	json_decref(j);
}

char *judge_check_reason(const char *check, const char *message)
{
	json_t *j = json_pack("{s:s,s:s}", "check", check, "message", message);
	char *s = j != NULL ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return s;
}

struct first_bad {
	const struct verifier *v;
	int found;
	char *reason;
};

static int find_bad(int64_t boot_id, const struct db_record *rec, void *arg)
{
	struct first_bad *fb = arg;
	struct judge_input in = {
		.path = rec->path, .algo = rec->digest_algo,
		.digest = rec->digest, .digest_len = rec->digest_len,
	};

	(void)boot_id;
	if (judge_acceptable(fb->v, rec->verdict))
		return 0;
	fb->found = 1;
	judge_reason(rec->index, &in, rec->verdict, fb->reason);
	return 1;
}

int judge_boot(struct verifier *v, int64_t boot_id, uint64_t nrecords,
	       int *ok, char reason[JUDGE_REASON_MAX], struct imt_error *err)
{
	struct first_bad fb = { v, 0, reason };
	uint64_t from;

	reason[0] = '\0';
	/* unknown and mismatch are indexed: the common question is cheap */
	if (db_record_list(v->db, boot_id, 0, 1, 1, find_bad, &fb, err) < 0)
		return -1;
	/* violations are only unacceptable by policy: scan for them then */
	for (from = 0; !fb.found && !judge_acceptable(v, DB_VERDICT_VIOLATION)
	     && from < nrecords; from += DB_LIST_MAX) {
		if (db_record_list(v->db, boot_id, from, DB_LIST_MAX, 0,
				   find_bad, &fb, err) < 0)
			return -1;
	}
	*ok = !fb.found;
	return 0;
}

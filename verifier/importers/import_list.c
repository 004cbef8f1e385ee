// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_list.c - a golden measurement list, proven by its PCRs, into an
 * import sink.
 *
 * Two passes: the first parses and replays the whole list and checks it
 * against the PCRs; only a list that passed reaches the sink, in the
 * second. A list is never partly believed.
 */
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "import_list.h"

#define REPLAYS_MAX (IMPORT_ALGOS_MAX + 1) /* the banks, and sha1 */
#define HEX_SHOWN 32 /* bytes of a PCR value an error shows */

/* Pass @e on with @prefix before its message, keeping its position. */
static int pass_on(struct imt_error *err, const struct imt_error *e,
		   const char *prefix)
{
	imt_error_set(err, e->status, e->record, e->offset, "%s: %s", prefix,
		      e->msg);
	return -1;
}

int import_pcr_parse(struct import_pcr *pcr, const char *bank, const char *text,
		     size_t len, struct imt_error *err)
{
	const struct hash_algo *algo = hash_algo_bank(bank);
	struct imt_error e;
	char prefix[48];

	if (algo == NULL) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS, IMT_NO_POS,
			      "PCRs: \"%.16s\" is not a bank (sha1, sha256, sha384, sha512)",
			      bank);
		return -1;
	}
	snprintf(prefix, sizeof(prefix), "%s PCRs", algo->name);
	pcr_set_init(&pcr->set, algo);
	if (pcr_set_parse_text(&pcr->set, text, len, &e) != IMT_OK)
		return pass_on(err, &e, prefix);
	if (!(pcr->set.present & 1u << IMPORT_LIST_PCR)) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "%s: no PCR %d, the one the list must give",
			      prefix, IMPORT_LIST_PCR);
		return -1;
	}
	return 0;
}

/* ---- pass 1: parse, replay, check ---- */

struct replays {
	struct ima_replay *r[REPLAYS_MAX];
	size_t n;
};

static void replays_free(struct replays *rs)
{
	while (rs->n > 0)
		ima_replay_free(rs->r[--rs->n]);
}

static int check_banks(const struct import_pcr *pcrs, size_t npcrs,
		       struct imt_error *err)
{
	size_t i, j;

	if (npcrs == 0 || npcrs > IMPORT_ALGOS_MAX) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "PCRs: %zu banks given; a golden list needs 1 to %d",
			      npcrs, IMPORT_ALGOS_MAX);
		return -1;
	}
	for (i = 0; i < npcrs; i++) {
		if (pcrs[i].set.algo == NULL || !pcrs[i].set.algo->bank ||
		    !(pcrs[i].set.present & 1u << IMPORT_LIST_PCR)) {
			imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				      IMT_NO_POS,
				      "PCRs: entry %zu is no bank with PCR %d",
				      i, IMPORT_LIST_PCR);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (pcrs[j].set.algo == pcrs[i].set.algo) {
				imt_error_set(err, IMT_ERR_MALFORMED,
					      IMT_NO_POS, IMT_NO_POS,
					      "PCRs: bank %s given twice",
					      pcrs[i].set.algo->name);
				return -1;
			}
	}
	return 0;
}

/* One replay per bank, plus sha1 (which checks the listed digests). */
static int replays_new(struct replays *rs, const struct import_pcr *pcrs,
		       size_t npcrs, struct imt_error *err)
{
	const struct hash_algo *sha1 = hash_algo_bank("sha1");
	int have_sha1 = 0;
	size_t i;

	rs->n = 0;
	for (i = 0; i <= npcrs; i++) {
		const struct hash_algo *a = i < npcrs ? pcrs[i].set.algo : sha1;

		if (i == npcrs && have_sha1)
			break;
		have_sha1 |= a == sha1;
		rs->r[rs->n] = ima_replay_new(a, err);
		if (rs->r[rs->n] == NULL) {
			replays_free(rs);
			return -1;
		}
		rs->n++;
	}
	return 0;
}

static void hex_short(const uint8_t *v, size_t len, char *out)
{
	hex_encode(v, len < HEX_SHOWN ? len : HEX_SHOWN, out);
	if (len > HEX_SHOWN)
		strcat(out, "...");
}

static int mismatch(struct imt_error *err, size_t record, const char *check,
		    const struct hash_algo *a, const uint8_t *expect,
		    const uint8_t *got)
{
	char e[2 * HEX_SHOWN + 4], g[2 * HEX_SHOWN + 4];

	hex_short(expect, a->size, e);
	hex_short(got, a->size, g);
	imt_error_set(err, IMT_ERR_MISMATCH, record, IMT_NO_POS,
		      "%s %s: the PCRs give %s, the list %s", a->name, check, e,
		      g);
	return -1;
}

/* boot_aggregate against the bank of its algorithm, if its PCRs are in. */
static int check_boot_aggregate(const struct ima_record *rec,
				const struct import_pcr *pcrs, size_t npcrs,
				struct import_list_info *info,
				struct imt_error *err)
{
	const struct pcr_set *set = NULL;
	uint8_t expect[HASH_ALGO_MAX_SIZE];
	uint32_t need;
	size_t i;

	for (i = 0; i < npcrs; i++)
		if (pcrs[i].set.algo == rec->digest_algo)
			set = &pcrs[i].set;
	if (set == NULL || rec->digest == NULL)
		return 0;
	need = set->algo == hash_algo_bank("sha1") ? 0xffu : 0x3ffu;
	if ((set->present & need) != need)
		return 0;
	if (pcr_set_boot_aggregate(set, expect, err) != IMT_OK)
		return -1;
	if (memcmp(expect, rec->digest, set->algo->size) != 0)
		return mismatch(err, rec->index, "boot_aggregate", set->algo,
				expect, rec->digest);
	info->boot_aggregate_checked = 1;
	return 0;
}

static int replay_record(struct replays *rs, const struct ima_record *rec,
			 struct imt_error *err)
{
	size_t k;

	if (rec->pcr != IMPORT_LIST_PCR) {
		imt_error_set(err, IMT_ERR_UNSUPPORTED, rec->index, rec->offset,
			      "record %zu extends PCR %u; only PCR %d is checked",
			      rec->index, rec->pcr, IMPORT_LIST_PCR);
		return -1;
	}
	for (k = 0; k < rs->n; k++)
		if (ima_replay_extend(rs->r[k], rec, err) != IMT_OK)
			return -1;
	return 0;
}

static int replay_list(const uint8_t *list, size_t len, struct replays *rs,
		       const struct import_pcr *pcrs, size_t npcrs,
		       struct import_list_info *info, struct imt_error *err)
{
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error e;
	size_t pos = 0;

	if (len == 0) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "list: empty");
		return -1;
	}
	ima_list_parser_init(&p, NULL);
	while (pos < len) {
		if (ima_list_next(&p, list + pos, len - pos, 1, &rec, &e) !=
		    IMT_OK)
			return pass_on(err, &e, "list");
		if (replay_record(rs, &rec, err) < 0)
			return -1;
		if (ima_is_boot_aggregate(rec.index, rec.path, rec.path_len) &&
		    check_boot_aggregate(&rec, pcrs, npcrs, info, err) < 0)
			return -1;
		pos += rec.size;
	}
	info->records = p.next_index;
	return 0;
}

static int check_pcr10(const struct replays *rs, const struct import_pcr *pcrs,
		       size_t npcrs, struct imt_error *err)
{
	const uint8_t *got;
	size_t i;

	for (i = 0; i < npcrs; i++) {
		got = ima_replay_pcr(rs->r[i], IMPORT_LIST_PCR);
		if (memcmp(got, pcrs[i].set.value[IMPORT_LIST_PCR],
			   pcrs[i].set.algo->size) != 0)
			return mismatch(err, IMT_NO_POS, "PCR 10",
					pcrs[i].set.algo,
					pcrs[i].set.value[IMPORT_LIST_PCR],
					got);
	}
	return 0;
}

/* ---- pass 2: references ---- */

static int has_buf(const struct ima_record *rec)
{
	size_t i;

	for (i = 0; i < rec->nfields; i++)
		if (rec->fields[i].def != NULL &&
		    rec->fields[i].def->role == IMA_ROLE_BUF)
			return 1;
	return 0;
}

/* The reference @rec gives, with its name in @name; 0 if none. */
static int ref_of(const struct ima_record *rec, struct import_ref *ref,
		  char *name)
{
	if (rec->violation ||
	    ima_name_is_boot_aggregate(rec->path, rec->path_len) ||
	    rec->digest_algo == NULL || rec->digest == NULL ||
	    rec->path_len == 0 || rec->path_len > IMA_PATH_MAX ||
	    memchr(rec->path, '\0', rec->path_len) != NULL)
		return 0;
	memcpy(name, rec->path, rec->path_len);
	name[rec->path_len] = '\0';
	ref->kind = has_buf(rec) ? IMPORT_REF_BUFFER : IMPORT_REF_FILE;
	if (ref->kind == IMPORT_REF_FILE && name[0] != '/')
		return 0;
	ref->path = name;
	ref->algo = rec->digest_algo->name;
	ref->digest = rec->digest;
	ref->digest_len = rec->digest_algo->size;
	ref->conffile = 0;
	return 1;
}

static int emit_list(const uint8_t *list, size_t len,
		     const struct import_sink *sink,
		     struct import_list_info *info, struct imt_error *err)
{
	char name[IMA_PATH_MAX + 1];
	struct ima_list_parser p;
	struct ima_record rec;
	struct import_ref ref;
	size_t pos = 0;

	ima_list_parser_init(&p, NULL);
	for (; pos < len; pos += rec.size) {
		/* pass 1 parsed the same bytes */
		if (ima_list_next(&p, list + pos, len - pos, 1, &rec, err) !=
		    IMT_OK)
			return -1;
		if (!ref_of(&rec, &ref, name)) {
			if (rec.violation)
				info->violations++;
			else
				info->skipped++;
			continue;
		}
		if (sink->ref(sink->arg, &ref, err) < 0)
			return -1;
		if (ref.kind == IMPORT_REF_FILE)
			info->files++;
		else
			info->buffers++;
	}
	return 0;
}

int import_list(const uint8_t *list, size_t len, const struct import_pcr *pcrs,
		size_t npcrs, const struct import_sink *sink,
		struct import_list_info *info, struct imt_error *err)
{
	struct import_list_info local;
	struct replays rs;
	int rc = -1;

	if (info == NULL)
		info = &local;
	memset(info, 0, sizeof(*info));
	if (check_banks(pcrs, npcrs, err) < 0 ||
	    replays_new(&rs, pcrs, npcrs, err) < 0)
		return -1;
	if (replay_list(list, len, &rs, pcrs, npcrs, info, err) < 0 ||
	    check_pcr10(&rs, pcrs, npcrs, err) < 0)
		goto out;
	rc = emit_list(list, len, sink, info, err);
out:
	replays_free(&rs);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * fuzz_ima_match.c - libFuzzer target: ima_match_batch(), how much of a
 * batch a quoted PCR 10 proves.
 *
 * The input picks the bank, the running PCR 10 before the batch, a list
 * of records (fz_list.h: templates, paths, digests, violations, PCRs),
 * perhaps custom templates, and the quoted value: the PCR 10 after the
 * first k records of the list, or free bytes. Then it may change bytes
 * of the list. Oracle, for an unchanged list whose records all replay:
 * the match is the last record after which PCR 10 equals the quoted
 * value (k at least), with its byte offset; no match is a mismatch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fz_input.h"
#include "fz_list.h"
#include "fz_tpm.h"
#include "ima_ascii.h"
#include "ima_list.h"
#include "ima_match.h"
#include "ima_replay.h"
#include "ima_template.h"
#include "ima_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const banks[] = { "sha256", "sha1", "sha384", "sha512" };
static const char *const custom_names[] = { "", "custom", "no-such", "ima" };
static const char *const custom_fmts[] = {
	"d-ng|n-ng", "d-ng|n-ng|buf",
	"d|n",	     "d-ngv2|n-ng|sig|iuid|igid|imode",
	"n-ng",	     "d-ng|n-ng|xattrnames|xattrlengths|xattrvalues",
	"d-modsig",
};

static void check_fail(const char *what, const struct imt_error *err)
{
	fprintf(stderr, "fuzz_ima_match: %s (%s)\n", what,
		err != NULL ? err->msg : "");
	abort();
}

/* PCR 10 after each record of @l from @running; -1 if one does not replay. */
static int replay_all(const struct fz_list *l, const struct hash_algo *bank,
		      const struct ima_template_set *custom,
		      const uint8_t *running,
		      uint8_t after[][HASH_ALGO_MAX_SIZE])
{
	struct ima_replay *r = ima_replay_new(bank, NULL);
	struct ima_list_parser p;
	struct ima_record rec;
	size_t i, pos = 0;
	int rc = 0;

	ima_list_parser_init(&p, custom);
	ima_replay_set_pcr(r, IMA_MEASURE_PCR, running);
	for (i = 0; i < l->count && rc == 0; i++) {
		if (ima_list_next(&p, l->bytes + pos, l->len - pos, 1, &rec,
				  NULL) != IMT_OK ||
		    ima_replay_extend(r, &rec, NULL) != IMT_OK)
			rc = -1;
		else
			memcpy(after[i], ima_replay_pcr(r, IMA_MEASURE_PCR),
			       bank->size);
		pos += rec.size;
	}
	ima_replay_free(r);
	return rc;
}

/*
 * The proven prefix as the whole-list check sees it (ima_verify, from a
 * zero PCR 10) and as it is shown (ima_ascii). With a zero running value
 * both replays start alike: what ima_match proved, ima_verify must too.
 */
static void use_prefix(const struct hash_algo *bank, const uint8_t *bytes,
		       const struct ima_match_result *res,
		       const struct ima_template_set *custom, int from_zero)
{
	struct ima_verify_report report;
	struct ima_list_parser p;
	struct ima_record rec;
	struct pcr_set set;
	struct ima_verify *iv;
	char line[512];
	size_t pos = 0;

	pcr_set_init(&set, bank);
	set.present = 1u << IMA_MEASURE_PCR;
	memcpy(set.value[IMA_MEASURE_PCR], res->pcr10, bank->size);
	iv = ima_verify_new(&set, 1, NULL);
	if (iv == NULL)
		check_fail("ima_verify_new", NULL);
	ima_list_parser_init(&p, custom);
	while (pos < res->covered_bytes) {
		if (ima_list_next(&p, bytes + pos, res->covered_bytes - pos, 1,
				  &rec, NULL) != IMT_OK ||
		    ima_verify_record(iv, &rec, NULL) != IMT_OK)
			check_fail("a proven record does not replay", NULL);
		ima_ascii_format(&rec, line, sizeof(line));
		pos += rec.size;
	}
	ima_verify_finish(iv, &report, NULL);
	if (from_zero && !report.banks[0].pcr_ok)
		check_fail("ima_verify disagrees with ima_match", NULL);
	ima_verify_free(iv);
}

static void add_custom(struct fz_in *in, struct ima_template_set *set)
{
	char fmt[48];
	size_t n, i;

	n = fz_u8(in) % 3;
	for (i = 0; i < n; i++) {
		if (fz_u8(in) & 1) {
			ima_template_set_add(set, FZ_PICK(in, custom_names),
					     FZ_PICK(in, custom_fmts), NULL);
			continue;
		}
		/* a format of free text: the template parser's input */
		fz_bytes(in, (uint8_t *)fmt, fz_range(in, 0, sizeof(fmt) - 1));
		fmt[sizeof(fmt) - 1] = '\0';
		ima_template_set_add(set, FZ_PICK(in, custom_names), fmt, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t after[FZ_LIST_RECORDS][HASH_ALGO_MAX_SIZE];
	static struct fz_list l;
	struct fz_in in = fz_in_init(data, size);
	const struct hash_algo *bank = hash_algo_bank(FZ_PICK(&in, banks));
	uint8_t running[HASH_ALGO_MAX_SIZE] = { 0 };
	uint8_t quoted[HASH_ALGO_MAX_SIZE], flags = fz_u8(&in);
	struct ima_template_set custom = { 0 };
	struct ima_match_result res;
	struct imt_error err;
	size_t i, n, k, want;
	uint64_t first = flags & 4 ? fz_u64(&in) : fz_u8(&in);
	int replays, changed = 0;
	enum imt_result rc;

	if (flags & 1)
		fz_bytes(&in, running, bank->size);
	if (flags & 2)
		add_custom(&in, &custom);
	l.len = 0;
	l.count = 0;
	n = fz_u8(&in) % (FZ_LIST_RECORDS + 1);
	for (i = 0; i < n; i++) {
		if (fz_list_record(&in, &l) < 0)
			break;
	}
	replays = replay_all(&l, bank, flags & 2 ? &custom : NULL, running,
			     after) == 0;
	k = fz_u8(&in) % (l.count + 1);
	if (flags & 8)
		fz_bytes(&in, quoted, bank->size);
	else
		memcpy(quoted, k == 0 ? running : after[k - 1], bank->size);
	if (flags & 16) {
		n = fz_u8(&in) % 4;
		for (i = 0; i < n; i++)
			fz_flip(&in, l.bytes, l.len);
		changed = 1;
	}
	if (flags & 32) {
		l.len -= fz_u16(&in) % (l.len + 1);
		changed = 1;
	}
	rc = ima_match_batch(bank, running, quoted, l.bytes, l.len,
			     (size_t)first, flags & 2 ? &custom : NULL, &res,
			     &err);
	if (rc == IMT_OK)
		use_prefix(bank, l.bytes, &res, flags & 2 ? &custom : NULL,
			   !(flags & 1));
	if (changed || !replays || (flags & 8))
		return 0;
	for (want = k, i = k; i < l.count; i++) {
		if (memcmp(after[i], quoted, bank->size) == 0)
			want = i + 1;
	}
	if (rc != IMT_OK)
		check_fail("a quote over a prefix matches nothing", &err);
	if (res.covered != want ||
	    res.covered_bytes != (want == 0 ? 0 : l.end[want - 1]) ||
	    memcmp(res.pcr10, quoted, bank->size) != 0)
		check_fail("the match is not the longest prefix", NULL);
	return 0;
}

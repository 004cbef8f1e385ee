// SPDX-License-Identifier: GPL-2.0-only
/*
 * attest.c - the checks of one piece of evidence (attest.h).
 *
 * Order, and why:
 *  1. authenticity: the quote's structure, the signature by the AK
 *     enrolled for this machine, the nonce inside it (attest_authenticate);
 *     the engine then checks that nonce is the machine's outstanding one;
 *  2. the PCR digest over the PCR values sent, PCRs 0-10 selected, the
 *     bank the machine is pinned to;
 *  3. the boot: the quote's resetCount/restartCount (signed by the TPM,
 *     not what the agent claims) against the stored boot; where the
 *     machine's list starts now that it may delete its oldest records
 *     (history_apply());
 *  4. replay of the new records from the stored running PCR 10 to the
 *     quoted value; the longest proven prefix is kept (proto/DESIGN.md
 *     §4); records for other PCRs than 10 are refused, since no quoted
 *     value proves them;
 *  5. the firmware event log of the boot (the one sent, else the stored
 *     one) against the quoted PCRs and the boot policy (boot_check.h); a
 *     log other than the one stored for the same boot is refused.
 * The engine stores what passed, or turns the machine "failed" for what
 * did not pass 2-4, and changes nothing for what did not pass 1.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ak_cache.h"
#include "attest.h"
#include "backlog.h"
#include "boot_check.h"
#include "boot_memo.h"
#include "db_boot.h"
#include "db_machine.h"
#include "grow.h"
#include "history.h"
#include "ima_list.h"
#include "ima_match.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "tpm_public.h"

int attest_fail(struct attest *a, const char *check, const char *fmt, ...)
{
	va_list ap;

	snprintf(a->check, sizeof(a->check), "%s", check);
	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static const char *const kept_banks[ATTEST_BANKS] = {
	"sha1",
	"sha256",
	"sha384",
	"sha512",
};

const struct hash_algo *attest_bank(size_t k)
{
	return k < ATTEST_BANKS ? hash_algo_bank(kept_banks[k]) : NULL;
}

size_t attest_bank_index(const struct hash_algo *bank)
{
	size_t k;

	for (k = 0; k < ATTEST_BANKS; k++) {
		if (attest_bank(k) == bank)
			break;
	}
	return k;
}

uint8_t *attest_running(struct attest *a)
{
	return a->pcr10[attest_bank_index(a->ev->bank)];
}

/* The machine's enrolled AK as a key: from the cache, or built once. */
static EVP_PKEY *ak_key(struct verifier *v, struct attest *a)
{
	EVP_PKEY *ak = ak_cache_get(v->ak_cache, a->m.id, a->m.ak_name,
				    a->m.ak_name_len);
	struct imt_error err;
	TPMT_PUBLIC pub;

	if (ak != NULL)
		return ak;
	if (tpm_public_parse(a->m.ak_pub, a->m.ak_pub_len, &pub, &err) !=
		    IMT_OK ||
	    tpm_public_to_pkey(&pub, &ak, &err) != IMT_OK) {
		attest_fail(a, "ak", "stored AK unusable: %s", err.msg);
		return NULL;
	}
	ak_cache_put(v->ak_cache, a->m.id, a->m.ak_name, a->m.ak_name_len, ak);
	return ak;
}

/* The check proto/ names in @err (err->check), else @fallback. */
static void fail_named(struct attest *a, const char *fallback,
		       const struct imt_error *err)
{
	attest_fail(a, err->check != NULL ? err->check : fallback, "%s",
		    err->msg);
}

int attest_authenticate_key(struct attest *a, EVP_PKEY *ak)
{
	const struct wire_evidence *ev = a->ev;
	struct imt_error err;

	if (tpm_quote_authentic(ev->quote.data, ev->quote.len,
				ev->signature.data, ev->signature.len, ak,
				ev->nonce, ev->nonce_len, &a->quote,
				&a->hash_alg, &err) != IMT_OK) {
		fail_named(a, "quote", &err);
		return -1;
	}
	return 0;
}

int attest_authenticate(struct verifier *v, struct attest *a)
{
	EVP_PKEY *ak = ak_key(v, a);
	int rc;

	if (ak == NULL)
		return -1;
	rc = attest_authenticate_key(a, ak);
	EVP_PKEY_free(ak);
	return rc;
}

/* Step 2: what the signed quote says about the PCR values and bank. */
static int check_pcrs(struct verifier *v, struct attest *a)
{
	const struct wire_evidence *ev = a->ev;
	struct imt_error err;
	uint32_t mask;

	if (tpm_quote_check_pcrs(&a->quote, a->hash_alg, &ev->pcrs, &err) !=
	    IMT_OK) {
		fail_named(a, "pcr digest", &err);
		return -1;
	}
	mask = tpm_quote_pcr_mask(&a->quote, ev->bank);
	if ((mask & ATTEST_PCR_MASK) != ATTEST_PCR_MASK)
		return attest_fail(a, "pcr selection",
				   "the quote must select %s PCRs 0-10 (selected 0x%x)",
				   ev->bank->name, mask);
	if (attest_bank_index(ev->bank) == ATTEST_BANKS)
		return attest_fail(a, "bank",
				   "bank %s is not kept (sha1, sha256, sha384, sha512)",
				   ev->bank->name);
	if (a->m.bank[0] != '\0' && strcmp(a->m.bank, ev->bank->name) != 0 &&
	    strcmp(v->cfg.bank_change, "allow") != 0)
		return attest_fail(a, "bank",
				   "a quote of the %s bank; this machine is pinned to %s (bank_change = deny)",
				   ev->bank->name, a->m.bank);
	return 0;
}

/* A boot from record 0: sha1, sha256 and the quoted bank from zero. */
static void start_over(struct attest *a)
{
	size_t k;

	a->new_boot = 1;
	a->resume = 0;
	a->next = 0;
	memset(a->pcr10, 0, sizeof(a->pcr10));
	for (k = 0; k < ATTEST_BANKS; k++)
		a->kept[k] = k < ATTEST_WIDE || attest_bank(k) == a->ev->bank;
}

/* The stored boot @b's running PCR 10 values, and which it carries. */
static void load_running(struct attest *a, const struct db_boot *b)
{
	memset(a->pcr10, 0, sizeof(a->pcr10));
	memcpy(a->pcr10[0], b->pcr10_sha1, sizeof(b->pcr10_sha1));
	memcpy(a->pcr10[1], b->pcr10_sha256, sizeof(b->pcr10_sha256));
	memcpy(a->pcr10[2], b->pcr10_sha384, sizeof(b->pcr10_sha384));
	memcpy(a->pcr10[3], b->pcr10_sha512, sizeof(b->pcr10_sha512));
	a->kept[0] = a->kept[1] = 1;
	a->kept[2] = b->have_sha384;
	a->kept[3] = b->have_sha512;
}

/*
 * Step 3: which boot; where its records and running PCR 10 stand. A new
 * resetCount is a reboot. A new restartCount alone is a TPM Resume (PCRs
 * kept, the list goes on) or a TPM Restart (PCRs reset): the replay tells
 * them apart, trying the stored boot first (check_replay()).
 */
static int check_boot(struct attest *a)
{
	const struct tpm_quote *q = &a->quote;
	const struct db_boot *b = &a->boot;

	if (!a->have_boot || q->reset_count > b->reset_count) {
		start_over(a);
		return 0;
	}
	if (q->reset_count < b->reset_count ||
	    q->restart_count < b->restart_count)
		return attest_fail(a, "counters",
				   "TPM resetCount/restartCount went backwards: %u/%u after %u/%u",
				   q->reset_count, q->restart_count,
				   b->reset_count, b->restart_count);
	a->resume = q->restart_count > b->restart_count;
	if (a->resume && a->ev->first_index == 0 && b->next_record_index > 0) {
		start_over(a); /* the agent starts over: a TPM Restart */
		return 0;
	}
	a->next = b->next_record_index;
	load_running(a, b);
	return 0;
}

/*
 * Once the boot is known: the quoted bank must be one the boot carries,
 * unless nothing of the boot is stored yet, or the batch starts past a
 * gap (history_apply() then takes its running PCR 10 from the agent). A
 * wide bank the boot's earlier quotes did not cover has no running PCR 10
 * to replay from (bank_change = allow): the next boot carries it.
 */
static int check_bank_carried(struct attest *a)
{
	size_t k = attest_bank_index(a->ev->bank);

	if (a->kept[k])
		return 0;
	if (a->next > 0 && a->ev->list_start <= a->next)
		return attest_fail(a, "bank",
				   "records 0-%llu of this boot were not replayed in %s (its earlier quotes were of another bank): %s quotes are replayed from the next boot",
				   (unsigned long long)(a->next - 1),
				   a->ev->bank->name, a->ev->bank->name);
	memset(a->pcr10[k], 0, sizeof(a->pcr10[k]));
	a->kept[k] = 1;
	return 0;
}

/* Record 0 of a boot: boot_aggregate over the quoted PCRs 0-7/0-9. */
static int check_boot_aggregate(struct attest *a, const struct ima_record *rec)
{
	const struct hash_algo *bank = a->ev->bank;
	uint8_t expect[HASH_ALGO_MAX_SIZE];
	struct imt_error err;

	if (!ima_name_is_boot_aggregate(rec->path, rec->path_len))
		return attest_fail(a, "boot_aggregate",
				   "record 0 is not boot_aggregate");
	if (rec->digest_algo != bank)
		return attest_fail(a, "boot_aggregate",
				   "record 0 is a %s digest but the quote is of the %s bank: set the agent's bank to the kernel's ima_hash",
				   rec->digest_algo != NULL ?
					   rec->digest_algo->name :
					   "(none)",
				   bank->name);
	if (pcr_set_boot_aggregate(&a->ev->pcrs, expect, &err) != IMT_OK)
		return attest_fail(a, "boot_aggregate", "%s", err.msg);
	if (memcmp(expect, rec->digest, bank->size) != 0)
		return attest_fail(a, "boot_aggregate",
				   "record 0 does not match the quoted %s PCRs 0-%d",
				   bank->name,
				   bank == hash_algo_bank("sha1") ? 7 : 9);
	memcpy(a->ba, rec->digest, bank->size);
	a->ba_len = bank->size;
	return 0;
}

/* The sig field of ima-sig/ima-sigv2 (borrowed), or NULL when empty. */
static const struct ima_field *sig_field(const struct ima_record *rec)
{
	size_t i;

	for (i = 0; i < rec->nfields; i++) {
		if (rec->fields[i].def != NULL &&
		    strcmp(rec->fields[i].def->id, "sig") == 0)
			return rec->fields[i].len > 0 ? &rec->fields[i] : NULL;
	}
	return NULL;
}

static void keep_record(struct attest *a, const struct ima_record *rec,
			char **arena)
{
	const struct ima_field *sig = sig_field(rec);
	struct db_record *r = &a->recs[a->n];
	struct judge_input *in = &a->in[a->n];

	memcpy(*arena, rec->path, rec->path_len);
	(*arena)[rec->path_len] = '\0';
	memset(r, 0, sizeof(*r));
	r->index = a->next + a->n;
	r->pcr = rec->pcr;
	r->template = rec->tmpl != NULL ? rec->tmpl->name : "unknown";
	r->path = *arena;
	*arena += rec->path_len + 1;
	if (rec->digest_algo != NULL && rec->digest != NULL) {
		r->digest_algo = rec->digest_algo->name;
		r->digest = rec->digest;
		r->digest_len = rec->digest_algo->size;
	} else {
		/* ima-buf and friends: no file digest; judged unknown */
		r->digest_algo = "none";
		r->digest = (const uint8_t *)"";
		r->digest_len = 0;
	}
	*in = (struct judge_input){
		.path = r->path,
		.algo = rec->digest_algo != NULL ? r->digest_algo : NULL,
		.digest = rec->digest_algo != NULL ? r->digest : NULL,
		.digest_len = r->digest_len,
		.violation = rec->violation,
		.boot_aggregate = ima_is_boot_aggregate(r->index, rec->path,
							rec->path_len),
		.sig = sig != NULL ? sig->data : NULL,
		.sig_len = sig != NULL ? sig->len : 0,
	};
	r->sig = in->sig;
	r->sig_len = in->sig_len;
	a->violations += rec->violation != 0;
	a->n++;
}

/*
 * Extend @rec into the kept bank @r. The quoted bank's replay proved the
 * template data: another bank takes the digest the list shows (a third of
 * a record's hashing), and a list that lied about it only fails a later
 * quote of that bank. A sha1 quote's own replay checks the listed digests.
 */
static enum imt_result carry(const struct attest *a, struct ima_replay *r,
			     const struct ima_record *rec,
			     struct imt_error *err)
{
	if (ima_replay_algo(r) == a->ev->bank)
		return ima_replay_extend(r, rec, err);
	return ima_replay_extend_listed(r, rec, err);
}

/*
 * Parse the first @count records, keep them, and carry the running PCR 10
 * of every bank the boot keeps past them, so a later quote of such a bank
 * can be replayed. @proven is the quoted bank's value after them when
 * ima_match_batch() already computed it (NULL when @count is a cut of
 * what it covered): that bank is not hashed a second time.
 */
static int take_records(struct attest *a, size_t count, const uint8_t *proven)
{
	struct ima_replay *r[ATTEST_BANKS] = { NULL };
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t pos = 0, i, k;
	char *arena;
	int rc = -1;

	a->recs = calloc(count + 1, sizeof(*a->recs));
	a->in = calloc(count + 1, sizeof(*a->in));
	a->paths = malloc(a->len + count + 1);
	if (a->recs == NULL || a->in == NULL || a->paths == NULL) {
		attest_fail(a, "internal", "out of memory");
		goto out;
	}
	for (k = 0; k < ATTEST_BANKS; k++) {
		const struct hash_algo *bank = attest_bank(k);

		if (!a->kept[k] || (bank == a->ev->bank && proven != NULL))
			continue;
		r[k] = ima_replay_new(bank, &err);
		if (r[k] == NULL) {
			attest_fail(a, "internal", "%s", err.msg);
			goto out;
		}
		ima_replay_set_pcr(r[k], IMA_MEASURE_PCR, a->pcr10[k]);
	}
	arena = a->paths;
	ima_list_parser_init(&p, NULL);
	p.next_index = a->next;
	for (i = 0; i < count; i++) {
		if (ima_list_next(&p, a->bytes + pos, a->len - pos, 1, &rec,
				  &err) != IMT_OK) {
			attest_fail(a, "list", "%s", err.msg);
			goto out;
		}
		for (k = 0; k < ATTEST_BANKS; k++) {
			if (r[k] != NULL &&
			    carry(a, r[k], &rec, &err) != IMT_OK) {
				attest_fail(a, "list", "%s", err.msg);
				goto out;
			}
		}
		if (a->next + i == 0 && check_boot_aggregate(a, &rec) < 0)
			goto out;
		keep_record(a, &rec, &arena);
		pos += rec.size;
	}
	for (k = 0; k < ATTEST_BANKS; k++) {
		if (a->kept[k])
			memcpy(a->pcr10[k],
			       r[k] != NULL ?
				       ima_replay_pcr(r[k], IMA_MEASURE_PCR) :
				       proven,
			       attest_bank(k)->size);
	}
	rc = 0;
out:
	for (k = 0; k < ATTEST_BANKS; k++)
		ima_replay_free(r[k]);
	return rc;
}

static struct backlog_key key_of(const struct attest *a)
{
	return (struct backlog_key){ a->ev->agent, a->quote.reset_count,
				     a->quote.restart_count };
}

/* Grow @p to hold @extra more bytes: doubling, so appends stay linear. */
static int piece_reserve(struct backlog_piece *p, size_t extra)
{
	uint8_t *grown = grow(p->bytes, &p->cap, p->len + extra + 1, 1u << 20);

	if (grown == NULL)
		return -1;
	p->bytes = grown;
	return 0;
}

/*
 * Put what was held before this batch in front of it; @held receives
 * it (bytes owned by @a->joined then), or a zeroed piece when none.
 */
static int join_backlog(struct verifier *v, struct attest *a,
			struct backlog_piece *held)
{
	struct backlog_key key = key_of(a);

	a->bytes = a->ev->records.data;
	a->len = a->ev->records.len;
	a->start = a->ev->first_index;
	if (v->backlog == NULL || a->whole ||
	    !backlog_take(v->backlog, &key, a->ev->first_index, held))
		return 0;
	if (piece_reserve(held, a->len) < 0) {
		free(held->bytes);
		held->bytes = NULL;
		return attest_fail(a, "internal", "out of memory");
	}
	if (a->len > 0)
		memcpy(held->bytes + held->len, a->bytes, a->len);
	a->joined = held->bytes;
	a->bytes = held->bytes;
	a->len += held->len;
	a->start = held->start;
	return 0;
}

/*
 * The quote is ahead of the batch and the agent says more follows: hold
 * the records, unproven, until a quote catches up. @held is what was
 * held before (zeroed when nothing), @m the replay of the new part.
 */
static int hold(struct verifier *v, struct attest *a,
		struct backlog_piece *held, const struct ima_match_result *m)
{
	struct backlog_key key = key_of(a);
	struct backlog_piece p = *held;

	if (p.bytes == NULL) {
		p.start = a->start;
		if (piece_reserve(&p, a->len) < 0)
			return attest_fail(a, "internal", "out of memory");
		memcpy(p.bytes, a->bytes, a->len);
	} else {
		a->joined = NULL; /* the piece owns them again */
	}
	p.len = a->len;
	p.end = a->ev->first_index + m->records;
	memcpy(p.running, m->end_pcr10, a->ev->bank->size);
	a->bytes = NULL;
	if (backlog_put(v->backlog, &key, &p) < 0)
		return attest_fail(a, "replay",
				   "the quote is further ahead of the proven list than the backlog holds for one machine (backlog_machine_max)");
	a->held_end = p.end;
	return 0;
}

/*
 * A one-shot check: the quote must prove the whole list, not a prefix;
 * else the first record it does not prove is named.
 */
static int whole_list(struct attest *a, enum imt_result rc,
		      const struct ima_match_result *m,
		      const struct imt_error *err)
{
	if (rc == IMT_ERR_MISMATCH)
		return attest_fail(a, "replay",
				   "no record is proven, record 0 included: %s",
				   err->msg);
	if (rc != IMT_OK)
		return attest_fail(a, "list", "%s", err->msg);
	if (m->records == 0) /* nothing proves which kernel measured */
		return attest_fail(a, "replay",
				   "the list is empty: record 0 must be boot_aggregate");
	if (m->covered < m->records)
		return attest_fail(a, "replay",
				   "the quoted PCR 10 proves the first %zu records only: record %zu and the %zu after it are not proven",
				   m->covered, m->covered,
				   m->records - m->covered - 1);
	return take_records(a, m->covered, m->pcr10);
}

/* Step 4: the longest prefix of the batch the quote proves. */
static int check_replay(struct verifier *v, struct attest *a)
{
	const struct wire_evidence *ev = a->ev;
	const uint8_t *quoted = ev->pcrs.value[IMA_MEASURE_PCR];
	struct backlog_piece held = { 0 };
	struct ima_match_result m;
	struct imt_error err;
	const uint8_t *running;
	size_t held_records, off;
	enum imt_result rc;

	if (join_backlog(v, a, &held) < 0)
		return -1;
	if (a->start != a->next)
		return 0; /* the engine asks for the right index */
	/* only the new part is replayed: from where the held part ends */
	running = held.bytes != NULL ? held.running : attest_running(a);
	off = held.bytes != NULL ? held.len : 0;
	held_records = held.bytes != NULL ? held.end - held.start : 0;
	rc = ima_match_batch(ev->bank, running, quoted, a->bytes + off,
			     a->len - off, (size_t)(a->start + held_records),
			     NULL, &m, &err);
	if (rc == IMT_ERR_MISMATCH && a->resume) {
		/* not a TPM Resume: a TPM Restart, the list starts over */
		free(a->joined);
		a->joined = NULL;
		start_over(a);
		if (history_apply(a) < 0)
			return -1;
		return a->start != a->next ? 0 : check_replay(v, a);
	}
	if ((rc == IMT_OK || rc == IMT_ERR_MISMATCH) && m.other_pcr != SIZE_MAX)
		return attest_fail(a, "pcr",
				   "record %zu is for another PCR than 10: no quoted value proves it",
				   m.other_pcr);
	if (a->whole)
		return whole_list(a, rc, &m, &err);
	if (rc == IMT_ERR_MISMATCH && ev->more && v->backlog != NULL)
		return hold(v, a, &held, &m);
	if (rc != IMT_OK)
		return attest_fail(a,
				   rc == IMT_ERR_MISMATCH ? "replay" : "list",
				   "%s", err.msg);
	m.covered += held_records;
	/* past DB_BATCH_MAX the rest comes next round; the cut's running
	 * value is then not the one ima_match_batch() proved */
	if (m.covered > DB_BATCH_MAX)
		return take_records(a, DB_BATCH_MAX, NULL);
	return take_records(a, m.covered, m.pcr10);
}

int attest_boot_log_bytes_needed(struct verifier *v, struct attest *a)
{
	struct tpm_quote q;
	struct pcr_set sel;

	a->boot_log_memo = 0;
	if (a->ev->boot_log.len > 0)
		return 0;
	/* the quote is not verified yet: its selection is a guess here, and
	 * check_boot_log() keys the verified one again */
	if (tpm_quote_parse(a->ev->quote.data, a->ev->quote.len, &q, NULL) !=
	    IMT_OK)
		return 1;
	sel = a->ev->pcrs;
	sel.present &= tpm_quote_pcr_mask(&q, a->ev->bank);
	a->boot_log_memo =
		boot_memo_key(a->boot_log.sha256, &sel, a->boot_log_key) == 0 &&
		boot_memo_passed(v->boot_memo, a->boot_log_key);
	return !a->boot_log_memo;
}

/* The PCR values the quote proves: those it selects, no other sent. */
static void quoted_pcrs(const struct attest *a, struct pcr_set *set)
{
	*set = a->ev->pcrs;
	set->present &= tpm_quote_pcr_mask(&a->quote, a->ev->bank);
}

/*
 * The stored log's check passed before against these very PCRs: the
 * engine found it so under this key (the memo may have dropped it since),
 * or the memo has it now.
 */
static int memo_passed(struct verifier *v, const struct attest *a,
		       const uint8_t *sha, const struct pcr_set *quoted)
{
	uint8_t key[BOOT_MEMO_KEY_SIZE];

	if (boot_memo_key(sha, quoted, key) < 0)
		return 0;
	if (a->boot_log_memo &&
	    memcmp(key, a->boot_log_key, BOOT_MEMO_KEY_SIZE) == 0)
		return 1;
	return boot_memo_passed(v->boot_memo, key);
}

/* The log the check replays: the one sent, else the boot's stored one. */
static int pick_log(struct attest *a, uint8_t *sha, const uint8_t **log,
		    size_t *len)
{
	const struct wire_blob *sent = &a->ev->boot_log;
	int stored = a->have_boot_log && !a->new_boot;

	if (sent->len > 0) {
		if (db_boot_log_sha256(sent->data, sent->len, sha) < 0)
			return attest_fail(a, "boot log",
					   "cannot hash the firmware event log");
		if (stored && (sent->len != a->boot_log.len ||
			       memcmp(sha, a->boot_log.sha256,
				      DB_BOOT_LOG_SHA256_SIZE) != 0))
			return attest_fail(a, "boot log",
					   "the firmware event log changed within one boot");
		*log = sent->data;
		*len = sent->len;
	} else if (stored) {
		memcpy(sha, a->boot_log.sha256, DB_BOOT_LOG_SHA256_SIZE);
		*log = a->boot_log.data;
		*len = a->boot_log.len;
	}
	return 0;
}

/*
 * Step 5: the boot's firmware event log against the quoted PCRs. A stored
 * log that passed against the same quoted PCRs before passes again
 * without its replay (boot_memo.h): check_pcrs() has proven them by now.
 * The key is made again from the quote's selection: the one made before
 * the quote was parsed may count PCR values the quote does not prove.
 */
static int check_boot_log(struct verifier *v, struct attest *a)
{
	uint8_t sha[DB_BOOT_LOG_SHA256_SIZE];
	uint8_t key[BOOT_MEMO_KEY_SIZE];
	char reason[BOOT_CHECK_REASON_MAX];
	const uint8_t *log = NULL;
	struct pcr_set quoted;
	size_t len = 0;

	if (pick_log(a, sha, &log, &len) < 0)
		return -1;
	if (a->ev->boot_log.len == 0 && !(a->have_boot_log && !a->new_boot))
		return 0;
	quoted_pcrs(a, &quoted);
	if (a->ev->boot_log.len == 0 && memo_passed(v, a, sha, &quoted))
		return 0;
	if (log == NULL) /* the engine did not read it */
		return attest_fail(a, "boot log",
				   "the stored firmware event log was not read");
	if (boot_check_evidence(log, len, &quoted, reason, sizeof(reason)) !=
	    IMT_OK)
		return attest_fail(a, "boot log", "%s",
				   reason[0] != '\0' ?
					   reason :
					   "the firmware event log is not acceptable");
	if (boot_memo_key(sha, &quoted, key) == 0)
		boot_memo_pass(v->boot_memo, key);
	return 0;
}

int attest_check(struct verifier *v, struct attest *a)
{
	if (check_pcrs(v, a) < 0 || check_boot(a) < 0 ||
	    check_bank_carried(a) < 0 || history_apply(a) < 0 ||
	    check_replay(v, a) < 0)
		return -1;
	return check_boot_log(v, a);
}

void attest_release(struct attest *a)
{
	free(a->recs);
	free(a->in);
	free(a->paths);
	free(a->joined);
	db_boot_log_release(&a->boot_log);
	db_machine_release(&a->m);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * attest.c - one piece of evidence, from quote to verdict.
 *
 * Order of checks, and why:
 *  1. the machine may send evidence (known, activated, not pending);
 *  2. the quote: structure, AK signature, nonce inside it, PCR digest over
 *     the PCR values sent (tpm_quote_check), PCRs 0-10 selected;
 *  3. the boot: the quote's resetCount/restartCount (signed by the TPM,
 *     not what the agent claims) against the stored boot;
 *  4. replay of the new records from the stored running PCR 10 to the
 *     quoted value; the longest proven prefix is kept (proto/DESIGN.md §4);
 *  5. under the lock: the nonce is consumed (single use, unexpired, this
 *     machine's), the records judged, and everything stored in one
 *     transaction with the next nonce.
 * Any failure of 2-5 is the verdict "failed" with a reason naming the
 * check; the next valid evidence can lift it, but a list that does not
 * replay keeps failing, since nothing of it is stored.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "ak_cache.h"
#include "attest.h"
#include "backlog.h"
#include "db.h"
#include "hex.h"
#include "ima_list.h"
#include "ima_match.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "judge.h"
#include "log.h"
#include "tpm_public.h"
#include "tpm_quote.h"

#define NONCE_SIZE 32		/* bytes of a fresh nonce */

struct evidence {
	const struct wire_evidence *ev;
	struct db_machine m;
	struct db_boot boot;
	int have_boot;
	int new_boot;		/* the quote's counters are past the boot's */
	struct tpm_quote quote;
	uint64_t next;		/* the index the batch must start at */
	/* the batch: the records sent, after any held back (backlog.h) */
	const uint8_t *bytes;
	size_t len;
	uint64_t start;		/* list index of its first record */
	uint8_t *joined;	/* owned when held bytes were joined */
	uint64_t held_end;	/* non-zero: held, proven up to e->next only */
	/* PCR 10 before and after the proven records, both banks */
	uint8_t sha1[DB_PCR_SHA1_SIZE], sha256[DB_PCR_SHA256_SIZE];
	uint8_t ba[HASH_ALGO_MAX_SIZE];
	size_t ba_len;
	/* the proven records, judged under the lock */
	size_t n;
	struct db_record *recs;
	struct judge_input *in;
	char *paths;		/* NUL-terminated copies, one arena */
	size_t violations;
	/* set by fail(): the check that failed and why */
	char check[32];
	char msg[ATTEST_MSG_MAX];
};

static void answer_error(struct attest_answer *ans, unsigned int status,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void answer_error(struct attest_answer *ans, unsigned int status,
			 const char *fmt, ...)
{
	va_list ap;

	ans->status = status;
	va_start(ap, fmt);
	vsnprintf(ans->message, sizeof(ans->message), fmt, ap);
	va_end(ap);
}

static int fail(struct evidence *e, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record which check failed; returns -1 for the caller to pass on. */
static int fail(struct evidence *e, const char *check, const char *fmt, ...)
{
	va_list ap;

	snprintf(e->check, sizeof(e->check), "%s", check);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* Issue the next nonce into @ans (v->lock held). */
static int issue_nonce(struct verifier *v, const char *id, int64_t now,
		       struct attest_answer *ans)
{
	struct wire_verdict *vd = &ans->verdict;
	struct imt_error err;

	if (RAND_bytes(vd->nonce, NONCE_SIZE) != 1) {
		answer_error(ans, 503, "no randomness for a nonce");
		return -1;
	}
	vd->nonce_len = NONCE_SIZE;
	vd->nonce_expires = (uint64_t)now + v->cfg.nonce_ttl;
	vd->nonce_ttl = v->cfg.nonce_ttl;
	if (db_nonce_issue(v->db, id, vd->nonce, vd->nonce_len,
			   (int64_t)vd->nonce_expires, &err) < 0) {
		answer_error(ans, 503, "storage: %s", err.msg);
		return -1;
	}
	return 0;
}

static void set_state_word(struct wire_verdict *vd, enum db_machine_state s)
{
	snprintf(vd->state, sizeof(vd->state), "%s", db_machine_state_name(s));
}

/*
 * Load machine and boot (v->lock held); 0, or -1 with @ans filled. A
 * pending machine may ask for a nonce (@allow_pending), not send evidence.
 */
static int load_machine(struct verifier *v, const char *id,
			struct evidence *e, int allow_pending,
			struct attest_answer *ans)
{
	struct imt_error err;
	int found;

	if (db_machine_get(v->db, id, &e->m, &found, &err) < 0) {
		answer_error(ans, 503, "storage: %s", err.msg);
		return -1;
	}
	if (!found) {
		answer_error(ans, 404, "unknown agent %s: enroll first", id);
		return -1;
	}
	if (!e->m.activated) {
		answer_error(ans, 403, "not activated: enroll first");
		return -1;
	}
	if (e->m.state == DB_STATE_PENDING && !allow_pending) {
		answer_error(ans, 403,
			     "pending: the EK is not vouched for; an operator must approve %s",
			     id);
		return -1;
	}
	if (db_boot_current(v->db, id, &e->boot, &e->have_boot, &err) < 0) {
		answer_error(ans, 503, "storage: %s", err.msg);
		return -1;
	}
	return 0;
}

void attest_nonce(struct verifier *v, const char *id, int64_t now,
		  struct attest_answer *ans)
{
	struct evidence e = { 0 };

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	/* a pending machine gets its state (and a nonce for later) */
	if (load_machine(v, id, &e, 1, ans) < 0 ||
	    issue_nonce(v, id, now, ans) < 0)
		goto out;
	ans->status = 200;
	set_state_word(&ans->verdict, e.m.state);
	ans->verdict.next_index = e.have_boot ? e.boot.next_record_index : 0;
out:
	pthread_mutex_unlock(&v->lock);
	db_machine_release(&e.m);
}

/* The machine's enrolled AK as a key: from the cache, or built once. */
static EVP_PKEY *ak_key(struct verifier *v, struct evidence *e)
{
	EVP_PKEY *ak = ak_cache_get(v->ak_cache, e->m.id, e->m.ak_name,
				    e->m.ak_name_len);
	struct imt_error err;
	TPMT_PUBLIC pub;

	if (ak != NULL)
		return ak;
	if (tpm_public_parse(e->m.ak_pub, e->m.ak_pub_len, &pub, &err) !=
		    IMT_OK ||
	    tpm_public_to_pkey(&pub, &ak, &err) != IMT_OK) {
		fail(e, "ak", "stored AK unusable: %s", err.msg);
		return NULL;
	}
	ak_cache_put(v->ak_cache, e->m.id, e->m.ak_name, e->m.ak_name_len, ak);
	return ak;
}

/* Step 2: the quote, with the AK enrolled for this machine. */
static int check_quote(struct verifier *v, struct evidence *e)
{
	const struct wire_evidence *ev = e->ev;
	EVP_PKEY *ak = ak_key(v, e);
	struct imt_error err;
	enum imt_result rc;
	uint32_t mask;

	if (ak == NULL)
		return -1;
	rc = tpm_quote_check(ev->quote.data, ev->quote.len,
			     ev->signature.data, ev->signature.len, ak,
			     ev->nonce, ev->nonce_len, &ev->pcrs, &e->quote,
			     &err);
	EVP_PKEY_free(ak);
	if (rc != IMT_OK) {
		char check[32];

		/* the message starts with the check's name */
		sscanf(err.msg, "%31[a-z]", check);
		return fail(e, rc == IMT_ERR_MISMATCH ? check : "quote", "%s",
			    err.msg);
	}
	mask = tpm_quote_pcr_mask(&e->quote, ev->bank);
	if ((mask & ATTEST_PCR_MASK) != ATTEST_PCR_MASK)
		return fail(e, "pcr selection",
			    "the quote must select %s PCRs 0-10 (selected 0x%x)",
			    ev->bank->name, mask);
	return 0;
}

/* Step 3: which boot; where its records and running PCR 10 stand. */
static int check_boot(struct evidence *e)
{
	const struct tpm_quote *q = &e->quote;
	const struct db_boot *b = &e->boot;

	e->new_boot = !e->have_boot || q->reset_count > b->reset_count ||
		      (q->reset_count == b->reset_count &&
		       q->restart_count > b->restart_count);
	if (e->new_boot) {
		e->next = 0;
		memset(e->sha1, 0, sizeof(e->sha1));
		memset(e->sha256, 0, sizeof(e->sha256));
		return 0;
	}
	if (q->reset_count != b->reset_count ||
	    q->restart_count != b->restart_count)
		return fail(e, "counters",
			    "TPM resetCount/restartCount went backwards: %u/%u after %u/%u",
			    q->reset_count, q->restart_count, b->reset_count,
			    b->restart_count);
	e->next = b->next_record_index;
	memcpy(e->sha1, b->pcr10_sha1, sizeof(e->sha1));
	memcpy(e->sha256, b->pcr10_sha256, sizeof(e->sha256));
	return 0;
}

static int is_boot_aggregate(const struct ima_record *rec)
{
	return rec->path_len == 14 && memcmp(rec->path, "boot_aggregate",
					     14) == 0;
}

/* Record 0 of a boot: boot_aggregate over the quoted PCRs 0-7/0-9. */
static int check_boot_aggregate(struct evidence *e,
				const struct ima_record *rec)
{
	const struct hash_algo *bank = e->ev->bank;
	uint8_t expect[HASH_ALGO_MAX_SIZE];
	struct imt_error err;

	if (!is_boot_aggregate(rec))
		return fail(e, "boot_aggregate",
			    "record 0 is not boot_aggregate");
	if (rec->digest_algo != bank)
		return fail(e, "boot_aggregate",
			    "record 0 is a %s digest but the quote is of the %s bank: set the agent's bank to the kernel's ima_hash",
			    rec->digest_algo != NULL ? rec->digest_algo->name :
			    "(none)", bank->name);
	if (pcr_set_boot_aggregate(&e->ev->pcrs, expect, &err) != IMT_OK)
		return fail(e, "boot_aggregate", "%s", err.msg);
	if (memcmp(expect, rec->digest, bank->size) != 0)
		return fail(e, "boot_aggregate",
			    "record 0 does not match the quoted %s PCRs 0-%d",
			    bank->name, bank == hash_algo_bank("sha1") ? 7 : 9);
	memcpy(e->ba, rec->digest, bank->size);
	e->ba_len = bank->size;
	return 0;
}

static int keep_record(struct evidence *e, const struct ima_record *rec,
		       char **arena)
{
	struct db_record *r = &e->recs[e->n];
	struct judge_input *in = &e->in[e->n];

	memcpy(*arena, rec->path, rec->path_len);
	(*arena)[rec->path_len] = '\0';
	memset(r, 0, sizeof(*r));
	r->index = e->next + e->n;
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
		.boot_aggregate = r->index == 0 && is_boot_aggregate(rec),
	};
	e->violations += rec->violation != 0;
	e->n++;
	return 0;
}

#define KEPT_BANKS 2	/* the running PCR 10 values a boot stores */

/*
 * Parse the first @count records, keep them, and carry the running PCR 10
 * of both stored banks past them, so a later quote of either bank can be
 * replayed. @proven is the quoted bank's value after them when
 * ima_match_batch() already computed it (NULL when @count is a cut of
 * what it covered): that bank is not hashed a second time.
 */
static int take_records(struct evidence *e, size_t count,
			const uint8_t *proven)
{
	static const char *const names[KEPT_BANKS] = { "sha1", "sha256" };
	uint8_t *running[KEPT_BANKS] = { e->sha1, e->sha256 };
	struct ima_replay *r[KEPT_BANKS] = { NULL, NULL };
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t pos = 0, i, k;
	char *arena;
	int rc = -1;

	e->recs = calloc(count + 1, sizeof(*e->recs));
	e->in = calloc(count + 1, sizeof(*e->in));
	e->paths = malloc(e->len + count + 1);
	if (e->recs == NULL || e->in == NULL || e->paths == NULL) {
		fail(e, "internal", "out of memory");
		goto out;
	}
	for (k = 0; k < KEPT_BANKS; k++) {
		const struct hash_algo *bank = hash_algo_bank(names[k]);

		if (bank == e->ev->bank && proven != NULL)
			continue;
		r[k] = ima_replay_new(bank, &err);
		if (r[k] == NULL) {
			fail(e, "internal", "%s", err.msg);
			goto out;
		}
		ima_replay_set_pcr(r[k], IMA_MEASURE_PCR, running[k]);
	}
	arena = e->paths;
	ima_list_parser_init(&p, NULL);
	p.next_index = e->next;
	for (i = 0; i < count; i++) {
		if (ima_list_next(&p, e->bytes + pos, e->len - pos, 1, &rec,
				  &err) != IMT_OK) {
			fail(e, "list", "%s", err.msg);
			goto out;
		}
		/* a sha1 replay also checks the digests the list shows */
		for (k = 0; k < KEPT_BANKS; k++) {
			if (r[k] != NULL &&
			    ima_replay_extend(r[k], &rec, &err) != IMT_OK) {
				fail(e, "list", "%s", err.msg);
				goto out;
			}
		}
		if (e->next + i == 0 && check_boot_aggregate(e, &rec) < 0)
			goto out;
		keep_record(e, &rec, &arena);
		pos += rec.size;
	}
	for (k = 0; k < KEPT_BANKS; k++)
		memcpy(running[k], r[k] != NULL ?
		       ima_replay_pcr(r[k], IMA_MEASURE_PCR) : proven,
		       hash_algo_bank(names[k])->size);
	rc = 0;
out:
	for (k = 0; k < KEPT_BANKS; k++)
		ima_replay_free(r[k]);
	return rc;
}

static struct backlog_key key_of(const struct evidence *e)
{
	return (struct backlog_key){ e->ev->agent, e->quote.reset_count,
				     e->quote.restart_count };
}

/* Put what was held before this batch in front of it. */
static int join_backlog(struct verifier *v, struct evidence *e)
{
	struct backlog_key key = key_of(e);
	uint8_t *held;
	size_t len;
	uint64_t start;

	e->bytes = e->ev->records.data;
	e->len = e->ev->records.len;
	e->start = e->ev->first_index;
	if (v->backlog == NULL)
		return 0;
	backlog_take(v->backlog, &key, e->ev->first_index, &held, &len,
		     &start);
	if (held == NULL)
		return 0;
	e->joined = realloc(held, len + e->len);
	if (e->joined == NULL) {
		free(held);
		return fail(e, "internal", "out of memory");
	}
	if (e->len > 0)
		memcpy(e->joined + len, e->bytes, e->len);
	e->bytes = e->joined;
	e->len += len;
	e->start = start;
	return 0;
}

/*
 * The quote is ahead of the batch and the agent says more follows: hold
 * the records, unproven, until a quote catches up (backlog.h).
 */
static int hold(struct verifier *v, struct evidence *e)
{
	struct backlog_key key = key_of(e);
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	size_t pos = 0, count = 0;
	uint8_t *copy;

	ima_list_parser_init(&p, NULL);
	p.next_index = e->start;
	while (pos < e->len) {
		if (ima_list_next(&p, e->bytes + pos, e->len - pos, 1, &rec,
				  &err) != IMT_OK)
			return fail(e, "list", "%s", err.msg);
		pos += rec.size;
		count++;
	}
	copy = e->joined != NULL ? e->joined : malloc(e->len + 1);
	if (copy == NULL)
		return fail(e, "internal", "out of memory");
	if (e->joined == NULL)
		memcpy(copy, e->bytes, e->len);
	e->joined = NULL;
	e->bytes = NULL;
	if (backlog_put(v->backlog, &key, e->start, e->start + count, copy,
			e->len) < 0)
		return fail(e, "replay",
			    "the quote is more than %u MiB of records ahead of the proven list",
			    BACKLOG_BYTES_MAX >> 20);
	e->held_end = e->start + count;
	return 0;
}

/* Step 4: the longest prefix of the batch the quote proves. */
static int check_replay(struct verifier *v, struct evidence *e)
{
	const struct wire_evidence *ev = e->ev;
	const uint8_t *running = ev->bank == hash_algo_bank("sha1") ?
				 e->sha1 : e->sha256;
	struct ima_match_result m;
	struct imt_error err;
	enum imt_result rc;

	if (ev->bank != hash_algo_bank("sha1") &&
	    ev->bank != hash_algo_bank("sha256"))
		return fail(e, "bank", "bank %s is not kept (sha1, sha256)",
			    ev->bank->name);
	rc = ima_match_batch(ev->bank, running, ev->pcrs.value[IMA_MEASURE_PCR],
			     e->bytes, e->len, (size_t)e->start, NULL, &m,
			     &err);
	if (rc == IMT_ERR_MISMATCH && ev->more && v->backlog != NULL)
		return hold(v, e);
	if (rc != IMT_OK)
		return fail(e, rc == IMT_ERR_MISMATCH ? "replay" : "list",
			    "%s", err.msg);
	/* past DB_BATCH_MAX the rest comes next round; the cut's running
	 * value is then not the one ima_match_batch() proved */
	if (m.covered > DB_BATCH_MAX)
		return take_records(e, DB_BATCH_MAX, NULL);
	return take_records(e, m.covered, m.pcr10);
}

static void free_evidence(struct evidence *e)
{
	free(e->recs);
	free(e->in);
	free(e->paths);
	free(e->joined);
	db_machine_release(&e->m);
}

/*
 * The state after a proven batch: untrusted when a record of this boot is
 * not acceptable (this batch's, or an earlier one's), else trusted.
 */
static int decide_state(struct verifier *v, struct evidence *e,
			const struct db_boot *boot,
			enum db_machine_state *state, char *reason,
			struct imt_error *err)
{
	size_t i;
	int ok;

	for (i = 0; i < e->n; i++) {
		if (!judge_acceptable(v, e->recs[i].verdict)) {
			judge_reason(e->recs[i].index, &e->in[i],
				     e->recs[i].verdict, reason);
			*state = DB_STATE_UNTRUSTED;
			return 0;
		}
	}
	if (!e->new_boot && e->m.state == DB_STATE_UNTRUSTED &&
	    e->m.state_reason != NULL) {
		snprintf(reason, JUDGE_REASON_MAX, "%s", e->m.state_reason);
		*state = DB_STATE_UNTRUSTED;
		return 0;
	}
	if (e->new_boot || e->m.state == DB_STATE_TRUSTED) {
		ok = 1;
	} else if (judge_boot(v, boot->id, boot->next_record_index + e->n,
			      &ok, reason, err) < 0) {
		return -1;
	}
	*state = ok ? DB_STATE_TRUSTED : DB_STATE_UNTRUSTED;
	if (ok)
		snprintf(reason, JUDGE_REASON_MAX,
			 "{\"check\":\"evidence\",\"records\":%llu}",
			 (unsigned long long)(boot->next_record_index + e->n));
	return 0;
}

/* Judge and store the proven records (v->lock held, batch open). */
static int store(struct verifier *v, struct evidence *e, int64_t now,
		 enum db_machine_state *state, struct imt_error *err)
{
	const char *id = e->ev->agent;
	struct db_boot boot = e->boot;
	struct db_boot_advance a;
	char reason[JUDGE_REASON_MAX];
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (judge_record(v, &e->in[i], &e->recs[i].verdict, err) < 0)
			return -1;
	}
	if (e->new_boot &&
	    db_boot_start(v->db, id, e->quote.reset_count,
			  e->quote.restart_count, now, &boot, err) < 0)
		return -1;
	a = (struct db_boot_advance){
		.boot_id = boot.id,
		.from_index = e->next,
		.to_index = e->next + e->n,
		.pcr10_sha1 = e->sha1,
		.pcr10_sha256 = e->sha256,
		.boot_aggregate = e->ba_len > 0 ? e->ba : NULL,
		.boot_aggregate_len = e->ba_len,
		.records = e->recs,
		.nrecords = e->n,
	};
	if (db_boot_advance(v->db, &a, now, err) < 0 ||
	    decide_state(v, e, &boot, state, reason, err) < 0)
		return -1;
	/* a heartbeat changes nothing: do not rewrite the machine's row */
	if ((*state != e->m.state || e->m.state_reason == NULL ||
	     strcmp(reason, e->m.state_reason) != 0) &&
	    db_machine_set_state(v->db, id, *state, reason, now, err) < 0)
		return -1;
	if (e->violations > 0) {
		snprintf(reason, sizeof(reason),
			 "{\"count\":%zu,\"policy\":\"%s\"}", e->violations,
			 v->cfg.violations);
		if (db_event_add(v->db, id, "violation", reason, now, err) < 0)
			return -1;
	}
	return 0;
}

/* Nonce check: single use, unexpired, issued to this machine. */
static int consume_nonce(struct verifier *v, struct evidence *e, int64_t now,
			 struct imt_error *err)
{
	enum db_nonce_result res;

	if (db_nonce_consume(v->db, e->ev->agent, e->ev->nonce,
			     e->ev->nonce_len, now, &res, err) < 0)
		return -1;
	/* an earlier failure (a bad signature, say) is the one to report */
	if (res != DB_NONCE_OK && e->check[0] == '\0')
		fail(e, "nonce", "%s", db_nonce_result_name(res));
	return 0;
}

/* A failed check: state failed with its reason, and a nonce to go on. */
static void store_failure(struct verifier *v, struct evidence *e,
			  int64_t now, struct attest_answer *ans)
{
	char *reason = judge_check_reason(e->check, e->msg);
	struct imt_error err;

	log_info("%s: failed: %s: %s", e->ev->agent, e->check, e->msg);
	atomic_fetch_add(&v->metrics.evidence_failed, 1);
	/* a failure while failed is no state change, but is worth an event */
	if (db_machine_set_state(v->db, e->ev->agent, DB_STATE_FAILED, reason,
				 now, &err) < 0 ||
	    (e->m.state == DB_STATE_FAILED &&
	     db_event_add(v->db, e->ev->agent, "failure", reason, now,
			  &err) < 0)) {
		answer_error(ans, 503, "storage: %s", err.msg);
	} else if (issue_nonce(v, e->ev->agent, now, ans) == 0) {
		ans->status = 200;
		set_state_word(&ans->verdict, DB_STATE_FAILED);
		ans->verdict.next_index = e->have_boot && !e->new_boot ?
			e->boot.next_record_index : 0;
	}
	free(reason);
}

/* Step 5, under the lock. */
static void commit(struct verifier *v, struct evidence *e, int64_t now,
		   int checks_ok, struct attest_answer *ans)
{
	enum db_machine_state state = e->m.state;
	struct db_boot now_boot;
	struct imt_error err;
	int found;

	if (db_batch_begin(v->db, &err) < 0) {
		answer_error(ans, 503, "storage: %s", err.msg);
		return;
	}
	if (consume_nonce(v, e, now, &err) < 0)
		goto storage;
	if (!checks_ok || e->check[0] != '\0') {
		store_failure(v, e, now, ans);
		goto done;
	}
	/* Another request of this agent may have moved the boot on. */
	if (db_boot_current(v->db, e->ev->agent, &now_boot, &found, &err) < 0)
		goto storage;
	if (found != e->have_boot ||
	    (found && (now_boot.id != e->boot.id ||
		       now_boot.next_record_index !=
		       e->boot.next_record_index))) {
		answer_error(ans, 409, "concurrent evidence for %s: take a new nonce and resend",
			     e->ev->agent);
		goto done;
	}
	if (e->start == e->next && e->held_end == 0) {
		if (store(v, e, now, &state, &err) < 0)
			goto storage;
		atomic_fetch_add(&v->metrics.records, e->n);
	}
	/* else: the batch starts elsewhere; ask for the right index */
	if (issue_nonce(v, e->ev->agent, now, ans) < 0)
		goto done;
	atomic_fetch_add(&v->metrics.evidence_ok, 1);
	ans->status = 200;
	set_state_word(&ans->verdict, state);
	ans->verdict.next_index = e->held_end > 0 ? e->held_end :
				  e->next + e->n;
	if (state != e->m.state)
		log_info("%s: %s -> %s", e->ev->agent,
			 db_machine_state_name(e->m.state),
			 db_machine_state_name(state));
done:
	if (ans->status == 200 && db_batch_commit(v->db, &err) < 0)
		answer_error(ans, 503, "storage: %s", err.msg);
	else if (ans->status != 200)
		db_batch_abort(v->db);
	return;
storage:
	answer_error(ans, 503, "storage: %s", err.msg);
	db_batch_abort(v->db);
}

void attest_evidence(struct verifier *v, const struct wire_evidence *ev,
		     int64_t now, struct attest_answer *ans)
{
	struct evidence e = { .ev = ev };
	int ok;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	ok = load_machine(v, ev->agent, &e, 0, ans);
	pthread_mutex_unlock(&v->lock);
	if (ok < 0)
		goto out;
	/* The expensive part runs unlocked: signature and replay. */
	ok = check_quote(v, &e) == 0 && check_boot(&e) == 0 &&
	     join_backlog(v, &e) == 0 &&
	     (e.start != e.next || check_replay(v, &e) == 0);
	pthread_mutex_lock(&v->lock);
	commit(v, &e, now, ok, ans);
	pthread_mutex_unlock(&v->lock);
out:
	if (ans->status >= 400 && ans->status < 500)
		atomic_fetch_add(&v->metrics.rejected, 1);
	free_evidence(&e);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_evidence.c - one piece of evidence through the engine:
 *
 *  1. under the lock, one statement (db_evidence_view_get()): the
 *     machine, its boot, the digest of the boot's firmware event log and
 *     the machine's outstanding nonce; the log's bytes only when step 4
 *     must replay them (attest_boot_log_bytes_needed());
 *  2. unlocked: attest_authenticate() (is it the enrolled TPM's quote?);
 *  3. is its nonce the one step 1 read? Until here a failure changes
 *     nothing (rejected, rate-limited event);
 *  4. unlocked: attest_check() (PCRs, bank, counters, replay, the boot's
 *     event log through boot_check_evidence());
 *  5. under the lock, one transaction: the nonce consumed, the machine
 *     and its boot read again (the same statement as step 1), the records
 *     judged and stored, a boot's first event log kept, the state set
 *     through the table, the next nonce issued (the nonce's row is
 *     written once: db_nonce_renew()); or, when step 4 failed,
 *     the machine failed. A v2 agent is told when the boot has no log,
 *     a v3 agent how many records of the boot are stored; with "export"
 *     that transaction is durable before the answer (stored_records()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "attest.h"
#include "db_attest.h"
#include "db_boot.h"
#include "db_cluster.h"
#include "db_evidence.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "engine.h"
#include "engine_internal.h"
#include "history.h"
#include "log.h"
#include "policies.h"

/*
 * The machine as step 1 and step 5 read it: one statement
 * (db_evidence_view_get()). -1 with @ans filled on a storage failure.
 */
static int view(struct verifier *v, struct attest *a, int64_t now,
		struct db_evidence_view *view, struct engine_answer *ans,
		struct imt_error *err)
{
	if (db_evidence_view_get(v->db, a->ev->agent, now, view, err) == 0)
		return 0;
	engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err->msg);
	return -1;
}

/* Step 1; -1 with @ans filled. */
static int load(struct verifier *v, struct attest *a, int64_t now,
		struct engine_answer *ans)
{
	struct db_evidence_view vw;
	struct imt_error err;
	int rc = -1;

	pthread_mutex_lock(&v->lock);
	if (view(v, a, now, &vw, ans, &err) < 0)
		goto out;
	a->m = vw.m; /* taken: attest_release() frees it */
	a->boot = vw.boot;
	a->have_boot = vw.have_boot;
	a->boot_log = vw.log;
	a->have_boot_log = vw.have_log;
	memcpy(a->nonce, vw.nonce, vw.nonce_len);
	a->nonce_len = vw.nonce_len;
	a->have_nonce = vw.have_nonce;
	if (engine_usable(a->ev->agent, &a->m, vw.found, ans) < 0)
		goto out;
	/* the stored log's bytes only when step 4 must replay them */
	if (a->have_boot_log && attest_boot_log_bytes_needed(v, a)) {
		if (db_boot_log_get(v->db, a->boot.id, 1, &a->boot_log,
				    &a->have_boot_log, &err) < 0) {
			engine_answer_set(ans, ENGINE_STORAGE, "storage: %s",
					  err.msg);
			goto out;
		}
		if (!a->have_boot_log) { /* the boot went meanwhile */
			engine_answer_set(ans, ENGINE_CONFLICT,
					  "concurrent change of %s: take a new nonce and resend",
					  a->ev->agent);
			goto out;
		}
	}
	rc = 0;
out:
	pthread_mutex_unlock(&v->lock);
	return rc;
}

/*
 * Evidence that proves nothing: answer why, count it, and write it down
 * at most once a minute per machine (v->lock held). No state, no nonce.
 */
static void reject(struct verifier *v, struct attest *a, int64_t now,
		   enum engine_status status, struct engine_answer *ans)
{
	char *reason = judge_check_reason(a->check, a->msg);
	struct imt_error err;
	int written = 0;

	atomic_fetch_add(&v->metrics.evidence_rejected, 1);
	if (db_machine_note_rejected(v->db, a->ev->agent, now,
				     ENGINE_REJECTED_INTERVAL, reason, &written,
				     &err) < 0)
		log_warnx("%s: rejected evidence: %s", a->ev->agent, err.msg);
	else if (written)
		log_info("%s: rejected evidence: %s: %s", a->ev->agent,
			 a->check, a->msg);
	free(reason);
	engine_answer_set(ans, status, "%s: %s%s",
			  status == ENGINE_NONCE ? "nonce" : "rejected", a->msg,
			  status == ENGINE_NONCE ? "; ask for a new nonce" :
						   "");
}

/*
 * Step 3: the nonce sent is the one outstanding at step 1. Only a cheap
 * early refusal: step 5 consumes it atomically (db_nonce_renew()), and
 * refuses it there if it was replaced or used meanwhile.
 */
static int nonce_outstanding(struct attest *a)
{
	const struct wire_evidence *ev = a->ev;

	if (a->have_nonce && a->nonce_len == ev->nonce_len &&
	    memcmp(a->nonce, ev->nonce, a->nonce_len) == 0)
		return 0;
	attest_fail(a, "nonce", "%s",
		    a->have_nonce ?
			    "not the machine's outstanding nonce" :
			    "the machine has no usable nonce (used or expired)");
	return -1;
}

/* Steps 1-3: the evidence is the enrolled TPM's, fresh; -1: answered. */
static int authenticate(struct verifier *v, struct attest *a, int64_t now,
			struct engine_answer *ans)
{
	enum engine_status status = ENGINE_REJECTED;
	int rc;

	if (load(v, a, now, ans) < 0)
		return -1;
	rc = attest_authenticate(v, a);
	if (rc == 0 && nonce_outstanding(a) < 0) {
		status = ENGINE_NONCE;
		rc = -1;
	}
	if (rc < 0) {
		pthread_mutex_lock(&v->lock);
		reject(v, a, now, status, ans);
		pthread_mutex_unlock(&v->lock);
	}
	if (rc == 0 && a->m.state == DB_STATE_PENDING) {
		engine_answer_set(ans, ENGINE_PENDING,
				  "pending: the EK is not vouched for; an operator must approve %s",
				  a->ev->agent);
		rc = -1;
	}
	return rc;
}

/* Apply @event unless it would rewrite the row with what it holds. */
static int settle(struct verifier *v, struct attest *a,
		  enum transition_event event, const char *reason, int64_t now,
		  enum db_machine_state *state, struct imt_error *err)
{
	const struct transition_row *row =
		transition_find((int)a->m.state, event);

	*state = a->m.state;
	/* a heartbeat changes nothing: do not rewrite the machine's row */
	if (row != NULL && row->to == a->m.state && row->kind == NULL &&
	    a->m.state_reason != NULL && strcmp(reason, a->m.state_reason) == 0)
		return 0;
	return engine_transition(v, a->ev->agent, a->m.state, event, reason,
				 now, state, err) < 0 ?
		       -1 :
		       0;
}

/*
 * The event of a proven batch: unacceptable when a record of this boot is
 * not acceptable (this batch's, or an earlier one's), else clean.
 */
static int judge_event(struct verifier *v, const struct policy *p,
		       struct attest *a, const struct db_boot *boot,
		       enum transition_event *event, char *reason,
		       struct imt_error *err)
{
	char note[JUDGE_REASON_MAX];
	char *with_note;
	size_t i;
	int ok;

	*event = TR_EVIDENCE_UNACCEPTABLE;
	/* deleted before stored: refused by policy, or after stored records */
	if (!history_judge(p, boot, note)) {
		snprintf(reason, JUDGE_REASON_MAX, "%s", note);
		return 0;
	}
	for (i = 0; i < a->n; i++) {
		if (!judge_acceptable(v, p, a->recs[i].verdict)) {
			judge_reason(v, p, a->recs[i].index, &a->in[i],
				     a->recs[i].verdict, reason);
			return 0;
		}
	}
	if (!a->new_boot && a->m.state == DB_STATE_UNTRUSTED &&
	    a->m.state_reason != NULL) {
		snprintf(reason, JUDGE_REASON_MAX, "%s", a->m.state_reason);
		return 0;
	}
	if (a->new_boot || a->m.state == DB_STATE_TRUSTED) {
		/* the records were fine; the boot is judged when it starts
		 * and when its log arrives (a policy or reference change
		 * re-judges it through judge_boot()) */
		ok = 1;
		if ((a->new_boot || a->boot_log_kept) &&
		    judge_boot_log(v, p, boot->id, &ok, reason, err) < 0)
			return -1;
	} else if (judge_boot(v, p, boot->id, boot->next_record_index + a->n,
			      &ok, reason, err) < 0) {
		return -1;
	}
	if (!ok)
		return 0;
	/*
	 * The same text for every clean evidence, so that a trusted
	 * machine's row is not rewritten per batch (settle()); how many
	 * records the boot has is its next_record_index, in the boot.
	 */
	*event = TR_EVIDENCE_CLEAN;
	snprintf(reason, JUDGE_REASON_MAX, "{\"check\":\"evidence\"}");
	/* an accepted gap stays in sight as a note */
	with_note = note[0] != '\0' ? history_with_note(reason, note) : NULL;
	if (with_note != NULL && strlen(with_note) < JUDGE_REASON_MAX)
		snprintf(reason, JUDGE_REASON_MAX, "%s", with_note);
	free(with_note);
	return 0;
}

static int db_err_changed(struct imt_error *err)
{
	imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS, IMT_NO_POS,
		      "the firmware event log changed within one boot");
	return -1;
}

/* Keep the log the evidence carries as boot @boot_id's (batch open). */
static int keep_boot_log(struct verifier *v, struct attest *a, int64_t boot_id,
			 int64_t now, struct imt_error *err)
{
	const struct wire_blob *log = &a->ev->boot_log;
	enum db_boot_log_result res;

	if (log->len == 0)
		return 0;
	if (db_boot_log_store(v->db, boot_id, log->data, log->len, now, &res,
			      err) < 0)
		return -1;
	if (res == DB_BOOT_LOG_DIFFERENT) /* checked in step 4 */
		return db_err_changed(err);
	a->boot_log_kept = 1;
	/* the machine's first log is its baseline until one is approved */
	return res == DB_BOOT_LOG_STORED ?
		       db_boot_baseline_keep(v->db, a->ev->agent, log->data,
					     log->len, now, err) :
		       0;
}

/* Judge and store the proven records (v->lock held, batch open). */
static int store(struct verifier *v, struct attest *a, int64_t now,
		 enum db_machine_state *state, struct imt_error *err)
{
	const char *id = a->ev->agent;
	struct db_boot boot = a->boot;
	struct db_boot_advance adv;
	enum transition_event event;
	const struct policy *p = policies_for(v, id);
	char reason[JUDGE_REASON_MAX];
	size_t i;

	for (i = 0; i < a->n; i++) {
		if (judge_record(v, p, &a->in[i], &a->recs[i].verdict, err) < 0)
			return -1;
	}
	if (a->new_boot &&
	    db_boot_start(v->db, id, a->quote.reset_count,
			  a->quote.restart_count, now, &boot, err) < 0)
		return -1;
	if (keep_boot_log(v, a, boot.id, now, err) < 0)
		return -1;
	if (a->gap_to > 0) {
		if (db_boot_history_gap(v->db, boot.id, a->gap_from, a->gap_to,
					a->ev->list_start_pcr,
					a->ev->list_start_pcr_len, err) < 0)
			return -1;
		log_info("%s: records %llu..%llu deleted before they were stored",
			 id, (unsigned long long)a->gap_from,
			 (unsigned long long)(a->gap_to - 1));
		boot.history_followed |= a->gap_from > 0;
		boot.history_from = a->gap_from;
		boot.history_to = a->gap_to;
		boot.next_record_index = a->gap_to;
	}
	adv = (struct db_boot_advance){
		.boot_id = boot.id,
		.from_index = a->next,
		.to_index = a->next + a->n,
		.pcr10_sha1 = a->pcr10[0],
		.pcr10_sha256 = a->pcr10[1],
		.pcr10_sha384 = a->kept[2] ? a->pcr10[2] : NULL,
		.pcr10_sha512 = a->kept[3] ? a->pcr10[3] : NULL,
		.boot_aggregate = a->ba_len > 0 ? a->ba : NULL,
		.boot_aggregate_len = a->ba_len,
		.records = a->recs,
		.nrecords = a->n,
		.seen_in_nonce = 1, /* renew_nonce() */
		/* the row under the lock, unless this batch moved it above */
		.row = a->have_boot_locked && !a->new_boot && a->gap_to == 0 ?
			       &a->boot_locked :
			       NULL,
	};
	if (db_boot_advance(v->db, &adv, now, err) < 0 ||
	    judge_event(v, p, a, &boot, &event, reason, err) < 0 ||
	    settle(v, a, event, reason, now, state, err) < 0)
		return -1;
	if (a->m.bank[0] == '\0' || strcmp(a->m.bank, a->ev->bank->name) != 0) {
		if (db_machine_pin_bank(v->db, id, a->ev->bank->name, err) < 0)
			return -1;
	}
	if (a->violations > 0) {
		snprintf(reason, sizeof(reason),
			 "{\"count\":%zu,\"policy\":\"%s\","
			 "\"violations\":\"%s\"}",
			 a->violations, p->name,
			 policies_violations_allowed(v, p) ? "allow" :
							     "untrusted");
		if (db_event_add(v->db, id, "violation", reason, now, err) < 0)
			return -1;
	}
	return 0;
}

/* TPM-signed evidence that is invalid: the machine is failed. */
static int store_failure(struct verifier *v, struct attest *a, int64_t now,
			 enum db_machine_state *state, struct imt_error *err)
{
	char *reason = judge_check_reason(a->check, a->msg);
	int rc;

	if (reason == NULL)
		return -1;
	log_info("%s: failed: %s: %s", a->ev->agent, a->check, a->msg);
	atomic_fetch_add(&v->metrics.evidence_failed, 1);
	rc = engine_transition(v, a->ev->agent, a->m.state, TR_EVIDENCE_INVALID,
			       reason, now, state, err);
	free(reason);
	return rc < 0 ? -1 : 0;
}

/*
 * Read the machine again (v->lock held, batch open): a re-judge or an
 * operator may have moved it while we checked, and concurrent evidence
 * its boot. 0 (@same: the boot is still the one checked against), 1 gone
 * (answered), -1 with @err.
 */
static int reload(struct verifier *v, struct attest *a, int64_t now, int *same,
		  struct engine_answer *ans, struct imt_error *err)
{
	struct db_evidence_view vw;

	if (view(v, a, now, &vw, ans, err) < 0)
		return -1;
	if (!vw.found) {
		engine_answer_set(ans, ENGINE_UNKNOWN,
				  "unknown agent %s: removed meanwhile",
				  a->ev->agent);
		return 1;
	}
	db_machine_release(&a->m);
	a->m = vw.m;
	vw.m = (struct db_machine){ 0 };
	*same = vw.have_boot == a->have_boot &&
		(!vw.have_boot ||
		 (vw.boot.id == a->boot.id &&
		  vw.boot.next_record_index == a->boot.next_record_index));
	a->have_boot_locked = *same && vw.have_boot;
	if (a->have_boot_locked)
		a->boot_locked = vw.boot;
	db_evidence_view_release(&vw);
	return 0;
}

/*
 * The answer's stored_records: the records of the quote's boot below
 * this index are in the database (or were reported deleted before they
 * were, history.h). Never what the backlog holds, nor a batch that was
 * not stored.
 */
static uint64_t stored_records(const struct attest *a, int stored)
{
	if (stored)
		return a->next + a->n;
	if (!a->have_boot || a->new_boot ||
	    a->quote.reset_count != a->boot.reset_count)
		return 0;
	return a->boot.next_record_index;
}

/* What the agent may resume from: never below its list start. */
static uint64_t next_index(const struct attest *a)
{
	uint64_t next = a->held_end > 0 ? a->held_end : a->next + a->n;

	return next > a->ev->list_start ? next : a->ev->list_start;
}

/*
 * Proven evidence whose batch starts at the boot's next index is stored
 * (a heartbeat: no records), and counts as seen; the rest is told where
 * to start.
 */
static int stores(const struct attest *a)
{
	return a->start == a->next && a->held_end == 0;
}

/*
 * Step 5's nonce write (batch open): the evidence's nonce consumed and the
 * next one issued, one row (db_nonce_renew()), which also says when the
 * machine was @seen (0: not seen); the next one goes in the answer, sent
 * only if the batch commits. 0, -1 with @err on storage, 1 answered
 * already, 2 the nonce was taken meanwhile.
 */
static int renew_nonce(struct verifier *v, struct attest *a, int64_t now,
		       int64_t seen, struct engine_answer *ans,
		       struct imt_error *err)
{
	struct wire_verdict *vd = &ans->verdict;
	struct db_nonce_next next;
	enum db_nonce_result res;
	int rc;

	if (RAND_bytes(vd->nonce, ENGINE_NONCE_SIZE) != 1) {
		engine_answer_set(ans, ENGINE_INTERNAL,
				  "no randomness for a nonce");
		return 1;
	}
	vd->nonce_len = ENGINE_NONCE_SIZE;
	vd->nonce_expires = (uint64_t)now + v->cfg.nonce_ttl;
	next = (struct db_nonce_next){
		.value = vd->nonce,
		.len = vd->nonce_len,
		.expires = (int64_t)vd->nonce_expires,
		.seen_at = seen,
	};
	rc = db_nonce_renew(v->db, a->ev->agent, a->ev->nonce, a->ev->nonce_len,
			    now, &next, &res, err);
	if (rc == 0 && res == DB_NONCE_OK) {
		atomic_fetch_add(&v->metrics.nonces_issued, 1);
		return 0;
	}
	vd->nonce_len = 0; /* not stored: never answered */
	if (rc < 0)
		return -1;
	attest_fail(a, "nonce", "%s", db_nonce_result_name(res));
	return 2;
}

/*
 * Step 5's writes: 0 done, -1 with @err on storage, 1 answered already,
 * 2 the nonce was taken meanwhile (rejected after the abort).
 */
static int commit_writes(struct verifier *v, struct attest *a, int64_t now,
			 int checks_ok, struct engine_answer *ans,
			 struct imt_error *err)
{
	enum db_machine_state state = a->m.state;
	int same, stored = 0, rc;

	/* evidence sent to two instances at once is judged one after the
	 * other: the second finds the nonce used */
	if (db_machine_lock(v->db, a->ev->agent, err) < 0)
		return -1;
	rc = renew_nonce(v, a, now, checks_ok && stores(a) ? now : 0, ans, err);
	if (rc != 0)
		return rc;
	rc = reload(v, a, now, &same, ans, err);
	if (rc != 0)
		return rc;
	state = a->m.state;
	if (!checks_ok) {
		if (store_failure(v, a, now, &state, err) < 0)
			return -1;
		a->n = 0;
		a->next = a->have_boot && !a->new_boot ?
				  a->boot.next_record_index :
				  0;
	} else {
		if (!same) {
			engine_answer_set(ans, ENGINE_CONFLICT,
					  "concurrent evidence for %s: take a new nonce and resend",
					  a->ev->agent);
			return 1;
		}
		/* else the batch starts elsewhere: ask for the right index */
		if (stores(a)) {
			if (store(v, a, now, &state, err) < 0)
				return -1;
			stored = 1;
			atomic_fetch_add(&v->metrics.records, a->n);
		} else if (a->have_boot && !a->new_boot &&
			   keep_boot_log(v, a, a->boot.id, now, err) < 0) {
			return -1;
		}
		atomic_fetch_add(&v->metrics.evidence_ok, 1);
	}
	ans->verdict.nonce_ttl = v->cfg.nonce_ttl;
	snprintf(ans->verdict.state, sizeof(ans->verdict.state), "%s",
		 db_machine_state_name(state));
	ans->verdict.next_index = next_index(a);
	/* answer in the agent's version; a v2 agent sends the log asked for,
	 * a v3 agent learns what it may delete */
	ans->verdict.version = a->ev->version;
	ans->verdict.has_stored_records = a->ev->version >= 3;
	ans->verdict.stored_records = stored_records(a, stored);
	if (a->ev->version >= 2 && !a->boot_log_kept &&
	    !(a->have_boot_log && !a->new_boot))
		snprintf(ans->verdict.boot_log, sizeof(ans->verdict.boot_log),
			 "wanted");
	ans->status = ENGINE_OK;
	return 0;
}

/* Step 5, under the lock. */
static void commit(struct verifier *v, struct attest *a, int64_t now,
		   int checks_ok, struct engine_answer *ans)
{
	int durable = a->ev->export_sync;
	struct imt_error err;
	int rc;

	/* "export": the agent deletes what stored_records confirms, so this
	 * commit (always a write: the nonce) syncs the WAL, and with it
	 * every earlier commit; without it commits stay as cheap as ever */
	if ((durable && db_durable_commits(v->db, 1, &err) < 0) ||
	    db_batch_begin(v->db, &err) < 0) {
		engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
		goto out;
	}
	rc = commit_writes(v, a, now, checks_ok, ans, &err);
	if (rc == 0 && db_batch_commit(v->db, &err) == 0)
		goto out;
	db_batch_abort(v->db);
	if (rc <= 0)
		engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
	else if (rc == 2)
		reject(v, a, now, ENGINE_NONCE, ans);
out:
	if (durable && db_durable_commits(v->db, 0, &err) < 0)
		log_warnx("synchronous = NORMAL: %s", err.msg);
}

void engine_evidence(struct verifier *v, const struct wire_evidence *ev,
		     int64_t now, struct engine_answer *ans)
{
	struct attest a = { .ev = ev };
	int ok;

	memset(ans, 0, sizeof(*ans));
	if (authenticate(v, &a, now, ans) < 0)
		goto out;
	/* The expensive part runs unlocked: replay. */
	ok = attest_check(v, &a) == 0;
	pthread_mutex_lock(&v->lock);
	commit(v, &a, now, ok, ans);
	pthread_mutex_unlock(&v->lock);
out:
	if (ans->status != ENGINE_OK)
		atomic_fetch_add(&v->metrics.rejected, 1);
	attest_release(&a);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_enroll.c - enrollment and activation (proto/PROTOCOL.md), the
 * engine's side: the identity check, the "enroll" policy, the challenge
 * caps, the activation of a proven challenge, under v->lock. The checks
 * over bytes live in enroll.c; the routes decode and encode.
 *
 * Nothing of a machine is created or changed before its TPM proves, by
 * TPM2_ActivateCredential, that it holds the EK. An enrollment only
 * stores a challenge, bounded per EK and in all; the activation creates
 * the machine or binds the new AK to the known one with the same EK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "db_enroll.h"
#include "db_identity.h"
#include "engine.h"
#include "engine_internal.h"
#include "enroll.h"
#include "judge.h"
#include "log.h"

#define WHY_MAX 256

/*
 * Does @w forbid enrolling @id with the EK @fpr? 1 with the reason in
 * @buf, else 0. A taken EK is named by its fingerprint, which the sender
 * knows already, never by the id it belongs to.
 */
static int taken_why(const struct db_identity *w, const char *id,
		     const char *fpr, char *buf, size_t n)
{
	int known = w->machine && w->machine_same_ek;

	if (w->machine && !w->machine_same_ek)
		snprintf(buf, n,
			 "agent id %s belongs to a machine with "
			 "another EK",
			 id);
	else if (!w->machine && w->id_registered_other)
		snprintf(buf, n,
			 "agent id %s is pre-registered for another "
			 "EK",
			 id);
	else if (w->ek_elsewhere)
		snprintf(buf, n, "this EK (%s) is enrolled under another id",
			 fpr);
	else if (w->ek_registered_other && !known)
		snprintf(buf, n,
			 "this EK (%s) is pre-registered for another "
			 "id",
			 fpr);
	else
		return 0;
	return 1;
}

/* The policy of "enroll = ...": 0, or -1 with ENGINE_REFUSED in @ans. */
static int admitted(const struct verifier *v, const struct db_identity *w,
		    const struct db_challenge *ch, const char *fpr,
		    const char *why, struct engine_answer *ans)
{
	enum config_enroll mode = config_enroll_mode(&v->cfg);

	if (w->machine && w->machine_same_ek)
		return 0; /* admitted before: a re-enrollment */
	if (mode != CONFIG_ENROLL_CA && !w->registered) {
		engine_answer_set(ans, ENGINE_REFUSED,
				  "not registered: id %s with EK %s is not "
				  "pre-registered (imatrust machine add %s "
				  "--ek %s)",
				  ch->machine_id, fpr, ch->machine_id, fpr);
		return -1;
	}
	if (mode == CONFIG_ENROLL_CA_REGISTERED && !ch->ek_chained) {
		engine_answer_set(ans, ENGINE_REFUSED,
				  "not vouched: enroll = ca+registered and "
				  "the EK certificate does not chain to ek_ca "
				  "(%s)",
				  why);
		return -1;
	}
	return 0;
}

/* Refuse a challenge past a cap: the answer and the counter. */
static void refuse_cap(struct verifier *v, enum db_open_result r,
		       struct engine_answer *ans)
{
	if (r == DB_OPEN_EK_FULL) {
		atomic_fetch_add(&v->metrics.enroll_ek_cap, 1);
		engine_answer_set(ans, ENGINE_LIMIT,
				  "enrollment: %llu challenges are open for "
				  "this EK (max_enrollments_per_ek); "
				  "activate one or wait %d s",
				  (unsigned long long)
					  v->cfg.max_enrollments_per_ek,
				  ENROLL_CHALLENGE_TTL);
	} else {
		atomic_fetch_add(&v->metrics.enroll_cap, 1);
		engine_answer_set(ans, ENGINE_BUSY,
				  "enrollment: %llu challenges are open "
				  "(max_open_enrollments); try again later",
				  (unsigned long long)
					  v->cfg.max_open_enrollments);
	}
}

/*
 * Store the challenge @ch when the id and the EK are free or one known
 * machine's, the policy admits it and no cap is reached. 0, or -1 with
 * @ans filled.
 */
static int open_challenge(struct verifier *v, struct db_challenge *ch,
			  const char *why, struct engine_answer *ans)
{
	struct db_enroll_limits lim = {
		.max_open = (unsigned int)v->cfg.max_open_enrollments,
		.max_per_ek = (unsigned int)v->cfg.max_enrollments_per_ek,
	};
	char fpr[ENROLL_FPR_HEX + 1], taken[WHY_MAX];
	enum db_open_result r = DB_OPEN_FULL;
	struct db_identity w;
	struct imt_error err;
	int rc = -1, vouched;

	enroll_fpr_hex(ch->ek_fpr, fpr);
	pthread_mutex_lock(&v->lock);
	if (db_identity_check(v->db, ch->machine_id, ch->ek_fpr, ch->ek_pub,
			      ch->ek_pub_len, &w, &err) < 0)
		goto storage;
	if (taken_why(&w, ch->machine_id, fpr, taken, sizeof(taken))) {
		atomic_fetch_add(&v->metrics.enroll_taken, 1);
		engine_answer_set(ans, ENGINE_CONFLICT, "taken: %s", taken);
		goto out;
	}
	if (admitted(v, &w, ch, fpr, why, ans) < 0) {
		atomic_fetch_add(&v->metrics.enroll_unregistered, 1);
		goto out;
	}
	vouched = ch->ek_chained || w.registered || w.machine;
	if (!vouched)
		ch->expires_at = ch->created_at + ENROLL_UNVOUCHED_TTL;
	if (db_challenge_open(v->db, ch, vouched, &lim, ch->created_at, &r,
			      &err) < 0)
		goto storage;
	if (r == DB_OPEN_FULL || r == DB_OPEN_EK_FULL) {
		refuse_cap(v, r, ans);
		goto out;
	}
	if (r == DB_OPEN_EVICTED)
		atomic_fetch_add(&v->metrics.enroll_evicted, 1);
	rc = 0;
	goto out;
storage:
	engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
out:
	pthread_mutex_unlock(&v->lock);
	return rc;
}

void engine_enroll(struct verifier *v, const struct wire_enroll *m, int64_t now,
		   struct wire_challenge *out, struct engine_answer *ans)
{
	static __thread struct db_challenge ch; /* 25 KiB: not on the stack */
	char why[WHY_MAX] = "", fpr[ENROLL_FPR_HEX + 1];
	struct imt_error err;
	enum imt_result rc;
	int chained = 0;

	memset(ans, 0, sizeof(*ans));
	memset(&ch, 0, sizeof(ch));
	rc = enroll_check_ek_cert(v->ek_ca, m->ek_pub.data, m->ek_pub.len,
				  m->ek_cert.data, m->ek_cert.len, &chained,
				  why, sizeof(why), &err);
	if (rc == IMT_OK)
		rc = enroll_challenge(m, &ch, out, &err);
	if (rc != IMT_OK) {
		engine_answer_set(ans, engine_status_of(rc), "%s", err.msg);
		goto out;
	}
	ch.ek_chained = chained;
	ch.created_at = now;
	ch.expires_at = ch.created_at + ENROLL_CHALLENGE_TTL;
	if (open_challenge(v, &ch, why, ans) < 0)
		goto out;
	atomic_fetch_add(&v->metrics.enrollments, 1);
	enroll_fpr_hex(ch.ek_fpr, fpr);
	/* debug: a flood of enrollments must not flood the log */
	log_debug("%s: challenge for EK %s%s%s", m->agent, fpr,
		  chained ? "" : ", not vouched: ", chained ? "" : why);
	ans->status = ENGINE_CREATED;
out:
	explicit_bzero(&ch, sizeof(ch));
}

/* The answers to an activation that verified but changes nothing. */
static void refuse_activation(struct verifier *v, enum db_activation r,
			      const struct db_challenge *ch,
			      struct engine_answer *ans)
{
	char fpr[ENROLL_FPR_HEX + 1];

	enroll_fpr_hex(ch->ek_fpr, fpr);
	switch (r) {
	case DB_ACT_ID_TAKEN:
		atomic_fetch_add(&v->metrics.enroll_taken, 1);
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "taken: agent id %s belongs to another EK",
				  ch->machine_id);
		break;
	case DB_ACT_EK_TAKEN:
		atomic_fetch_add(&v->metrics.enroll_taken, 1);
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "taken: this EK (%s) is enrolled under "
				  "another id",
				  fpr);
		break;
	case DB_ACT_PENDING_FULL:
		atomic_fetch_add(&v->metrics.enroll_pending_cap, 1);
		engine_answer_set(ans, ENGINE_BUSY,
				  "enrollment: %llu machines wait in pending "
				  "(max_pending); an operator must approve "
				  "or remove some",
				  (unsigned long long)v->cfg.max_pending);
		break;
	default:
		atomic_fetch_add(&v->metrics.enroll_unregistered, 1);
		engine_answer_set(ans, ENGINE_REFUSED,
				  "not registered: id %s with EK %s",
				  ch->machine_id, fpr);
		break;
	}
}

/* Why the stored EK is not vouched for, as a state reason; malloc'ed. */
static char *pending_reason(struct verifier *v, const struct db_challenge *ch)
{
	char why[WHY_MAX] = "no EK certificate";
	struct imt_error err;
	int chained = 0;

	if (enroll_check_ek_cert(v->ek_ca, ch->ek_pub, ch->ek_pub_len,
				 ch->ek_cert, ch->ek_cert_len, &chained, why,
				 sizeof(why), &err) != IMT_OK)
		snprintf(why, sizeof(why), "%s", err.msg);
	return judge_check_reason("ek", why);
}

/*
 * Find the challenge the proof opens and activate it; 0 when a machine
 * was created or re-bound (*@state set), else -1 with @ans filled.
 */
static int activate(struct verifier *v, const struct wire_activate *m,
		    int64_t now, struct db_challenge *ch,
		    enum db_machine_state *state, struct engine_answer *ans)
{
	struct db_activate_opts o = {
		.max_pending = (unsigned int)v->cfg.max_pending,
		.registered_only = config_enroll_mode(&v->cfg) !=
				   CONFIG_ENROLL_CA,
	};
	uint8_t hash[DB_PROOF_HASH_SIZE];
	enum db_activation r = DB_ACT_CREATED;
	struct imt_error err;
	char *reason = NULL;
	int found = 0, rc = -1;

	engine_activation_states(&o.to_vouched, &o.to_unvouched);
	enroll_proof_hash(m->proof, m->proof_len, hash);
	pthread_mutex_lock(&v->lock);
	if (db_challenge_find(v->db, m->agent, hash, now, ch, &found, &err) < 0)
		goto storage;
	/* a wrong proof finds nothing, so it cancels nothing */
	if (!found || !enroll_proof_ok(ch, m->agent, m->proof, m->proof_len)) {
		atomic_fetch_add(&v->metrics.activations_refused, 1);
		engine_answer_set(ans, ENGINE_REFUSED,
				  "challenge: no open challenge of %s "
				  "matches this proof; enroll again",
				  m->agent);
		goto out;
	}
	if (!ch->ek_chained)
		o.pending_reason = reason = pending_reason(v, ch);
	if (db_challenge_activate(v->db, ch, &o, now, &r, state, &err) < 0)
		goto storage;
	if (r != DB_ACT_CREATED && r != DB_ACT_REPLACED) {
		refuse_activation(v, r, ch, ans);
		goto out;
	}
	rc = 0;
	goto out;
storage:
	engine_answer_set(ans, ENGINE_STORAGE, "storage: %s", err.msg);
out:
	pthread_mutex_unlock(&v->lock);
	free(reason);
	return rc;
}

int engine_activate(struct verifier *v, const struct wire_activate *m,
		    int64_t now, struct engine_answer *ans)
{
	static __thread struct db_challenge ch; /* 25 KiB: not on the stack */
	char fpr[ENROLL_FPR_HEX + 1];
	enum db_machine_state state = DB_STATE_PENDING;
	int rc;

	memset(ans, 0, sizeof(*ans));
	rc = activate(v, m, now, &ch, &state, ans);
	enroll_fpr_hex(ch.ek_fpr, fpr);
	explicit_bzero(&ch, sizeof(ch));
	if (rc < 0)
		return 0;
	atomic_fetch_add(&v->metrics.activations, 1);
	log_info("%s: activated, EK %s, %s", m->agent, fpr,
		 db_machine_state_name(state));
	engine_verdict(v, m->agent, now, ans);
	return 1;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine.h - the trust engine (proto/DESIGN.md §4-5): the one owner of
 * v->lock, of the transactions, and of every machine state change, which
 * it makes only through the table of transition.h.
 *
 * Route handlers decode a request, call one engine_* entry point and map
 * its engine_status to HTTP through engine_http_status(); tests call the
 * same entry points with software TPM objects and no HTTP at all.
 *
 * What may change a machine: evidence whose quote verifies under the
 * machine's enrolled AK over its outstanding nonce, its activation, an
 * operator, the reference set, the clock. Evidence that does not verify
 * changes nothing: ENGINE_REJECTED or ENGINE_NONCE, counted, written as
 * a "rejected" event at most once a minute per machine, no nonce.
 */
#ifndef IMATRUST_ENGINE_H
#define IMATRUST_ENGINE_H

#include <stdint.h>

#include "db_boot.h"
#include "db_identity.h"
#include "db_machine.h"
#include "judge.h"
#include "transition.h"
#include "verifier.h"
#include "wire.h"

#define ENGINE_MSG_MAX 320
#define ENGINE_NONCE_SIZE 32	    /* bytes of a fresh nonce */
#define ENGINE_REJECTED_INTERVAL 60 /* seconds between "rejected" events */

enum engine_status {
	ENGINE_OK,
	ENGINE_CREATED,
	ENGINE_MALFORMED,     /* the request itself is wrong */
	ENGINE_REJECTED,      /* not the enrolled TPM's quote */
	ENGINE_NONCE,	      /* not the machine's outstanding nonce */
	ENGINE_NOT_ACTIVATED, /* enroll (again) first */
	ENGINE_PENDING,	      /* an operator must approve the EK */
	ENGINE_UNKNOWN,	      /* no such machine */
	ENGINE_CONFLICT,      /* taken, or concurrent evidence */
	ENGINE_LIMIT,	      /* a cap was reached: later */
	ENGINE_STORAGE,	      /* the database failed */
	ENGINE_INTERNAL,
	ENGINE_REFUSED,	  /* the enroll policy, or a wrong proof */
	ENGINE_BUSY,	  /* a cap of the whole verifier: later */
	ENGINE_TOO_LARGE, /* a field past its bound */
	ENGINE_STATUS_COUNT,
};

/* What an entry point answers: a message, or a verdict / nonce. */
struct engine_answer {
	enum engine_status status;
	char message[ENGINE_MSG_MAX]; /* why, when not ENGINE_OK */
	struct wire_verdict verdict;  /* evidence and activation */
	struct wire_nonce nonce;      /* engine_nonce() */
};

/** engine_http_status() - the HTTP status of @s (one table). */
unsigned int engine_http_status(enum engine_status s);

/**
 * engine_status_of() - the status of a failed check over a request's
 * bytes (a wire message decoded, an EK certificate, a challenge made):
 * past a bound ENGINE_TOO_LARGE, an internal failure ENGINE_INTERNAL,
 * anything else ENGINE_MALFORMED.
 */
enum engine_status engine_status_of(enum imt_result rc);

/**
 * engine_storage_status() - the status of a storage failure of kind @rc
 * (db.h lists the kinds): a malformed value ENGINE_MALFORMED, a conflict
 * with what is stored ENGINE_CONFLICT, a bound ENGINE_TOO_LARGE, anything
 * else ENGINE_INTERNAL. The engine's answers and rest_db_error() both.
 */
enum engine_status engine_storage_status(enum imt_result rc);

/**
 * engine_evidence() - judge @ev from its agent and store what it proves.
 * @v: the verifier
 * @ev: the decoded evidence
 * @now: seconds since the epoch
 * @ans: receives a verdict with the next nonce (ENGINE_OK: trusted,
 *       untrusted or failed), or why it changed nothing
 */
void engine_evidence(struct verifier *v, const struct wire_evidence *ev,
		     int64_t now, struct engine_answer *ans);

/**
 * engine_nonce() - the machine's outstanding nonce while more than half
 * its life is left, else a new one (POST /nonce: anyone may call it, so
 * it answers a nonce and nothing else, and writes at most one row per
 * half nonce_ttl).
 */
void engine_nonce(struct verifier *v, const char *id, int64_t now,
		  struct engine_answer *ans);

/**
 * engine_verdict() - state, next index and a fresh nonce of an activated
 * machine, for the answer to its activation (the TPM just proved itself).
 */
void engine_verdict(struct verifier *v, const char *id, int64_t now,
		    struct engine_answer *ans);

/**
 * engine_enroll() - an enrollment (POST /v1/agents): check the EK
 * certificate and the AK, make the credential challenge and store it when
 * the id and the EK are free or one known machine's, the "enroll" policy
 * admits it and no cap is reached. Nothing of a machine is created or
 * changed before its activation.
 * @v: the verifier
 * @m: the decoded enrollment
 * @now: seconds since the epoch
 * @out: receives the challenge to send; the caller wire_free()s it
 *       whatever the status
 * @ans: ENGINE_CREATED, or why not: ENGINE_MALFORMED, ENGINE_TOO_LARGE or
 *       ENGINE_INTERNAL (the checks over the bytes), ENGINE_CONFLICT (the
 *       id or the EK is taken), ENGINE_REFUSED (the policy),
 *       ENGINE_LIMIT (the EK's cap), ENGINE_BUSY (the cap in all),
 *       ENGINE_STORAGE
 */
void engine_enroll(struct verifier *v, const struct wire_enroll *m, int64_t now,
		   struct wire_challenge *out, struct engine_answer *ans);

/**
 * engine_activate() - an activation (POST /v1/agents/{id}/activate): find
 * the challenge @m's proof opens, then create the machine or bind the new
 * AK to the known one with the same EK.
 * @v: the verifier
 * @m: the decoded activation
 * @now: seconds since the epoch
 * @ans: when activated, engine_verdict()'s answer; else why not:
 *       ENGINE_REFUSED (no open challenge matches the proof, or the
 *       policy), ENGINE_CONFLICT (taken meanwhile), ENGINE_BUSY (the
 *       pending cap), ENGINE_STORAGE
 *
 * Return: 1 when the machine was activated, else 0.
 */
int engine_activate(struct verifier *v, const struct wire_activate *m,
		    int64_t now, struct engine_answer *ans);

/**
 * engine_transition() - apply @event to machine @id, which is in @from,
 * as the table says: state, reason and event row. v->lock held, inside
 * the caller's transaction (or one call's own).
 * @reason: JSON text, or NULL
 * @to: receives the new state (@from when no row applies); may be NULL
 *
 * Return: 1 when a row applied, 0 when @event changes nothing in @from,
 * -1 with @err on a storage failure.
 */
int engine_transition(struct verifier *v, const char *id,
		      enum db_machine_state from, enum transition_event event,
		      const char *reason, int64_t now,
		      enum db_machine_state *to, struct imt_error *err);

/**
 * engine_approve() - an operator approves @id's EK by fingerprint: the
 * approval, its audit entry and the table's row for TR_APPROVED, in one
 * transaction.
 * @ek_fpr: the fingerprint the operator gave (DB_FPR_SIZE bytes)
 * @op_name: the operator, for the audit entry
 * @ans: ENGINE_OK, or why not: ENGINE_CONFLICT (the machine's EK has
 *       another fingerprint, or none), ENGINE_UNKNOWN (no such machine),
 *       or a storage failure's kind (ENGINE_INTERNAL, ENGINE_MALFORMED,
 *       ENGINE_CONFLICT, ENGINE_TOO_LARGE)
 */
void engine_approve(struct verifier *v, const char *id, const uint8_t *ek_fpr,
		    const char *op_name, int64_t now,
		    struct engine_answer *ans);

/**
 * engine_machine_add() - an operator pre-registers (@id, @ek_fpr): only
 * that EK may then take the id; stored with a "register" audit entry.
 * @reg: receives the registration (ENGINE_CREATED or ENGINE_OK)
 * @ans: ENGINE_CREATED (stored), ENGINE_OK (this very pair was there),
 *       ENGINE_CONFLICT (the id has another EK, or the EK is another
 *       id's), ENGINE_INTERNAL (the registration vanished), or a storage
 *       failure's kind as engine_approve()'s
 */
void engine_machine_add(struct verifier *v, const char *id,
			const uint8_t *ek_fpr, const char *op_name, int64_t now,
			struct db_registration *reg, struct engine_answer *ans);

/**
 * engine_machine_remove() - an operator removes machine @id with
 * everything it has, its open challenges and its pre-registration, with a
 * "remove" audit entry, in one transaction.
 * @out: receives what was removed
 * @ans: ENGINE_OK, ENGINE_UNKNOWN (neither a machine nor a
 *       pre-registration), or a storage failure's kind as
 *       engine_approve()'s
 */
void engine_machine_remove(struct verifier *v, const char *id,
			   const char *op_name, int64_t now,
			   struct db_removal *out, struct engine_answer *ans);

/**
 * engine_activation_states() - the states the table gives an activation
 * of a new machine: @vouched for an EK that chains, is pre-registered or
 * approved, @unvouched for another (db_challenge_activate() writes them).
 */
void engine_activation_states(enum db_machine_state *vouched,
			      enum db_machine_state *unvouched);

/**
 * engine_stale_tick() - machines without valid evidence for stale_after
 * seconds (from their stored last-seen time) go stale. Run at start,
 * before serving, and every second.
 * Return: how many went stale.
 */
size_t engine_stale_tick(struct verifier *v, int64_t now);

/* The checks of a one-shot verification, in the order they run. */
enum engine_check {
	ENGINE_CHECK_AK,     /* a given AK's attributes, or the enrolled one */
	ENGINE_CHECK_QUOTE,  /* signature under the AK, extraData = nonce */
	ENGINE_CHECK_PCRS,   /* PCR digest and selection, bank */
	ENGINE_CHECK_REPLAY, /* the whole list to PCR 10, boot_aggregate */
	ENGINE_CHECK_BOOT_LOG,	  /* the firmware event log to PCRs 0-9 */
	ENGINE_CHECK_RECORDS,	  /* every record under the policy */
	ENGINE_CHECK_BOOT_POLICY, /* the policy's "boot" section */
	ENGINE_CHECK_COUNT,
};

enum engine_check_result {
	ENGINE_CHECK_NOT_RUN, /* an earlier check failed */
	ENGINE_CHECK_PASS,
	ENGINE_CHECK_FAIL,
	ENGINE_CHECK_SKIPPED, /* nothing to check (no boot_log) */
};

#define ENGINE_VERIFY_REASONS_MAX 16 /* reasons one answer names */
#define ENGINE_VERIFY_VERDICTS (DB_VERDICT_BAD_SIGNATURE + 1)

/* What a one-shot verification found; nothing of it is stored. */
struct engine_verify {
	enum db_machine_state state;  /* trusted, untrusted or failed */
	char policy[WIRE_ID_MAX + 1]; /* the policy it was judged under */
	int enrolled;		      /* the AK is a machine's enrolled one */
	enum engine_check_result checks[ENGINE_CHECK_COUNT];
	uint64_t records;			   /* in the list */
	uint64_t verdicts[ENGINE_VERIFY_VERDICTS]; /* per verdict */
	uint64_t unacceptable;			   /* records not acceptable */
	size_t nreasons; /* the first ones, JSON text each */
	char reasons[ENGINE_VERIFY_REASONS_MAX][JUDGE_REASON_MAX];
};

/**
 * engine_verify() - a one-shot check of bundle @b (POST /v1/verify): the
 * checks of evidence, with the whole list proven from record 0, judged
 * under the bundle's policy. Writes nothing: no machine, nonce, record,
 * event or outbox row; only the verifications counter moves.
 * @v: the verifier
 * @b: the decoded bundle
 * @out: the verdict, the checks and the reasons (ENGINE_OK)
 * @ans: ENGINE_OK, or why there is no verdict: ENGINE_MALFORMED (an AK
 *       that is not a TPM2B_PUBLIC), ENGINE_UNKNOWN (no such policy or
 *       enrolled machine), ENGINE_STORAGE
 */
void engine_verify(struct verifier *v, const struct wire_bundle *b,
		   struct engine_verify *out, struct engine_answer *ans);

/** engine_check_name() - "ak", "quote", ... "boot_policy". */
const char *engine_check_name(enum engine_check c);

/** engine_check_result_name() - "pass", "fail", "skipped", "not run". */
const char *engine_check_result_name(enum engine_check_result r);

#endif /* IMATRUST_ENGINE_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_verify.c - a one-shot check (POST /v1/verify; proto/PROTOCOL.md
 * "One-shot verification"): one bundle through the checks an agent's
 * evidence goes through (attest.c, boot_check.c, judge.c), with the whole
 * list proven from record 0, judged under a named policy, stored nowhere.
 *
 *  1. under a read hold (read_begin(): the reader's lock and read-only
 *     connection, never v->lock; issue #33): the policy; with
 *     "machine", its enrolled AK;
 *  2. unlocked: a given AK's attributes (as enrollment requires), the
 *     quote's signature under the AK and its nonce, the PCR digest, the
 *     replay of the whole list to the quoted PCR 10, boot_aggregate, the
 *     firmware event log against PCRs 0-9 (attest.h with ->whole);
 *  3. under read holds: every record judged, the policy's "boot"
 *     section on the log: read-only lookups, VERIFY_PAGE records a
 *     hold, so a 45,000-record list keeps other readers waiting for one
 *     page at most (agents' evidence does not wait for it at all). A
 *     policy changed between two pages judges the later ones; one
 *     removed ends the check with "unknown policy".
 *
 * No transaction, no row: the one thing that moves is a counter. Freshness
 * is the caller's: the verifier checks the quote answers the nonce the
 * bundle names, and cannot know whether that nonce was used before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest.h"
#include "db_boot.h"
#include "db_machine.h"
#include "engine.h"
#include "engine_internal.h"
#include "policies.h"
#include "tpm_public.h"

#define VERIFY_PAGE 256 /* records judged per read hold */

static const char *const check_names[ENGINE_CHECK_COUNT] = {
	[ENGINE_CHECK_AK] = "ak",
	[ENGINE_CHECK_QUOTE] = "quote",
	[ENGINE_CHECK_PCRS] = "pcrs",
	[ENGINE_CHECK_REPLAY] = "replay",
	[ENGINE_CHECK_BOOT_LOG] = "boot_log",
	[ENGINE_CHECK_RECORDS] = "records",
	[ENGINE_CHECK_BOOT_POLICY] = "boot_policy",
};

static const char *const result_names[] = {
	[ENGINE_CHECK_NOT_RUN] = "not run",
	[ENGINE_CHECK_PASS] = "pass",
	[ENGINE_CHECK_FAIL] = "fail",
	[ENGINE_CHECK_SKIPPED] = "skipped",
};

const char *engine_check_name(enum engine_check c)
{
	return (unsigned int)c < ENGINE_CHECK_COUNT ? check_names[c] :
						      "invalid";
}

const char *engine_check_result_name(enum engine_check_result r)
{
	return (unsigned int)r <= ENGINE_CHECK_SKIPPED ? result_names[r] :
							 "invalid";
}

/*
 * The bundle's policy (read hold): the one it names; else the
 * enrolled machine's, or the default for a given AK. NULL: no such name.
 */
static const struct policy *policy_of(struct verifier *v,
				      const struct wire_bundle *b)
{
	const struct policy *def = policies_default(v);

	if (b->policy[0] == '\0')
		return b->machine[0] != '\0' ? policies_for(v, b->machine) :
					       def;
	if (strcmp(b->policy, def->name) == 0)
		return def;
	return policies_find(v, b->policy);
}

static int unknown_policy(const struct wire_bundle *b,
			  struct engine_answer *ans)
{
	engine_answer_set(ans, ENGINE_UNKNOWN,
			  "policy: no policy named %s (imatrust policy ls)",
			  b->policy);
	return -1;
}

/*
 * Step 1 (a read hold: read_begin(), never v->lock): the policy exists,
 * the machine's AK.
 */
static int load(struct verifier *rv, const struct wire_bundle *b,
		struct attest *a, struct engine_verify *out,
		struct engine_answer *ans)
{
	struct verifier *v = read_begin(rv);
	const struct policy *p;
	int rc = -1;

	p = policy_of(v, b);
	if (p == NULL) {
		unknown_policy(b, ans);
		goto out;
	}
	snprintf(out->policy, sizeof(out->policy), "%s", p->name);
	if (b->machine[0] != '\0' &&
	    engine_load(v, b->machine, &a->m, ans) < 0) {
		if (ans->status != ENGINE_STORAGE)
			engine_answer_set(ans, ENGINE_UNKNOWN,
					  "machine: %s is not an enrolled, activated machine",
					  b->machine);
		goto out;
	}
	rc = 0;
out:
	read_end(v);
	return rc;
}

/* A given AK: a TPM2B_PUBLIC of a restricted signing key, as a key. */
static EVP_PKEY *given_ak(const struct wire_bundle *b, struct attest *a,
			  struct engine_answer *ans)
{
	struct imt_error err;
	EVP_PKEY *ak = NULL;
	TPMT_PUBLIC pub;

	if (tpm_public_parse(b->ak_pub.data, b->ak_pub.len, &pub, &err) !=
	    IMT_OK) {
		engine_answer_set(ans, ENGINE_MALFORMED,
				  "ak_pub: not a TPM2B_PUBLIC: %s", err.msg);
		return NULL;
	}
	if (tpm_public_check_ak(&pub, &err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &ak, &err) != IMT_OK)
		attest_fail(a, "ak", "%s", err.msg);
	return ak;
}

/* Which check a failure of attest_check() belongs to. */
static enum engine_check check_of(const char *check)
{
	if (strcmp(check, "pcr digest") == 0 ||
	    strcmp(check, "pcr selection") == 0 || strcmp(check, "bank") == 0)
		return ENGINE_CHECK_PCRS;
	if (strcmp(check, "boot log") == 0)
		return ENGINE_CHECK_BOOT_LOG;
	return ENGINE_CHECK_REPLAY;
}

/* The first check that failed: the verdict is "failed", its reason. */
static void failed(struct engine_verify *out, enum engine_check c,
		   const struct attest *a)
{
	char *reason = judge_check_reason(a->check, a->msg);

	out->state = DB_STATE_FAILED;
	out->checks[c] = ENGINE_CHECK_FAIL;
	snprintf(out->reasons[0], JUDGE_REASON_MAX, "%s",
		 reason != NULL && strlen(reason) < JUDGE_REASON_MAX ?
			 reason :
			 "{\"check\":\"internal\"}");
	out->nreasons = 1;
	free(reason);
}

/* Step 2, unlocked; -1 when there is no verdict (@ans), else 0. */
static int prove(struct verifier *v, const struct wire_bundle *b,
		 struct attest *a, struct engine_verify *out,
		 struct engine_answer *ans)
{
	EVP_PKEY *ak;
	int rc;

	if (out->enrolled) {
		rc = attest_authenticate(v, a);
		if (rc < 0 && strcmp(a->check, "ak") == 0) {
			failed(out, ENGINE_CHECK_AK, a);
			return 0;
		}
	} else {
		ak = given_ak(b, a, ans);
		if (ak == NULL) {
			if (ans->status != ENGINE_OK)
				return -1;
			failed(out, ENGINE_CHECK_AK, a);
			return 0;
		}
		rc = attest_authenticate_key(a, ak);
		EVP_PKEY_free(ak);
	}
	out->checks[ENGINE_CHECK_AK] = ENGINE_CHECK_PASS;
	if (rc < 0) {
		failed(out, ENGINE_CHECK_QUOTE, a);
		return 0;
	}
	out->checks[ENGINE_CHECK_QUOTE] = ENGINE_CHECK_PASS;
	if (attest_check(v, a) < 0) {
		enum engine_check c = check_of(a->check), i;

		for (i = ENGINE_CHECK_PCRS; i < c; i++)
			out->checks[i] = ENGINE_CHECK_PASS;
		failed(out, c, a);
		return 0;
	}
	out->checks[ENGINE_CHECK_PCRS] = ENGINE_CHECK_PASS;
	out->checks[ENGINE_CHECK_REPLAY] = ENGINE_CHECK_PASS;
	out->checks[ENGINE_CHECK_BOOT_LOG] = b->ev.boot_log.len > 0 ?
						     ENGINE_CHECK_PASS :
						     ENGINE_CHECK_SKIPPED;
	return 0;
}

/* Note a record or boot reason, while there is room for one. */
static void add_reason(struct engine_verify *out, const char *reason)
{
	if (out->nreasons < ENGINE_VERIFY_REASONS_MAX)
		snprintf(out->reasons[out->nreasons++], JUDGE_REASON_MAX, "%s",
			 reason);
}

/* Step 3 (read hold): records [@from, @to) under @p. */
static int judge_page(struct verifier *v, const struct policy *p,
		      struct attest *a, size_t from, size_t to,
		      struct engine_verify *out, struct imt_error *err)
{
	char reason[JUDGE_REASON_MAX];
	enum db_verdict verdict;
	size_t i;

	for (i = from; i < to; i++) {
		if (judge_record(v, p, &a->in[i], &verdict, err) < 0)
			return -1;
		out->verdicts[verdict]++;
		if (judge_acceptable(v, p, verdict))
			continue;
		out->unacceptable++;
		judge_reason(v, p, a->recs[i].index, &a->in[i], verdict,
			     reason);
		add_reason(out, reason);
	}
	return 0;
}

/* Step 3's end (read hold): the boot under @p, and the state. */
static int judge_end(struct verifier *v, const struct policy *p,
		     const struct wire_bundle *b, struct engine_verify *out,
		     struct imt_error *err)
{
	const struct wire_blob *log = &b->ev.boot_log;
	char reason[JUDGE_REASON_MAX];
	int ok;

	out->checks[ENGINE_CHECK_RECORDS] =
		out->unacceptable > 0 ? ENGINE_CHECK_FAIL : ENGINE_CHECK_PASS;
	if (judge_boot_log_data(v, p, log->len > 0 ? log->data : NULL, log->len,
				out->enrolled ? b->machine : NULL, &ok, reason,
				err) < 0)
		return -1;
	out->checks[ENGINE_CHECK_BOOT_POLICY] = !p->boot.present ?
							ENGINE_CHECK_SKIPPED :
						ok ? ENGINE_CHECK_PASS :
						     ENGINE_CHECK_FAIL;
	if (!ok)
		add_reason(out, reason);
	out->state = out->unacceptable > 0 || !ok ? DB_STATE_UNTRUSTED :
						    DB_STATE_TRUSTED;
	return 0;
}

static void judge_locked(struct verifier *rv, const struct wire_bundle *b,
			 struct attest *a, struct engine_verify *out,
			 struct engine_answer *ans)
{
	struct verifier *v;
	const struct policy *p;
	struct imt_error err;
	size_t from = 0, to;
	int rc;

	out->records = a->n;
	for (;;) {
		v = read_begin(rv);
		p = policy_of(v, b); /* again: it may have gone meanwhile */
		if (p == NULL) {
			unknown_policy(b, ans);
			break;
		}
		to = a->n - from > VERIFY_PAGE ? from + VERIFY_PAGE : a->n;
		rc = judge_page(v, p, a, from, to, out, &err);
		if (rc == 0 && to == a->n)
			rc = judge_end(v, p, b, out, &err);
		if (rc < 0) {
			engine_answer_set(ans, ENGINE_STORAGE, "storage: %s",
					  err.msg);
			break;
		}
		if (to == a->n)
			break;
		read_end(v);
		from = to;
	}
	read_end(v);
}

void engine_verify(struct verifier *v, const struct wire_bundle *b,
		   struct engine_verify *out, struct engine_answer *ans)
{
	struct attest a = { .ev = &b->ev, .whole = 1 };

	memset(ans, 0, sizeof(*ans));
	memset(out, 0, sizeof(*out));
	out->enrolled = b->machine[0] != '\0';
	if (load(v, b, &a, out, ans) < 0 || prove(v, b, &a, out, ans) < 0)
		goto out;
	if (out->state != DB_STATE_FAILED)
		judge_locked(v, b, &a, out, ans);
	if (ans->status == ENGINE_OK)
		atomic_fetch_add(&verifier_main(v)->metrics.verifications, 1);
out:
	attest_release(&a);
}

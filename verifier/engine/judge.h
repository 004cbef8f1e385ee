/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * judge.h - the verdict of an IMA record (proto/DESIGN.md §5), and whether
 * a boot's records are all acceptable under the configured policy.
 *
 * The one place the policy lives: evidence (engine_evidence.c) and
 * re-judging after references change (rejudge.c) both call these, so a
 * record gets the same verdict whichever way it is judged. Call with
 * v->lock held (they read the database), or with a read view from
 * read_begin() (reader.c) for reads that store nothing.
 */
#ifndef IMATRUST_JUDGE_H
#define IMATRUST_JUDGE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "db_boot.h"
#include "policy.h"
#include "verifier.h"

#define JUDGE_REASON_MAX 1024 /* bytes of a reason's JSON text */

/* One record as it is judged: what the list or the database holds. */
struct judge_input {
	const char *path; /* NUL-terminated event name */
	const char *algo; /* file digest algorithm, kernel name */
	const uint8_t *digest;
	size_t digest_len;
	int violation;	    /* the record is a violation (ToMToU, ...) */
	int boot_aggregate; /* the boot_aggregate record: checked apart */
	const uint8_t *sig; /* the ima-sig/ima-sigv2 sig field, or NULL */
	size_t sig_len;
};

/**
 * struct judge_copy - a stored record kept past the db_record_list()
 * callback that lent it, for judging it again (rejudge.c) or explaining
 * its verdict (the records route): the one way a stored record becomes a
 * judge_input.
 */
struct judge_copy {
	uint64_t index;
	char *path;
	char *algo; /* NULL when the record has none */
	uint8_t digest[DB_DIGEST_MAX];
	size_t digest_len; /* 0 when the record has none */
	uint8_t *sig;
	size_t sig_len;
	enum db_verdict verdict;
};

/**
 * judge_copy_set() - copy @r into @c (zeroed first).
 * Return: 0, or -1 when out of memory; what was copied stays for
 * judge_copy_free() either way.
 */
int judge_copy_set(struct judge_copy *c, const struct db_record *r);

/** judge_copy_free() - free what judge_copy_set() allocated in @c. */
void judge_copy_free(struct judge_copy *c);

/**
 * judge_input_of() - @c as judge_record() and judge_explain() read it:
 * the boot_aggregate record (stored as excluded) marked to be checked
 * against the PCRs, a violation as a violation. Borrows from @c.
 */
void judge_input_of(const struct judge_copy *c, struct judge_input *in);

/**
 * judge_record() - the verdict of one record.
 * @v: the verifier (policy and reference digests)
 * @in: the record
 * @verdict: receives the verdict
 * @err: filled on a storage failure
 *
 * In this order: violations are "violation"; the boot_aggregate record
 * is "excluded" (it is checked against the quoted PCRs instead); a
 * record without a name or digest is "unknown"; a path an exclusion
 * rule of @p matches is "excluded"; an IMA signature by a key @p trusts
 * is "signed", or "bad-signature" when it does not verify; then the
 * references of @p's sources decide: known, mismatch (known for a
 * conffile with conffiles = any), or unknown; a digest known only for
 * another path is "known" when any_path = allow. ima-buf records are
 * judged by their name and buffer digest like files.
 * @p: the machine's policy (policies_for())
 *
 * Return: 0, or -1 on a storage failure.
 */
int judge_record(struct verifier *v, const struct policy *p,
		 const struct judge_input *in, enum db_verdict *verdict,
		 struct imt_error *err);

/**
 * judge_acceptable() - may a trusted machine have run a record judged
 * @verdict? known and excluded always; violation when violations = allow.
 * @v: the verifier
 * @verdict: the verdict
 */
int judge_acceptable(const struct verifier *v, const struct policy *p,
		     enum db_verdict verdict);

/**
 * judge_reason() - the JSON reason naming the record that is not
 * acceptable: {"check":"record","index":N,"path":...,"digest":"alg:hex",
 * "verdict":...,"policy":NAME,"why":TEXT[,"keyid":HEX]}.
 * @index: the record's list index
 * @in: the record
 * @verdict: its verdict
 * @out: receives the text, at most JUDGE_REASON_MAX bytes (a long path
 *       is cut, never the JSON)
 */
void judge_reason(struct verifier *v, const struct policy *p, uint64_t index,
		  const struct judge_input *in, enum db_verdict verdict,
		  char out[JUDGE_REASON_MAX]);

/**
 * judge_explain() - what decided @verdict for @in under @p, for the
 * operator ("why is this trusted"): {"source": "deb:NAME", "package",
 * "version", "arch"} for a reference, {"rule": "prefix:/x"} for an
 * exclusion, {"key": NAME, "keyid": HEX} for a signature, {"policy":
 * "violations=allow"}... (v->lock held).
 *
 * Return: a new JSON object, or NULL when out of memory.
 */
json_t *judge_explain(struct verifier *v, const struct policy *p,
		      const struct judge_input *in, enum db_verdict verdict);

/**
 * judge_check_reason() - the JSON reason of a failed check:
 * {"check": @check, "message": @message}.
 * @check: the check's short name ("signature", "ek", ...)
 * @message: what was wrong, for the operator
 *
 * Return: JSON text the caller frees, or NULL when out of memory.
 */
char *judge_check_reason(const char *check, const char *message);

/**
 * judge_boot() - are all stored records of @boot_id acceptable?
 * @v: the verifier
 * @boot_id: the boot
 * @nrecords: its next_record_index (how many records it has)
 * @ok: receives 1 when they are, else 0
 * @reason: receives judge_reason() of the first one that is not
 * @err: filled on a storage failure
 *
 * Return: 0, or -1 on a storage failure.
 */
int judge_boot(struct verifier *v, const struct policy *p, int64_t boot_id,
	       uint64_t nrecords, int *ok, char reason[JUDGE_REASON_MAX],
	       struct imt_error *err);

/**
 * judge_boot_log() - does boot @boot_id's firmware event log (or its
 * absence) pass the "boot" section of @p (boot_policy.h)?
 * @v: the verifier (v->lock held: it reads the database)
 * @p: the machine's policy
 * @boot_id: the boot
 * @ok: receives 1 when it does (or @p rules nothing on boots), else 0
 * @reason: receives the violation's JSON reason when not
 * @err: filled on a storage failure
 *
 * judge_boot() includes it; the engine calls it alone when it skips
 * judge_boot() (a new boot, a trusted machine).
 *
 * Return: 0, or -1 on a storage failure.
 */
int judge_boot_log(struct verifier *v, const struct policy *p, int64_t boot_id,
		   int *ok, char reason[JUDGE_REASON_MAX],
		   struct imt_error *err);

/**
 * judge_boot_log_data() - judge_boot_log() on a log in hand, which the
 * caller has replayed against a quote (boot_check_evidence()).
 * @v: the verifier (v->lock held: it reads the database)
 * @p: the policy
 * @log: the raw firmware event log, or NULL when there is none
 * @len: its length
 * @machine: whose baseline "baseline": "first-boot" compares with, or
 *	     NULL (no machine: that rule has nothing to compare)
 * @ok: receives 1 when it passes (or @p rules nothing on boots), else 0
 * @reason: receives the violation's JSON reason when not
 * @err: filled on a storage failure
 *
 * Return: 0, or -1 on a storage failure.
 */
int judge_boot_log_data(struct verifier *v, const struct policy *p,
			const uint8_t *log, size_t len, const char *machine,
			int *ok, char reason[JUDGE_REASON_MAX],
			struct imt_error *err);

#endif /* IMATRUST_JUDGE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_refs.h - what operators do to the reference set, the engine's
 * side (issue #35): imports and deletes of listed references in chunks,
 * an importer's batch stored with its audit entry, a source retired, the
 * lookups and checks an import makes first. Each entry point takes
 * v->lock itself, per chunk where the work is long, so evidence is
 * answered in between; the routes (route_refs.c, route_import.c) check
 * the token, decode, call one of these and encode the answer.
 *
 * The caller serializes reference changes (cluster_change_begin()); none
 * of these is called with v->lock held.
 */
#ifndef IMATRUST_ENGINE_REFS_H
#define IMATRUST_ENGINE_REFS_H

#include <stddef.h>
#include <stdint.h>

#include "db_ref.h"
#include "import_store.h"
#include "rejudge.h"
#include "verifier.h"

#define ENGINE_REFS_CHUNK 2000 /* references per transaction (lock hold) */

/* Where a reference change stopped, for its answer. */
enum engine_refs_step {
	ENGINE_REFS_DONE,      /* all of it, the re-judge included */
	ENGINE_REFS_LOOKUP,    /* reading the source failed: nothing changed */
	ENGINE_REFS_NO_SOURCE, /* no such source: nothing changed */
	ENGINE_REFS_STORE,     /* storing or deleting failed after .stored */
	ENGINE_REFS_WITHDRAW,  /* withdrawing failed after .withdrawn */
	ENGINE_REFS_REJUDGE,   /* changed, but judging again failed */
};

/* What a reference change did. */
struct engine_refs_result {
	enum engine_refs_step step;
	size_t stored;	  /* references stored (import) or deleted (delete) */
	size_t withdrawn; /* references withdrawn */
	struct rejudge_stats st; /* the re-judge's counts (ENGINE_REFS_DONE) */
	struct imt_error err;	 /* why, when not ENGINE_REFS_DONE */
};

/**
 * engine_refs_import() - store @refs as a new generation of @src, in
 * chunks of ENGINE_REFS_CHUNK, each its own transaction under v->lock (the
 * lock released in between: evidence is answered meanwhile). Only the
 * last chunk's commit publishes the import, and with @replace withdraws
 * the older generations in that same commit; their rows are then deleted
 * in chunks. Then the current boots are judged again (rejudge_all()).
 * @v: the verifier
 * @src: the source the references come from
 * @refs: the references, checked (@nrefs of them; none stores an empty
 *        generation, which with @replace withdraws the source's others)
 * @replace: withdraw what older generations of @src said
 * @cause: JSON text, the re-judge's cause
 * @now: seconds since the epoch
 * @out: what was done; .step ENGINE_REFS_STORE when a chunk failed (none
 *       of the import vouches then: what the chunks stored is dropped),
 *       ENGINE_REFS_WITHDRAW when the import is stored but withdrawing
 *       the older ones failed (the records are judged again with what
 *       changed), ENGINE_REFS_REJUDGE, else ENGINE_REFS_DONE
 */
void engine_refs_import(struct verifier *v, const struct db_ref_source *src,
			const struct db_ref_entry *refs, size_t nrefs,
			int replace, const char *cause, int64_t now,
			struct engine_refs_result *out);

/**
 * engine_refs_delete() - delete references, then judge the current boots
 * again when any went (what went is gone whatever failed after).
 * @src: delete only this source's word for @refs; NULL: every source's
 * @refs: the references to delete, in chunks of ENGINE_REFS_CHUNK, each
 *        one transaction; NULL withdraws all of @src (which must then be
 *        given) and the source, in short transactions
 * @out: .stored: how many references were deleted; .step
 *       ENGINE_REFS_STORE when deleting failed, ENGINE_REFS_REJUDGE when
 *       judging again failed (.err then says why the delete failed, if
 *       it did, else why the re-judge did), else ENGINE_REFS_DONE
 */
void engine_refs_delete(struct verifier *v, const struct db_ref_source *src,
			const struct db_ref_entry *refs, size_t nrefs,
			const char *cause, int64_t now,
			struct engine_refs_result *out);

/**
 * engine_refs_cause() - {"check":"rejudge","change":@change,"source":
 * {"kind","name"},"operator":@op_name} as JSON text (caller frees): the
 * cause of an importer's change and its audit entry's detail.
 * Return: the text, or NULL when out of memory.
 */
char *engine_refs_cause(const char *change, const struct db_ref_source *src,
			const char *op_name);

/**
 * engine_refs_find() - is source @src stored, and was it imported from
 * the content whose SHA-256 is @sha256 (a package file)?
 * @sha256: 32 bytes, or NULL when only being stored matters
 * @found: receives 1 when @src is stored
 * @same: receives 1 when it is and its stored content digest is @sha256
 *        (may be NULL)
 *
 * Return: 0, or -1 with @err.
 */
int engine_refs_find(struct verifier *v, const struct db_ref_source *src,
		     const uint8_t *sha256, int *found, int *same,
		     struct imt_error *err);

/**
 * engine_refs_schedule_older() - with upgrade_window set, schedule the
 * retirement of @package's other versions for @arch than source @keep
 * (deb:@keep) for when the window ends. A failure is logged.
 * @n: receives how many were scheduled (0 after a failure)
 *
 * Return: 1 when the configuration sets an upgrade window, else 0 (and
 * nothing is scheduled).
 */
int engine_refs_schedule_older(struct verifier *v, const char *package,
			       const char *arch, const char *keep, int64_t now,
			       size_t *n);

/**
 * engine_refs_rules_fit() - policies_rules_fit() for source @src's @nrules
 * exclusion rules, under v->lock: would every policy that selects @src
 * still hold at most POLICY_RULES_MAX of them?
 *
 * Return: 0, or -1 with @err (IMT_ERR_LIMIT naming the policy).
 */
int engine_refs_rules_fit(struct verifier *v, const struct db_ref_source *src,
			  size_t nrules, struct imt_error *err);

/**
 * engine_refs_store() - import_batch_store() of @b as @src (with
 * @replace, the older generations withdrawn after), then its "import"
 * audit entry by @op_name. The re-judge is the caller's.
 * @withdrawn: receives how many references went (may be NULL)
 *
 * Return: 0, or -1 with @err (nothing of @b is stored, nothing audited).
 */
int engine_refs_store(struct verifier *v, const char *op_name,
		      const struct db_ref_source *src,
		      const struct import_batch *b, int replace, int64_t now,
		      size_t *withdrawn, struct imt_error *err);

/**
 * engine_refs_retire() - an operator retires source @src: withdraw it
 * entirely, judge every machine again both ways, and write the "retire"
 * audit entry.
 * @out: .withdrawn and .st; .step ENGINE_REFS_LOOKUP (reading the
 *       source failed), ENGINE_REFS_NO_SOURCE, ENGINE_REFS_WITHDRAW (the
 *       withdrawal or its re-judge failed: send it again), else
 *       ENGINE_REFS_DONE
 */
void engine_refs_retire(struct verifier *v, const struct db_ref_source *src,
			const char *op_name, int64_t now,
			struct engine_refs_result *out);

/**
 * engine_refs_cache_stats() - the writer's reference cache counters,
 * copied when v->lock is free, else the last copy, so a metrics scrape
 * never waits for evidence (issue #33).
 */
void engine_refs_cache_stats(struct verifier *v,
			     struct db_ref_cache_stats *out);

#endif /* IMATRUST_ENGINE_REFS_H */

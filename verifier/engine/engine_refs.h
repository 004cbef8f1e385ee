/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_refs.h - what operators do to the reference set, the engine's
 * side (issue #35): imports and deletes of listed references, in chunks.
 * Each entry point takes v->lock itself, per chunk, so evidence is
 * answered in between; the route (route_refs.c) checks the token,
 * decodes, calls one of these and encodes the answer.
 *
 * The caller serializes reference changes (cluster_change_begin()); none
 * of these is called with v->lock held.
 */
#ifndef IMATRUST_ENGINE_REFS_H
#define IMATRUST_ENGINE_REFS_H

#include <stddef.h>
#include <stdint.h>

#include "db_ref.h"
#include "rejudge.h"
#include "verifier.h"

#define ENGINE_REFS_CHUNK 2000 /* references per transaction (lock hold) */

/* Where a reference change stopped, for its answer. */
enum engine_refs_step {
	ENGINE_REFS_DONE,     /* all of it, the re-judge included */
	ENGINE_REFS_STORE,    /* storing or deleting failed after .stored */
	ENGINE_REFS_WITHDRAW, /* withdrawing failed after .withdrawn */
	ENGINE_REFS_REJUDGE,  /* changed, but judging again failed */
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

#endif /* IMATRUST_ENGINE_REFS_H */

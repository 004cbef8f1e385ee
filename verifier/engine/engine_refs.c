// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_refs.c - what operators do to the reference set, under v->lock
 * taken here, per chunk where the work is long (engine_refs.h).
 *
 * A JSON import is stored in chunks, each its own transaction, as one
 * generation of its source that vouches only from its last chunk's
 * commit on (db_ref_import_commit()): judging and listing never see part
 * of an import, and what a crash or a failure left of one is dropped
 * (db_ref_recover(), import_recover()). An importer's batch is stored
 * whole in one transaction by import_store.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "change.h"
#include "db_source.h"
#include "engine_refs.h"
#include "log.h"
#include "policies.h"

/* The end of the chunk that starts at @from of @n. */
static size_t chunk_end(size_t from, size_t n)
{
	return n - from > ENGINE_REFS_CHUNK ? from + ENGINE_REFS_CHUNK : n;
}

/*
 * One chunk of the import, in one transaction (v->lock held); the last
 * publishes the import (and with a replace hides the older generations).
 */
static int store_chunk(struct verifier *v, const struct db_ref_source *src,
		       const struct db_ref_entry *refs, size_t nrefs,
		       int replace, size_t from, size_t to, int64_t now,
		       struct imt_error *err)
{
	int last = to == nrefs;
	size_t i;
	int rc;

	rc = from == 0 ? db_ref_import_begin(v->db, src, now, err) :
			 db_ref_import_continue(v->db, src, now, err);
	if (rc < 0)
		return -1;
	for (i = from; i < to; i++) {
		if (db_ref_add_entry(v->db, src, &refs[i], now, err) < 0) {
			db_ref_import_abort(v->db);
			return -1;
		}
	}
	if (last && replace && db_ref_import_replace(v->db, err) < 0) {
		db_ref_import_abort(v->db);
		return -1;
	}
	return last ? db_ref_import_commit(v->db, err) :
		      db_ref_import_commit_chunk(v->db, err);
}

/*
 * Store the references chunk by chunk (the first starts a new generation
 * of the source), the lock released in between. *@stored: how many are.
 */
static int store_refs(struct verifier *v, const struct db_ref_source *src,
		      const struct db_ref_entry *refs, size_t nrefs,
		      int replace, int64_t now, size_t *stored,
		      struct imt_error *err)
{
	size_t from = 0, to;
	int rc;

	*stored = 0;
	do {
		to = chunk_end(from, nrefs);
		pthread_mutex_lock(&v->lock);
		rc = store_chunk(v, src, refs, nrefs, replace, from, to, now,
				 err);
		pthread_mutex_unlock(&v->lock);
		if (rc < 0)
			return -1;
		*stored = from = to;
		rejudge_hook("import:chunk");
	} while (from < nrefs);
	return 0;
}

void engine_refs_import(struct verifier *v, const struct db_ref_source *src,
			const struct db_ref_entry *refs, size_t nrefs,
			int replace, const char *cause, int64_t now,
			struct engine_refs_result *out)
{
	memset(out, 0, sizeof(*out));
	if (store_refs(v, src, refs, nrefs, replace, now, &out->stored,
		       &out->err) < 0) {
		out->step = ENGINE_REFS_STORE;
		/* nothing of it vouched: drop what the chunks stored */
		import_recover(v, NULL, &(struct imt_error){ 0 });
		return;
	}
	if (replace &&
	    import_withdraw(v, src, 1, &out->withdrawn, &out->err) < 0) {
		out->step = ENGINE_REFS_WITHDRAW;
		/* what is stored and what went, judged with */
		rejudge_all(v, REJUDGE_ADDED | REJUDGE_WITHDRAWN, cause, now,
			    &out->st, &(struct imt_error){ 0 });
		return;
	}
	if (rejudge_all(v,
			REJUDGE_ADDED |
				(out->withdrawn > 0 ? REJUDGE_WITHDRAWN : 0),
			cause, now, &out->st, &out->err) < 0)
		out->step = ENGINE_REFS_REJUDGE;
}

/* Delete the listed references @from..@to in one batch (v->lock held). */
static int delete_chunk(struct verifier *v, const struct db_ref_source *src,
			const struct db_ref_entry *refs, size_t from, size_t to,
			size_t *deleted, struct imt_error *err)
{
	size_t i, n, sum = 0;

	if (db_batch_begin(v->db, err) < 0)
		return -1;
	for (i = from; i < to; i++) {
		const struct db_ref_entry *e = &refs[i];

		if (db_ref_delete(v->db, src, e->path, e->algo, e->digest,
				  e->digest_len, &n, err) < 0) {
			db_batch_abort(v->db);
			return -1;
		}
		sum += n;
	}
	if (db_batch_commit(v->db, err) < 0)
		return -1;
	*deleted += sum;
	return 0;
}

/* The listed references, chunk by chunk, the lock released between. */
static int delete_refs(struct verifier *v, const struct db_ref_source *src,
		       const struct db_ref_entry *refs, size_t nrefs,
		       size_t *deleted, struct imt_error *err)
{
	size_t from, to;
	int rc;

	*deleted = 0;
	for (from = 0; from < nrefs; from = to) {
		to = chunk_end(from, nrefs);
		pthread_mutex_lock(&v->lock);
		rc = delete_chunk(v, src, refs, from, to, deleted, err);
		pthread_mutex_unlock(&v->lock);
		if (rc < 0)
			return -1;
		rejudge_hook("withdraw:chunk");
	}
	return 0;
}

void engine_refs_delete(struct verifier *v, const struct db_ref_source *src,
			const struct db_ref_entry *refs, size_t nrefs,
			const char *cause, int64_t now,
			struct engine_refs_result *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (refs != NULL)
		rc = delete_refs(v, src, refs, nrefs, &out->stored, &out->err);
	else
		rc = import_withdraw(v, src, 0, &out->stored, &out->err);
	out->step = rc < 0 ? ENGINE_REFS_STORE : ENGINE_REFS_DONE;
	/* what went is gone whatever failed after: judge without it */
	if (out->stored > 0 &&
	    rejudge_all(v, REJUDGE_WITHDRAWN, cause, now, &out->st,
			rc < 0 ? &(struct imt_error){ 0 } : &out->err) < 0)
		out->step = ENGINE_REFS_REJUDGE;
}

char *engine_refs_cause(const char *change, const struct db_ref_source *src,
			const char *op_name)
{
	return change_cause(change, "source",
			    json_pack("{s:s,s:s}", "kind",
				      db_source_kind_name(src->kind), "name",
				      src->name),
			    op_name);
}

/* The audit entry of @action on @src by @op_name. */
static void audit(struct verifier *v, const char *op_name, const char *action,
		  const struct db_ref_source *src, int64_t now)
{
	char *detail = engine_refs_cause(action, src, op_name);

	pthread_mutex_lock(&v->lock);
	change_audit(v, op_name, action, detail, now);
	pthread_mutex_unlock(&v->lock);
	free(detail);
}

/* Is the stored source the content @sha256 (content_sha256)? */
struct stored_content {
	const uint8_t *sha256;
	int same;
};

static int compare_content(const struct db_source_info *si, void *arg)
{
	struct stored_content *sc = arg;

	sc->same = si->content_sha256 != NULL &&
		   memcmp(si->content_sha256, sc->sha256, 32) == 0;
	return 1;
}

int engine_refs_find(struct verifier *v, const struct db_ref_source *src,
		     const uint8_t *sha256, int *found, int *same,
		     struct imt_error *err)
{
	struct stored_content sc = { sha256, 0 };
	int rc;

	*found = 0;
	pthread_mutex_lock(&v->lock);
	rc = db_source_get(v->db, src, sha256 != NULL ? compare_content : NULL,
			   sha256 != NULL ? &sc : NULL, found, err);
	pthread_mutex_unlock(&v->lock);
	if (same != NULL)
		*same = sc.same;
	return rc;
}

int engine_refs_schedule_older(struct verifier *v, const char *package,
			       const char *arch, const char *keep, int64_t now,
			       size_t *n)
{
	struct imt_error err;
	int rc;

	*n = 0;
	if (v->cfg.upgrade_window == 0)
		return 0;
	pthread_mutex_lock(&v->lock);
	rc = db_source_schedule_retire(v->db, package, arch, keep,
				       now + (int64_t)v->cfg.upgrade_window, n,
				       &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		log_warnx("deb:%s: scheduling the older versions' retirement: "
			  "%s",
			  keep, err.msg);
	return 1;
}

int engine_refs_rules_fit(struct verifier *v, const struct db_ref_source *src,
			  size_t nrules, struct imt_error *err)
{
	char source[DB_NAME_MAX + 16];
	int rc;

	snprintf(source, sizeof(source), "%s:%s",
		 db_source_kind_name(src->kind), src->name);
	pthread_mutex_lock(&v->lock);
	rc = policies_rules_fit(v, source, nrules, err);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int engine_refs_store(struct verifier *v, const char *op_name,
		      const struct db_ref_source *src,
		      const struct import_batch *b, int replace, int64_t now,
		      size_t *withdrawn, struct imt_error *err)
{
	if (import_batch_store(v, src, b, replace, now, withdrawn, err) < 0)
		return -1;
	audit(v, op_name, "import", src, now);
	return 0;
}

void engine_refs_retire(struct verifier *v, const struct db_ref_source *src,
			const char *op_name, int64_t now,
			struct engine_refs_result *out)
{
	int found = 0;

	memset(out, 0, sizeof(*out));
	if (engine_refs_find(v, src, NULL, &found, NULL, &out->err) < 0)
		out->step = ENGINE_REFS_LOOKUP;
	else if (!found)
		out->step = ENGINE_REFS_NO_SOURCE;
	else if (import_retire(v, src, op_name, now, &out->withdrawn, &out->st,
			       &out->err) < 0)
		out->step = ENGINE_REFS_WITHDRAW;
	else
		audit(v, op_name, "retire", src, now);
}

void engine_refs_cache_stats(struct verifier *v, struct db_ref_cache_stats *out)
{
	static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
	static struct db_ref_cache_stats last;

	pthread_mutex_lock(&last_lock);
	if (pthread_mutex_trylock(&v->lock) == 0) {
		db_ref_cache_stats(v->db, &last);
		pthread_mutex_unlock(&v->lock);
	}
	*out = last;
	pthread_mutex_unlock(&last_lock);
}

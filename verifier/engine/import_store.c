// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_store.c - store what an importer found, in one transaction.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "change.h"
#include "cluster.h"
#include "db_key.h"
#include "db_ref.h"
#include "db_source.h"
#include "import_store.h"
#include "keyring.h"
#include "log.h"
#include "policies.h"
#include "rejudge.h"

#define ARENA_CHUNK (64u << 10)
#define WITHDRAW_CHUNK 2000

static int oom(struct imt_error *err)
{
	imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
		      "out of memory");
	return -1;
}

/* Room for @n bytes that stay put until import_batch_free(). */
static void *arena(struct import_batch *b, size_t n)
{
	char **nc;

	if (n > ARENA_CHUNK)
		return NULL;
	if (b->nchunks == 0 || b->used + n > ARENA_CHUNK) {
		nc = realloc(b->chunks, (b->nchunks + 1) * sizeof(*nc));
		if (nc == NULL)
			return NULL;
		b->chunks = nc;
		b->chunks[b->nchunks] = malloc(ARENA_CHUNK);
		if (b->chunks[b->nchunks] == NULL)
			return NULL;
		b->nchunks++;
		b->used = 0;
	}
	b->used += n;
	return b->chunks[b->nchunks - 1] + b->used - n;
}

/* The algorithm's name, kept once per batch. */
static char *intern_algo(struct import_batch *b, const char *algo, size_t alen)
{
	char *a;
	size_t i;

	for (i = 0; i < b->nalgos; i++) {
		if (strcmp(b->algos[i], algo) == 0)
			return b->algos[i];
	}
	a = arena(b, alen + 1);
	if (a == NULL)
		return NULL;
	memcpy(a, algo, alen + 1);
	if (b->nalgos < IMPORT_BATCH_ALGOS)
		b->algos[b->nalgos++] = a;
	return a;
}

static int collect_ref(void *arg, const struct import_ref *r,
		       struct imt_error *err)
{
	struct import_batch *b = arg;
	size_t plen = strlen(r->path), alen = strlen(r->algo);
	struct db_ref_entry *e;
	char *p, *a;
	uint8_t *d;

	if (b->nrefs >= IMPORT_REFS_MAX) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
			      "more than %d references in one import",
			      IMPORT_REFS_MAX);
		return -1;
	}
	if (b->nrefs == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 1024;

		e = realloc(b->refs, cap * sizeof(*e));
		if (e == NULL)
			return oom(err);
		b->refs = e;
		b->cap = cap;
	}
	/* a path given once per bank is kept once: the previous one's */
	if (b->nrefs > 0 && strcmp(b->refs[b->nrefs - 1].path, r->path) == 0)
		p = (char *)b->refs[b->nrefs - 1].path;
	else {
		p = arena(b, plen + 1);
		if (p != NULL)
			memcpy(p, r->path, plen + 1);
	}
	a = p != NULL ? intern_algo(b, r->algo, alen) : NULL;
	d = a != NULL ? arena(b, r->digest_len) : NULL;
	if (d == NULL)
		return oom(err);
	memcpy(d, r->digest, r->digest_len);
	b->refs[b->nrefs++] = (struct db_ref_entry){
		.path = p,
		.algo = a,
		.digest = d,
		.digest_len = r->digest_len,
		.conffile = r->conffile,
	};
	return 0;
}

static int collect_rule(void *arg, enum import_rule_kind kind, const char *rule,
			struct imt_error *err)
{
	struct import_batch *b = arg;
	struct import_rule *nr;

	nr = realloc(b->rules, (b->nrules + 1) * sizeof(*nr));
	if (nr == NULL)
		return oom(err);
	b->rules = nr;
	nr[b->nrules].kind = kind;
	nr[b->nrules].rule = strdup(rule);
	if (nr[b->nrules].rule == NULL)
		return oom(err);
	b->nrules++;
	return 0;
}

static int collect_key(void *arg, const uint8_t *der, size_t len,
		       struct imt_error *err)
{
	struct import_batch *b = arg;
	struct import_key *nk;

	nk = realloc(b->keys, (b->nkeys + 1) * sizeof(*nk));
	if (nk == NULL)
		return oom(err);
	b->keys = nk;
	nk[b->nkeys].der = malloc(len);
	if (nk[b->nkeys].der == NULL)
		return oom(err);
	memcpy(nk[b->nkeys].der, der, len);
	nk[b->nkeys].len = len;
	b->nkeys++;
	return 0;
}

void import_batch_sink(struct import_batch *b, struct import_sink *sink)
{
	memset(b, 0, sizeof(*b));
	*sink = (struct import_sink){
		.ref = collect_ref,
		.exclude = collect_rule,
		.key = collect_key,
		.arg = b,
	};
}

void import_batch_free(struct import_batch *b)
{
	size_t i;

	for (i = 0; i < b->nchunks; i++)
		free(b->chunks[i]);
	for (i = 0; i < b->nrules; i++)
		free(b->rules[i].rule);
	for (i = 0; i < b->nkeys; i++)
		free(b->keys[i].der);
	free(b->chunks);
	free(b->refs);
	free(b->rules);
	free(b->keys);
	memset(b, 0, sizeof(*b));
}

static const char *const rule_kind_names[] = {
	[IMPORT_RULE_PREFIX] = "prefix",
	[IMPORT_RULE_GLOB] = "glob",
	[IMPORT_RULE_REGEX] = "regex",
};

/* Keys of an import: named "KIND:NAME#n", stored with the source. */
static int store_keys(struct verifier *v, const struct db_ref_source *src,
		      const struct import_batch *b, int64_t now,
		      struct imt_error *err)
{
	char name[DB_NAME_MAX + 1];
	struct keyring_cert c;
	size_t i;

	for (i = 0; i < b->nkeys; i++) {
		if (keyring_cert_load(b->keys[i].der, b->keys[i].len, 1, &c,
				      err) < 0)
			return -1;
		snprintf(name, sizeof(name), "%s:%.200s#%zu",
			 db_source_kind_name(src->kind), src->name, i + 1);
		c.key.name = name;
		if (db_key_add(v->db, &c.key, now, err) < 0) {
			keyring_cert_free(&c);
			return -1;
		}
		keyring_cert_free(&c);
	}
	return 0;
}

static int store_locked(struct verifier *v, const struct db_ref_source *src,
			const struct import_batch *b, int replace, int64_t now,
			struct imt_error *err)
{
	size_t i;

	if (db_ref_import_begin(v->db, src, now, err) < 0)
		return -1;
	/* the older generations stop vouching as this one starts */
	if (replace && db_ref_import_replace(v->db, err) < 0)
		goto abort;
	for (i = 0; i < b->nrefs; i++) {
		if (db_ref_add_entry(v->db, src, &b->refs[i], now, err) < 0)
			goto abort;
	}
	for (i = 0; i < b->nrules; i++) {
		if (db_source_rule_add(v->db, rule_kind_names[b->rules[i].kind],
				       b->rules[i].rule, err) < 0)
			goto abort;
	}
	if (store_keys(v, src, b, now, err) < 0)
		goto abort;
	if (db_ref_import_commit(v->db, err) < 0)
		return -1;
	if (b->nrules > 0)
		policies_invalidate(v);
	if (b->nkeys > 0)
		keyring_invalidate(v);
	return 0;
abort:
	db_ref_import_abort(v->db);
	return -1;
}

int import_batch_store(struct verifier *v, const struct db_ref_source *src,
		       const struct import_batch *b, int replace, int64_t now,
		       size_t *withdrawn, struct imt_error *err)
{
	int rc;

	if (withdrawn != NULL)
		*withdrawn = 0;
	pthread_mutex_lock(&v->lock);
	rc = store_locked(v, src, b, replace, now, err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0 || !replace)
		return rc;
	return import_withdraw(v, src, 1, withdrawn, err);
}

int import_withdraw(struct verifier *v, const struct db_ref_source *src,
		    int stale_only, size_t *withdrawn, struct imt_error *err)
{
	size_t n, total = 0;
	int more = 1, rc = 0;

	while (rc == 0 && more) {
		pthread_mutex_lock(&v->lock);
		rc = db_ref_withdraw(v->db, src, stale_only, WITHDRAW_CHUNK, &n,
				     &more, err);
		pthread_mutex_unlock(&v->lock);
		if (rc == 0)
			total += n;
		rejudge_hook("withdraw:chunk");
	}
	if (withdrawn != NULL)
		*withdrawn = total;
	/* rules and keys of a withdrawn source went with it */
	pthread_mutex_lock(&v->lock);
	policies_invalidate(v);
	keyring_invalidate(v);
	pthread_mutex_unlock(&v->lock);
	return rc;
}

int import_recover(struct verifier *v, size_t *dropped, struct imt_error *err)
{
	size_t n, total = 0;
	int more = 1, rc = 0;

	while (rc == 0 && more) {
		pthread_mutex_lock(&v->lock);
		rc = db_ref_recover(v->db, WITHDRAW_CHUNK, &n, &more, err);
		pthread_mutex_unlock(&v->lock);
		if (rc == 0)
			total += n;
		rejudge_hook("recover:chunk");
	}
	if (dropped != NULL)
		*dropped = total;
	if (total > 0) {
		pthread_mutex_lock(&v->lock);
		policies_invalidate(v);
		keyring_invalidate(v);
		pthread_mutex_unlock(&v->lock);
	}
	return rc;
}

int import_retire(struct verifier *v, const struct db_ref_source *src,
		  const char *op_name, int64_t now, size_t *withdrawn,
		  struct rejudge_stats *st, struct imt_error *err)
{
	char *text = change_cause("retire", "source",
				  json_pack("{s:s,s:s}", "kind",
					    db_source_kind_name(src->kind),
					    "name", src->name),
				  op_name);
	int rc = -1;

	if (text == NULL)
		return oom(err);
	if (import_withdraw(v, src, 0, withdrawn, err) == 0)
		rc = rejudge_all(v, REJUDGE_WITHDRAWN, text, now, st, err);
	free(text);
	return rc;
}

struct due {
	enum db_source_kind kind;
	char name[DB_NAME_MAX + 1];
};

static int take_due(const struct db_source_info *si, void *arg)
{
	struct due *d = arg;

	d->kind = si->kind;
	snprintf(d->name, sizeof(d->name), "%s", si->name);
	return 1;
}

void import_retire_due(struct verifier *v, int64_t now)
{
	struct rejudge_stats st;
	struct imt_error err;
	struct due d;
	int found = 0, rc;

	if (!cluster_change_try(v))
		return;
	do {
		pthread_mutex_lock(&v->lock);
		rc = db_source_next_due(v->db, now, take_due, &d, &found, &err);
		pthread_mutex_unlock(&v->lock);
		if (rc < 0 || !found)
			break;
		struct db_ref_source src = { .kind = d.kind, .name = d.name };

		rc = import_retire(v, &src, "upgrade_window", now, NULL, &st,
				   &err);
		if (rc == 0)
			log_info("retired %s:%s (upgrade window over): %zu "
				 "machines now untrusted",
				 db_source_kind_name(d.kind), d.name,
				 st.now_untrusted);
	} while (rc == 0);
	if (rc < 0)
		log_warnx("retiring sources whose upgrade window ended: %s",
			  err.msg);
	cluster_change_end(v);
}

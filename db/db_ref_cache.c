// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_ref_cache.c - the classes of recent reference lookups, in memory.
 *
 * A fleet runs the same files on many machines, so most records a
 * verifier judges are (path, digest) pairs it judged moments ago for
 * another machine. The lookup SQL (db_ref.c: a CASE of four EXISTS over
 * policy selectors) costs tens of microseconds on SQLite and a round
 * trip on PostgreSQL; a hit here costs a hash.
 *
 * Correctness comes from the database, not from this process: every
 * write to refs, sources or policy_selectors, by any verifier or the
 * command line, gives reference_epoch a new value in the same transaction
 * (migration 0013). The cache re-reads the epoch once per transaction, at
 * its first lookup, and empties itself when the value differs from the
 * one it was filled under. Every write call opens its own transaction or
 * savepoint with db_begin(), which counts as a new transaction here, so a
 * lookup after a write in the same batch re-reads the epoch as well. An
 * open reference import bypasses the cache: its writes share one
 * transaction with no db_begin() between them.
 *
 * A fixed table of slots, each holding one key (policy, path, algo,
 * digest, compared in full) and its class. A key may sit in any of the
 * WAYS slots of the set it hashes to; a new key takes the set's slots in
 * turn, the oldest first. Keys longer than KEY_CACHED_MAX (rare paths) are not
 * kept, so memory stays under DB_REF_CACHE_SLOTS x (KEY_CACHED_MAX + the
 * slot) whatever the records hold: 20 MB, and about 8 MB for typical
 * paths.
 */
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "db_ref.h"

struct ref_slot {
	uint64_t hash;
	char *key; /* NULL: empty */
	size_t key_len;
	uint8_t cls;
};

#define WAYS 4
#define SETS (DB_REF_CACHE_SLOTS / WAYS)

struct ref_set {
	struct ref_slot way[WAYS];
	unsigned int next; /* the slot the next new key takes */
};

struct db_ref_cache {
	struct ref_set set[SETS];
	int64_t epoch;	     /* the epoch the slots were filled under */
	int filled;	     /* 0 until the first epoch read */
	uint64_t checked_tx; /* db->tx_serial when the epoch was read */
	struct db_ref_cache_stats stats;
};

#define KEY_CACHED_MAX 256

/*
 * Eight bytes a step, each mixed by a multiply: a key is about a hundred
 * bytes and is hashed for every record judged, where FNV-1a's byte at a
 * time cost as much as the rest of the lookup. Keys are compared in full,
 * so a collision costs a miss only; the sets take the low bits, so the
 * high ones are folded in at the end.
 */
static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

static uint64_t key_hash(const char *key, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;
	size_t i;

	for (i = 0; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(&w, key + i, sizeof(w));
		h = mix(h, w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, key + i, len - i);
		h = mix(h, w);
	}
	return mix(h, h >> 29);
}

/* Key bytes: policy ("" for none, with a marker byte), path, algo, digest. */
static void make_key(struct db_ref_key *k, const char *policy, const char *path,
		     const char *algo, const uint8_t *digest, size_t digest_len)
{
	char *out = k->bytes;
	size_t n = 0, l;

	/* "P" + name or "A": a policy named "" cannot pose as no policy */
	out[n++] = policy != NULL ? 'P' : 'A';
	if (policy != NULL) {
		l = strnlen(policy, DB_NAME_MAX);
		memcpy(out + n, policy, l);
		n += l;
	}
	out[n++] = '\0';
	l = strnlen(path, DB_PATH_MAX);
	memcpy(out + n, path, l);
	n += l;
	out[n++] = '\0';
	l = strnlen(algo, 16);
	memcpy(out + n, algo, l);
	n += l;
	out[n++] = '\0';
	memcpy(out + n, digest, digest_len);
	k->len = n + digest_len;
	k->hash = key_hash(out, k->len);
}

static void empty(struct db_ref_cache *c)
{
	size_t i, w;

	for (i = 0; i < SETS; i++) {
		for (w = 0; w < WAYS; w++) {
			free(c->set[i].way[w].key);
			c->set[i].way[w].key = NULL;
		}
		c->set[i].next = 0;
	}
}

static struct ref_slot *find(struct ref_set *set, uint64_t h, const char *key,
			     size_t len)
{
	size_t w;

	for (w = 0; w < WAYS; w++) {
		struct ref_slot *s = &set->way[w];

		if (s->key != NULL && s->hash == h && s->key_len == len &&
		    memcmp(s->key, key, len) == 0)
			return s;
	}
	return NULL;
}

void db_ref_cache_free(struct db *db)
{
	db_ref_index_free(db);
	if (db == NULL || db->ref_cache == NULL)
		return;
	empty(db->ref_cache);
	free(db->ref_cache);
	db->ref_cache = NULL;
}

static const char sql_epoch[] = "SELECT value FROM reference_epoch";

int db_ref_epoch_read(struct db *db, int64_t *epoch, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_epoch, err);
	int rc = 0;

	if (st == NULL)
		return -1;
	if (db_step(st) == DB_ROW)
		*epoch = db_col_int64(st, 0);
	else
		rc = db_fail(db, err, "reference epoch");
	db_reset(st);
	return rc;
}

/*
 * The cache, valid for this transaction: NULL when it cannot serve
 * (an import is open, or no memory), which sends the caller to SQL.
 */
static struct db_ref_cache *usable(struct db *db, struct imt_error *err,
				   int *failed)
{
	struct db_ref_cache *c = db->ref_cache;
	int64_t epoch = 0;

	*failed = 0;
	if (db->import_open)
		return NULL;
	if (c == NULL) {
		c = calloc(1, sizeof(*c));
		if (c == NULL)
			return NULL;
		db->ref_cache = c;
	}
	/* Outside a transaction every statement is its own snapshot. */
	if (c->filled && c->checked_tx == db->tx_serial &&
	    db_in_transaction(db))
		return c;
	if (db_ref_epoch_read(db, &epoch, err) < 0) {
		*failed = 1;
		return NULL;
	}
	if (!c->filled || epoch != c->epoch) {
		if (c->filled)
			c->stats.flushes++;
		empty(c);
		c->epoch = epoch;
		c->filled = 1;
	}
	c->checked_tx = db->tx_serial;
	return c;
}

int db_ref_cache_get(struct db *db, const char *policy, const char *path,
		     const char *algo, const uint8_t *digest, size_t digest_len,
		     struct db_ref_key *key, enum db_ref_class *cls,
		     struct imt_error *err)
{
	struct db_ref_cache *c;
	struct ref_slot *s;
	int failed;

	key->len = 0;
	c = usable(db, err, &failed);
	if (c == NULL)
		return failed ? -1 : 0;
	make_key(key, policy, path, algo, digest, digest_len);
	s = find(&c->set[key->hash & (SETS - 1)], key->hash, key->bytes,
		 key->len);
	if (s != NULL) {
		*cls = (enum db_ref_class)s->cls;
		c->stats.hits++;
		return 1;
	}
	c->stats.misses++;
	return 0;
}

int db_ref_epoch(struct db *db, int64_t *epoch, struct imt_error *err)
{
	struct db_ref_cache *c;
	int failed;

	c = usable(db, err, &failed);
	if (c == NULL)
		return failed ? -1 : 0;
	*epoch = c->epoch;
	return 1;
}

void db_ref_cache_put(struct db *db, const struct db_ref_key *key,
		      enum db_ref_class cls)
{
	struct db_ref_cache *c = db->ref_cache;
	size_t len = key->len;
	struct ref_set *set;
	struct ref_slot *s;
	char *copy;

	/* Only under the epoch read in this transaction (usable() above). */
	if (c == NULL || !c->filled || db->import_open ||
	    c->checked_tx != db->tx_serial || len == 0 || len > KEY_CACHED_MAX)
		return;
	set = &c->set[key->hash & (SETS - 1)];
	s = find(set, key->hash, key->bytes, len);
	if (s != NULL) {
		s->cls = (uint8_t)cls;
		return;
	}
	s = &set->way[set->next];
	set->next = (set->next + 1) % WAYS;
	copy = s->key != NULL && s->key_len >= len ? s->key : NULL;
	if (copy == NULL) {
		copy = malloc(len);
		if (copy == NULL)
			return;
		free(s->key);
	}
	memcpy(copy, key->bytes, len);
	s->key = copy;
	s->key_len = len;
	s->hash = key->hash;
	s->cls = (uint8_t)cls;
}

void db_ref_cache_stats(struct db *db, struct db_ref_cache_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (db != NULL && db->ref_cache != NULL)
		*out = db->ref_cache->stats;
	if (db != NULL)
		out->hits += db->ref_index_hits; /* from memory as well */
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_ref_index.c - every visible reference, in memory, for lookups.
 *
 * The SQL lookup (db_ref.c) costs microseconds on SQLite and a round trip
 * on PostgreSQL; db_ref_cache.c helps only for keys seen before. This is
 * a snapshot of all the references the lookup can see, taken at one value
 * E of reference_epoch, and it answers a lookup only in a transaction
 * whose epoch (read once per transaction, as db_ref_cache.c does) is E.
 * Every write to refs, sources or policy_selectors, by any instance or
 * the command line, gives the epoch a new random value in the same
 * transaction (migration 0013), so a snapshot at E holds exactly what the
 * SQL would read in such a transaction. Otherwise the lookup goes to the
 * cache and SQL, and the index is rebuilt once the lookups that went
 * there since it went stale would have read as many rows as the rebuild
 * reads (a lookup counting for 32 rows): a burst of imports costs few
 * rebuilds, a steady stream of evidence one, and a command that looks up
 * a few records none. The rebuild runs in the lookup, on its connection,
 * or with db_ref_index_background() in a thread on a reader connection
 * of its own, in one read snapshot, which the next lookup after it
 * finished takes (its epoch checked as any index's). The verifier builds
 * it at start (db_ref_index_refresh()), then in the background; a
 * reader connection never builds one.
 *
 * A build reads the epoch, the sources, each policy's selected sources
 * (the SQL's own GLOB or imatrust_glob), the visible references in pages
 * by id, then the epoch again; the snapshot is kept only when both reads
 * give the same value (whatever the isolation level: no commit that
 * changed a reference came in between, since it would have moved the
 * epoch to a value other than E). Visibility (since, published,
 * withdrawn_below) is settled at build: a hidden reference is left out.
 *
 * Per digest algorithm, two tables, each cut into buckets by the top bits
 * of a uniform key and sorted within a bucket:
 *  - refs: (digest, path fingerprint, source | conffile bit), by digest
 *    then fingerprint: (path, digest) listed, and digest listed;
 *  - paths: (path fingerprint, source | conffile bit), once each: path
 *    listed, as a conffile or not.
 * Digests are kept whole. Paths are kept as a 64-bit SipHash-2-4 of the
 * path under a key drawn from getrandom() for each build: 44 bytes a
 * sha256 reference plus 12 for its path and 2-4 of buckets, where whole
 * paths would add their length (proto/DESIGN.md, trust model, says what
 * a fingerprint means for a verdict).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "db_internal.h"
#include "db_ref.h"
#include "hash_algo.h"

#define ALGOS_MAX 8
#define PAGE_ROWS 65536
#define CONFFILE_BIT 0x80000000u
#define ROWS_PER_LOOKUP 32 /* a fallback lookup, counted in rows read */

struct path_ent {
	uint64_t fp;
	uint32_t src; /* source index | CONFFILE_BIT */
} __attribute__((packed));

struct algo_tab {
	char name[16];
	size_t dlen, rec; /* digest length; a refs record: dlen + 12 */
	uint8_t *refs;	  /* n records */
	size_t n, cap;
	uint32_t *rb; /* refs buckets: (1 << rbits) + 1 offsets */
	unsigned int rbits;
	struct path_ent *paths;
	size_t np;
	uint32_t *pb;
	unsigned int pbits;
};

struct policy_sel {
	char *name;
	uint8_t *sel; /* per source index: 1 when selected */
};

struct db_ref_index {
	int64_t epoch;
	uint64_t k0, k1; /* the fingerprint key */
	struct algo_tab tab[ALGOS_MAX];
	size_t ntab;
	int64_t *src_ids; /* sorted sources.id; the index is the position */
	size_t nsrc;
	struct policy_sel *pol; /* sorted by name */
	size_t npol;
	size_t bytes;
};

/*
 * Rebuilds on a connection of their own (db_ref_index_background()): one
 * thread at a time opens a reader, builds in one read snapshot, and
 * leaves the index in @done for the next lookup to take.
 */
struct db_ref_bg {
	pthread_mutex_t lock;
	pthread_t thread;
	int running; /* a thread was started and not joined */
	int finished;
	struct db_ref_index *done;
	char *path;
};

/* ---- SipHash-2-4 ------------------------------------------------------- */

static inline uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = rotl(v[2], 32);
}

static void sip_word(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sip_round(v);
	sip_round(v);
	v[0] ^= m;
}

static uint64_t le64(const uint8_t *p, size_t n)
{
	uint64_t w = 0;
	size_t i;

	for (i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return w;
}

static uint64_t siphash(uint64_t k0, uint64_t k1, const char *s, size_t len)
{
	uint64_t v[4] = { k0 ^ 0x736f6d6570736575ULL,
			  k1 ^ 0x646f72616e646f6dULL,
			  k0 ^ 0x6c7967656e657261ULL,
			  k1 ^ 0x7465646279746573ULL };
	const uint8_t *p = (const uint8_t *)s;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		sip_word(v, le64(p + i, 8));
	sip_word(v, le64(p + i, len - i) | ((uint64_t)(len & 0xff) << 56));
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* ---- freeing and sizes --------------------------------------------------- */

static void index_free(struct db_ref_index *x)
{
	size_t i;

	if (x == NULL)
		return;
	for (i = 0; i < x->ntab; i++) {
		free(x->tab[i].refs);
		free(x->tab[i].rb);
		free(x->tab[i].paths);
		free(x->tab[i].pb);
	}
	for (i = 0; i < x->npol; i++) {
		free(x->pol[i].name);
		free(x->pol[i].sel);
	}
	free(x->pol);
	free(x->src_ids);
	free(x);
}

static void bg_join(struct db_ref_bg *bg)
{
	if (bg->running) {
		pthread_join(bg->thread, NULL);
		bg->running = 0;
		bg->finished = 0;
	}
}

void db_ref_index_free(struct db *db)
{
	if (db == NULL)
		return;
	index_free(db->ref_index);
	db->ref_index = NULL;
	if (db->ref_bg != NULL) {
		bg_join(db->ref_bg);
		index_free(db->ref_bg->done);
		free(db->ref_bg->path);
		pthread_mutex_destroy(&db->ref_bg->lock);
		free(db->ref_bg);
		db->ref_bg = NULL;
	}
}

static size_t refs_total(const struct db_ref_index *x)
{
	size_t i, n = 0;

	for (i = 0; x != NULL && i < x->ntab; i++)
		n += x->tab[i].n;
	return n;
}

/* ---- building: reads ----------------------------------------------------- */

static const char sql_sources[] = "SELECT id FROM sources ORDER BY id";
/* Each policy's selected sources, matched as the lookup SQL matches. */
static const struct db_sql sql_selected = {
	.sqlite =
		"SELECT p.policy, s.id FROM policy_selectors p JOIN sources s "
		"ON s.kind || ':' || s.name GLOB p.selector "
		"ORDER BY p.policy, s.id",
	.pg = "SELECT p.policy, s.id FROM policy_selectors p JOIN sources s "
	      "ON imatrust_glob(s.kind || ':' || s.name, p.selector) "
	      "ORDER BY p.policy, s.id",
};
/* The visible references (db_ref.c SQL_VISIBLE), a page after ?1. */
static const char sql_refs_page[] =
	"SELECT r.id, d.algo, d.value, f.path, r.source_id, r.conffile "
	"FROM refs r JOIN digests d ON d.id = r.digest_id "
	"JOIN files f ON f.id = r.file_id JOIN sources s ON s.id = r.source_id "
	"WHERE r.id > ?1 AND r.since <= s.published "
	"AND r.generation >= s.withdrawn_below ORDER BY r.id LIMIT ?2";

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap != 0 ? *cap : 64;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	q = realloc(p, c * size);
	if (q != NULL)
		*cap = c;
	return q;
}

static int load_sources(struct db *db, struct db_ref_index *x,
			struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_sources, err);
	size_t cap = 0;
	int64_t *p;
	int step, rc = -1;

	if (st == NULL)
		return -1;
	while ((step = db_step(st)) == DB_ROW) {
		p = grow(x->src_ids, &cap, x->nsrc + 1, sizeof(*p));
		if (p == NULL) {
			db_err(err, IMT_ERR_INTERNAL, "out of memory");
			goto out;
		}
		x->src_ids = p;
		x->src_ids[x->nsrc++] = db_col_int64(st, 0);
	}
	if (step != DB_DONE)
		db_fail(db, err, "reference index: sources");
	else
		rc = 0;
out:
	db_reset(st);
	x->bytes += cap * sizeof(int64_t);
	return rc;
}

static long source_index(const struct db_ref_index *x, int64_t id)
{
	size_t lo = 0, hi = x->nsrc;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->src_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nsrc && x->src_ids[lo] == id ? (long)lo : -1;
}

static int cmp_policy(const void *a, const void *b)
{
	const struct policy_sel *x = a, *y = b;

	return strcmp(x->name, y->name);
}

/* The policy named @name (rows come grouped by name), appended when new. */
static struct policy_sel *policy_add(struct db_ref_index *x, size_t *cap,
				     const char *name)
{
	struct policy_sel *p;

	if (x->npol > 0 && strcmp(x->pol[x->npol - 1].name, name) == 0)
		return &x->pol[x->npol - 1];
	p = grow(x->pol, cap, x->npol + 1, sizeof(*p));
	if (p == NULL)
		return NULL;
	x->pol = p;
	p = &x->pol[x->npol];
	p->name = strdup(name);
	p->sel = calloc(x->nsrc + 1, 1);
	if (p->name == NULL || p->sel == NULL) {
		free(p->name);
		free(p->sel);
		return NULL;
	}
	x->npol++;
	x->bytes += x->nsrc + 1 + strlen(name) + 1 + sizeof(*p);
	return p;
}

static int load_selected(struct db *db, struct db_ref_index *x,
			 struct imt_error *err)
{
	struct db_stmt *st = db_stmt_sql(db, &sql_selected, err);
	struct policy_sel *p;
	size_t cap = 0;
	long i;
	int step, rc = -1;

	if (st == NULL)
		return -1;
	while ((step = db_step(st)) == DB_ROW) {
		p = policy_add(x, &cap, db_col_text(st, 0));
		if (p == NULL) {
			db_err(err, IMT_ERR_INTERNAL, "out of memory");
			goto out;
		}
		i = source_index(x, db_col_int64(st, 1));
		if (i >= 0)
			p->sel[i] = 1;
	}
	if (step != DB_DONE)
		db_fail(db, err, "reference index: policy selectors");
	else
		rc = 0;
out:
	db_reset(st);
	/* bytewise, as selection() searches: not the database's collation */
	if (rc == 0 && x->npol > 1)
		qsort(x->pol, x->npol, sizeof(*x->pol), cmp_policy);
	return rc;
}

static struct algo_tab *tab_for(struct db_ref_index *x, const char *algo)
{
	const struct hash_algo *h;
	struct algo_tab *t;
	size_t i;

	for (i = 0; i < x->ntab; i++) {
		if (strcmp(x->tab[i].name, algo) == 0)
			return &x->tab[i];
	}
	h = hash_algo_by_name(algo, strnlen(algo, 32));
	if (h == NULL || x->ntab == ALGOS_MAX ||
	    strlen(algo) >= sizeof(t->name))
		return NULL;
	t = &x->tab[x->ntab++];
	memset(t, 0, sizeof(*t));
	memcpy(t->name, algo, strlen(algo) + 1);
	t->dlen = h->size;
	t->rec = h->size + 12;
	return t;
}

/* One row of sql_refs_page into its table: 0, or -1 (@err says why). */
static int add_row(struct db_ref_index *x, struct db_stmt *st,
		   struct imt_error *err)
{
	const char *algo = db_col_text(st, 1), *path = db_col_text(st, 3);
	struct algo_tab *t = algo != NULL ? tab_for(x, algo) : NULL;
	long s = source_index(x, db_col_int64(st, 4));
	uint32_t src;
	uint64_t fp;
	uint8_t *r;

	if (t == NULL || path == NULL || s < 0 ||
	    (size_t)db_col_bytes(st, 2) != t->dlen)
		return db_err(err, IMT_ERR_INTERNAL,
			      "reference index: a reference it cannot hold");
	r = grow(t->refs, &t->cap, t->n + 1, t->rec);
	if (r == NULL)
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	t->refs = r;
	r += t->n++ * t->rec;
	fp = siphash(x->k0, x->k1, path, strlen(path));
	src = (uint32_t)s | (db_col_int(st, 5) == 1 ? CONFFILE_BIT : 0);
	memcpy(r, db_col_blob(st, 2), t->dlen);
	memcpy(r + t->dlen, &fp, 8);
	memcpy(r + t->dlen + 8, &src, 4);
	return 0;
}

static int load_refs(struct db *db, struct db_ref_index *x,
		     struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_refs_page, err);
	int64_t after = 0;
	size_t rows;
	int step;

	if (st == NULL)
		return -1;
	do {
		rows = 0;
		db_bind_int64(st, 1, after);
		db_bind_int64(st, 2, PAGE_ROWS);
		while ((step = db_step(st)) == DB_ROW) {
			after = db_col_int64(st, 0);
			rows++;
			if (add_row(x, st, err) < 0) {
				db_reset(st);
				return -1;
			}
		}
		db_reset(st);
		if (step != DB_DONE)
			return db_fail(db, err, "reference index: refs");
	} while (rows == PAGE_ROWS);
	return 0;
}

/* ---- building: tables ---------------------------------------------------- */

static unsigned int bits_for(size_t n)
{
	unsigned int b = 0;

	while (b < 24 && ((size_t)1 << b) < n / 2)
		b++;
	return b;
}

/* The top @bits of the 8 bytes at @p, as a big-endian number. */
static uint32_t top_bits(const uint8_t *p, unsigned int bits)
{
	uint64_t w = 0;
	int i;

	for (i = 0; i < 8; i++)
		w = (w << 8) | p[i];
	return bits == 0 ? 0 : (uint32_t)(w >> (64 - bits));
}

static uint32_t fp_bits(uint64_t fp, unsigned int bits)
{
	return bits == 0 ? 0 : (uint32_t)(fp >> (64 - bits));
}

static __thread size_t sort_len; /* the bytes a refs record sorts by */

static int cmp_ref(const void *a, const void *b)
{
	return memcmp(a, b, sort_len);
}

static int cmp_path(const void *a, const void *b)
{
	const struct path_ent *x = a, *y = b;

	if (x->fp != y->fp)
		return x->fp < y->fp ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

/*
 * Place @n records of @size (key at @p: top bits) into buckets, then sort
 * each bucket with @cmp. Returns the bucket offsets or NULL.
 */
static uint32_t *bucket(uint8_t **recs, size_t n, size_t size,
			unsigned int bits, int is_path,
			int (*cmp)(const void *, const void *))
{
	size_t nb = (size_t)1 << bits, i;
	uint32_t *off = calloc(nb + 1, sizeof(*off)), *at;
	uint8_t *out = malloc(n * size + 1);

	at = calloc(nb, sizeof(*at));
	if (off == NULL || out == NULL || at == NULL)
		goto fail;
	for (i = 0; i < n; i++) {
		const uint8_t *r = *recs + i * size;
		uint64_t fp;

		memcpy(&fp, r, 8);
		off[(is_path ? fp_bits(fp, bits) : top_bits(r, bits)) + 1]++;
	}
	for (i = 0; i < nb; i++)
		off[i + 1] += off[i];
	for (i = 0; i < n; i++) {
		const uint8_t *r = *recs + i * size;
		uint64_t fp;
		uint32_t b;

		memcpy(&fp, r, 8);
		b = is_path ? fp_bits(fp, bits) : top_bits(r, bits);
		memcpy(out + (size_t)(off[b] + at[b]++) * size, r, size);
	}
	for (i = 0; i < nb; i++)
		qsort(out + (size_t)off[i] * size, off[i + 1] - off[i], size,
		      cmp);
	free(at);
	free(*recs);
	*recs = out;
	return off;
fail:
	free(off);
	free(out);
	free(at);
	return NULL;
}

/* The paths table of @t from its refs: (fingerprint, source), once. */
static int make_paths(struct algo_tab *t)
{
	struct path_ent *p = malloc((t->n + 1) * sizeof(*p));
	size_t i, k = 0;
	uint8_t *bytes;

	if (p == NULL)
		return -1;
	for (i = 0; i < t->n; i++) {
		const uint8_t *r = t->refs + i * t->rec;

		memcpy(&p[i].fp, r + t->dlen, 8);
		memcpy(&p[i].src, r + t->dlen + 8, 4);
	}
	qsort(p, t->n, sizeof(*p), cmp_path);
	for (i = 0; i < t->n; i++) {
		if (k == 0 || cmp_path(&p[k - 1], &p[i]) != 0)
			p[k++] = p[i];
	}
	t->np = k;
	t->pbits = bits_for(k);
	bytes = (uint8_t *)p;
	t->pb = bucket(&bytes, k, sizeof(*p), t->pbits, 1, cmp_path);
	t->paths = (struct path_ent *)bytes;
	return t->pb == NULL ? -1 : 0;
}

static int make_tables(struct db_ref_index *x)
{
	size_t i;

	for (i = 0; i < x->ntab; i++) {
		struct algo_tab *t = &x->tab[i];

		t->rbits = bits_for(t->n);
		sort_len = t->dlen + 8;
		t->rb = bucket(&t->refs, t->n, t->rec, t->rbits, 0, cmp_ref);
		if (t->rb == NULL || make_paths(t) < 0)
			return -1;
		x->bytes += t->n * t->rec + t->np * sizeof(struct path_ent) +
			    (((size_t)1 << t->rbits) + 1) * 4 +
			    (((size_t)1 << t->pbits) + 1) * 4;
	}
	return 0;
}

/*
 * The snapshot at the epoch read before and after; *@x NULL when the
 * epoch moved in between (another writer committed: a later try).
 */
static int build(struct db *db, struct db_ref_index **out,
		 struct imt_error *err)
{
	struct db_ref_index *x = calloc(1, sizeof(*x));
	uint64_t key[2];
	int64_t after;

	*out = NULL;
	if (x == NULL || getrandom(key, sizeof(key), 0) != sizeof(key)) {
		free(x);
		return db_err(err, IMT_ERR_INTERNAL,
			      "reference index: no memory or randomness");
	}
	x->k0 = key[0];
	x->k1 = key[1];
	x->bytes = sizeof(*x);
	if (db_ref_epoch_read(db, &x->epoch, err) < 0 ||
	    load_sources(db, x, err) < 0 || load_selected(db, x, err) < 0 ||
	    load_refs(db, x, err) < 0 || db_ref_epoch_read(db, &after, err) < 0)
		goto fail;
	if (after != x->epoch) {
		index_free(x);
		return 0;
	}
	if (make_tables(x) < 0) {
		db_err(err, IMT_ERR_INTERNAL, "reference index: out of memory");
		goto fail;
	}
	*out = x;
	return 0;
fail:
	index_free(x);
	return -1;
}

int db_ref_index_refresh(struct db *db, struct imt_error *err)
{
	struct db_ref_index *x;
	int rc;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db->import_open)
		return db_err(err, IMT_ERR_MISMATCH,
			      "a reference import holds the transaction");
	rc = build(db, &x, err);
	db->ref_index_fallbacks = 0;
	db->ref_index_builds++;
	if (rc < 0 || x == NULL)
		return rc;
	index_free(db->ref_index);
	db->ref_index = x;
	return 0;
}

/* ---- rebuilds in the background ------------------------------------------ */

static void *bg_main(void *arg)
{
	struct db_ref_bg *bg = arg;
	struct db_ref_index *x = NULL;
	struct imt_error err;
	struct db *r;

	if (db_open_reader(bg->path, &r, &err) == 0) {
		if (db_read_begin(r, &err) == 0) {
			if (build(r, &x, &err) < 0)
				x = NULL;
			db_read_end(r);
		}
		db_close(r);
	}
	pthread_mutex_lock(&bg->lock);
	index_free(bg->done);
	bg->done = x;
	bg->finished = 1;
	pthread_mutex_unlock(&bg->lock);
	return NULL;
}

int db_ref_index_background(struct db *db, const char *path,
			    struct imt_error *err)
{
	struct db_ref_bg *bg;

	if (db == NULL || path == NULL)
		return db_bad(err, "no database or path");
	if (db->ref_bg != NULL)
		return 0;
	bg = calloc(1, sizeof(*bg));
	if (bg != NULL)
		bg->path = strdup(path);
	if (bg == NULL || bg->path == NULL) {
		free(bg);
		return db_err(err, IMT_ERR_INTERNAL, "out of memory");
	}
	pthread_mutex_init(&bg->lock, NULL);
	db->ref_bg = bg;
	return 0;
}

/*
 * With background rebuilds: take a finished one (the lookups check its
 * epoch as any other's), or start one when due and none runs. 1 when
 * the caller is to go on without building on its own connection.
 */
static int bg_step(struct db *db, int due)
{
	struct db_ref_bg *bg = db->ref_bg;
	struct db_ref_index *x = NULL;
	int finished;

	if (bg == NULL)
		return 0;
	pthread_mutex_lock(&bg->lock);
	finished = bg->finished;
	if (finished) {
		x = bg->done;
		bg->done = NULL;
	}
	pthread_mutex_unlock(&bg->lock);
	if (finished) {
		bg_join(bg);
		db->ref_index_builds++;
		db->ref_index_fallbacks = 0;
		if (x != NULL) {
			index_free(db->ref_index);
			db->ref_index = x;
		}
		return 1;
	}
	if (due && !bg->running &&
	    pthread_create(&bg->thread, NULL, bg_main, bg) == 0)
		bg->running = 1;
	return 1;
}

/* ---- lookups ------------------------------------------------------------- */

/* The selection of @policy: NULL for every source, *@none when nothing. */
static const uint8_t *selection(const struct db_ref_index *x,
				const char *policy, int *none)
{
	size_t lo = 0, hi = x->npol;

	*none = 0;
	if (policy == NULL)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(x->pol[mid].name, policy);

		if (c == 0)
			return x->pol[mid].sel;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*none = 1;
	return NULL;
}

static int selected(const uint8_t *sel, uint32_t src)
{
	return sel == NULL || sel[src & ~CONFFILE_BIT];
}

/* The first refs record in [lo, hi) not below @key's first @len bytes. */
static size_t ref_lower(const struct algo_tab *t, size_t lo, size_t hi,
			const uint8_t *key, size_t len)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (memcmp(t->refs + mid * t->rec, key, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 when a selected source lists @digest (with @fp when @len says so). */
static int ref_listed(const struct algo_tab *t, const uint8_t *sel,
		      const uint8_t *key, size_t len)
{
	uint32_t b = top_bits(key, t->rbits), src;
	size_t i, hi = t->rb[b + 1];

	for (i = ref_lower(t, t->rb[b], hi, key, len); i < hi; i++) {
		const uint8_t *r = t->refs + i * t->rec;

		if (memcmp(r, key, len) != 0)
			break;
		memcpy(&src, r + t->dlen + 8, 4);
		if (selected(sel, src))
			return 1;
	}
	return 0;
}

/* The path's class: 4 conffile, 1 listed, 0 not listed by a selected one */
static int path_listed(const struct algo_tab *t, const uint8_t *sel,
		       uint64_t fp)
{
	uint32_t b = fp_bits(fp, t->pbits);
	size_t lo = t->pb[b], hi = t->pb[b + 1], i;
	int listed = 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->paths[mid].fp < fp)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < t->pb[b + 1] && t->paths[i].fp == fp; i++) {
		if (!selected(sel, t->paths[i].src))
			continue;
		if (t->paths[i].src & CONFFILE_BIT)
			return 4;
		listed = 1;
	}
	return listed;
}

static enum db_ref_class classify(const struct db_ref_index *x,
				  const char *policy, const char *path,
				  const char *algo, const uint8_t *digest)
{
	const struct algo_tab *t = NULL;
	uint8_t key[DB_DIGEST_MAX + 8];
	const uint8_t *sel;
	uint64_t fp;
	size_t i;
	int none, p;

	for (i = 0; i < x->ntab && t == NULL; i++) {
		if (strcmp(x->tab[i].name, algo) == 0)
			t = &x->tab[i];
	}
	sel = selection(x, policy, &none);
	if (t == NULL || none || t->n == 0)
		return DB_REF_UNKNOWN_PATH;
	fp = siphash(x->k0, x->k1, path, strlen(path));
	memcpy(key, digest, t->dlen);
	memcpy(key + t->dlen, &fp, 8);
	if (ref_listed(t, sel, key, t->dlen + 8))
		return DB_REF_KNOWN;
	p = path_listed(t, sel, fp);
	if (p != 0)
		return p == 4 ? DB_REF_MISMATCH_CONFFILE : DB_REF_MISMATCH;
	if (ref_listed(t, sel, key, t->dlen))
		return DB_REF_KNOWN_ANY_PATH;
	return DB_REF_UNKNOWN_PATH;
}

static const char sql_rows_guess[] = "SELECT max(id) FROM refs";

/*
 * The rows a build would read: the last build's, or before the first one
 * the highest reference id (one keyed read), so that a command that
 * looks up a few records never pays for a build.
 */
static int rows_guess(struct db *db, uint64_t *rows, struct imt_error *err)
{
	struct db_stmt *st;
	int rc = 0;

	if (db->ref_index != NULL || db->ref_index_sized) {
		*rows = db->ref_index != NULL ? refs_total(db->ref_index) :
						db->ref_index_rows;
		return 0;
	}
	st = db_stmt(db, sql_rows_guess, err);
	if (st == NULL)
		return -1;
	if (db_step(st) == DB_ROW)
		db->ref_index_rows = (uint64_t)db_col_int64(st, 0);
	else
		rc = db_fail(db, err, "reference count");
	db_reset(st);
	db->ref_index_sized = 1;
	*rows = db->ref_index_rows;
	return rc;
}

/* Rebuild now: the lookups sent to SQL since cost as much as a build. */
static int rebuild_due(struct db *db, struct imt_error *err)
{
	uint64_t rows;

	if (rows_guess(db, &rows, err) < 0)
		return -1;
	return db->ref_index_fallbacks * ROWS_PER_LOOKUP >= rows;
}

int db_ref_index_get(struct db *db, const char *policy, const char *path,
		     const char *algo, const uint8_t *digest,
		     enum db_ref_class *cls, struct imt_error *err)
{
	int64_t epoch;
	int rc;

	/* a reader (explain, listings) reads few: not a second copy */
	if (db->ref_index_off || db->reader)
		return 0;
	rc = db_ref_epoch(db, &epoch, err);
	if (rc <= 0)
		return rc;
	if (db->ref_index == NULL || db->ref_index->epoch != epoch) {
		db->ref_index_fallbacks++;
		rc = rebuild_due(db, err);
		if (rc < 0 || (db->ref_bg == NULL && rc == 0))
			return rc;
		if (bg_step(db, rc) == 0 && db_ref_index_refresh(db, err) < 0)
			return -1;
		if (db->ref_index == NULL || db->ref_index->epoch != epoch)
			return 0;
	}
	*cls = classify(db->ref_index, policy, path, algo, digest);
	db->ref_index_hits++;
	return 1;
}

void db_ref_index_stats(struct db *db, struct db_ref_index_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (db == NULL)
		return;
	out->hits = db->ref_index_hits;
	out->builds = db->ref_index_builds;
	if (db->ref_index != NULL) {
		out->refs = refs_total(db->ref_index);
		out->bytes = db->ref_index->bytes;
		out->epoch = db->ref_index->epoch;
		out->built = 1;
	}
}

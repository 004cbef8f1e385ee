// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine_refs.c - what operators do to the reference set through the
 * engine's entry points, without HTTP (engine_refs.h): an import in
 * chunks with v->lock free between them and nothing vouching before the
 * last, a failed chunk that leaves the older generation vouching, a
 * replace, deletes both ways with their re-judge, a retirement and its
 * audit entry, the lookups an import makes first, the metrics' copy of
 * the cache counters; and the start-up recovery of an unfinished import
 * (engine_housekeeping.h).
 */
#include "db_ref.h"
#include "db_source.h"
#include "verifier_test.h"
#include "engine_housekeeping.h"
#include "engine_refs.h"

/* 2 full chunks and 1 more: three transactions */
#define BIG (2 * ENGINE_REFS_CHUNK + 1)

static const char cause[] = "{\"check\":\"rejudge\",\"change\":\"test\"}";

/* @n references /f/NNNNN, sha256 digests filled with @fill. */
struct refs {
	struct db_ref_entry *e;
	char (*path)[32]; /* "/f/%05zu" of any size_t */
	uint8_t digest[32];
	size_t n;
};

static void refs_make(struct refs *r, size_t n, uint8_t fill)
{
	size_t i;

	r->e = calloc(n, sizeof(*r->e));
	r->path = calloc(n, sizeof(*r->path));
	assert_non_null(r->e);
	assert_non_null(r->path);
	tv_digest(fill, r->digest);
	for (i = 0; i < n; i++) {
		snprintf(r->path[i], sizeof(r->path[i]), "/f/%05zu", i);
		r->e[i] = (struct db_ref_entry){ .path = r->path[i],
						 .algo = "sha256",
						 .digest = r->digest,
						 .digest_len = 32 };
	}
	r->n = n;
}

static void refs_free(struct refs *r)
{
	free(r->e);
	free(r->path);
}

/* Does (@path, sha256 of @fill) vouch, as judging sees it? */
static int vouches(struct verifier *v, const char *path, uint8_t fill)
{
	enum db_ref_class cls;
	struct imt_error err;
	uint8_t d[32];

	tv_digest(fill, d);
	assert_int_equal(db_ref_lookup(v->db, path, "sha256", d, 32, &cls,
				       &err),
			 0);
	return cls == DB_REF_KNOWN;
}

/* What the hook saw after each chunk, the lock free or not. */
struct chunks {
	struct tv *t;
	size_t n, locked, seen_first, seen_last;
};

static void chunk_hook(const char *point, void *arg)
{
	struct chunks *c = arg;

	if (strcmp(point, "import:chunk") != 0)
		return;
	c->n++;
	/* evidence can take the lock between two chunks */
	if (pthread_mutex_trylock(&c->t->v.lock) != 0) {
		c->locked++;
		return;
	}
	c->seen_first += vouches(&c->t->v, "/f/00000", 1);
	c->seen_last += vouches(&c->t->v, "/f/04000", 1);
	pthread_mutex_unlock(&c->t->v.lock);
}

static const struct db_ref_source src = { .kind = DB_SOURCE_GOLDEN_LIST,
					  .name = "golden" };

static void test_import_in_chunks(void **state)
{
	static const struct tv_record rec[] = { { "/f/04000", 1,
						  DB_VERDICT_UNKNOWN } };
	struct tv *t = tv_new();
	struct chunks c = { .t = t };
	struct engine_refs_result r;
	struct refs refs;

	(void)state;
	tv_machine(t, "m", DB_STATE_UNTRUSTED);
	tv_boot(t, "m", rec, 1);
	refs_make(&refs, BIG, 1);
	rejudge_set_hook(chunk_hook, &c);
	engine_refs_import(&t->v, &src, refs.e, refs.n, 0, cause, TV_NOW, &r);
	rejudge_set_hook(NULL, NULL);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	assert_int_equal(r.stored, BIG);
	assert_int_equal(r.withdrawn, 0);
	/* three transactions, the lock free after each */
	assert_int_equal(c.n, 3);
	assert_int_equal(c.locked, 0);
	/* the first chunk vouched for nothing until the last committed */
	assert_int_equal(c.seen_first, 1);
	assert_int_equal(c.seen_last, 1);
	assert_true(vouches(&t->v, "/f/00000", 1));
	assert_true(vouches(&t->v, "/f/04000", 1));
	/* the record the last chunk vouches for was judged again */
	assert_int_equal(r.st.now_trusted, 1);
	assert_int_equal(tv_state(t, "m"), DB_STATE_TRUSTED);
	refs_free(&refs);
	tv_free(t);
}

/* A chunk that fails: none of the import vouches, the older one does. */
static void test_failed_chunk_stores_nothing(void **state)
{
	struct tv *t = tv_new();
	struct engine_refs_result r;
	struct refs old, refs;
	char longpath[DB_PATH_MAX + 2];

	(void)state;
	refs_make(&old, 1, 7);
	engine_refs_import(&t->v, &src, old.e, old.n, 0, cause, TV_NOW, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	refs_make(&refs, BIG, 1);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	refs.e[ENGINE_REFS_CHUNK + 5].path = longpath; /* the second chunk */
	engine_refs_import(&t->v, &src, refs.e, refs.n, 1, cause, TV_NOW + 1,
			   &r);
	assert_int_equal(r.step, ENGINE_REFS_STORE);
	assert_int_equal(r.stored, ENGINE_REFS_CHUNK);
	assert_int_equal(r.withdrawn, 0);
	assert_true(r.err.msg[0] != '\0');
	assert_false(vouches(&t->v, "/f/00000", 1));
	/* the replace withdrew nothing: the older generation vouches */
	assert_true(vouches(&t->v, "/f/00000", 7));
	/* and what the first chunk stored is gone, not merely hidden */
	assert_int_equal(count_rows(t, "SELECT count(*) FROM refs", NULL), 1);
	refs_free(&old);
	refs_free(&refs);
	tv_free(t);
}

static void test_replace_withdraws_the_older(void **state)
{
	static const struct tv_record rec[] = { { "/f/00001", 7,
						  DB_VERDICT_KNOWN } };
	struct tv *t = tv_new();
	struct engine_refs_result r;
	struct refs old, refs;

	(void)state;
	refs_make(&old, 3, 7);
	engine_refs_import(&t->v, &src, old.e, old.n, 0, cause, TV_NOW, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	tv_machine(t, "m", DB_STATE_TRUSTED);
	tv_boot(t, "m", rec, 1);
	refs_make(&refs, 1, 1);
	engine_refs_import(&t->v, &src, refs.e, refs.n, 1, cause, TV_NOW + 1,
			   &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	assert_int_equal(r.stored, 1);
	assert_int_equal(r.withdrawn, 3);
	assert_false(vouches(&t->v, "/f/00001", 7));
	assert_true(vouches(&t->v, "/f/00000", 1));
	/* m ran what the older generation vouched for */
	assert_int_equal(r.st.now_untrusted, 1);
	assert_int_equal(tv_state(t, "m"), DB_STATE_UNTRUSTED);
	refs_free(&old);
	refs_free(&refs);
	tv_free(t);
}

static void test_delete_listed_and_source(void **state)
{
	static const struct tv_record rec[] = { { "/f/00002", 1,
						  DB_VERDICT_KNOWN } };
	struct tv *t = tv_new();
	struct engine_refs_result r;
	struct refs refs;

	(void)state;
	refs_make(&refs, BIG, 1);
	engine_refs_import(&t->v, &src, refs.e, refs.n, 0, cause, TV_NOW, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	tv_machine(t, "m", DB_STATE_TRUSTED);
	tv_boot(t, "m", rec, 1);
	/* the first two, of any source: nothing on m changes */
	engine_refs_delete(&t->v, NULL, refs.e, 2, cause, TV_NOW + 1, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	assert_int_equal(r.stored, 2);
	assert_false(vouches(&t->v, "/f/00000", 1));
	assert_true(vouches(&t->v, "/f/00002", 1));
	assert_int_equal(tv_state(t, "m"), DB_STATE_TRUSTED);
	/* a reference no longer there deletes nothing, and judges nothing */
	engine_refs_delete(&t->v, &src, refs.e, 1, cause, TV_NOW + 2, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	assert_int_equal(r.stored, 0);
	assert_int_equal(r.st.machines, 0);
	/* the whole source: the rest, and m's record with it */
	engine_refs_delete(&t->v, &src, NULL, 0, cause, TV_NOW + 3, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	assert_int_equal(r.stored, BIG - 2);
	assert_int_equal(r.st.now_untrusted, 1);
	assert_int_equal(tv_state(t, "m"), DB_STATE_UNTRUSTED);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM refs", NULL), 0);
	refs_free(&refs);
	tv_free(t);
}

static void test_retire(void **state)
{
	const struct db_ref_source none = { .kind = DB_SOURCE_DEB,
					    .name = "nothing_1_all" };
	struct tv *t = tv_new();
	struct engine_refs_result r;
	struct refs refs;

	(void)state;
	engine_refs_retire(&t->v, &none, "alice", TV_NOW, &r);
	assert_int_equal(r.step, ENGINE_REFS_NO_SOURCE);
	refs_make(&refs, 3, 1);
	engine_refs_import(&t->v, &src, refs.e, refs.n, 0, cause, TV_NOW, &r);
	engine_refs_retire(&t->v, &src, "alice", TV_NOW + 1, &r);
	assert_int_equal(r.step, ENGINE_REFS_DONE);
	assert_int_equal(r.withdrawn, 3);
	assert_false(vouches(&t->v, "/f/00000", 1));
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE "
				    "action = 'retire' AND operator = 'alice' "
				    "AND detail LIKE '%golden%'",
				    NULL),
			 1);
	/* retired: the source is gone */
	engine_refs_retire(&t->v, &src, "alice", TV_NOW + 2, &r);
	assert_int_equal(r.step, ENGINE_REFS_NO_SOURCE);
	refs_free(&refs);
	tv_free(t);
}

/* An importer's batch, its audit entry, and the lookups before it. */
static void test_store_find_and_schedule(void **state)
{
	static const uint8_t sha[32] = { 1 }, other[32] = { 2 };
	struct db_source_meta meta = { .package = "tool",
				       .version = "1.0",
				       .arch = "amd64",
				       .content_sha256 = sha };
	const struct db_ref_source deb = { .kind = DB_SOURCE_DEB,
					   .name = "tool_1.0_amd64",
					   .meta = &meta };
	struct tv *t = tv_new();
	struct import_batch b;
	struct import_sink sink;
	struct imt_error err;
	int found = 1, same = 1;
	size_t n = 99;

	(void)state;
	assert_int_equal(engine_refs_find(&t->v, &deb, sha, &found, &same,
					  &err),
			 0);
	assert_false(found);
	import_batch_sink(&b, &sink);
	assert_int_equal(engine_refs_store(&t->v, "alice", &deb, &b, 0, TV_NOW,
					   NULL, &err),
			 0);
	import_batch_free(&b);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM audit WHERE "
				    "action = 'import' AND operator = 'alice'",
				    NULL),
			 1);
	assert_int_equal(engine_refs_find(&t->v, &deb, sha, &found, &same,
					  &err),
			 0);
	assert_true(found);
	assert_true(same);
	assert_int_equal(engine_refs_find(&t->v, &deb, other, &found, &same,
					  &err),
			 0);
	assert_true(found);
	assert_false(same);
	/* no upgrade window: nothing scheduled, and the answer says so */
	t->v.cfg.upgrade_window = 0;
	assert_int_equal(engine_refs_schedule_older(&t->v, "tool", "amd64",
						    "tool_1.1_amd64", TV_NOW,
						    &n),
			 0);
	assert_int_equal(n, 0);
	t->v.cfg.upgrade_window = 60;
	assert_int_equal(engine_refs_schedule_older(&t->v, "tool", "amd64",
						    "tool_1.1_amd64", TV_NOW,
						    &n),
			 1);
	assert_int_equal(n, 1);
	tv_free(t);
}

/* The metrics never wait: the lock taken, the last copy comes back. */
static void test_cache_stats_never_wait(void **state)
{
	struct tv *t = tv_new();
	struct db_ref_cache_stats before, held, after;

	(void)state;
	engine_refs_cache_stats(&t->v, &before);
	assert_false(vouches(&t->v, "/nothing", 1));
	assert_false(vouches(&t->v, "/nothing", 1));
	pthread_mutex_lock(&t->v.lock);
	engine_refs_cache_stats(&t->v, &held);
	pthread_mutex_unlock(&t->v.lock);
	assert_memory_equal(&held, &before, sizeof(held));
	engine_refs_cache_stats(&t->v, &after);
	assert_true(after.hits + after.misses >=
		    before.hits + before.misses + 2);
	tv_free(t);
}

/* An import a crash cut short between two chunks: dropped at start. */
static void test_resume_drops_unfinished(void **state)
{
	struct tv *t = tv_new();
	struct engine_refs_result r;
	struct imt_error err;
	struct refs old, refs;

	(void)state;
	refs_make(&old, 1, 7);
	engine_refs_import(&t->v, &src, old.e, old.n, 0, cause, TV_NOW, &r);
	refs_make(&refs, 2, 1);
	assert_int_equal(db_ref_import_begin(t->v.db, &src, TV_NOW + 1, &err),
			 0);
	assert_int_equal(db_ref_add_entry(t->v.db, &src, &refs.e[0], TV_NOW + 1,
					  &err),
			 0);
	assert_int_equal(db_ref_import_commit_chunk(t->v.db, &err), 0);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM refs", NULL), 2);
	assert_false(vouches(&t->v, "/f/00000", 1));
	engine_resume_changes(&t->v, TV_NOW + 2);
	assert_int_equal(count_rows(t, "SELECT count(*) FROM refs", NULL), 1);
	assert_true(vouches(&t->v, "/f/00000", 7));
	refs_free(&old);
	refs_free(&refs);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_import_in_chunks),
		cmocka_unit_test(test_failed_chunk_stores_nothing),
		cmocka_unit_test(test_replace_withdraws_the_older),
		cmocka_unit_test(test_delete_listed_and_source),
		cmocka_unit_test(test_retire),
		cmocka_unit_test(test_store_find_and_schedule),
		cmocka_unit_test(test_cache_stats_never_wait),
		cmocka_unit_test(test_resume_drops_unfinished),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

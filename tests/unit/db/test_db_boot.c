// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_boot.c - boots, record batches (atomic under SIGKILL),
 * re-judging, retention.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "db_boot.h"
#include "db_machine.h"
#include "db_nonce.h"
#include "db_record_chunk.h"
#include "db_retention.h"
#include "db_test.h"
#include "../sql_count.h"

#define MAXREC 20000

static struct db_record recs[MAXREC];
static uint8_t digests[MAXREC][32];
static char paths[MAXREC][32];

/* Fill recs[0..n) with indices from @from; verdicts cycle through all. */
static void make_batch(uint64_t from, size_t n)
{
	size_t i;

	assert_true(n <= MAXREC);
	for (i = 0; i < n; i++) {
		memset(digests[i], (int)((from + i) & 0xff), 32);
		snprintf(paths[i], sizeof(paths[i]), "/usr/bin/p%llu",
			 (unsigned long long)(from + i));
		recs[i] = (struct db_record){
			.index = from + i,
			.pcr = 10,
			.template = "ima-ng",
			.path = paths[i],
			.digest_algo = "sha256",
			.digest = digests[i],
			.digest_len = 32,
			.verdict = (enum db_verdict)((from + i) % 5),
		};
	}
}

static void fill_pcrs(uint8_t *s1, uint8_t *s256, uint64_t to)
{
	memset(s1, (int)(to & 0xff), DB_PCR_SHA1_SIZE);
	memset(s256, (int)((to + 1) & 0xff), DB_PCR_SHA256_SIZE);
}

static int advance(struct tdb *t, int64_t boot, uint64_t from, size_t n,
		   int64_t now, struct imt_error *err)
{
	uint8_t s1[DB_PCR_SHA1_SIZE], s256[DB_PCR_SHA256_SIZE];
	struct db_boot_advance a = {
		.boot_id = boot,
		.from_index = from,
		.to_index = from + n,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = recs,
		.nrecords = n,
	};

	make_batch(from, n);
	fill_pcrs(s1, s256, from + n);
	return db_boot_advance(t->db, &a, now, err);
}

static struct db_boot current(struct tdb *t, const char *id)
{
	struct imt_error err;
	struct db_boot b;
	int found;

	if (db_boot_current(t->db, id, &b, &found, &err) < 0)
		fail_msg("current boot: %s", err.msg);
	assert_int_equal(found, 1);
	return b;
}

static void test_start_and_counters(void **state)
{
	static const uint8_t zero[DB_PCR_SHA256_SIZE];
	struct imt_error err;
	struct db_boot b, c;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_current(t.db, "m1", &b, &found, &err), 0);
	assert_int_equal(found, 0);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	c = current(&t, "m1");
	assert_int_equal(c.id, b.id);
	assert_int_equal(c.reset_count, 1);
	assert_int_equal(c.restart_count, 0);
	assert_int_equal(c.next_record_index, 0);
	assert_int_equal(c.started_at, T_NOW);
	assert_memory_equal(c.pcr10_sha1, zero, DB_PCR_SHA1_SIZE);
	assert_memory_equal(c.pcr10_sha256, zero, DB_PCR_SHA256_SIZE);
	assert_int_equal(c.boot_aggregate_len, 0);
	assert_int_equal(tdb_int2(&t,
				  "SELECT count(*) FROM events WHERE "
				  "kind = 'reboot' AND json_extract(reason,"
				  " '$.reset_count') = 1",
				  "SELECT count(*) FROM events WHERE "
				  "kind = 'reboot' AND "
				  "(reason->>'reset_count')::int = 1"),
			 1);

	/* Same boot, or counters going backwards: refused. */
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, NULL, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_boot_start(t.db, "m1", 0, 9, T_NOW, NULL, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 1, T_NOW, &b, &err), 0);
	assert_int_equal(db_boot_start(t.db, "m1", 2, 0, T_NOW, &c, &err), 0);
	assert_true(c.id > b.id);
	assert_int_equal(current(&t, "m1").id, c.id);

	assert_int_equal(db_boot_start(t.db, "ghost", 1, 0, T_NOW, NULL, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	tdb_remove(&t);
}

static void test_advance(void **state)
{
	uint8_t s1[DB_PCR_SHA1_SIZE], s256[DB_PCR_SHA256_SIZE];
	uint8_t agg[32] = { 0xab };
	struct db_boot_advance a = { 0 };
	struct imt_error err;
	struct db_machine m;
	struct db_boot b;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(advance(&t, b.id, 0, 10, T_NOW + 5, &err), 0);
	b = current(&t, "m1");
	assert_int_equal(b.next_record_index, 10);
	fill_pcrs(s1, s256, 10);
	assert_memory_equal(b.pcr10_sha1, s1, sizeof(s1));
	assert_memory_equal(b.pcr10_sha256, s256, sizeof(s256));
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_int_equal(m.last_seen, T_NOW + 5);
	db_machine_release(&m);

	/* A batch from a stale index is refused and changes nothing. */
	assert_int_equal(advance(&t, b.id, 5, 10, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(current(&t, "m1").next_record_index, 10);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 10);

	/* Heartbeat: no records, same index, new last_seen. */
	assert_int_equal(advance(&t, b.id, 10, 0, T_NOW + 9, &err), 0);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_int_equal(m.last_seen, T_NOW + 9);
	db_machine_release(&m);
	/* an empty batch that moves nothing (no row rewritten) is refused
	 * from another index all the same ... */
	assert_int_equal(advance(&t, b.id, 9, 0, T_NOW + 9, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	/* ... and stores PCR values that differ */
	fill_pcrs(s1, s256, 77);
	a = (struct db_boot_advance){
		.boot_id = b.id,
		.from_index = 10,
		.to_index = 10,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
	};
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW + 9, &err), 0);
	assert_memory_equal(current(&t, "m1").pcr10_sha256, s256, sizeof(s256));
	assert_int_equal(advance(&t, b.id, 10, 0, T_NOW + 9, &err), 0);
	fill_pcrs(s1, s256, 10);
	assert_memory_equal(current(&t, "m1").pcr10_sha1, s1, sizeof(s1));

	/* Shape errors are caught before anything is written. */
	make_batch(10, 3);
	recs[1].index = 99;
	fill_pcrs(s1, s256, 13);
	a = (struct db_boot_advance){
		.boot_id = b.id,
		.from_index = 10,
		.to_index = 13,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.boot_aggregate = agg,
		.boot_aggregate_len = sizeof(agg),
		.records = recs,
		.nrecords = 3,
	};
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	recs[1].index = 11;
	a.to_index = 14;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	a.to_index = 13;
	recs[2].digest_len = 20;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	recs[2].digest_len = 32;
	recs[2].verdict = (enum db_verdict)7;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	recs[2].verdict = DB_VERDICT_KNOWN;
	/* a signature past what a chunk's reader takes back */
	recs[2].sig = calloc(DB_SIG_MAX + 1, 1);
	recs[2].sig_len = DB_SIG_MAX + 1;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	free((void *)recs[2].sig);
	recs[2].sig = NULL;
	recs[2].sig_len = 0;
	a.nrecords = DB_BATCH_MAX + 1;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	a.nrecords = 3;
	assert_int_equal(db_boot_advance(t.db, NULL, T_NOW, &err), -1);
	assert_int_equal(current(&t, "m1").next_record_index, 10);

	/* Now valid, and the boot_aggregate is kept. */
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), 0);
	b = current(&t, "m1");
	assert_int_equal(b.next_record_index, 13);
	assert_int_equal(b.boot_aggregate_len, sizeof(agg));
	assert_memory_equal(b.boot_aggregate, agg, sizeof(agg));
	a.from_index = 13;
	a.to_index = 13;
	a.nrecords = 0;
	a.boot_aggregate = NULL;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), 0);
	assert_int_equal(current(&t, "m1").boot_aggregate_len, sizeof(agg));

	assert_int_equal(advance(&t, 999, 0, 1, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	tdb_remove(&t);
}

/* Two connections (two verifier processes) replaying the same boot: the
 * second to write loses cleanly instead of interleaving records. */
/* What a record list gives back, each record's fields as stored. */
struct listed {
	size_t n;
	int bad;
};

static int check_listed(int64_t boot_id, const struct db_record *r, void *arg)
{
	struct listed *l = arg;
	size_t i = l->n++;
	char path[32];
	uint8_t d[32];

	(void)boot_id;
	snprintf(path, sizeof(path), "/usr/bin/p%zu", i);
	memset(d, (int)(i & 0xff), sizeof(d));
	if (r->index != i || r->pcr != 10 || strcmp(r->path, path) != 0 ||
	    strcmp(r->template, "ima-ng") != 0 || r->digest_len != 32 ||
	    memcmp(r->digest, d, 32) != 0 ||
	    r->verdict != (enum db_verdict)(i % 5) ||
	    (i % 3 == 0 ? r->sig_len != 3 || memcmp(r->sig, "\x03\x02\x01", 3) :
			  r->sig_len != 0))
		l->bad++;
	return 0;
}

/*
 * A batch of 543 records, two full chunks of DB_CHUNK_MAX and one of 31,
 * comes back whole, field by field, signatures or none, and from an index
 * inside a chunk.
 */
static void test_advance_rows(void **state)
{
	uint8_t s1[DB_PCR_SHA1_SIZE], s256[DB_PCR_SHA256_SIZE];
	struct db_boot_advance a = { 0 };
	struct listed l = { 0 };
	struct imt_error err;
	struct db_boot b;
	struct tdb t;
	size_t i, n = 2 * DB_CHUNK_MAX + 31;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	make_batch(0, n);
	for (i = 0; i < n; i += 3) {
		recs[i].sig = (const uint8_t *)"\x03\x02\x01";
		recs[i].sig_len = 3;
	}
	fill_pcrs(s1, s256, n);
	a = (struct db_boot_advance){
		.boot_id = b.id,
		.from_index = 0,
		.to_index = n,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = recs,
		.nrecords = n,
	};
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), 0);
	assert_int_equal(db_record_list(t.db, b.id, 0, 1000, 0, check_listed,
					&l, &err),
			 0);
	assert_int_equal(l.n, n);
	assert_int_equal(l.bad, 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM record_chunks"), 3);
	/* from the middle of the second chunk, across into the third */
	l = (struct listed){ .n = DB_CHUNK_MAX + 200 };
	assert_int_equal(db_record_list(t.db, b.id, l.n, 80, 0, check_listed,
					&l, &err),
			 0);
	assert_int_equal(l.n, DB_CHUNK_MAX + 280);
	assert_int_equal(l.bad, 0);
	/* the same indices again are refused whole */
	a.from_index = n;
	a.to_index = 2 * n;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), -1);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), (int64_t)n);
	tdb_remove(&t);
}

static void test_two_writers_guarded(void **state)
{
	struct imt_error err;
	struct db_boot b;
	struct tdb t, u;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	u = t;
	tdb_open(&u);
	assert_int_equal(current(&u, "m1").next_record_index, 0);
	assert_int_equal(advance(&t, b.id, 0, 10, T_NOW, &err), 0);
	assert_int_equal(advance(&u, b.id, 0, 5, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	/* Reload and continue from where the other writer left off. */
	assert_int_equal(advance(&u, b.id, current(&u, "m1").next_record_index,
				 5, T_NOW, &err),
			 0);
	assert_int_equal(current(&t, "m1").next_record_index, 15);
	tdb_close(&u);
	tdb_remove(&t);
}

static int path_is_evil(int64_t boot_id, const struct db_record *r, void *arg)
{
	(void)boot_id;
	*(int *)arg += strcmp(r->path, "/tmp/x'); DROP TABLE record_chunks;--"
				       "\xff\xfe") == 0;
	return 0;
}

/* A record path is data: quotes, SQL and non-UTF-8 bytes come back as is. */
static void test_record_path_literal(void **state)
{
	static const char evil[] =
		"/tmp/x'); DROP TABLE record_chunks;--\xff\xfe";
	uint8_t s1[DB_PCR_SHA1_SIZE] = { 0 }, s256[DB_PCR_SHA256_SIZE] = { 0 };
	uint8_t d[32] = { 1 };
	struct db_record r = {
		.index = 0,
		.pcr = 10,
		.template = "ima-ng",
		.path = evil,
		.digest_algo = "sha256",
		.digest = d,
		.digest_len = 32,
		.verdict = DB_VERDICT_UNKNOWN,
	};
	struct db_boot_advance a = {
		.from_index = 0,
		.to_index = 1,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.records = &r,
		.nrecords = 1,
	};
	struct imt_error err;
	struct db_boot b;
	struct tdb t;
	int found = 0;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	a.boot_id = b.id;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW, &err), 0);
	assert_int_equal(db_record_list(t.db, b.id, 0, 10, 0, path_is_evil,
					&found, &err),
			 0);
	assert_int_equal(found, 1);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 1);
	tdb_remove(&t);
}

struct seen {
	int n;
	uint64_t idx[64];
	enum db_verdict v[64];
};

static int seen_cb(int64_t boot, const struct db_record *r, void *arg)
{
	struct seen *s = arg;

	(void)boot;
	assert_true(s->n < 64);
	assert_string_equal(r->template, "ima-ng");
	assert_int_equal(r->digest_len, 32);
	s->idx[s->n] = r->index;
	s->v[s->n++] = r->verdict;
	return 0;
}

static void test_rejudge(void **state)
{
	struct db_verdict_update u[2];
	struct imt_error err;
	struct seen s;
	struct db_boot b;
	struct tdb t;
	int i;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_UNTRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	/* Verdicts cycle known, unknown, mismatch, violation, excluded. */
	assert_int_equal(advance(&t, b.id, 0, 20, T_NOW, &err), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(db_record_list(t.db, b.id, 0, 64, 1, seen_cb, &s,
					&err),
			 0);
	assert_int_equal(s.n, 8);
	for (i = 0; i < s.n; i++)
		assert_true(s.v[i] == DB_VERDICT_UNKNOWN ||
			    s.v[i] == DB_VERDICT_MISMATCH);
	assert_int_equal(s.idx[0], 1);
	assert_int_equal(s.idx[1], 2);

	u[0] = (struct db_verdict_update){ 1, DB_VERDICT_KNOWN };
	u[1] = (struct db_verdict_update){ 2, DB_VERDICT_KNOWN };
	assert_int_equal(db_record_set_verdicts(t.db, b.id, u, 2, &err), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(db_record_list(t.db, b.id, 0, 64, 1, seen_cb, &s,
					&err),
			 0);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.idx[0], 6);

	/* One bad index: none of the batch is applied. */
	u[0] = (struct db_verdict_update){ 6, DB_VERDICT_KNOWN };
	u[1] = (struct db_verdict_update){ 500, DB_VERDICT_KNOWN };
	assert_int_equal(db_record_set_verdicts(t.db, b.id, u, 2, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	memset(&s, 0, sizeof(s));
	assert_int_equal(db_record_list(t.db, b.id, 0, 64, 1, seen_cb, &s,
					&err),
			 0);
	assert_int_equal(s.n, 6);

	/* All records, from an index, with a limit. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(db_record_list(t.db, b.id, 15, 3, 0, seen_cb, &s,
					&err),
			 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.idx[0], 15);
	assert_int_equal(s.v[0], DB_VERDICT_KNOWN);
	assert_int_equal(s.v[1], DB_VERDICT_UNKNOWN);
	tdb_remove(&t);
}

/* ---- crash atomicity -------------------------------------------------- */

static void kill_self(const char *point, void *arg)
{
	if (strcmp(point, (const char *)arg) == 0)
		raise(SIGKILL);
}

/*
 * In a child: open the database, advance boot @boot from @from by @n
 * records with the hook killing the process at @point (NULL: after the
 * commit). Returns when the child is dead.
 */
static void crash_child(const char *path, int64_t boot, uint64_t from, size_t n,
			const char *point)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct tdb c = { 0 };

		snprintf(c.path, sizeof(c.path), "%s", path);
		if (db_open(c.path, &c.db, NULL) < 0)
			_exit(2);
		if (point != NULL)
			db_set_hook(c.db, kill_self, (void *)point);
		if (advance(&c, boot, from, n, T_NOW, NULL) < 0)
			_exit(3);
		raise(SIGKILL); /* committed; die without closing */
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

/* The invariant: records are exactly 0 .. next_record_index - 1. */
static uint64_t check_consistent(struct tdb *t)
{
	struct db_boot b = current(t, "m1");
	uint8_t s1[DB_PCR_SHA1_SIZE], s256[DB_PCR_SHA256_SIZE];
	static const char sql[] = "SELECT coalesce(sum(length(verdicts)), 0), "
				  "coalesce(max(first_idx + length(verdicts)), "
				  "0) FROM record_chunks WHERE boot_id = ?1";
	int64_t count, top;

	count = tdb_int_col(t, sql, &b.id, 0);
	top = tdb_int_col(t, sql, &b.id, 1);
	assert_int_equal(count, b.next_record_index);
	assert_int_equal(top, b.next_record_index);
	if (b.next_record_index > 0) {
		fill_pcrs(s1, s256, b.next_record_index);
		assert_memory_equal(b.pcr10_sha1, s1, sizeof(s1));
		assert_memory_equal(b.pcr10_sha256, s256, sizeof(s256));
	}
	return b.next_record_index;
}

static void test_advance_atomic_under_sigkill(void **state)
{
	struct imt_error err;
	struct db_boot b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(advance(&t, b.id, 0, 100, T_NOW, &err), 0);
	tdb_close(&t);

	/* Killed with half the batch inserted: none of it is visible. */
	crash_child(t.path, b.id, 100, 1000, "advance:half");
	tdb_open(&t);
	assert_int_equal(check_consistent(&t), 100);
	tdb_close(&t);

	/* Killed with everything written but not committed: same. */
	crash_child(t.path, b.id, 100, 1000, "advance:commit");
	tdb_open(&t);
	assert_int_equal(check_consistent(&t), 100);
	tdb_close(&t);

	/* Killed right after the commit: all of it is there. */
	crash_child(t.path, b.id, 100, 1000, NULL);
	tdb_open(&t);
	assert_int_equal(check_consistent(&t), 1100);
	tdb_remove(&t);
}

/* Child: advance by batches of 2000 forever, one byte per commit. */
static void stream_child(const char *path, int64_t boot, int fds[2])
{
	struct tdb ch = { 0 };
	uint64_t idx;

	close(fds[0]);
	snprintf(ch.path, sizeof(ch.path), "%s", path);
	if (db_open(ch.path, &ch.db, NULL) < 0)
		_exit(2);
	idx = current(&ch, "m1").next_record_index;
	for (;;) {
		if (advance(&ch, boot, idx, 2000, T_NOW, NULL) < 0)
			_exit(3);
		idx += 2000;
		if (write(fds[1], "c", 1) != 1)
			_exit(4);
	}
}

/*
 * Kill a child that streams batches at an arbitrary moment: after it
 * reported round + 1 commits through a pipe, plus a few milliseconds, so
 * the kill lands while a later batch is being written.
 */
static void test_advance_sigkill_anytime(void **state)
{
	struct timespec delay;
	struct imt_error err;
	struct db_boot b;
	uint64_t idx;
	struct tdb t;
	int round, status, fds[2], i;
	char c;
	pid_t pid;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	tdb_close(&t);
	for (round = 0; round < 4; round++) {
		assert_int_equal(pipe(fds), 0);
		fflush(NULL);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0)
			stream_child(t.path, b.id, fds);
		close(fds[1]);
		for (i = 0; i <= round; i++)
			assert_int_equal(read(fds[0], &c, 1), 1);
		delay.tv_sec = 0;
		delay.tv_nsec = (1 + 5 * round) * 1000000L;
		nanosleep(&delay, NULL);
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		close(fds[0]);
		tdb_open(&t);
		idx = check_consistent(&t);
		assert_true(idx > 0);
		print_message("round %d: killed at index %llu\n", round,
			      (unsigned long long)idx);
		tdb_close(&t);
	}
	tdb_open(&t);
	tdb_remove(&t);
}

/* ---- retention -------------------------------------------------------- */

static void test_retention(void **state)
{
	struct db_retention r = { .keep_boots = 2, .max_rows = 7 };
	uint8_t nonce[16] = { 1 };
	struct imt_error err;
	struct db_boot b;
	struct tdb t;
	size_t deleted, total = 0;
	int boot, more, calls = 0;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	tdb_machine(&t, "m2", DB_STATE_ENROLLING);
	for (boot = 1; boot <= 5; boot++) {
		assert_int_equal(db_boot_start(t.db, "m1", (uint32_t)boot, 0,
					       T_NOW, &b, &err),
				 0);
		assert_int_equal(advance(&t, b.id, 0, 10, T_NOW, &err), 0);
		assert_int_equal(db_machine_set_state(t.db, "m1",
						      boot % 2 ?
							      DB_STATE_TRUSTED :
							      DB_STATE_UNTRUSTED,
						      NULL, T_NOW, &err),
				 0);
	}
	assert_int_equal(db_boot_start(t.db, "m2", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(advance(&t, b.id, 0, 10, T_NOW, &err), 0);
	assert_int_equal(db_nonce_issue(t.db, "m1", nonce, 16, T_NOW + 10,
					&err),
			 0);
	nonce[0] = 2;
	assert_int_equal(db_nonce_issue(t.db, "m2", nonce, 16, T_NOW - 1, &err),
			 0);

	do {
		assert_int_equal(db_retention_run(t.db, &r, T_NOW, &deleted,
						  &more, &err),
				 0);
		assert_true(deleted <= r.max_rows);
		total += deleted;
		calls++;
		assert_true(calls < 100);
	} while (more);
	/* 3 old boots x (a chunk of 10 records + reboot event + state
	 * event + row) + the expired nonce. */
	assert_int_equal(total, 3 * 4 + 1);
	print_message("retention: %zu rows in %d calls of at most %u\n", total,
		      calls, r.max_rows);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM boots WHERE "
				     "machine_id = 'm1'"),
			 2);
	assert_int_equal(tdb_int(&t, "SELECT min(reset_count) FROM boots "
				     "WHERE machine_id = 'm1'"),
			 4);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 30);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM boots WHERE "
				     "machine_id = 'm2'"),
			 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM nonces"), 1);
	/* Enrollment events (no boot) stay. */
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events WHERE "
				     "kind = 'enrolled'"),
			 2);
	assert_int_equal(current(&t, "m1").reset_count, 5);

	r.keep_boots = 0;
	assert_int_equal(db_retention_run(t.db, &r, T_NOW, NULL, NULL, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	tdb_remove(&t);
}

/*
 * Records keep no foreign key to their boot (0016): a trigger deletes
 * them with it, whether the boot goes alone (retention deletes records
 * first, an operator's SQL may not) or with its machine's cascade. No
 * record outlives its boot, and nobody else's go.
 */
static void test_records_go_with_their_boot(void **state)
{
	static const char orphans[] =
		"SELECT count(*) FROM record_chunks "
		"WHERE boot_id NOT IN (SELECT id FROM boots)";
	struct db_removal rm;
	struct imt_error err;
	struct db_boot b1, b2, other;
	struct tdb t;
	char sql[160];

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b1, &err), 0);
	assert_int_equal(advance(&t, b1.id, 0, 3, T_NOW, &err), 0);
	assert_int_equal(db_boot_start(t.db, "m1", 2, 0, T_NOW, &b2, &err), 0);
	assert_int_equal(advance(&t, b2.id, 0, 2, T_NOW, &err), 0);
	assert_int_equal(db_boot_start(t.db, "m2", 1, 0, T_NOW, &other, &err),
			 0);
	assert_int_equal(advance(&t, other.id, 0, 4, T_NOW, &err), 0);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 9);

	/* the boot alone */
	snprintf(sql, sizeof(sql), "DELETE FROM boots WHERE id = %lld",
		 (long long)b1.id);
	tdb_exec(&t, sql);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 6);
	assert_int_equal(tdb_int(&t, orphans), 0);
	/* what the key refused: records of a boot that is gone */
	assert_int_equal(advance(&t, b1.id, 3, 2, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(tdb_int(&t, orphans), 0);

	/* with its machine */
	assert_int_equal(db_machine_remove(t.db, "m1", "op", T_NOW, &rm, &err),
			 0);
	assert_int_equal(rm.records, 2);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 4);
	assert_int_equal(tdb_int(&t, orphans), 0);
	snprintf(sql, sizeof(sql), TDB_RECORDS " WHERE boot_id = %lld",
		 (long long)other.id);
	assert_int_equal(tdb_int(&t, sql), 4);
	tdb_remove(&t);
}

#define TEXT_MAX (1 << 20)

/*
 * Schema 16's records, each as "boot,idx,pcr,template,path,algo,digest,
 * verdict,sig" (path and blobs in hex, "-" for no sig), in order, joined
 * by ';'.
 */
static void rows_text(struct tdb *t, char *out, size_t len)
{
	sqlite3_stmt *st;
	PGresult *res;

	if (tdb_pg_uri() != NULL) {
		res = PQexec(db_pg_handle(t->db),
			     "SELECT string_agg(boot_id "
			     "|| ',' || idx || ',' || pcr || ',' || template || ',' "
			     "|| upper(encode(path, 'hex')) || ',' || digest_algo "
			     "|| ',' || upper(encode(digest, 'hex')) || ',' || "
			     "verdict || ',' || (CASE WHEN sig IS NULL THEN '-' "
			     "ELSE upper(encode(sig, 'hex')) END), ';' ORDER BY "
			     "boot_id, idx) FROM records");
		assert_int_equal(PQresultStatus(res), PGRES_TUPLES_OK);
		snprintf(out, len, "%s", PQgetvalue(res, 0, 0));
		PQclear(res);
		return;
	}
	assert_int_equal(sqlite3_prepare_v2(db_sqlite_handle(t->db),
					    "SELECT group_concat(boot_id || ',' || idx || ',' || pcr || "
					    "',' || template || ',' || hex(path) || ',' || digest_algo || "
					    "',' || hex(digest) || ',' || verdict || ',' || (CASE WHEN "
					    "sig IS NULL THEN '-' ELSE hex(sig) END), ';') FROM "
					    "(SELECT * FROM records ORDER BY boot_id, idx)",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

struct text {
	char *s;
	size_t len;
};

static void text_hex(struct text *t, const void *p, size_t n, int dash)
{
	const uint8_t *b = p;
	size_t i;

	if (n == 0 && dash) {
		t->len +=
			(size_t)snprintf(t->s + t->len, TEXT_MAX - t->len, "-");
		return;
	}
	for (i = 0; i < n; i++)
		t->len += (size_t)snprintf(t->s + t->len, TEXT_MAX - t->len,
					   "%02X", b[i]);
}

/* The same string from db_record_list(). */
static int record_text(int64_t boot_id, const struct db_record *r, void *arg)
{
	struct text *t = arg;

	t->len += (size_t)snprintf(t->s + t->len, TEXT_MAX - t->len,
				   "%s%lld,%llu,%u,%s,", t->len > 0 ? ";" : "",
				   (long long)boot_id,
				   (unsigned long long)r->index, r->pcr,
				   r->template);
	text_hex(t, r->path, strlen(r->path), 0);
	t->len += (size_t)snprintf(t->s + t->len, TEXT_MAX - t->len, ",%s,",
				   r->digest_algo);
	text_hex(t, r->digest, r->digest_len, 0);
	t->len += (size_t)snprintf(t->s + t->len, TEXT_MAX - t->len, ",%s,",
				   db_verdict_name(r->verdict));
	text_hex(t, r->sig, r->sig_len, 1);
	assert_true(t->len < TEXT_MAX - 1);
	return 0;
}

/* Schema 16 on SQLite: boot ?1's 600 records and ?2's 3 as rows. */
static const char sql_schema_16[] =
	"ALTER TABLE webhooks DROP COLUMN secret_previous;" /* 0022 */
	"ALTER TABLE webhooks DROP COLUMN key_id_previous;"
	"ALTER TABLE tokens DROP COLUMN role;" /* 0021 */
	"ALTER TABLE tokens DROP COLUMN expires_at;"
	"ALTER TABLE tokens DROP COLUMN last_used;"
	"ALTER TABLE audit DROP COLUMN role;"
	/* 0020 (its outbox rebuild takes the one it meets as well) */
	"CREATE TABLE state_tnc (state TEXT PRIMARY KEY, tnc TEXT NOT NULL) "
	"STRICT;"
	"ALTER TABLE refs DROP COLUMN since;" /* 0019 */
	"ALTER TABLE sources DROP COLUMN published;"
	"ALTER TABLE sources DROP COLUMN withdrawn_below;"
	"ALTER TABLE boots DROP COLUMN pcr10_sha384;" /* 0018 */
	"ALTER TABLE boots DROP COLUMN pcr10_sha512;"
	"DROP TRIGGER boots_record_chunks_delete;"
	"DROP TABLE record_chunks;"
	"CREATE TABLE records (boot_id INTEGER NOT NULL, idx INTEGER "
	"NOT NULL CHECK (idx >= 0), pcr INTEGER NOT NULL, template TEXT "
	"NOT NULL, path TEXT NOT NULL, digest_algo TEXT NOT NULL, "
	"digest BLOB NOT NULL, verdict TEXT NOT NULL, sig BLOB, "
	"PRIMARY KEY (boot_id, idx)) STRICT, WITHOUT ROWID;"
	"CREATE INDEX records_rejudge ON records(boot_id, idx) WHERE "
	"verdict = 'unknown' OR verdict = 'mismatch' OR "
	"verdict = 'bad-signature';"
	"CREATE TRIGGER boots_records_delete AFTER DELETE ON boots "
	"BEGIN DELETE FROM records WHERE boot_id = OLD.id; END;"
	"WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
	"WHERE i < 599) INSERT INTO records SELECT %lld, i, 10 + i %% 3, "
	"CASE i %% 2 WHEN 0 THEN 'ima-ng' ELSE 'ima-sig' END, "
	"CASE i WHEN 5 THEN '' WHEN 6 THEN CAST(x'2f78fffe' AS TEXT) "
	"ELSE '/usr/bin/p' || i END, CASE i %% 5 WHEN 0 THEN 'sha1' "
	"ELSE 'sha256' END, randomblob(20 + 12 * (i %% 5 > 0)), "
	"CASE i %% 7 WHEN 0 THEN 'known' WHEN 1 THEN 'unknown' "
	"WHEN 2 THEN 'mismatch' WHEN 3 THEN 'violation' WHEN 4 THEN "
	"'excluded' WHEN 5 THEN 'signed' ELSE 'bad-signature' END, "
	"CASE WHEN i %% 4 = 0 THEN randomblob(1 + i %% 300) END FROM n;"
	"INSERT INTO records VALUES (%lld, 0, 10, 'ima-ng', '/a', "
	"'sha256', zeroblob(32), 'known', NULL), (%lld, 1, 10, "
	"'ima-ng', '/b', 'sha256', randomblob(32), 'unknown', NULL), "
	"(%lld, 2, 10, 'ima-ng', '/c', 'sha256', randomblob(32), "
	"'known', NULL);"
	"UPDATE boots SET next_record_index = 600 WHERE id = %lld;"
	"UPDATE boots SET next_record_index = 3 WHERE id = %lld;"
	"PRAGMA user_version = 16";

/* The same on PostgreSQL, as its 0016 left records. */
static const char sql_schema_16_pg[] =
	"ALTER TABLE webhooks DROP COLUMN secret_previous, "
	"DROP COLUMN key_id_previous;" /* 0022 */
	"ALTER TABLE tokens DROP COLUMN role, DROP COLUMN expires_at, "
	"DROP COLUMN last_used;" /* 0021 */
	"ALTER TABLE audit DROP COLUMN role;"
	"ALTER TABLE webhook_outbox DROP COLUMN type, DROP COLUMN from_state, "
	"DROP COLUMN to_state, DROP COLUMN reason, DROP COLUMN action, "
	"DROP COLUMN operator, ALTER COLUMN body SET NOT NULL;" /* 0020 */
	"CREATE TABLE state_tnc (state text PRIMARY KEY, tnc text NOT NULL);"
	"ALTER TABLE refs DROP COLUMN since;" /* 0019 */
	"ALTER TABLE sources DROP COLUMN published;"
	"ALTER TABLE sources DROP COLUMN withdrawn_below;"
	"ALTER TABLE boots DROP COLUMN pcr10_sha384;" /* 0018 */
	"ALTER TABLE boots DROP COLUMN pcr10_sha512;"
	"DROP TRIGGER boots_record_chunks_delete ON boots;"
	"DROP FUNCTION boots_record_chunks_delete();"
	"DROP TABLE record_chunks;"
	"CREATE TABLE records (boot_id bigint NOT NULL, idx bigint NOT NULL "
	"CHECK (idx >= 0), pcr bigint NOT NULL, template text NOT NULL, "
	"path bytea NOT NULL, digest_algo text NOT NULL, digest bytea NOT "
	"NULL, verdict text NOT NULL, sig bytea, "
	"PRIMARY KEY (boot_id, idx));"
	"CREATE FUNCTION boots_records_delete() RETURNS trigger "
	"LANGUAGE plpgsql AS $$ BEGIN DELETE FROM records WHERE boot_id = "
	"OLD.id; RETURN NULL; END $$;"
	"CREATE TRIGGER boots_records_delete AFTER DELETE ON boots "
	"FOR EACH ROW EXECUTE FUNCTION boots_records_delete();"
	"INSERT INTO records SELECT %lld, i, 10 + i %% 3, "
	"CASE i %% 2 WHEN 0 THEN 'ima-ng' ELSE 'ima-sig' END, "
	"CASE i WHEN 5 THEN ''::bytea WHEN 6 THEN '\\x2f78fffe'::bytea "
	"ELSE convert_to('/usr/bin/p' || i, 'UTF8') END, "
	"CASE i %% 5 WHEN 0 THEN 'sha1' ELSE 'sha256' END, "
	"substring(decode(md5(random()::text) || md5(random()::text), "
	"'hex') FROM 1 FOR 20 + 12 * (i %% 5 > 0)::int), "
	"CASE i %% 7 WHEN 0 THEN 'known' WHEN 1 THEN 'unknown' "
	"WHEN 2 THEN 'mismatch' WHEN 3 THEN 'violation' WHEN 4 THEN "
	"'excluded' WHEN 5 THEN 'signed' ELSE 'bad-signature' END, "
	"CASE WHEN i %% 4 = 0 THEN substring(decode(repeat(md5(i::text), "
	"20), 'hex') FROM 1 FOR 1 + i %% 300) END "
	"FROM generate_series(0, 599) i;"
	"INSERT INTO records VALUES (%lld, 0, 10, 'ima-ng', '\\x2f61', "
	"'sha256', decode(repeat('00', 32), 'hex'), 'known', NULL), "
	"(%lld, 1, 10, 'ima-ng', '\\x2f62', 'sha256', "
	"decode(md5('b') || md5('c'), 'hex'), 'unknown', NULL), "
	"(%lld, 2, 10, 'ima-ng', '\\x2f63', 'sha256', "
	"decode(md5('d') || md5('e'), 'hex'), 'known', NULL);"
	"UPDATE boots SET next_record_index = 600 WHERE id = %lld;"
	"UPDATE boots SET next_record_index = 3 WHERE id = %lld;"
	"UPDATE schema_version SET version = 16";

/*
 * Take the database back to schema 16: records as rows, 600 of boot @b1
 * and 3 of @b2, with every verdict, signatures of up to 300 bytes or
 * none, an empty path and one that is not UTF-8.
 */
static void schema_16(struct tdb *t, int64_t b1, int64_t b2)
{
	int pg = tdb_pg_uri() != NULL;
	char sql[4096];
	PGresult *res;

	snprintf(sql, sizeof(sql), pg ? sql_schema_16_pg : sql_schema_16,
		 (long long)b1, (long long)b2, (long long)b2, (long long)b2,
		 (long long)b1, (long long)b2);
	if (!pg) {
		assert_int_equal(sqlite3_exec(db_sqlite_handle(t->db), sql,
					      NULL, NULL, NULL),
				 SQLITE_OK);
		return;
	}
	res = PQexec(db_pg_handle(t->db), sql);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("schema 16: %s", PQresultErrorMessage(res));
	PQclear(res);
}

/*
 * A database at schema 16 (a row per record) upgrades to 17 with every
 * record as it was, in chunks of at most DB_CHUNK_MAX, the rows' table
 * gone, and the chunks deleted with their boot; on both engines, whose
 * old tables differ (a path is bytea on PostgreSQL).
 */
static void test_upgrade_0017_packs_records(void **state)
{
	struct text after = { malloc(TEXT_MAX), 0 };
	char *before = malloc(TEXT_MAX);
	struct db_removal rm;
	struct imt_error err;
	struct db_boot b1, b2;
	struct tdb t;

	(void)state;
	assert_non_null(after.s);
	assert_non_null(before);
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b1, &err), 0);
	assert_int_equal(db_boot_start(t.db, "m2", 1, 0, T_NOW, &b2, &err), 0);
	schema_16(&t, b1.id, b2.id);
	rows_text(&t, before, TEXT_MAX);
	assert_non_null(strstr(before, "bad-signature"));
	assert_non_null(strstr(before, ",2F78FFFE,"));
	tdb_close(&t);

	tdb_open(&t);
	assert_int_equal(tdb_int(&t, "PRAGMA user_version"),
			 db_schema_version());
	assert_int_equal(tdb_int2(&t,
				  "SELECT count(*) FROM sqlite_master "
				  "WHERE name LIKE 'records%'",
				  "SELECT count(*) FROM pg_class WHERE "
				  "relname LIKE 'records%'"),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM record_chunks"),
			 3 + 1);
	assert_int_equal(db_record_list(t.db, b1.id, 0, 1000, 0, record_text,
					&after, &err),
			 0);
	assert_int_equal(db_record_list(t.db, b2.id, 0, 1000, 0, record_text,
					&after, &err),
			 0);
	assert_string_equal(after.s, before);
	assert_int_equal(db_machine_remove(t.db, "m1", "op", T_NOW, &rm, &err),
			 0);
	assert_int_equal(rm.records, 600);
	assert_int_equal(tdb_int(&t, TDB_RECORDS), 3);
	tdb_remove(&t);
	free(after.s);
	free(before);
}

/* A boot that lasts: its events are capped per machine, oldest first. */
static void test_retention_event_cap(void **state)
{
	struct db_retention r = {
		.keep_boots = 5,
		.max_events = 10,
		.max_rows = 4,
	};
	struct imt_error err;
	struct db_boot b;
	struct tdb t;
	size_t deleted, total = 0;
	int i, more;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	tdb_machine(&t, "m2", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	for (i = 0; i < 30; i++)
		assert_int_equal(db_machine_set_state(t.db, "m1",
						      i % 2 ? DB_STATE_TRUSTED :
							      DB_STATE_STALE,
						      NULL, T_NOW + i, &err),
				 0);
	/* m1: enrolled + reboot + 30 changes = 32 events; m2: 1. */
	do {
		assert_int_equal(db_retention_run(t.db, &r, T_NOW, &deleted,
						  &more, &err),
				 0);
		assert_true(deleted <= r.max_rows);
		total += deleted;
	} while (more);
	assert_int_equal(total, 22);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events WHERE "
				     "machine_id = 'm1'"),
			 10);
	assert_int_equal(tdb_int(&t, "SELECT min(time) FROM events WHERE "
				     "machine_id = 'm1'"),
			 T_NOW + 20);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events WHERE "
				     "machine_id = 'm2'"),
			 1);
	tdb_remove(&t);
}

/*
 * What one heartbeat costs the storage: the nonce used and the next one
 * issued (db_nonce_renew), then an advance by an empty batch (two
 * commits). Printed, not asserted: the verifier benchmark is where the
 * target is checked.
 */
static void test_heartbeat_cost(void **state)
{
	struct imt_error err;
	struct timespec t0, t1;
	struct db_boot b;
	uint8_t n[32] = { 0 };
	struct tdb t;
	uint32_t i;
	double s;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(db_nonce_issue(t.db, "m1", n, 32, T_NOW + 60, &err),
			 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < 2000; i++) {
		tdb_nonce_next(&t, "m1", n, i);
		assert_int_equal(advance(&t, b.id, 0, 0, T_NOW + i, &err), 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("2000 heartbeats (renew nonce + advance): %.3f s, "
		      "%.0f/s\n",
		      s, 2000 / s);
	tdb_remove(&t);
}

/* An empty batch at @from with PCR 10 values @s1/@s256, given @row. */
static int advance_empty(struct tdb *t, int64_t boot, uint64_t from,
			 const uint8_t *s1, const uint8_t *s256,
			 const struct db_boot *row, struct imt_error *err)
{
	struct db_boot_advance a = {
		.boot_id = boot,
		.from_index = from,
		.to_index = from,
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
		.seen_in_nonce = 1,
		.row = row,
	};

	return db_boot_advance(t->db, &a, T_NOW, err);
}

/*
 * A heartbeat handed the boot's row (read under the write lock) decides
 * from it: no statement when nothing moves, the same refusal as the
 * row's SELECT when the batch is not at the row's index, a real advance
 * when the PCR values differ.
 */
static void test_advance_empty_with_row(void **state)
{
	uint8_t s1[DB_PCR_SHA1_SIZE], s256[DB_PCR_SHA256_SIZE];
	struct imt_error err;
	struct db_boot b, row;
	struct tdb t;
	int stmts = 0, sqlite;

	(void)state;
	tdb_new(&t);
	sqlite = tdb_pg_uri() == NULL;
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(advance(&t, b.id, 0, 3, T_NOW, &err), 0);
	row = current(&t, "m1");
	fill_pcrs(s1, s256, 3);
	if (sqlite)
		sql_count_start(db_sqlite_handle(t.db), &stmts);

	/* unmoved: decided from the row, nothing read or written */
	assert_int_equal(advance_empty(&t, b.id, 3, s1, s256, &row, &err), 0);
	assert_int_equal(stmts, 0);
	/* without the row: the SELECT runs */
	assert_int_equal(advance_empty(&t, b.id, 3, s1, s256, NULL, &err), 0);
	if (sqlite)
		assert_int_equal(stmts, 1);

	/* not at the row's index: refused as the SELECT refuses */
	stmts = 0;
	assert_int_equal(advance_empty(&t, b.id, 2, s1, s256, &row, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(stmts, 0);
	assert_int_equal(advance_empty(&t, b.id, 2, s1, s256, NULL, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	/* another boot's row: refused too */
	row.id = b.id + 1;
	assert_int_equal(advance_empty(&t, b.id, 3, s1, s256, &row, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	row.id = b.id;

	/* other PCR 10 values at the same index: the boot moves to them */
	s256[0] ^= 1;
	assert_int_equal(advance_empty(&t, b.id, 3, s1, s256, &row, &err), 0);
	if (sqlite)
		sql_count_stop(db_sqlite_handle(t.db));
	b = current(&t, "m1");
	assert_int_equal(b.next_record_index, 3);
	assert_memory_equal(b.pcr10_sha256, s256, DB_PCR_SHA256_SIZE);
	assert_memory_equal(b.pcr10_sha1, s1, DB_PCR_SHA1_SIZE);
	tdb_remove(&t);
}

/* A gap moves the boot on; "followed" once records came before one. */
static void test_history_gap(void **state)
{
	static const uint8_t anchor[32] = { 0xa7 };
	struct imt_error err;
	struct db_boot b;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_TRUSTED);
	assert_int_equal(db_boot_start(t.db, "m1", 1, 0, T_NOW, &b, &err), 0);
	assert_int_equal(db_boot_history_gap(t.db, b.id, 0, 10, anchor,
					     sizeof(anchor), &err),
			 0);
	b = current(&t, "m1");
	assert_int_equal(b.next_record_index, 10);
	assert_int_equal(b.history_from, 0);
	assert_int_equal(b.history_to, 10);
	assert_int_equal(b.history_followed, 0);
	assert_int_equal(advance(&t, b.id, 10, 2, T_NOW, &err), 0);
	/* not at 11: refused */
	assert_int_equal(db_boot_history_gap(t.db, b.id, 11, 20, anchor,
					     sizeof(anchor), &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_boot_history_gap(t.db, b.id, 12, 20, anchor,
					     sizeof(anchor), &err),
			 0);
	b = current(&t, "m1");
	assert_int_equal(b.next_record_index, 20);
	assert_int_equal(b.history_from, 12);
	assert_int_equal(b.history_to, 20);
	assert_int_equal(b.history_followed, 1);
	tdb_remove(&t);
}

static void test_verdict_names(void **state)
{
	enum db_verdict v;

	(void)state;
	assert_string_equal(db_verdict_name(DB_VERDICT_VIOLATION), "violation");
	assert_string_equal(db_verdict_name((enum db_verdict)9), "invalid");
	assert_int_equal(db_verdict_parse("excluded", &v), 0);
	assert_int_equal(v, DB_VERDICT_EXCLUDED);
	assert_int_equal(db_verdict_parse("maybe", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_and_counters),
		cmocka_unit_test(test_advance),
		cmocka_unit_test(test_two_writers_guarded),
		cmocka_unit_test(test_record_path_literal),
		cmocka_unit_test(test_rejudge),
		cmocka_unit_test(test_advance_rows),
		cmocka_unit_test(test_advance_atomic_under_sigkill),
		cmocka_unit_test(test_advance_sigkill_anytime),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_retention_event_cap),
		cmocka_unit_test(test_records_go_with_their_boot),
		cmocka_unit_test(test_upgrade_0017_packs_records),
		cmocka_unit_test(test_heartbeat_cost),
		cmocka_unit_test(test_advance_empty_with_row),
		cmocka_unit_test(test_history_gap),
		cmocka_unit_test(test_verdict_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

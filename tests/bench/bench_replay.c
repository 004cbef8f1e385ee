// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_replay.c - what the verifier's evidence path does per record:
 * parse the list, replay the sha256 bank, judge the record with
 * judge_record() under the default policy against references stored in
 * SQLite, and store the judged records with db_boot_advance().
 *
 *	bench-replay LIST PCRS_SHA256 REFS
 *
 * REFS is gen-ima-list's refs.sha256sum ("HEX  PATH" lines). Before the
 * clock starts, they are imported into a fresh SQLite file in a
 * temporary directory as one source (dir-tree "bench"), in one import
 * transaction as import_store.c does, for a machine created there;
 * then the references in memory are built (db_ref_index_refresh(), as
 * the verifier does before serving), untimed too: "index ..." line.
 *
 * The records go in batches of BATCH, as evidence does (engine_evidence.c
 * commit()): under v->lock, one transaction (db_batch_begin()) that
 * judges every record of the batch, starts the boot with the first, and
 * stores the batch with the running PCR 10 (db_boot_advance()).
 *
 * Prints "records N seconds S records_per_s R" for the whole path, then a
 * "step NAME seconds S us_per_record U records_per_s R" line for each of
 * parse+replay, judge, store and total, "floor ..." for the old
 * in-memory lookup (digest_set, which the verifier does not use) and
 * "import ..." for the untimed import; then "cache first ..." (the
 * lookups answered from memory, index or cache, and the SQL's) and the "fleet ..." lines of a
 * second machine with the same list (fleet_pass()). Exits 1 when a
 * replay does not end at the expected PCR 10 or a record is not judged
 * known (boot_aggregate: excluded).
 *
 * Left out, all CPU outside v->lock: the quote's checks; the replay of
 * the other stored bank (sha1) and the second parse of the batch that
 * attest.c take_records() does after ima_match_batch(). The sha1 running
 * value is stored as zeros here.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "config.h"
#include "db.h"
#include "db_boot.h"
#include "db_machine.h"
#include "db_ref.h"
#include "digest_set.h"
#include "hex.h"
#include "ima_replay.h"
#include "ima_verify.h"
#include "judge.h"
#include "keyring.h"
#include "list_reader.h"
#include "pcr_set.h"
#include "policies.h"

#define BATCH 1000	    /* records per evidence batch */
#define ARENA (BATCH * 128) /* bytes of paths a batch holds */
#define REFS_FILE_MAX (1u << 30)
#define MACHINE "bench"
#define MACHINE_2 "bench-2" /* the fleet pass: a second machine */

/* The records of one evidence batch, as attest.c keeps them. */
struct batch {
	struct db_record recs[BATCH];
	struct judge_input in[BATCH];
	uint8_t digests[BATCH][HASH_ALGO_MAX_SIZE];
	char paths[ARENA];
	size_t n, used;
};

struct bench {
	struct verifier v;
	const char *machine; /* whose evidence this pass is */
	char dir[256];
	struct ima_replay *replay;
	struct db_boot boot;
	int have_boot;
	uint8_t ba[HASH_ALGO_MAX_SIZE];
	struct batch *batch;
	size_t records, wrong;
	double t_judge, t_store;
	struct imt_error err;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- references: gen-ima-list's refs.sha256sum ------------------------ */

typedef int (*ref_fn)(const char *path, const uint8_t digest[32], void *arg);

/* Each "HEX  PATH" line of @buf to @fn, with the path NUL-terminated. */
static int parse_refs(const char *buf, size_t len, ref_fn fn, void *arg)
{
	char path[4096];
	uint8_t digest[32];
	size_t pos = 0, end, plen;

	while (pos < len) {
		const char *nl = memchr(buf + pos, '\n', len - pos);

		end = nl != NULL ? (size_t)(nl - buf) : len;
		if (end - pos < 67 || buf[pos + 64] != ' ' ||
		    buf[pos + 65] != ' ' ||
		    hex_decode(buf + pos, 64, digest, 32) != 32)
			return -1;
		plen = end - pos - 66;
		if (plen >= sizeof(path))
			return -1;
		memcpy(path, buf + pos + 66, plen);
		path[plen] = '\0';
		if (fn(path, digest, arg) != 0)
			return -1;
		pos = end + 1;
	}
	return 0;
}

static int import_one(const char *path, const uint8_t digest[32], void *arg)
{
	static const struct db_ref_source src = { DB_SOURCE_DIR_TREE, "bench",
						  NULL };
	struct bench *b = arg;

	return db_ref_add(b->v.db, &src, path, "sha256", digest, 32,
			  (int64_t)time(NULL), &b->err);
}

/* The references as one import of one source (untimed). */
static int import_refs(struct bench *b, const char *buf, size_t len)
{
	static const struct db_ref_source src = { DB_SOURCE_DIR_TREE, "bench",
						  NULL };

	if (db_ref_import_begin(b->v.db, &src, (int64_t)time(NULL), &b->err) <
	    0)
		return -1;
	if (parse_refs(buf, len, import_one, b) < 0) {
		db_ref_import_abort(b->v.db);
		return -1;
	}
	return db_ref_import_commit(b->v.db, &b->err);
}

/* ---- the verifier: a fresh SQLite file, one enrolled machine ---------- */

static int add_machine(struct bench *b, const char *id)
{
	static const uint8_t key[] = { 0x00, 0x01, 0xbe, 0xef };
	/* an EK of each machine's own */
	uint8_t fpr[DB_FPR_SIZE] = { (uint8_t)id[strlen(id) - 1] };
	struct db_machine_new m = {
		.id = id,
		.ek_pub = key,
		.ek_pub_len = sizeof(key),
		.ek_fpr = fpr,
		.ak_pub = key,
		.ak_pub_len = sizeof(key),
		.ak_name = key,
		.ak_name_len = sizeof(key),
		.state = DB_STATE_ENROLLING,
		.activated = 1,
	};

	return db_machine_create(b->v.db, &m, (int64_t)time(NULL), &b->err);
}

static int verifier_open(struct bench *b)
{
	const char *tmp = getenv("TMPDIR");
	char path[300];

	config_defaults(&b->v.cfg);
	b->v.started = time(NULL);
	snprintf(b->dir, sizeof(b->dir), "%s/bench-replay-XXXXXX",
		 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
	if (mkdtemp(b->dir) == NULL) {
		b->dir[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/verifier.db", b->dir);
	if (db_open(path, &b->v.db, &b->err) < 0)
		return -1;
	b->machine = MACHINE;
	return add_machine(b, MACHINE) < 0 ? -1 : add_machine(b, MACHINE_2);
}

static void verifier_close(struct bench *b)
{
	static const char *const files[] = { "verifier.db", "verifier.db-wal",
					     "verifier.db-shm" };
	char path[300];
	size_t i;

	policies_free(&b->v);
	keyring_free(&b->v);
	db_close(b->v.db);
	pthread_mutex_destroy(&b->v.lock);
	if (b->dir[0] == '\0')
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", b->dir, files[i]);
		unlink(path);
	}
	rmdir(b->dir);
}

/* ---- one batch: judged and stored in one transaction ------------------ */

/* What the verdicts must be: boot_aggregate excluded, every file known. */
static void check_verdicts(struct bench *b)
{
	const struct batch *bt = b->batch;
	size_t i;

	for (i = 0; i < bt->n; i++) {
		enum db_verdict want = bt->in[i].boot_aggregate ?
					       DB_VERDICT_EXCLUDED :
					       DB_VERDICT_KNOWN;

		b->wrong += bt->recs[i].verdict != want;
	}
}

static int judge_batch(struct bench *b)
{
	struct batch *bt = b->batch;
	const struct policy *p = policies_for(&b->v, b->machine);
	size_t i;

	for (i = 0; i < bt->n; i++) {
		if (judge_record(&b->v, p, &bt->in[i], &bt->recs[i].verdict,
				 &b->err) < 0)
			return -1;
	}
	return 0;
}

/* The boot's first batch starts it, in the same transaction. */
static int store_batch(struct bench *b)
{
	/* the sha1 bank is not replayed here: its running value is zeros */
	static const uint8_t sha1[DB_PCR_SHA1_SIZE];
	struct batch *bt = b->batch;
	int64_t now = (int64_t)time(NULL);
	struct db_boot_advance adv;

	if (!b->have_boot) {
		if (db_boot_start(b->v.db, b->machine, 1, 0, now, &b->boot,
				  &b->err) < 0)
			return -1;
		b->have_boot = 1;
	}
	adv = (struct db_boot_advance){
		.boot_id = b->boot.id,
		.from_index = b->boot.next_record_index,
		.to_index = b->boot.next_record_index + bt->n,
		.pcr10_sha1 = sha1,
		.pcr10_sha256 = ima_replay_pcr(b->replay, IMA_MEASURE_PCR),
		.boot_aggregate = b->boot.next_record_index == 0 ? b->ba : NULL,
		.boot_aggregate_len = b->boot.next_record_index == 0 ? 32 : 0,
		.records = bt->recs,
		.nrecords = bt->n,
	};
	if (db_boot_advance(b->v.db, &adv, now, &b->err) < 0)
		return -1;
	b->boot.next_record_index += bt->n;
	return 0;
}

/* Judge, then store, timed apart; the transaction's begin and commit
 * count as storing. */
static int flush(struct bench *b)
{
	double t0, t1, t2, t3;
	int rc = -1;

	if (b->batch->n == 0)
		return 0;
	pthread_mutex_lock(&b->v.lock);
	t0 = now_s();
	if (db_batch_begin(b->v.db, &b->err) < 0)
		goto out;
	t1 = now_s();
	if (judge_batch(b) < 0)
		goto abort;
	t2 = now_s();
	if (store_batch(b) < 0 || db_batch_commit(b->v.db, &b->err) < 0)
		goto abort;
	t3 = now_s();
	b->t_judge += t2 - t1;
	b->t_store += (t1 - t0) + (t3 - t2);
	check_verdicts(b);
	b->batch->n = 0;
	b->batch->used = 0;
	rc = 0;
	goto out;
abort:
	db_batch_abort(b->v.db);
out:
	pthread_mutex_unlock(&b->v.lock);
	return rc;
}

/* ---- per record: replay, then keep it for its batch ------------------- */

/* As attest.c keep_record(): the record outlives the reader's buffer. */
static void keep(struct bench *b, const struct ima_record *rec)
{
	struct batch *bt = b->batch;
	struct db_record *r = &bt->recs[bt->n];
	char *path = bt->paths + bt->used;
	size_t size = rec->digest_algo != NULL ? rec->digest_algo->size : 0;

	memcpy(path, rec->path, rec->path_len);
	path[rec->path_len] = '\0';
	bt->used += rec->path_len + 1;
	if (size > 0)
		memcpy(bt->digests[bt->n], rec->digest, size);
	*r = (struct db_record){
		.index = rec->index,
		.pcr = rec->pcr,
		.template = rec->tmpl != NULL ? rec->tmpl->name : "unknown",
		.path = path,
		.digest_algo = size > 0 ? rec->digest_algo->name : "none",
		.digest = bt->digests[bt->n],
		.digest_len = size,
	};
	bt->in[bt->n] = (struct judge_input){
		.path = path,
		.algo = size > 0 ? r->digest_algo : NULL,
		.digest = size > 0 ? r->digest : NULL,
		.digest_len = size,
		.violation = rec->violation,
		.boot_aggregate = rec->index == 0 && rec->path_len == 14 &&
				  memcmp(rec->path, "boot_aggregate", 14) == 0,
	};
	if (rec->index == 0 && size == 32)
		memcpy(b->ba, rec->digest, 32);
	bt->n++;
}

static int per_record(const struct ima_record *rec, void *arg)
{
	struct bench *b = arg;

	if (ima_replay_extend(b->replay, rec, &b->err) != IMT_OK)
		return 1;
	/* a path that does not fit ends the batch early */
	if (b->batch->used + rec->path_len + 1 > ARENA && flush(b) < 0)
		return 1;
	if (rec->path_len + 1 > ARENA)
		return 1;
	keep(b, rec);
	b->records++;
	return b->batch->n == BATCH && flush(b) < 0 ? 1 : 0;
}

/* ---- the floor: the old in-memory lookup, not the verifier's ----------- */

struct floor {
	struct ima_replay *replay;
	struct digest_set *set;
	size_t unknown;
	struct imt_error err;
};

static int floor_add(const char *path, const uint8_t digest[32], void *arg)
{
	(void)path;
	return digest_set_add(arg, digest) < 0 ? -1 : 0;
}

static int floor_record(const struct ima_record *rec, void *arg)
{
	struct floor *f = arg;

	/* The lookup's cache miss overlaps the two hashes of the replay. */
	digest_set_prefetch(f->set, rec->digest);
	if (ima_replay_extend(f->replay, rec, &f->err) != IMT_OK)
		return 1;
	if (rec->index > 0 && !digest_set_contains(f->set, rec->digest))
		f->unknown++;
	return 0;
}

/* Parse + replay + digest_set lookup of @list: seconds, or -1. */
static double run_floor(const char *list, const char *refs, size_t len,
			const struct hash_algo *bank)
{
	struct floor f = { 0 };
	double t0, secs = -1;
	int fd;

	f.set = digest_set_new(32, len / 100 + 1,
			       (uint64_t)time(NULL) * 2654435761u);
	f.replay = ima_replay_new(bank, &f.err);
	fd = open(list, O_RDONLY);
	if (f.set != NULL && f.replay != NULL && fd >= 0 &&
	    parse_refs(refs, len, floor_add, f.set) == 0) {
		t0 = now_s();
		if (list_reader_run(fd, NULL, NULL, floor_record, &f, &f.err) ==
			    0 &&
		    f.unknown == 0)
			secs = now_s() - t0;
	}
	if (fd >= 0)
		close(fd);
	ima_replay_free(f.replay);
	digest_set_free(f.set);
	return secs;
}

/* ---- the report -------------------------------------------------------- */

static void print_step(const char *name, double secs, size_t n)
{
	printf("step %s seconds %.3f us_per_record %.3f records_per_s %.0f\n",
	       name, secs, 1e6 * secs / (double)n, (double)n / secs);
}

/* "cache PASS hits H misses M": the reference lookups of one pass. */
static void print_cache(const char *pass, const struct db_ref_cache_stats *a,
			const struct db_ref_cache_stats *z)
{
	printf("cache %s hits %llu misses %llu\n", pass,
	       (unsigned long long)(z->hits - a->hits),
	       (unsigned long long)(z->misses - a->misses));
}

static void report(const struct bench *b, double total, double floor_s,
		   double import_s, size_t refs)
{
	size_t n = b->records;

	printf("records %zu seconds %.3f records_per_s %.0f\n", n, total,
	       (double)n / total);
	print_step("parse+replay", total - b->t_judge - b->t_store, n);
	print_step("judge", b->t_judge, n);
	print_step("store", b->t_store, n);
	print_step("total", total, n);
	if (floor_s > 0)
		printf("floor digest_set seconds %.3f records_per_s %.0f\n",
		       floor_s, (double)n / floor_s);
	printf("import refs %zu seconds %.3f (untimed)\n", refs, import_s);
}

/*
 * The references in memory, built as the verifier builds them at start
 * (db_ref_index.c), untimed like the import: "index refs N bytes B
 * bytes_per_ref X seconds S".
 */
static int index_build(struct bench *b)
{
	struct db_ref_index_stats st;
	double t0 = now_s();

	if (db_ref_index_refresh(b->v.db, &b->err) < 0)
		return -1;
	db_ref_index_stats(b->v.db, &st);
	printf("index refs %zu bytes %zu bytes_per_ref %.1f seconds %.3f\n",
	       st.refs, st.bytes,
	       st.refs > 0 ? (double)st.bytes / (double)st.refs : 0.0,
	       now_s() - t0);
	return 0;
}

/* ---- main --------------------------------------------------------------- */

static int run(struct bench *b, const char *list, double *secs);

/*
 * The same list once more as evidence of a second machine, which runs
 * the files the first one ran, as a fleet's machines do: the lookups it
 * repeats are answered from the verifier's reference cache as far as
 * the cache holds them (DB_REF_CACHE_SLOTS). "fleet ..." lines.
 */
static int fleet_pass(struct bench *b, const char *list,
		      const struct hash_algo *bank)
{
	struct db_ref_cache_stats a, z;
	double total;

	ima_replay_free(b->replay);
	b->replay = ima_replay_new(bank, &b->err);
	if (b->replay == NULL)
		return -1;
	b->machine = MACHINE_2;
	b->have_boot = 0;
	b->records = 0;
	b->t_judge = b->t_store = 0;
	db_ref_cache_stats(b->v.db, &a);
	if (run(b, list, &total) < 0)
		return -1;
	db_ref_cache_stats(b->v.db, &z);
	printf("fleet records %zu seconds %.3f records_per_s %.0f\n",
	       b->records, total, (double)b->records / total);
	printf("fleet ");
	print_step("judge", b->t_judge, b->records);
	printf("fleet ");
	print_step("total", total, b->records);
	print_cache("fleet", &a, &z);
	return 0;
}

/* The real path over @list: -1, or 0 with the wall time in @secs. */
static int run(struct bench *b, const char *list, double *secs)
{
	double t0;
	int fd = open(list, O_RDONLY), ret;

	if (fd < 0) {
		snprintf(b->err.msg, sizeof(b->err.msg), "cannot open %s",
			 list);
		return -1;
	}
	t0 = now_s();
	ret = list_reader_run(fd, NULL, NULL, per_record, b, &b->err);
	if (ret == 0)
		ret = flush(b);
	*secs = now_s() - t0;
	close(fd);
	return ret == 0 ? 0 : -1;
}

static size_t count_lines(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	size_t n = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

static int load_want(const char *file, struct pcr_set *want,
		     struct imt_error *err)
{
	size_t len;
	char *text = cli_read_file(file, PCR_SET_TEXT_MAX, &len);
	int rc;

	pcr_set_init(want, hash_algo_bank("sha256"));
	if (text == NULL)
		return -1;
	rc = pcr_set_parse_text(want, text, len, err) == IMT_OK ? 0 : -1;
	free(text);
	return rc;
}

static int bench_main(struct bench *b, char **argv)
{
	struct db_ref_cache_stats none = { 0 }, first;
	struct pcr_set want;
	double t0, import_s, total, floor_s;
	size_t len;
	char *refs;

	if (load_want(argv[2], &want, &b->err) < 0)
		return 2;
	refs = cli_read_file(argv[3], REFS_FILE_MAX, &len);
	b->replay = ima_replay_new(want.algo, &b->err);
	if (refs == NULL || b->replay == NULL || verifier_open(b) < 0) {
		free(refs);
		return 2;
	}
	t0 = now_s();
	if (import_refs(b, refs, len) < 0) {
		free(refs);
		return 2;
	}
	import_s = now_s() - t0;
	if (index_build(b) < 0 || run(b, argv[1], &total) < 0) {
		free(refs);
		return 1;
	}
	floor_s = run_floor(argv[1], refs, len, want.algo);
	report(b, total, floor_s, import_s, count_lines(refs, len));
	db_ref_cache_stats(b->v.db, &first);
	print_cache("first", &none, &first);
	free(refs);
	if (memcmp(ima_replay_pcr(b->replay, IMA_MEASURE_PCR),
		   want.value[IMA_MEASURE_PCR], 32) != 0 ||
	    fleet_pass(b, argv[1], want.algo) < 0 ||
	    memcmp(ima_replay_pcr(b->replay, IMA_MEASURE_PCR),
		   want.value[IMA_MEASURE_PCR], 32) != 0 ||
	    b->wrong != 0 || floor_s < 0) {
		snprintf(b->err.msg, sizeof(b->err.msg),
			 "wrong PCR 10, %zu records not judged known, or the floor failed",
			 b->wrong);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench *b;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: bench-replay LIST PCRS_SHA256 REFS\n");
		return 2;
	}
	b = calloc(1, sizeof(*b));
	if (b == NULL || (b->batch = calloc(1, sizeof(*b->batch))) == NULL)
		return 2;
	pthread_mutex_init(&b->v.lock, NULL);
	rc = bench_main(b, argv);
	if (rc != 0)
		fprintf(stderr, "bench-replay: %s\n", b->err.msg);
	verifier_close(b);
	ima_replay_free(b->replay);
	free(b->batch);
	free(b);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_deb_files.c - many .deb files on N threads, delivered in order
 * (import_deb_files() and import_deb_replay() of import_deb.h).
 *
 * Each worker takes the next job, maps the file, checks the size and
 * SHA-256 an index gave, reads the package with import_deb() into a
 * struct deb_refs, then waits for its turn: the jobs are delivered in
 * their order, one at a time.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "import_deb.h"

struct held_ref {
	size_t path_off, dig_off, digest_len;
	const char *algo; /* hash_algo.h's static names */
	int conffile;
};

struct deb_refs {
	struct held_ref *refs;
	size_t n, cap;
	char *arena; /* paths and digests */
	size_t used, size;
	size_t last_path; /* a file's path is kept once for all algos */
};

struct batch {
	const struct deb_job *jobs;
	size_t njobs;
	const char *const *algos;
	size_t nalgos;
	deb_batch_fn fn;
	void *arg;
	pthread_mutex_t lock;
	pthread_cond_t turn;
	size_t next_job, next_deliver;
	int stop;
	struct imt_error err;
};

static int arena_put(struct deb_refs *r, const void *p, size_t n, size_t *off)
{
	char *na;
	size_t ns;

	if (r->used + n > r->size) {
		ns = (r->used + n) * 2 + 4096;
		na = realloc(r->arena, ns);
		if (!na)
			return -1;
		r->arena = na;
		r->size = ns;
	}
	memcpy(r->arena + r->used, p, n);
	*off = r->used;
	r->used += n;
	return 0;
}

static int hold_ref(void *arg, const struct import_ref *ref,
		    struct imt_error *err)
{
	struct deb_refs *r = arg;
	struct held_ref *h, *nr;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 256;
		nr = realloc(r->refs, r->cap * sizeof(*nr));
		if (!nr)
			goto oom;
		r->refs = nr;
	}
	h = &r->refs[r->n];
	if (r->n && strcmp(r->arena + r->last_path, ref->path) == 0) {
		h->path_off = r->last_path;
	} else {
		if (arena_put(r, ref->path, strlen(ref->path) + 1,
			      &h->path_off))
			goto oom;
		r->last_path = h->path_off;
	}
	if (arena_put(r, ref->digest, ref->digest_len, &h->dig_off))
		goto oom;
	h->digest_len = ref->digest_len;
	h->algo = ref->algo;
	h->conffile = ref->conffile;
	r->n++;
	return 0;
oom:
	return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			     "out of memory"),
	       -1;
}

int import_deb_replay(const struct deb_refs *refs,
		      const struct import_sink *sink, struct imt_error *err)
{
	struct import_ref ref = { .kind = IMPORT_REF_FILE };
	size_t i;

	for (i = 0; i < refs->n; i++) {
		ref.path = refs->arena + refs->refs[i].path_off;
		ref.algo = refs->refs[i].algo;
		ref.digest =
			(const uint8_t *)refs->arena + refs->refs[i].dig_off;
		ref.digest_len = refs->refs[i].digest_len;
		ref.conffile = refs->refs[i].conffile;
		if (sink->ref(sink->arg, &ref, err))
			return -1;
	}
	return 0;
}

static void refs_reset(struct deb_refs *r)
{
	r->n = 0;
	r->used = 0;
}

/* The size and SHA-256 an index gave for the file. */
static int check_file(const struct deb_job *job, const uint8_t *buf, size_t len,
		      struct imt_error *err)
{
	uint8_t md[32];

	if (len != job->size)
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				     IMT_NO_POS,
				     "%s: %zu bytes, the index says %llu",
				     job->path, len,
				     (unsigned long long)job->size),
		       -1;
	if (!EVP_Digest(buf, len, md, NULL, EVP_sha256(), NULL))
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "%s: digest failure",
				     job->path),
		       -1;
	if (memcmp(md, job->sha256, sizeof(md)) != 0)
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				     IMT_NO_POS,
				     "%s: SHA256 differs from the index's",
				     job->path),
		       -1;
	return 0;
}

/* Read one job into @refs; 0, or -1 with @perr naming the file. */
static int run_job(const struct batch *b, const struct deb_job *job,
		   struct deb_refs *refs, struct deb_info *info,
		   struct imt_error *perr)
{
	const struct import_sink sink = { .ref = hold_ref, .arg = refs };
	struct imt_error e;
	struct stat st;
	void *map;
	int fd, rc = -1;

	memset(info, 0, sizeof(*info));
	fd = open(job->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size == 0) {
		imt_error_set(perr, IMT_ERR_MALFORMED, IMT_NO_POS, IMT_NO_POS,
			      "%s: %s", job->path,
			      fd < 0 ? strerror(errno) :
				       "not a non-empty regular file");
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		imt_error_set(perr, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "%s: mmap: %s", job->path, strerror(errno));
		goto out;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	if (job->sha256 && check_file(job, map, (size_t)st.st_size, perr))
		goto unmap;
	if (import_deb(map, (size_t)st.st_size, b->algos, b->nalgos, info,
		       &sink, &e)) {
		imt_error_set(perr, e.status, IMT_NO_POS, IMT_NO_POS, "%s: %s",
			      job->path, e.msg);
		goto unmap;
	}
	rc = 0;
unmap:
	munmap(map, (size_t)st.st_size);
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

/* Wait for job @i's turn; 0 when it came, -1 when the batch stopped. */
static int wait_turn(struct batch *b, size_t i)
{
	int rc;

	pthread_mutex_lock(&b->lock);
	while (b->next_deliver != i && !b->stop)
		pthread_cond_wait(&b->turn, &b->lock);
	rc = b->stop ? -1 : 0;
	pthread_mutex_unlock(&b->lock);
	return rc;
}

static void delivered(struct batch *b, int stop, const struct imt_error *e)
{
	pthread_mutex_lock(&b->lock);
	if (stop && !b->stop) {
		b->stop = 1;
		b->err = *e;
	}
	b->next_deliver++;
	pthread_cond_broadcast(&b->turn);
	pthread_mutex_unlock(&b->lock);
}

static void *worker(void *arg)
{
	struct batch *b = arg;
	struct deb_refs refs = { 0 };
	struct imt_error perr, err;
	struct deb_info info;
	size_t i;
	int ok, stop;

	for (;;) {
		pthread_mutex_lock(&b->lock);
		i = b->next_job;
		if (b->stop || i == b->njobs) {
			pthread_mutex_unlock(&b->lock);
			break;
		}
		b->next_job++;
		pthread_mutex_unlock(&b->lock);
		refs_reset(&refs);
		ok = run_job(b, &b->jobs[i], &refs, &info, &perr) == 0;
		if (wait_turn(b, i))
			break;
		imt_error_clear(&err);
		stop = b->fn(b->arg, i, &b->jobs[i], ok ? NULL : &perr, &info,
			     ok ? &refs : NULL, &err) != 0;
		delivered(b, stop, &err);
	}
	free(refs.refs);
	free(refs.arena);
	return NULL;
}

int import_deb_files(const struct deb_job *jobs, size_t njobs,
		     const char *const *algos, size_t nalgos,
		     unsigned int nthreads, deb_batch_fn fn, void *arg,
		     struct imt_error *err)
{
	struct batch b = { .jobs = jobs,
			   .njobs = njobs,
			   .algos = algos,
			   .nalgos = nalgos,
			   .fn = fn,
			   .arg = arg };
	pthread_t *t;
	unsigned int i, started = 0;

	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > njobs)
		nthreads = njobs ? (unsigned int)njobs : 1;
	t = calloc(nthreads, sizeof(*t));
	if (!t)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "out of memory"),
		       -1;
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.turn, NULL);
	for (i = 0; i < nthreads; i++) {
		if (pthread_create(&t[i], NULL, worker, &b) != 0)
			break;
		started++;
	}
	if (!started) /* the caller's thread does the work */
		worker(&b);
	for (i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	pthread_cond_destroy(&b.turn);
	pthread_mutex_destroy(&b.lock);
	free(t);
	if (b.stop) {
		if (err)
			*err = b.err;
		return -1;
	}
	return 0;
}

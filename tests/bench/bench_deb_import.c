// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench_deb_import.c - import_deb_files() over .deb files, timed.
 *
 *   bench-deb-import [-a sha256[,sha1]] [-t THREADS] [-p] [-c] FILE.deb...
 *
 * Prints one line: packages, files, uncompressed bytes hashed, seconds,
 * files/s and MB/s. -p prints each reference instead, "HEX  PATH" as
 * sha256sum does (tests/bench/deb-import and the unit tests compare).
 * A package that fails is reported on stderr and makes the exit status 1.
 * -c reads each package as POST /v1/references/deb does, in a child
 * process (import_deb_child()), one after the other: this binary is the
 * child then, as the verifier is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file.h"
#include "import_deb.h"
#include "import_deb_child.h"

struct totals {
	size_t packages, files, failed;
	unsigned long long bytes;
	int print;
};

static int print_ref(void *arg, const struct import_ref *ref,
		     struct imt_error *err)
{
	size_t i;

	(void)arg;
	(void)err;
	for (i = 0; i < ref->digest_len; i++)
		printf("%02x", ref->digest[i]);
	printf("  %s%s\n", ref->path, ref->conffile ? " conffile" : "");
	return 0;
}

static int done(void *arg, size_t index, const struct deb_job *job,
		const struct imt_error *perr, const struct deb_info *info,
		const struct deb_refs *refs, struct imt_error *err)
{
	const struct import_sink sink = { .ref = print_ref };
	struct totals *t = arg;

	(void)index;
	(void)job;
	if (perr) {
		fprintf(stderr, "bench-deb-import: %s\n", perr->msg);
		t->failed++;
		return 0;
	}
	t->packages++;
	t->files += info->files + info->control_files;
	t->bytes += info->bytes;
	return t->print ? import_deb_replay(refs, &sink, err) : 0;
}

static int count_ref(void *arg, const struct import_ref *ref,
		     struct imt_error *err)
{
	(void)ref;
	(void)err;
	(*(size_t *)arg)++;
	return 0;
}

/* Each package through the child, as the verifier's route reads it. */
static void run_children(char **paths, size_t n, const char *const *algos,
			 size_t nalgos, struct totals *t)
{
	size_t refs = 0, len, i;
	const struct import_sink sink = { .ref = count_ref, .arg = &refs };
	struct deb_info info;
	struct imt_error err;
	char why[256], *buf;

	for (i = 0; i < n; i++) {
		buf = file_read(paths[i], 1u << 30, &len, why, sizeof(why));
		if (buf == NULL ||
		    import_deb_child(IMPORT_DEB_CHILD_EXE,
				     &import_deb_child_defaults, (uint8_t *)buf,
				     len, algos, nalgos, &info, &sink, &err)) {
			fprintf(stderr, "bench-deb-import: %s: %s\n", paths[i],
				buf == NULL ? why : err.msg);
			t->failed++;
		} else {
			t->packages++;
			t->files += info.files + info.control_files;
			t->bytes += info.bytes;
		}
		free(buf);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char algo_buf[64] = "sha256", *tok, *save;
	const char *algos[IMPORT_ALGOS_MAX];
	struct totals t = { 0 };
	struct deb_job *jobs;
	struct imt_error err;
	unsigned int threads = 1;
	size_t nalgos = 0, i;
	double t0, secs;
	int opt, child = 0;

	/* the package parser child of -c (import_deb_child.h) */
	if (argc > 1 && strcmp(argv[1], IMPORT_DEB_CHILD_ARG) == 0)
		return import_deb_child_main(argc, argv);
	while ((opt = getopt(argc, argv, "a:t:pc")) != -1) {
		if (opt == 'a')
			snprintf(algo_buf, sizeof(algo_buf), "%s", optarg);
		else if (opt == 't')
			threads = (unsigned int)atoi(optarg);
		else if (opt == 'p')
			t.print = 1;
		else if (opt == 'c')
			child = 1;
		else
			return 2;
	}
	for (tok = strtok_r(algo_buf, ",", &save);
	     tok && nalgos < IMPORT_ALGOS_MAX; tok = strtok_r(NULL, ",", &save))
		algos[nalgos++] = tok;
	jobs = calloc((size_t)(argc - optind) + 1, sizeof(*jobs));
	if (!jobs)
		return 1;
	for (i = 0; i < (size_t)(argc - optind); i++)
		jobs[i].path = argv[optind + (int)i];
	t0 = now();
	if (child)
		run_children(argv + optind, i, algos, nalgos, &t);
	else if (import_deb_files(jobs, i, algos, nalgos, threads, done, &t,
				  &err)) {
		fprintf(stderr, "bench-deb-import: %s\n", err.msg);
		return 1;
	}
	secs = now() - t0;
	if (!t.print)
		printf("packages %zu files %zu bytes %llu seconds %.3f "
		       "files/s %.0f MB/s %.1f\n",
		       t.packages, t.files, t.bytes, secs, t.files / secs,
		       t.bytes / secs / 1e6);
	free(jobs);
	return t.failed ? 1 : 0;
}

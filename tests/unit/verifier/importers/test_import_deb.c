// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_deb.c - Debian packages as references: digests against
 * sha256sum/sha1sum of what dpkg-deb extracts, every compressor, conffiles,
 * hard links, the dpkg database members, and packages that are cut,
 * corrupt, misassembled or lie about their paths.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "deb_fixture.h"
#include "import_deb.h"

static const char *const sha256[] = { "sha256" };

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of @r for @algo equal those of the sums file @name. */
static void assert_sums(const struct rec *r, const char *algo, const char *name)
{
	char *want = deb_read(name, NULL), *save, *l;
	char **w = NULL, **g = NULL;
	size_t nw = 0, ng = 0, i;

	assert_non_null(want);
	for (l = strtok_r(want, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		w = realloc(w, (nw + 1) * sizeof(*w));
		w[nw++] = l;
	}
	for (i = 0; i < r->n; i++) {
		if (strcmp(r->algo[i], algo) != 0)
			continue;
		g = realloc(g, (ng + 1) * sizeof(*g));
		g[ng++] = r->lines[i];
	}
	qsort(w, nw, sizeof(*w), cmp_line);
	qsort(g, ng, sizeof(*g), cmp_line);
	assert_int_equal(ng, nw);
	for (i = 0; i < nw; i++)
		assert_string_equal(g[i], w[i]);
	free(w);
	free(g);
	free(want);
}

static int import_file(const char *name, const char *const *algos,
		       size_t nalgos, struct deb_info *info, struct rec *r,
		       struct imt_error *err)
{
	const struct import_sink sink = { .ref = rec_ref, .arg = r };
	size_t len;
	char *buf = deb_read(name, &len);
	int rc;

	assert_non_null(buf);
	rc = import_deb((const uint8_t *)buf, len, algos, nalgos, info, &sink,
			err);
	free(buf);
	return rc;
}

static const char *path_of(const struct rec *r, size_t i)
{
	return strstr(r->lines[i], "  ") + 2;
}

/* Each compressor dpkg-deb writes: the same sums as sha256sum's. */
static void test_every_compressor(void **state)
{
	static const char *const z[] = { "xz", "gzip", "zstd", "none" };
	char deb[64], sums[64];
	struct deb_info info;
	struct imt_error err;
	struct rec r = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 4; i++) {
		snprintf(deb, sizeof(deb), "hello-%s.deb", z[i]);
		snprintf(sums, sizeof(sums), "hello-%s.sha256", z[i]);
		assert_int_equal(import_file(deb, sha256, 1, &info, &r, &err),
				 0);
		assert_sums(&r, "sha256", sums);
		assert_string_equal(info.package, "hello");
		assert_string_equal(info.version, "1:2.10-3+b1");
		assert_string_equal(info.architecture, "amd64");
		assert_int_equal(info.multi_arch_same, 1);
		assert_int_equal(info.files,
				 7); /* the link and the .dpkg-new too */
		assert_int_equal(info.control_files, 9); /* info/ and tmp.ci/ */
		assert_true(info.bytes > 300000);
		rec_free(&r);
	}
}

/* Two algorithms: each file once in each, both right. */
static void test_two_algorithms(void **state)
{
	static const char *const two[] = { "sha256", "sha1" };
	struct imt_error err;
	struct rec r = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(import_file("hello-xz.deb", two, 2, NULL, &r, &err),
			 0);
	assert_sums(&r, "sha256", "hello-xz.sha256");
	assert_sums(&r, "sha1", "hello-xz.sha1");
	for (i = 0; i + 1 < r.n; i += 2) {
		assert_string_equal(r.algo[i], "sha256");
		assert_string_equal(r.algo[i + 1], "sha1");
		assert_string_equal(path_of(&r, i), path_of(&r, i + 1));
	}
	rec_free(&r);
}

/*
 * The control part comes first: every member under /var/lib/dpkg/tmp.ci/
 * (control too: dpkg unpacks it there and runs preinst from there) and
 * the dpkg database members (Multi-Arch: same: PACKAGE:ARCH), where
 * "control" is not one; conffile is set on the conffiles' paths and
 * their .dpkg-new only; a hard link has its target's digest.
 */
static void test_control_conffiles_links(void **state)
{
	struct imt_error err;
	struct rec r = { 0 };
	const char *hello = NULL, *again = NULL;
	size_t i;

	(void)state;
	assert_int_equal(import_file("hello-xz.deb", sha256, 1, NULL, &r, &err),
			 0);
	for (i = 0; i < 9; i++)
		assert_true(strstr(r.lines[i], "  /var/lib/dpkg/info/hello:"
					       "amd64.") != NULL ||
			    strstr(r.lines[i], "  /var/lib/dpkg/tmp.ci/") !=
				    NULL);
	assert_non_null(strstr(r.lines[0], "  /var/lib/dpkg/tmp.ci/control"));
	for (i = 0; i < r.n; i++) {
		assert_null(strstr(r.lines[i], ".control"));
		assert_int_equal(r.conffile[i],
				 strcmp(path_of(&r, i), "/etc/hello.conf") ==
						 0 ||
					 strcmp(path_of(&r, i),
						"/etc/hello.conf.dpkg-new") ==
						 0);
		if (i >= 9)
			assert_null(strstr(r.lines[i], "/var/lib/dpkg"));
		if (strcmp(path_of(&r, i), "/usr/bin/hello") == 0)
			hello = r.lines[i];
		if (strcmp(path_of(&r, i), "/usr/bin/hello-again") == 0)
			again = r.lines[i];
	}
	assert_non_null(hello);
	assert_non_null(again);
	assert_memory_equal(hello, again, 64);
	rec_free(&r);

	/* no Multi-Arch: PACKAGE.MEMBER; Architecture all */
	assert_int_equal(import_file("tiny.deb", sha256, 1, NULL, &r, &err), 0);
	assert_sums(&r, "sha256", "tiny.sha256");
	rec_free(&r);
}

struct bad_case {
	const char *deb;
	const char *msg; /* in the error */
};

/* Misassembled packages: errors naming the member and the field. */
static void test_bad_packages(void **state)
{
	static const struct bad_case cases[] = {
		{ "noversion.deb",
		  "control.tar.xz: control: no Version field" },
		{ "nocontrol.deb", "where control.tar was expected" },
		{ "swapped.deb", "where control.tar was expected" },
		{ "version3.deb", "debian-binary is not \"2.x\"" },
		{ "ctlup.deb", "control.tar.xz: ./../postinst: not a control "
			       "file name" },
		{ "ctltwice.deb", "control.tar.xz: ./postinst: twice" },
		{ "ctldir.deb", "control.tar.xz: ./sub/: not a regular file" },
		/* control part fine: the caller's transaction drops it */
		{ "nodata.deb", "not a Debian package: no data.tar member" },
		{ "escape.deb", "data.tar.xz: ./../evil: bad path" },
		{ "misnamed.deb", "data.tar.xz: not a xz tar" },
		{ "badlink.deb", "data.tar.xz: ./usr/bin/b: hard link to "
				 "./usr/bin/missing, no file before it" },
	};
	struct imt_error err;
	struct rec r = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(import_file(cases[i].deb, sha256, 1, NULL, &r,
					     &err),
				 -1);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("%s: \"%s\"", cases[i].deb, err.msg);
		/* a bad control part gives nothing at all */
		if (i < 7)
			assert_int_equal(r.n, 0);
		rec_free(&r);
	}
}

/* Not an ar at all, or an empty buffer. */
static void test_not_a_package(void **state)
{
	const struct import_sink sink = { .ref = rec_ref };
	struct imt_error err;
	struct rec r = { 0 };

	(void)state;
	assert_int_equal(import_deb((const uint8_t *)"hello", 5, sha256, 1,
				    NULL, &sink, &err),
			 -1);
	assert_non_null(strstr(err.msg, "not a Debian package"));
	assert_int_equal(import_deb((const uint8_t *)"", 0, sha256, 1, NULL,
				    &sink, &err),
			 -1);
	assert_non_null(strstr(err.msg, "not a Debian package"));
	(void)r;
}

/*
 * Cut anywhere: an error, every time. Cut before the data part: the sink
 * got nothing. Checked for each compressor.
 */
static void test_truncated(void **state)
{
	static const char *const debs[] = { "hello-xz.deb", "hello-gzip.deb",
					    "hello-zstd.deb",
					    "hello-none.deb" };
	struct rec r = { 0 };
	const struct import_sink sink = { .ref = rec_ref, .arg = &r };
	struct imt_error err;
	size_t len, cut, d, data_at;
	char *buf;

	(void)state;
	for (d = 0; d < 4; d++) {
		buf = deb_read(debs[d], &len);
		assert_non_null(buf);
		data_at =
			(size_t)((char *)memmem(buf, len, "data.tar", 8) - buf);
		for (cut = 0; cut < len; cut += len / 97 + 1) {
			assert_int_equal(import_deb((uint8_t *)buf, cut, sha256,
						    1, NULL, &sink, &err),
					 -1);
			if (cut < data_at)
				assert_int_equal(r.n, 0);
			rec_free(&r);
		}
		/* the last bytes too (a data.tar's end, the xz index) */
		for (cut = len - 64; cut < len - 1; cut++) {
			if (import_deb((uint8_t *)buf, cut, sha256, 1, NULL,
				       &sink, &err) == 0)
				fail_msg("%s cut at %zu of %zu imported",
					 debs[d], cut, len);
			rec_free(&r);
		}
		free(buf);
	}
}

/* A byte flipped in data.tar.xz: an error naming the member. */
static void test_flipped_byte(void **state)
{
	struct rec r = { 0 };
	const struct import_sink sink = { .ref = rec_ref, .arg = &r };
	struct imt_error err;
	size_t len, at, i;
	char *buf = deb_read("hello-xz.deb", &len);

	(void)state;
	assert_non_null(buf);
	at = (size_t)((char *)memmem(buf, len, "data.tar.xz", 11) - buf) + 60;
	for (i = 0; i < 8; i++) {
		size_t pos = at + 100 + i * (len - at - 200) / 8;

		buf[pos] ^= 0x20;
		assert_int_equal(import_deb((uint8_t *)buf, len, sha256, 1,
					    NULL, &sink, &err),
				 -1);
		assert_non_null(strstr(err.msg, "data.tar.xz: "));
		buf[pos] ^= 0x20;
		rec_free(&r);
	}
	free(buf);
}

/* The sink's error stops the import and comes back unchanged. */
static void test_sink_error(void **state)
{
	struct rec r = { .fail_at = 3 };
	struct imt_error err;

	(void)state;
	assert_int_equal(import_file("hello-xz.deb", sha256, 1, NULL, &r, &err),
			 -1);
	assert_string_equal(err.msg, "the sink says no");
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_int_equal(r.n, 2);
	rec_free(&r);
}

static void test_bad_algorithms(void **state)
{
	static const char *const unknown[] = { "sha256", "nosuch" };
	static const char *const five[] = { "sha1", "sha1", "sha1", "sha1",
					    "sha1" };
	struct imt_error err;
	struct rec r = { 0 };

	(void)state;
	assert_int_equal(import_file("tiny.deb", unknown, 2, NULL, &r, &err),
			 -1);
	assert_non_null(strstr(err.msg, "\"nosuch\""));
	assert_int_equal(import_file("tiny.deb", five, 5, NULL, &r, &err), -1);
	assert_int_equal(r.n, 0);
}

struct order {
	size_t next, failed, refs;
	size_t stop_at; /* stop the batch at this index (0: never) */
};

static int in_order(void *arg, size_t index, const struct deb_job *job,
		    const struct imt_error *perr, const struct deb_info *info,
		    const struct deb_refs *refs, struct imt_error *err)
{
	struct order *o = arg;
	struct rec r = { 0 };
	const struct import_sink sink = { .ref = rec_ref, .arg = &r };

	assert_int_equal(index, o->next);
	o->next++;
	if (perr) {
		assert_non_null(strstr(perr->msg, job->path));
		assert_null(refs);
		o->failed++;
	} else {
		assert_int_equal(import_deb_replay(refs, &sink, err), 0);
		assert_int_equal(r.n, info->files + info->control_files);
		o->refs += r.n;
		rec_free(&r);
	}
	if (o->stop_at && index == o->stop_at)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "stop"),
		       -1;
	return 0;
}

/*
 * Two threads over 40 jobs: delivered in job order, one at a time, a bad
 * one reported in its place; a stop ends the batch there.
 */
static void test_files_threads(void **state)
{
	static const char *const names[] = { "hello-xz.deb", "tiny.deb",
					     "hello-gzip.deb", "nodata.deb",
					     "hello-zstd.deb" };
	char paths[5][512];
	struct deb_job jobs[40];
	struct order o = { 0 };
	struct imt_error err;
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", deb_dir,
			 names[i]);
	memset(jobs, 0, sizeof(jobs));
	for (i = 0; i < 40; i++)
		jobs[i].path = paths[i % 5];
	assert_int_equal(import_deb_files(jobs, 40, sha256, 1, 2, in_order, &o,
					  &err),
			 0);
	assert_int_equal(o.next, 40);
	assert_int_equal(o.failed, 8);
	assert_int_equal(o.refs,
			 8 * (16 + 2 + 16 + 16)); /* the .sha256 lines */

	memset(&o, 0, sizeof(o));
	o.stop_at = 7;
	assert_int_equal(import_deb_files(jobs, 40, sha256, 1, 2, in_order, &o,
					  &err),
			 -1);
	assert_string_equal(err.msg, "stop");
	assert_int_equal(o.next, 8);
}

/* A job's size and SHA-256 are checked before it is read. */
static void test_files_checked(void **state)
{
	uint8_t wrong[32] = { 0 };
	char path[512];
	struct deb_job job = { .path = path, .size = 708, .sha256 = wrong };
	struct order o = { 0 };
	struct imt_error err;

	(void)state;
	snprintf(path, sizeof(path), "%s/tiny.deb", deb_dir);
	assert_int_equal(import_deb_files(&job, 1, sha256, 1, 1, in_order, &o,
					  &err),
			 0);
	assert_int_equal(o.failed, 1);
}

static int count_ref(void *arg, const struct import_ref *ref,
		     struct imt_error *err)
{
	(void)ref;
	(void)err;
	(*(size_t *)arg)++;
	return 0;
}

/* make-deb-bomb.py ARGS into deb_dir/NAME, imported in sha256. */
static int bomb(const char *name, const char *args, size_t *refs,
		struct deb_info *info, struct imt_error *err)
{
	const struct import_sink sink = { .ref = count_ref, .arg = refs };
	char cmd[1024];
	size_t len;
	char *buf;
	int rc;

	snprintf(cmd, sizeof(cmd), "%s/deb/make-deb-bomb.py %s %s/%s",
		 FIXTURE_DIR, args, deb_dir, name);
	assert_int_equal(system(cmd), 0);
	buf = deb_read(name, &len);
	assert_non_null(buf);
	*refs = 0;
	rc = import_deb((const uint8_t *)buf, len, sha256, 1, info, &sink, err);
	free(buf);
	return rc;
}

/*
 * What a package may cost (issue 33): DEB_FILES_MAX files pass, one
 * more is refused; 70,000 paths of 1,000 bytes pass DEB_PATH_BYTES_MAX;
 * 128 MiB of zeros in 0.6 MB pass DEB_RATIO_MAX. Each refusal names the
 * limit and the value reached.
 */
static void test_limits(void **state)
{
	struct deb_info info;
	struct imt_error err;
	char args[64];
	size_t refs;

	(void)state;
	snprintf(args, sizeof(args), "files %u 30", DEB_FILES_MAX);
	assert_int_equal(bomb("max.deb", args, &refs, &info, &err), 0);
	assert_int_equal(info.files, DEB_FILES_MAX);
	snprintf(args, sizeof(args), "files %u 30", DEB_FILES_MAX + 1);
	assert_int_equal(bomb("over.deb", args, &refs, &info, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	if (!strstr(err.msg, "limit DEB_FILES_MAX reached: 250001 files"))
		fail_msg("%s", err.msg);
	assert_int_equal(bomb("paths.deb", "files 70000 1000", &refs, &info,
			      &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	if (!strstr(err.msg, "limit DEB_PATH_BYTES_MAX reached"))
		fail_msg("%s", err.msg);
	assert_true(refs < 70000);
	assert_int_equal(bomb("zeros.deb", "zeros 128", &refs, &info, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	if (!strstr(err.msg, "limit DEB_RATIO_MAX reached"))
		fail_msg("%s", err.msg);
	/* refused as it passed the limit, not at the end */
	assert_true(info.bytes < (100u << 20));
	assert_int_equal(bomb("zeros-small.deb", "zeros 32", &refs, &info,
			      &err),
			 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_compressor),
		cmocka_unit_test(test_two_algorithms),
		cmocka_unit_test(test_control_conffiles_links),
		cmocka_unit_test(test_bad_packages),
		cmocka_unit_test(test_not_a_package),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_flipped_byte),
		cmocka_unit_test(test_sink_error),
		cmocka_unit_test(test_bad_algorithms),
		cmocka_unit_test(test_files_threads),
		cmocka_unit_test(test_files_checked),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, deb_fixture_setup,
				      deb_fixture_teardown);
}

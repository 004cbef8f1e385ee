// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_deb_child.c - a .deb parsed in a child process: the same
 * references as import_deb() in the process, the child's errors as its
 * own, and a child stopped by its RLIMIT_CPU or RLIMIT_AS, or past the
 * wall clock limit, a clean error naming the limit. This binary is the
 * child too (main() below), as the verifier is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "deb_fixture.h"
#include "import_deb.h"
#include "import_deb_child.h"

#define SELF "/proc/self/exe"
#define TEST_SPIN_ENV "IMT_TEST_CHILD_SPIN" /* the child only burns */

static const char *const four[] = { "sha256", "sha1", "sha512", "sha384" };
static const char *const sha256[] = { "sha256" };

static int in_child(const char *name, const struct import_deb_child_limits *l,
		    const char *const *algos, size_t nalgos,
		    struct deb_info *info, struct rec *r, struct imt_error *err)
{
	const struct import_sink sink = { .ref = rec_ref, .arg = r };
	size_t len;
	char *buf = deb_read(name, &len);
	int rc;

	assert_non_null(buf);
	rc = import_deb_child(SELF, l, (const uint8_t *)buf, len, algos, nalgos,
			      info, &sink, err);
	free(buf);
	return rc;
}

/* Every reference, in order, and the package: as import_deb() says. */
static void test_same_as_in_process(void **state)
{
	static const char *const debs[] = { "hello-xz.deb", "hello-gzip.deb",
					    "hello-zstd.deb", "tiny.deb" };
	struct deb_info a, b;
	struct rec ra = { 0 }, rb = { 0 };
	const struct import_sink sink = { .ref = rec_ref, .arg = &rb };
	struct imt_error err;
	size_t i, j, len;
	char *buf;

	(void)state;
	for (i = 0; i < sizeof(debs) / sizeof(debs[0]); i++) {
		assert_int_equal(in_child(debs[i], &import_deb_child_defaults,
					  four, 4, &a, &ra, &err),
				 0);
		buf = deb_read(debs[i], &len);
		assert_int_equal(import_deb((const uint8_t *)buf, len, four, 4,
					    &b, &sink, &err),
				 0);
		free(buf);
		assert_int_equal(ra.n, rb.n);
		for (j = 0; j < ra.n; j++) {
			assert_string_equal(ra.lines[j], rb.lines[j]);
			assert_string_equal(ra.algo[j], rb.algo[j]);
			assert_int_equal(ra.conffile[j], rb.conffile[j]);
		}
		assert_string_equal(a.package, b.package);
		assert_string_equal(a.version, b.version);
		assert_string_equal(a.architecture, b.architecture);
		assert_int_equal(a.multi_arch_same, b.multi_arch_same);
		assert_int_equal(a.files, b.files);
		assert_int_equal(a.control_files, b.control_files);
		assert_int_equal(a.bytes, b.bytes);
		rec_free(&ra);
		rec_free(&rb);
	}
}

/* The child's error is import_deb()'s, status and message. */
static void test_child_errors(void **state)
{
	const struct import_sink sink = { .ref = rec_ref };
	struct imt_error err;
	struct rec r = { 0 };

	(void)state;
	assert_int_equal(in_child("escape.deb", &import_deb_child_defaults,
				  sha256, 1, NULL, &r, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_non_null(strstr(err.msg, "data.tar.xz: ./../evil: bad path"));
	rec_free(&r);
	assert_int_equal(import_deb_child(SELF, &import_deb_child_defaults,
					  (const uint8_t *)"", 0, sha256, 1,
					  NULL, &sink, &err),
			 -1);
	assert_non_null(strstr(err.msg, "not a Debian package"));
	assert_int_equal(import_deb_child(SELF, &import_deb_child_defaults,
					  (const uint8_t *)"x", 1, four, 5,
					  NULL, &sink, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
}

/* A child that does not start is an error, not a hang. */
static void test_no_child(void **state)
{
	const struct import_sink sink = { .ref = rec_ref };
	struct imt_error err;

	(void)state;
	assert_int_equal(import_deb_child("/nonexistent/imatrust",
					  &import_deb_child_defaults,
					  (const uint8_t *)"x", 1, sha256, 1,
					  NULL, &sink, &err),
			 -1);
	assert_true(err.status == IMT_ERR_INTERNAL ||
		    err.status == IMT_ERR_MALFORMED);
}

/* RLIMIT_CPU of 1 s: the child is stopped by SIGXCPU, a LIMIT error. */
static void test_cpu_limit(void **state)
{
	const struct import_deb_child_limits l = { 0, 1, 30 };
	const struct import_sink sink = { .ref = rec_ref };
	struct imt_error err;

	(void)state;
	setenv(TEST_SPIN_ENV, "1", 1);
	assert_int_equal(import_deb_child(SELF, &l, (const uint8_t *)"x", 1,
					  sha256, 1, NULL, &sink, &err),
			 -1);
	unsetenv(TEST_SPIN_ENV);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	if (!strstr(err.msg, "limit IMPORT_DEB_CHILD_CPU_MAX reached") ||
	    !strstr(err.msg, "SIGXCPU"))
		fail_msg("%s", err.msg);
}

/* A child past the wall clock limit is killed: a LIMIT error too. */
static void test_wall_limit(void **state)
{
	const struct import_deb_child_limits l = { 0, 30, 1 };
	const struct import_sink sink = { .ref = rec_ref };
	struct imt_error err;

	(void)state;
	setenv(TEST_SPIN_ENV, "1", 1);
	assert_int_equal(import_deb_child(SELF, &l, (const uint8_t *)"x", 1,
					  sha256, 1, NULL, &sink, &err),
			 -1);
	unsetenv(TEST_SPIN_ENV);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_non_null(
		strstr(err.msg, "limit IMPORT_DEB_CHILD_WALL_MAX reached"));
}

/*
 * RLIMIT_AS of 32 MiB more than the child starts with: xz -9's decoder
 * wants a 64 MiB dictionary, and gets a LIMIT error naming the memory
 * limit, nothing given.
 */
/* Not under ASan: its shadow memory needs no RLIMIT_AS (the child skips
 * the limit there, import_deb_child_confine()), so the test is not built. */
#ifndef __SANITIZE_ADDRESS__
static void test_memory_limit(void **state)
{
	struct import_deb_child_limits l = { 32u << 20, 30, 30 };
	struct imt_error err;
	struct rec r = { 0 };
	unsigned long long vm = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	(void)state;
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "VmSize: %llu kB", &vm);
	if (f)
		fclose(f);
	assert_true(vm > 0);
	l.as_bytes += vm << 10;
	assert_int_equal(in_child("xz9.deb", &l, sha256, 1, NULL, &r, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	if (!strstr(err.msg, "IMPORT_DEB_CHILD_AS_MAX"))
		fail_msg("%s", err.msg);
	rec_free(&r);
	/* the same package under the default limits */
	assert_int_equal(in_child("xz9.deb", &import_deb_child_defaults, sha256,
				  1, NULL, &r, &err),
			 0);
	rec_free(&r);
}
#endif

/* xz9.deb: a package whose data.tar.xz needs a 64 MiB dictionary. */
static int setup(void **state)
{
	char cmd[1024];

	if (deb_fixture_setup(state))
		return -1;
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; mkdir -p x9/DEBIAN x9/usr/bin; "
		 "printf 'Package: x9\\nVersion: 1\\nArchitecture: all\\n"
		 "Maintainer: t <t@example.org>\\nDescription: t\\n' "
		 ">x9/DEBIAN/control; echo hi >x9/usr/bin/x9; "
		 "tar -C x9/DEBIAN -czf control.tar.gz ./control; "
		 "tar -C x9 --exclude=DEBIAN -cf - ./usr | xz -9 >data.tar.xz; "
		 "echo 2.0 >debian-binary; "
		 "ar qc xz9.deb debian-binary control.tar.gz data.tar.xz",
		 deb_dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_in_process),
		cmocka_unit_test(test_child_errors),
		cmocka_unit_test(test_no_child),
		cmocka_unit_test(test_cpu_limit),
		cmocka_unit_test(test_wall_limit),
#ifndef __SANITIZE_ADDRESS__
		cmocka_unit_test(test_memory_limit),
#endif
	};

	/* the child, as the verifier's main() starts it */
	if (argc > 4 && strcmp(argv[1], IMPORT_DEB_CHILD_ARG) == 0) {
		if (getenv(TEST_SPIN_ENV) == NULL)
			return import_deb_child_main(argc, argv);
		if (import_deb_child_confine(0, strtoul(argv[4], NULL, 10)))
			return 2;
		for (;;)
			;
	}
	return cmocka_run_group_tests(tests, setup, deb_fixture_teardown);
}

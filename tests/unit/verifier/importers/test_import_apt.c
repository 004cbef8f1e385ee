// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_apt.c - apt archive indexes: what dpkg-scanpackages and
 * apt-ftparchive write (plain, gzip, xz; flat and mirror layouts), indexes
 * cut short or missing a field, and archives whose files are not what
 * their index says.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "deb_fixture.h"
#include "hex.h"
#include "import_apt.h"

static const char *const sha256[] = { "sha256" };

struct seen {
	size_t n;
	char pkg[8][64], ver[8][64], arch[8][64], file[8][256], path[8][512];
	uint64_t size[8];
	uint8_t sha[8][32];
};

static int see(void *arg, const struct apt_entry *e, struct imt_error *err)
{
	struct seen *s = arg;

	(void)err;
	assert_true(s->n < 8);
	snprintf(s->pkg[s->n], 64, "%s", e->package);
	snprintf(s->ver[s->n], 64, "%s", e->version);
	snprintf(s->arch[s->n], 64, "%s", e->architecture);
	snprintf(s->file[s->n], 256, "%s", e->filename);
	snprintf(s->path[s->n], 512, "%s", e->path ? e->path : "");
	s->size[s->n] = e->size;
	memcpy(s->sha[s->n], e->sha256, 32);
	s->n++;
	return 0;
}

static int parse(const char *text, size_t len, struct seen *s,
		 struct imt_error *err)
{
	memset(s, 0, sizeof(*s));
	return import_apt_index((const uint8_t *)text, len, see, s, err);
}

/* Entry @i is the fixture file @deb: its size and sha256sum. */
static void assert_entry_is(const struct seen *s, size_t i, const char *deb)
{
	char cmd[600], hex[65];
	size_t len;
	char *buf = deb_read(deb, &len);
	FILE *p;

	assert_non_null(buf);
	assert_int_equal(s->size[i], len);
	free(buf);
	snprintf(cmd, sizeof(cmd), "sha256sum %s/%s", deb_dir, deb);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(hex, sizeof(hex), p));
	pclose(p);
	{
		uint8_t want[32];

		assert_int_equal(hex_decode(hex, 64, want, 32), 32);
		assert_memory_equal(s->sha[i], want, 32);
	}
}

/* dpkg-scanpackages: plain, .xz and .gz give the same entries. */
static void test_scanpackages(void **state)
{
	static const char *const names[] = { "flat/Packages",
					     "flat/Packages.xz",
					     "flat/Packages.gz" };
	struct imt_error err;
	struct seen s;
	size_t i, len;
	char *buf;

	(void)state;
	for (i = 0; i < 3; i++) {
		buf = deb_read(names[i], &len);
		assert_non_null(buf);
		assert_int_equal(parse(buf, len, &s, &err), 0);
		free(buf);
		assert_int_equal(s.n, 2);
		assert_string_equal(s.pkg[0], "hello");
		assert_string_equal(s.ver[0], "1:2.10-3+b1");
		assert_string_equal(s.arch[0], "amd64");
		assert_string_equal(s.file[0], "./hello-xz.deb");
		assert_string_equal(s.pkg[1], "tiny");
		assert_string_equal(s.arch[1], "all");
		assert_entry_is(&s, 0, "hello-xz.deb");
		assert_entry_is(&s, 1, "tiny.deb");
	}
}

/* A flat apt-ftparchive archive and a mirror, found and listed. */
static void test_archive_layouts(void **state)
{
	char dir[512];
	struct imt_error err;
	struct seen s;
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/ftp", deb_dir);
	memset(&s, 0, sizeof(s));
	assert_int_equal(apt_archive_each(dir, see, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_entry_is(&s, 0, "hello-gzip.deb");
	assert_non_null(strstr(s.path[0], "/ftp/hello-gzip.deb"));
	assert_int_equal(stat(s.path[0], &st), 0);

	snprintf(dir, sizeof(dir), "%s/mirror", deb_dir);
	memset(&s, 0, sizeof(s));
	assert_int_equal(apt_archive_each(dir, see, &s, &err), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.file[0], "pool/main/hello-zstd.deb");
	assert_entry_is(&s, 0, "hello-zstd.deb");
	assert_int_equal(stat(s.path[1], &st), 0);

	snprintf(dir, sizeof(dir), "%s/nonesuch", deb_dir);
	assert_int_equal(apt_archive_each(dir, see, &s, &err), -1);
	assert_non_null(strstr(err.msg, "no Packages index"));
}

/* An xz index cut in half: an error naming where, and no entry. */
static void test_index_cut(void **state)
{
	static const char *const names[] = { "flat/Packages.xz",
					     "flat/Packages.gz" };
	struct imt_error err;
	struct seen s;
	size_t len, i;
	char *buf;

	(void)state;
	for (i = 0; i < 2; i++) {
		buf = deb_read(names[i], &len);
		assert_non_null(buf);
		assert_int_equal(parse(buf, len / 2, &s, &err), -1);
		if (!strstr(err.msg, "stream truncated or corrupt"))
			fail_msg("%s: %s", names[i], err.msg);
		assert_int_equal(s.n, 0);
		/* and a flipped byte in the compressed stream */
		buf[len / 2] ^= 1;
		if (parse(buf, len, &s, &err) != -1)
			fail_msg("%s: a flipped byte parsed", names[i]);
		assert_int_equal(s.n, 0);
		free(buf);
	}
}

/*
 * gzip, member by member: two members parse as one index of both, and a
 * changed CRC-32 or length in a member's trailer is an error (libarchive,
 * which read them before, checked neither).
 */
static void test_gzip_members(void **state)
{
	struct imt_error err;
	struct seen s;
	size_t len, n1;
	char *buf, *two;

	(void)state;
	buf = deb_read("flat/Packages.gz", &len);
	assert_non_null(buf);
	assert_int_equal(parse(buf, len, &s, &err), 0);
	n1 = s.n;
	assert_true(n1 > 0 && 2 * n1 <= 8);
	two = malloc(2 * len);
	assert_non_null(two);
	memcpy(two, buf, len);
	memcpy(two + len, buf, len);
	assert_int_equal(parse(two, 2 * len, &s, &err), 0);
	assert_int_equal(s.n, 2 * n1);
	/* the first member's CRC-32, then the last member's length */
	two[len - 8] ^= 1;
	assert_int_equal(parse(two, 2 * len, &s, &err), -1);
	if (!strstr(err.msg, "gzip stream truncated or corrupt"))
		fail_msg("%s", err.msg);
	two[len - 8] ^= 1;
	two[2 * len - 1] ^= 1;
	assert_int_equal(parse(two, 2 * len, &s, &err), -1);
	free(two);
	free(buf);
}

struct bad_index {
	const char *text;
	const char *msg;
};

#define GOOD_A \
	"Package: a\nVersion: 1\nArchitecture: all\nFilename: a.deb\n" \
	"Size: 10\nSHA256: " \
	"0000000000000000000000000000000000000000000000000000000000000000\n"

/* A big index cut: the last stanza it got to is named. */
static void test_big_index_cut(void **state)
{
	struct imt_error err;
	struct seen s;
	size_t len;
	char *buf = deb_read("big/Packages.xz", &len);
	const char *in;
	unsigned int n;
	char pkg[32];

	(void)state;
	assert_non_null(buf);
	assert_int_equal(parse(buf, len / 2, &s, &err), -1);
	assert_int_equal(s.n, 0);
	in = strstr(err.msg, "(in stanza ");
	if (!in)
		fail_msg("%s", err.msg);
	assert_int_equal(sscanf(in, "(in stanza %u, Package %31[^)])", &n, pkg),
			 2);
	assert_true(n > 100);
	{
		char want[32];

		snprintf(want, sizeof(want), "p%u", n);
		assert_string_equal(pkg, want);
	}
	free(buf);
}

/* Each required field missing or bad: the stanza and the field named,
 * and nothing given, not even the good stanza before it. */
static void test_index_fields(void **state)
{
	static const struct bad_index cases[] = {
		{ GOOD_A "\nPackage: b\nVersion: 1\nArchitecture: all\n"
			 "Filename: b.deb\nSize: 1\n",
		  "stanza 2 (Package b): no SHA256 field" },
		{ GOOD_A "\nPackage: b\nVersion: 1\nArchitecture: all\n"
			 "Filename: b.deb\nSize: 1\nSHA256: 00zz\n",
		  "stanza 2 (Package b): bad SHA256 field" },
		{ GOOD_A "\nPackage: b\nArchitecture: all\nFilename: b.deb\n",
		  "stanza 2 (Package b): no Version field" },
		{ GOOD_A "\nVersion: 1\n", "stanza 2 (Package ?): no Package" },
		{ GOOD_A "\nPackage: b\nVersion: 1\nArchitecture: all\n"
			 "Filename: ../../etc/b.deb\n",
		  "stanza 2 (Package b): bad Filename field" },
		{ GOOD_A "\nPackage: b\nVersion: 1\nArchitecture: all\n"
			 "Filename: /etc/b.deb\n",
		  "stanza 2 (Package b): bad Filename field" },
		{ GOOD_A "\nPackage: b\nVersion: 1\nArchitecture: all\n"
			 "Filename: b.deb\nSize: 12x\n",
		  "stanza 2 (Package b): bad Size field" },
		{ GOOD_A "\nPackage: b\nVersion: 1\nArchitecture: all\n"
			 "Filename: b.deb\n",
		  "stanza 2 (Package b): no Size field" },
		{ GOOD_A "\n continued\n", "stanza 2: line 8:" },
		{ GOOD_A "\nPackage b\n", "stanza 2: line 8:" },
	};
	struct imt_error err;
	struct seen s;
	size_t i;

	(void)state;
	assert_int_equal(parse(GOOD_A, strlen(GOOD_A), &s, &err), 0);
	assert_int_equal(s.n, 1);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(parse(cases[i].text, strlen(cases[i].text), &s,
				       &err),
				 -1);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: \"%s\"", i, err.msg);
		assert_int_equal(s.n, 0);
	}
	/* an empty index has no packages */
	assert_int_equal(parse("", 0, &s, &err), 0);
	assert_int_equal(s.n, 0);
}

struct imp {
	size_t ok, bad, refs;
	char why[4][256];
};

static int imported(void *arg, const struct apt_entry *e,
		    const struct imt_error *perr, const struct deb_info *info,
		    const struct deb_refs *refs, struct imt_error *err)
{
	struct imp *m = arg;
	struct rec r = { 0 };
	const struct import_sink sink = { .ref = rec_ref, .arg = &r };

	assert_non_null(e->path);
	if (perr) {
		assert_null(refs);
		snprintf(m->why[m->bad++ % 4], 256, "%s", perr->msg);
		return 0;
	}
	assert_string_equal(info->package, e->package);
	assert_int_equal(import_deb_replay(refs, &sink, err), 0);
	m->refs += r.n;
	rec_free(&r);
	m->ok++;
	return 0;
}

static void run(const char *cmd)
{
	char c[2048];

	snprintf(c, sizeof(c), "cd %s && %s", deb_dir, cmd);
	assert_int_equal(system(c), 0);
}

/*
 * A whole archive imported; then one whose .deb was replaced (same size,
 * another SHA-256), one grown, and one whose index names another package
 * for a file: each an error naming the file, the others imported.
 */
static void test_archive_import(void **state)
{
	char dir[512];
	struct imt_error err;
	struct imp m = { 0 };

	(void)state;
	snprintf(dir, sizeof(dir), "%s/flat", deb_dir);
	assert_int_equal(apt_archive_import(dir, sha256, 1, 2, imported, &m,
					    &err),
			 0);
	assert_int_equal(m.ok, 2);
	assert_int_equal(m.bad, 0);
	assert_int_equal(m.refs, 16 + 2); /* hello-xz, tiny (.sha256 lines) */

	run("cp -r flat swap && cp hello-gzip.deb swap/hello-xz.deb && "
	    "truncate -r flat/hello-xz.deb swap/hello-xz.deb && "
	    "rm swap/Packages");
	snprintf(dir, sizeof(dir), "%s/swap", deb_dir);
	memset(&m, 0, sizeof(m));
	assert_int_equal(apt_archive_import(dir, sha256, 1, 1, imported, &m,
					    &err),
			 0);
	assert_int_equal(m.ok, 1);
	assert_int_equal(m.bad, 1);
	if (!strstr(m.why[0], "swap/hello-xz.deb: SHA256 differs"))
		fail_msg("%s", m.why[0]);

	run("cp -r flat grow && echo x >>grow/tiny.deb");
	snprintf(dir, sizeof(dir), "%s/grow", deb_dir);
	memset(&m, 0, sizeof(m));
	assert_int_equal(apt_archive_import(dir, sha256, 1, 1, imported, &m,
					    &err),
			 0);
	assert_int_equal(m.bad, 1);
	assert_non_null(strstr(m.why[0], "grow/tiny.deb: "));
	assert_non_null(strstr(m.why[0], " bytes, the index says "));

	run("cp -r flat liar && sed -i 's/^Package: tiny/Package: sudo/' "
	    "liar/Packages");
	snprintf(dir, sizeof(dir), "%s/liar", deb_dir);
	memset(&m, 0, sizeof(m));
	assert_int_equal(apt_archive_import(dir, sha256, 1, 1, imported, &m,
					    &err),
			 0);
	assert_int_equal(m.bad, 1);
	assert_non_null(strstr(m.why[0], "the index says sudo 0.1 all, the "
					 "package is tiny 0.1 all"));

	/* a broken index: nothing imported, the index file named */
	run("mkdir cut && head -c 200 flat/Packages.xz >cut/Packages.xz");
	snprintf(dir, sizeof(dir), "%s/cut", deb_dir);
	memset(&m, 0, sizeof(m));
	assert_int_equal(apt_archive_import(dir, sha256, 1, 1, imported, &m,
					    &err),
			 -1);
	assert_non_null(strstr(err.msg, "cut/Packages.xz: "));
	assert_int_equal(m.ok + m.bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scanpackages),
		cmocka_unit_test(test_archive_layouts),
		cmocka_unit_test(test_index_cut),
		cmocka_unit_test(test_gzip_members),
		cmocka_unit_test(test_big_index_cut),
		cmocka_unit_test(test_index_fields),
		cmocka_unit_test(test_archive_import),
	};

	return cmocka_run_group_tests(tests, deb_fixture_setup,
				      deb_fixture_teardown);
}

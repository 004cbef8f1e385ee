// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_import_deb_wire.c - the package parser child's frames as the
 * verifier reads them: a good stream given whole and byte by byte, and
 * each way a child could lie or run over (a bad version, frame, path or
 * end, files or path bytes past the package limits counted again, more
 * work than DEB_WORK_MAX, a frame after the end), each refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "import_deb_wire.h"

static const char *const two[] = { "sha256", "sha1" };

struct stream {
	uint8_t *b;
	size_t n, cap;
};

static void put(struct stream *s, const void *p, size_t n)
{
	if (s->n + n > s->cap) {
		s->cap = (s->n + n) * 2 + 64;
		s->b = realloc(s->b, s->cap);
		assert_non_null(s->b);
	}
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void frame(struct stream *s, uint8_t type, const void *p, size_t n)
{
	uint8_t h[IMPORT_DEB_WIRE_HEADER];

	import_deb_wire_frame(h, type, (uint32_t)n);
	put(s, h, sizeof(h));
	put(s, p, n);
}

static void file(struct stream *s, const char *path, int conffile)
{
	uint8_t f[53 + IMPORT_DEB_WIRE_PATH_MAX + 1];
	size_t n = strlen(path);

	f[0] = (uint8_t)conffile;
	memset(f + 1, 0xab, 32);
	memset(f + 33, 0xcd, 20);
	memcpy(f + 53, path, n);
	frame(s, 'F', f, 53 + n);
}

static void be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void end(struct stream *s, uint64_t files, uint64_t ctl, uint64_t bytes)
{
	static const char names[] = "pkg\0"
				    "1.0\0"
				    "all";
	uint8_t e[25 + sizeof(names)];

	be64(e, files);
	be64(e + 8, ctl);
	be64(e + 16, bytes);
	e[24] = 0;
	memcpy(e + 25, names, sizeof(names));
	frame(s, 'E', e, sizeof(e));
}

static void version(struct stream *s)
{
	frame(s, 'V', &(uint8_t){ IMPORT_DEB_WIRE_VERSION }, 1);
}

static int count_ref(void *arg, const struct import_ref *r,
		     struct imt_error *err)
{
	size_t *n = arg;

	(void)err;
	assert_true(r->path[0] == '/');
	(*n)++;
	return 0;
}

/* Read @s whole: 0 or -1, and the reader's state. */
static int read_all(const struct stream *s, struct import_deb_wire_reader *r,
		    size_t *refs, struct imt_error *err)
{
	static struct import_sink sink = { .ref = count_ref };
	size_t used;

	sink.arg = refs;
	*refs = 0;
	assert_int_equal(import_deb_wire_reader_init(r, two, 2, &sink, err), 0);
	if (import_deb_wire_read(r, s->b, s->n, &used, err))
		return -1;
	assert_int_equal(used, s->n);
	return 0;
}

static void test_good_stream(void **state)
{
	static struct import_sink sink = { .ref = count_ref };
	struct import_deb_wire_reader r;
	struct stream s = { 0 };
	struct imt_error err;
	size_t refs, used, have = 0, i;

	(void)state;
	version(&s);
	file(&s, "/var/lib/dpkg/info/pkg.postinst", 0);
	file(&s, "/etc/pkg.conf", 1);
	file(&s, "/usr/bin/pkg", 0);
	end(&s, 2, 1, 12345);
	assert_int_equal(read_all(&s, &r, &refs, &err), 0);
	assert_int_equal(r.state, IMPORT_DEB_WIRE_DONE);
	assert_int_equal(refs, 6);
	assert_string_equal(r.info.package, "pkg");
	assert_string_equal(r.info.architecture, "all");
	assert_int_equal(r.info.bytes, 12345);
	/* a byte at a time: frames cut anywhere wait for the rest */
	sink.arg = &refs;
	refs = 0;
	assert_int_equal(import_deb_wire_reader_init(&r, two, 2, &sink, &err),
			 0);
	for (i = 1; i <= s.n; i++) {
		assert_int_equal(import_deb_wire_read(&r, s.b + have, i - have,
						      &used, &err),
				 0);
		have += used;
	}
	assert_int_equal(have, s.n);
	assert_int_equal(r.state, IMPORT_DEB_WIRE_DONE);
	assert_int_equal(refs, 6);
	free(s.b);
}

/* The child's error comes back with its status and message. */
static void test_child_error(void **state)
{
	struct import_deb_wire_reader r;
	struct stream s = { 0 };
	struct imt_error err;
	uint8_t x[] = { IMT_ERR_LIMIT, 'n', 'o' };
	size_t refs;

	(void)state;
	version(&s);
	frame(&s, 'X', x, sizeof(x));
	assert_int_equal(read_all(&s, &r, &refs, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_string_equal(err.msg, "no");
	/* a status it cannot have is a malformed one */
	s.n = 0;
	version(&s);
	x[0] = 200;
	frame(&s, 'X', x, sizeof(x));
	assert_int_equal(read_all(&s, &r, &refs, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	free(s.b);
}

/* What a lying child could send, each refused with its reason. */
static void test_refused(void **state)
{
	static const char *const why[] = {
		"not version", "a frame of",
		"bad path",    "bad path",
		"bad frame",   "frame type",
		"counts",      "a frame after the end",
		"bad end",
	};
	struct import_deb_wire_reader r;
	struct stream s = { 0 };
	struct imt_error err;
	uint8_t big[IMPORT_DEB_WIRE_HEADER];
	size_t refs, i;

	(void)state;
	for (i = 0; i < sizeof(why) / sizeof(why[0]); i++) {
		s.n = 0;
		if (i != 0)
			version(&s);
		switch (i) {
		case 0:
			frame(&s, 'V', &(uint8_t){ 2 }, 1);
			break;
		case 1:
			import_deb_wire_frame(big, 'F',
					      IMPORT_DEB_WIRE_FRAME_MAX + 1);
			put(&s, big, sizeof(big));
			break;
		case 2:
			file(&s, "usr/bin/relative", 0);
			break;
		case 3:
			file(&s, "/usr/bin/a\0b", 0);
			s.b[s.n - 2] = '\0';
			break;
		case 4:
			file(&s, "/x", 2);
			break;
		case 5:
			frame(&s, 'Q', "", 0);
			break;
		case 6:
			file(&s, "/x", 0);
			end(&s, 2, 0, 1);
			break;
		case 7:
			end(&s, 0, 0, 1);
			file(&s, "/x", 0);
			break;
		case 8:
			frame(&s, 'E', "short", 5);
			break;
		}
		if (read_all(&s, &r, &refs, &err) != -1 ||
		    !strstr(err.msg, why[i]))
			fail_msg("case %zu: \"%s\"", i, err.msg);
	}
	free(s.b);
}

/* The package limits, counted again over what the child sends. */
static void test_limits(void **state)
{
	struct import_deb_wire_reader r;
	struct stream s = { 0 };
	struct imt_error err;
	char path[IMPORT_DEB_WIRE_PATH_MAX + 1];
	size_t refs, i;

	(void)state;
	version(&s);
	for (i = 0; i <= DEB_FILES_MAX + IMPORT_DEB_WIRE_CONTROL_MAX; i++)
		file(&s, "/f", 0);
	assert_int_equal(read_all(&s, &r, &refs, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "limit DEB_FILES_MAX reached"));

	s.n = 0;
	version(&s);
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	for (i = 0;
	     i * IMPORT_DEB_WIRE_PATH_MAX <=
	     (size_t)DEB_PATH_BYTES_MAX +
		     IMPORT_DEB_WIRE_CONTROL_MAX * IMPORT_DEB_WIRE_PATH_MAX;
	     i++)
		file(&s, path, 0);
	assert_int_equal(read_all(&s, &r, &refs, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "limit DEB_PATH_BYTES_MAX reached"));

	/* two banks: DEB_WORK_MAX / 2 bytes hashed, and one more */
	s.n = 0;
	version(&s);
	end(&s, 0, 0, DEB_WORK_MAX / 2);
	assert_int_equal(read_all(&s, &r, &refs, &err), 0);
	s.n = 0;
	version(&s);
	end(&s, 0, 0, DEB_WORK_MAX / 2 + 1);
	assert_int_equal(read_all(&s, &r, &refs, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	assert_non_null(strstr(err.msg, "limit DEB_WORK_MAX reached"));
	free(s.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_stream),
		cmocka_unit_test(test_child_error),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

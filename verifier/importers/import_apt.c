// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_apt.c - apt archive indexes and the .deb files they list
 * (import_apt.h). libarchive's raw format undoes xz; zlib undoes gzip,
 * member by member, checking each member's CRC-32 and length (libarchive's
 * gzip filter checks neither, so a flipped bit could parse as an index).
 */
#define _GNU_SOURCE /* memmem */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include "deb822.h"
#include "file.h"
#include "hex.h"
#include "import_apt.h"

#define APT_PATH_MAX 4096
#define APT_FILE_MAX (256u << 20) /* a compressed index file */

/* The index file names of one directory, the first found is read. */
static const char *const apt_index_names[] = {
	"Packages",
	"Packages.xz",
	"Packages.gz",
};

/* Room for one stanza's strings. */
struct apt_strs {
	char package[DEB_NAME_MAX];
	char version[DEB_NAME_MAX];
	char architecture[DEB_NAME_MAX];
	char filename[APT_PATH_MAX];
};

static int copy_field(const struct deb822_stanza *st, const char *name,
		      char *out, size_t outlen, const char **why)
{
	const char *v;
	size_t n;

	if (!deb822_field(st, name, &v, &n)) {
		*why = "no";
		return -1;
	}
	if (!deb822_word(v, n) || n >= outlen) {
		*why = "bad";
		return -1;
	}
	memcpy(out, v, n);
	out[n] = '\0';
	return 0;
}

static int size_ok(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s || strlen(s) > 19)
		return 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 1;
}

/* Relative, no "..": the file stays under the archive's directory. */
static int filename_ok(const char *f)
{
	const char *p = f;

	if (*f == '/' || !*f)
		return 0;
	while (*p) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return 0;
		p = strchr(p, '/');
		if (!p)
			break;
		p++;
	}
	return f[strlen(f) - 1] != '/';
}

static int stanza_fail(const struct apt_strs *s, size_t n, const char *why,
		       const char *field, struct imt_error *err)
{
	imt_error_set(err, IMT_ERR_MALFORMED, n, IMT_NO_POS,
		      "stanza %zu (Package %s): %s %s field", n,
		      s->package[0] ? s->package : "?", why, field);
	return -1;
}

/* One stanza into @e (strings in @s); -1 names the field. */
static int parse_stanza(const struct deb822_stanza *st, size_t n,
			struct apt_strs *s, struct apt_entry *e,
			struct imt_error *err)
{
	char num[24], hex[72];
	const char *why;

	memset(e, 0, sizeof(*e));
	s->package[0] = '\0';
	e->stanza = n;
	if (copy_field(st, "Package", s->package, sizeof(s->package), &why))
		return s->package[0] = '\0',
		       stanza_fail(s, n, why, "Package", err);
	if (copy_field(st, "Version", s->version, sizeof(s->version), &why))
		return stanza_fail(s, n, why, "Version", err);
	if (copy_field(st, "Architecture", s->architecture,
		       sizeof(s->architecture), &why))
		return stanza_fail(s, n, why, "Architecture", err);
	if (copy_field(st, "Filename", s->filename, sizeof(s->filename),
		       &why) ||
	    (!filename_ok(s->filename) && (why = "bad")))
		return stanza_fail(s, n, why, "Filename", err);
	if (copy_field(st, "Size", num, sizeof(num), &why) ||
	    (!size_ok(num, &e->size) && (why = "bad")))
		return stanza_fail(s, n, why, "Size", err);
	if (copy_field(st, "SHA256", hex, sizeof(hex), &why) ||
	    ((strlen(hex) != 64 ||
	      hex_decode(hex, 64, e->sha256, sizeof(e->sha256)) != 32) &&
	     (why = "bad")))
		return stanza_fail(s, n, why, "SHA256", err);
	e->package = s->package;
	e->version = s->version;
	e->architecture = s->architecture;
	e->filename = s->filename;
	return 0;
}

/* Every stanza, @fn NULL: the check before any entry is given. */
static int parse_index(const char *text, size_t len, apt_entry_fn fn, void *arg,
		       struct imt_error *err)
{
	struct deb822_cursor cur = { 0, 1 };
	struct deb822_stanza st;
	struct apt_strs *s;
	struct apt_entry e;
	struct imt_error perr;
	size_t n = 0;
	int r, rc = -1;

	s = malloc(sizeof(*s));
	if (!s)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "out of memory"),
		       -1;
	while ((r = deb822_next(text, len, &cur, &st, &perr)) == 1) {
		n++;
		if (parse_stanza(&st, n, s, &e, err))
			goto out;
		if (fn && fn(arg, &e, err))
			goto out;
	}
	if (r < 0) {
		imt_error_set(err, IMT_ERR_MALFORMED, n + 1, perr.offset,
			      "stanza %zu: %s", n + 1, perr.msg);
		goto out;
	}
	rc = 0;
out:
	free(s);
	return rc;
}

/* The Package of the last stanza that starts in text[0, len). */
static void last_package(const char *text, size_t len, char *out, size_t outlen,
			 size_t *stanza)
{
	const char *p = text, *last = NULL, *nl;
	size_t n = 0, i;

	while ((p = memmem(p, len - (size_t)(p - text), "Package:", 8))) {
		if (p == text || p[-1] == '\n') {
			last = p;
			n++;
		}
		p += 8;
	}
	*stanza = n;
	snprintf(out, outlen, "?");
	if (!last)
		return;
	last += 8;
	while (last < text + len && *last == ' ')
		last++;
	nl = memchr(last, '\n', len - (size_t)(last - text));
	i = nl ? (size_t)(nl - last) : len - (size_t)(last - text);
	snprintf(out, outlen, "%.*s", (int)(i > 64 ? 64 : i), last);
}

/* A compressed index that stops or breaks after @len bytes of @text. */
static int inflate_fail(const char *filter, const char *why, const char *text,
			size_t len, struct imt_error *err)
{
	char pkg[72];
	size_t n;

	last_package(text, len, pkg, sizeof(pkg), &n);
	if (n == 0)
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
			      "%s stream truncated or corrupt before the first stanza: %s",
			      filter, why);
	else
		imt_error_set(err, IMT_ERR_MALFORMED, n, len,
			      "%s stream truncated or corrupt after %zu uncompressed bytes (in stanza %zu, Package %s): %s",
			      filter, len, n, pkg, why);
	return -1;
}

static int archive_fail(struct archive *a, const char *text, size_t len,
			struct imt_error *err)
{
	return inflate_fail(archive_filter_name(a, 0) ?: "compressed",
			    archive_error_string(a) ?: "?", text, len, err);
}

/* Room for @want more bytes after @n in *@t, within APT_INDEX_MAX. */
static int room_for(char **t, size_t *cap, size_t n, size_t want,
		    struct imt_error *err)
{
	char *nt;

	if (n + want > APT_INDEX_MAX) {
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, n,
			      "index larger than %u bytes", APT_INDEX_MAX);
		return -1;
	}
	if (n + want <= *cap)
		return 0;
	*cap = (n + want) * 2;
	if (*cap > APT_INDEX_MAX)
		*cap = APT_INDEX_MAX;
	nt = realloc(*t, *cap);
	if (!nt) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		return -1;
	}
	*t = nt;
	return 0;
}

/*
 * A gzip index, every member, into *@out: zlib checks each member's CRC-32
 * and length, so a stream changed anywhere is an error naming where.
 */
static int gunzip_text(const uint8_t *buf, size_t len, char **out,
		       size_t *outlen, struct imt_error *err)
{
	z_stream z = { 0 };
	size_t cap = 0, n = 0, want;
	char *t = NULL;
	int zr, rc = -1;

	if (len > UINT_MAX) { /* zlib counts input in an unsigned int */
		imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, 0,
			      "gzip index larger than %u bytes", UINT_MAX);
		return -1;
	}
	if (inflateInit2(&z, 15 + 16) != Z_OK) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, 0,
			      "out of memory");
		return -1;
	}
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	for (;;) {
		/* more output is due: up to 64 KiB more room, to the byte
		 * of APT_INDEX_MAX; at it, one more byte is refused */
		want = APT_INDEX_MAX - n < 65536 ? APT_INDEX_MAX - n : 65536;
		if (room_for(&t, &cap, n, want > 0 ? want : 1, err) < 0)
			goto out;
		z.next_out = (Bytef *)t + n;
		z.avail_out = (uInt)(cap - n);
		zr = inflate(&z, Z_NO_FLUSH);
		n = (size_t)((char *)z.next_out - t);
		if (zr == Z_STREAM_END && z.avail_in == 0)
			break;
		if (zr == Z_STREAM_END)
			zr = inflateReset(&z); /* the next member */
		else if (zr == Z_BUF_ERROR && z.avail_out > 0)
			zr = Z_DATA_ERROR; /* the input ended inside a member */
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			inflate_fail("gzip", z.msg ?: "truncated", t, n, err);
			goto out;
		}
	}
	*out = t;
	*outlen = n;
	t = NULL;
	rc = 0;
out:
	free(t);
	inflateEnd(&z);
	return rc;
}

/* The uncompressed index in *@out (a copy), or @buf itself. */
static int index_text(const uint8_t *buf, size_t len, char **out,
		      size_t *outlen, struct imt_error *err)
{
	struct archive_entry *ae;
	struct archive *a;
	size_t cap = 0, n = 0, blen;
	const void *blk;
	la_int64_t off;
	char *t = NULL;
	int r;
	int rc = -1;

	*out = NULL;
	*outlen = 0;
	if (len == 0)
		return 0;
	if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b)
		return gunzip_text(buf, len, out, outlen, err);
	a = archive_read_new();
	if (!a || archive_read_support_filter_xz(a) != ARCHIVE_OK ||
	    archive_read_support_format_raw(a) != ARCHIVE_OK) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, 0,
			      "out of memory");
		goto out;
	}
	/* the raw format takes any text: failing, a compressed stream did */
	if (archive_read_open_memory(a, buf, len) != ARCHIVE_OK) {
		imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS, 0,
			      "compressed stream truncated or corrupt before the first stanza: %s",
			      archive_error_string(a) ?: "?");
		goto out;
	}
	if (archive_read_next_header(a, &ae) != ARCHIVE_OK) {
		archive_fail(a, "", 0, err);
		goto out;
	}
	if (archive_filter_code(a, 0) == ARCHIVE_FILTER_NONE) {
		rc = 1; /* plain: parse @buf itself */
		goto out;
	}
	/* block by block: what came before a cut is kept to name it */
	while ((r = archive_read_data_block(a, &blk, &blen, &off)) ==
	       ARCHIVE_OK) {
		if (room_for(&t, &cap, n, blen, err) < 0)
			goto out;
		memcpy(t + n, blk, blen);
		n += blen;
	}
	if (r != ARCHIVE_EOF) {
		archive_fail(a, t ? t : "", n, err);
		goto out;
	}
	*out = t;
	*outlen = n;
	t = NULL;
	rc = 0;
out:
	free(t);
	archive_read_free(a);
	return rc;
}

int import_apt_index(const uint8_t *buf, size_t len, apt_entry_fn fn, void *arg,
		     struct imt_error *err)
{
	const char *text;
	size_t tlen;
	char *copy;
	int r;

	r = index_text(buf, len, &copy, &tlen, err);
	if (r < 0)
		return -1;
	text = r == 1 ? (const char *)buf : copy;
	tlen = r == 1 ? len : tlen;
	r = parse_index(text, tlen, NULL, NULL, err) ||
	    parse_index(text, tlen, fn, arg, err);
	free(copy);
	return r ? -1 : 0;
}

/* The first index file of directory @d, or 0 when it has none. */
static int dir_index(const char *d, char *path, size_t plen)
{
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(apt_index_names) / sizeof(*apt_index_names);
	     i++) {
		snprintf(path, plen, "%s/%s", d, apt_index_names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return 1;
	}
	return 0;
}

int apt_archive_index_path(const char *dir,
			   int (*fn)(void *arg, const char *path,
				     struct imt_error *err),
			   void *arg, struct imt_error *err)
{
	char path[APT_PATH_MAX], pat[APT_PATH_MAX];
	glob_t g;
	size_t i;
	int n = 0;

	if (dir_index(dir, path, sizeof(path))) {
		if (fn(arg, path, err))
			return -1;
		n++;
	}
	snprintf(pat, sizeof(pat), "%s/dists/*/*/binary-*", dir);
	if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0) {
		for (i = 0; i < g.gl_pathc; i++) {
			if (!dir_index(g.gl_pathv[i], path, sizeof(path)))
				continue;
			if (fn(arg, path, err)) {
				globfree(&g);
				return -1;
			}
			n++;
		}
		globfree(&g);
	}
	if (!n)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "%s: no Packages index (flat or dists/...)",
				     dir),
		       -1;
	return n;
}

struct each_ctx {
	const char *dir;
	apt_entry_fn fn;
	void *arg;
	char path[APT_PATH_MAX * 2];
};

static int each_entry(void *arg, const struct apt_entry *e,
		      struct imt_error *err)
{
	struct each_ctx *c = arg;
	struct apt_entry full = *e;
	const char *f = e->filename;

	while (f[0] == '.' && f[1] == '/')
		f += 2;
	snprintf(c->path, sizeof(c->path), "%s/%s", c->dir, f);
	full.path = c->path;
	return c->fn(c->arg, &full, err);
}

static int each_index(void *arg, const char *path, struct imt_error *err)
{
	struct each_ctx *c = arg;
	char why[256];
	size_t len;
	char *buf;
	int rc;

	buf = file_read(path, APT_FILE_MAX, &len, why, sizeof(why));
	if (!buf)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS, "%s", why),
		       -1;
	rc = import_apt_index((const uint8_t *)buf, len, each_entry, c, err);
	free(buf);
	if (rc && err) {
		char msg[IMT_ERROR_MSG_MAX];

		memcpy(msg, err->msg, sizeof(msg));
		imt_error_set(err, err->status, err->record, err->offset,
			      "%s: %s", path, msg);
	}
	return rc;
}

int apt_archive_each(const char *dir, apt_entry_fn fn, void *arg,
		     struct imt_error *err)
{
	struct each_ctx *c = malloc(sizeof(*c));
	int rc;

	if (!c)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "out of memory"),
		       -1;
	c->dir = dir;
	c->fn = fn;
	c->arg = arg;
	rc = apt_archive_index_path(dir, each_index, c, err) < 0 ? -1 : 0;
	free(c);
	return rc;
}

/* ---- importing an archive ---------------------------------------------- */

struct import_ctx {
	struct apt_entry *e; /* strings allocated */
	struct deb_job *jobs;
	size_t n, cap;
	apt_import_fn fn;
	void *arg;
};

static char *dup_or_fail(const char *s, int *failed)
{
	char *d = strdup(s);

	if (!d)
		*failed = 1;
	return d;
}

static int collect(void *arg, const struct apt_entry *e, struct imt_error *err)
{
	struct import_ctx *c = arg;
	struct apt_entry *ne, *d;
	int failed = 0;

	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		ne = realloc(c->e, c->cap * sizeof(*ne));
		if (!ne)
			goto oom;
		c->e = ne;
	}
	d = &c->e[c->n];
	*d = *e;
	d->package = dup_or_fail(e->package, &failed);
	d->version = dup_or_fail(e->version, &failed);
	d->architecture = dup_or_fail(e->architecture, &failed);
	d->filename = dup_or_fail(e->filename, &failed);
	d->path = dup_or_fail(e->path, &failed);
	c->n++;
	if (!failed)
		return 0;
oom:
	return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			     "out of memory"),
	       -1;
}

/* What the package says it is against what the index says. */
static int same_package(const struct apt_entry *e, const struct deb_info *i)
{
	return strcmp(e->package, i->package) == 0 &&
	       strcmp(e->version, i->version) == 0 &&
	       strcmp(e->architecture, i->architecture) == 0;
}

static int imported(void *arg, size_t index, const struct deb_job *job,
		    const struct imt_error *perr, const struct deb_info *info,
		    const struct deb_refs *refs, struct imt_error *err)
{
	struct import_ctx *c = arg;
	const struct apt_entry *e = &c->e[index];
	struct imt_error mismatch;

	if (!perr && !same_package(e, info)) {
		imt_error_set(&mismatch, IMT_ERR_MISMATCH, IMT_NO_POS,
			      IMT_NO_POS,
			      "%s: the index says %s %s %s, the package is %s %s %s",
			      job->path, e->package, e->version,
			      e->architecture, info->package, info->version,
			      info->architecture);
		perr = &mismatch;
		refs = NULL;
	}
	return c->fn(c->arg, e, perr, info, refs, err);
}

static void import_free(struct import_ctx *c)
{
	size_t i;

	for (i = 0; i < c->n; i++) {
		free((char *)c->e[i].package);
		free((char *)c->e[i].version);
		free((char *)c->e[i].architecture);
		free((char *)c->e[i].filename);
		free((char *)c->e[i].path);
	}
	free(c->e);
	free(c->jobs);
}

int apt_archive_import(const char *dir, const char *const *algos, size_t nalgos,
		       unsigned int nthreads, apt_import_fn fn, void *arg,
		       struct imt_error *err)
{
	struct import_ctx c = { .fn = fn, .arg = arg };
	size_t i;
	int rc = -1;

	if (apt_archive_each(dir, collect, &c, err))
		goto out;
	c.jobs = calloc(c.n + 1, sizeof(*c.jobs));
	if (!c.jobs) {
		imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS, IMT_NO_POS,
			      "out of memory");
		goto out;
	}
	for (i = 0; i < c.n; i++) {
		c.jobs[i].path = c.e[i].path;
		c.jobs[i].size = c.e[i].size;
		c.jobs[i].sha256 = c.e[i].sha256;
	}
	rc = import_deb_files(c.jobs, c.n, algos, nalgos, nthreads, imported,
			      &c, err);
out:
	import_free(&c);
	return rc;
}

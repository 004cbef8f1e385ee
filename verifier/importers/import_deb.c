// SPDX-License-Identifier: GPL-2.0-only
/*
 * import_deb.c - reference digests from a Debian binary package
 * (import_deb.h). libarchive reads the ar, the compressors and the tars;
 * the inner tars read straight from the outer ar's blocks (no copy).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include "deb822.h"
#include "hash_algo.h"
#include "import_deb.h"

#define DEB_CONTROL_MEMBERS 64	/* control.tar members kept */
#define DEB_MEMBER_NAME_MAX 100 /* dpkg's MAXCONTROLFILENAME */
#define DEB_PATH_MAX 4096
#define DEB_INFO_DIR "/var/lib/dpkg/info/"
/* where dpkg unpacks the control part (and runs preinst from) first */
#define DEB_UNPACK_DIR "/var/lib/dpkg/tmp.ci/"
/* where dpkg unpacks a conffile before it decides about the old one */
#define DEB_CONFFILE_NEW ".dpkg-new"

/* One compressed form of a tar member, by the suffix of its name. */
struct deb_comp {
	const char *suffix;
	int code; /* ARCHIVE_FILTER_* */
	int (*enable)(struct archive *a);
	int data_only; /* dpkg accepts it for data.tar only */
};

static const struct deb_comp deb_comps[] = {
	{ "", ARCHIVE_FILTER_NONE, NULL, 0 },
	{ ".gz", ARCHIVE_FILTER_GZIP, archive_read_support_filter_gzip, 0 },
	{ ".xz", ARCHIVE_FILTER_XZ, archive_read_support_filter_xz, 0 },
	{ ".zst", ARCHIVE_FILTER_ZSTD, archive_read_support_filter_zstd, 0 },
	{ ".bz2", ARCHIVE_FILTER_BZIP2, archive_read_support_filter_bzip2, 1 },
};

/* A kernel hash name OpenSSL spells otherwise. */
static const struct {
	const char *kernel, *openssl;
} deb_md_names[] = {
	{ "rmd160", "RIPEMD160" },
	{ "wp512", "whirlpool" },
};

/* The requested algorithms, one context each, reused file after file. */
struct deb_hasher {
	size_t n;
	const char *name[IMPORT_ALGOS_MAX]; /* hash_algo.h's names */
	EVP_MD *md[IMPORT_ALGOS_MAX];
	EVP_MD_CTX *ctx[IMPORT_ALGOS_MAX];
	size_t size[IMPORT_ALGOS_MAX];
	size_t off[IMPORT_ALGOS_MAX]; /* of each digest in an output */
	size_t total;
};

struct ctl_member {
	char name[DEB_MEMBER_NAME_MAX + 1];
	size_t dig_off; /* in ctx->ctl_dig */
};

/* A data.tar file already seen, for the hard links to it. */
struct file_ent {
	uint64_t h;
	char *path; /* allocated with the digests after it */
	uint8_t *dig;
};

struct deb_ctx {
	struct deb_hasher hs;
	const struct import_sink *sink;
	struct imt_error *err;
	struct deb_info info;
	size_t deb_len;	    /* bytes of the .deb, for DEB_RATIO_MAX */
	const char *member; /* the tar member being read, for errors */
	/* control part */
	struct ctl_member ctl[DEB_CONTROL_MEMBERS];
	uint8_t ctl_dig[DEB_CONTROL_MEMBERS * IMPORT_ALGOS_MAX *
			HASH_ALGO_MAX_SIZE];
	size_t nctl;
	char *control, *conffiles_text;
	size_t control_len, conffiles_len;
	uint8_t control_dig[IMPORT_ALGOS_MAX * HASH_ALGO_MAX_SIZE];
	int have_control, have_conffiles;
	char **conffiles;
	size_t nconffiles;
	/* data part */
	struct file_ent *files;
	size_t files_cap, nfiles;
	uint8_t dig[IMPORT_ALGOS_MAX * HASH_ALGO_MAX_SIZE];
	char path[DEB_PATH_MAX + 2];
};

/* The outer ar member an inner tar reads from. */
struct nest {
	struct archive *outer;
	int failed; /* the ar ended early: a truncated .deb */
};

static int fail(struct deb_ctx *c, enum imt_result st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct deb_ctx *c, enum imt_result st, const char *fmt, ...)
{
	char msg[IMT_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->member)
		imt_error_set(c->err, st, IMT_NO_POS, IMT_NO_POS, "%s: %s",
			      c->member, msg);
	else
		imt_error_set(c->err, st, IMT_NO_POS, IMT_NO_POS, "%s", msg);
	return -1;
}

/* ---- hashing ---------------------------------------------------------- */

static const char *openssl_md_name(const char *kernel)
{
	size_t i;

	for (i = 0; i < sizeof(deb_md_names) / sizeof(deb_md_names[0]); i++) {
		if (strcmp(deb_md_names[i].kernel, kernel) == 0)
			return deb_md_names[i].openssl;
	}
	return kernel;
}

static void deb_hasher_free(struct deb_hasher *hs)
{
	size_t i;

	for (i = 0; i < hs->n; i++) {
		EVP_MD_CTX_free(hs->ctx[i]);
		EVP_MD_free(hs->md[i]);
	}
	memset(hs, 0, sizeof(*hs));
}

static int deb_hasher_init(struct deb_hasher *hs, const char *const *algos,
			   size_t nalgos, struct imt_error *err)
{
	const struct hash_algo *ha;
	size_t i;

	memset(hs, 0, sizeof(*hs));
	if (nalgos < 1 || nalgos > IMPORT_ALGOS_MAX)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "1 to %d algorithms, not %zu",
				     IMPORT_ALGOS_MAX, nalgos),
		       -1;
	for (i = 0; i < nalgos; i++) {
		ha = hash_algo_by_name(algos[i], strlen(algos[i]));
		hs->md[i] = ha ? EVP_MD_fetch(NULL, openssl_md_name(ha->name),
					      NULL) :
				 NULL;
		if (!hs->md[i] ||
		    (size_t)EVP_MD_get_size(hs->md[i]) != ha->size) {
			hs->n = i + 1;
			deb_hasher_free(hs);
			return imt_error_set(err, IMT_ERR_UNSUPPORTED,
					     IMT_NO_POS, IMT_NO_POS,
					     "unsupported hash algorithm \"%s\"",
					     algos[i]),
			       -1;
		}
		hs->name[i] = ha->name;
		hs->size[i] = ha->size;
		hs->off[i] = hs->total;
		hs->total += ha->size;
		hs->ctx[i] = EVP_MD_CTX_new();
		hs->n = i + 1;
		if (!hs->ctx[i]) {
			deb_hasher_free(hs);
			return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
					     IMT_NO_POS, "out of memory"),
			       -1;
		}
	}
	return 0;
}

static int hash_start(struct deb_hasher *hs)
{
	size_t i;

	for (i = 0; i < hs->n; i++) {
		if (!EVP_DigestInit_ex2(hs->ctx[i], hs->md[i], NULL))
			return -1;
	}
	return 0;
}

/* Every algorithm over one block while it is in cache. */
static int hash_block(struct deb_hasher *hs, const void *b, size_t n)
{
	size_t i;

	for (i = 0; i < hs->n; i++) {
		if (!EVP_DigestUpdate(hs->ctx[i], b, n))
			return -1;
	}
	return 0;
}

static int hash_end(struct deb_hasher *hs, uint8_t *out)
{
	size_t i;

	for (i = 0; i < hs->n; i++) {
		if (!EVP_DigestFinal_ex(hs->ctx[i], out + hs->off[i], NULL))
			return -1;
	}
	return 0;
}

/* ---- reading a tar member of the ar ------------------------------------ */

static la_ssize_t nest_read(struct archive *a, void *arg, const void **buf)
{
	struct nest *n = arg;
	la_int64_t off;
	size_t len;
	int r;

	r = archive_read_data_block(n->outer, buf, &len, &off);
	if (r == ARCHIVE_EOF)
		return 0;
	if (r != ARCHIVE_OK) {
		n->failed = 1;
		archive_set_error(a, -1, "truncated");
		return -1;
	}
	return (la_ssize_t)len;
}

static const struct deb_comp *comp_of(const char *name, const char *base,
				      int data)
{
	size_t i, bl = strlen(base);

	if (strncmp(name, base, bl) != 0)
		return NULL;
	for (i = 0; i < sizeof(deb_comps) / sizeof(deb_comps[0]); i++) {
		if (strcmp(name + bl, deb_comps[i].suffix) == 0 &&
		    (data || !deb_comps[i].data_only))
			return &deb_comps[i];
	}
	return NULL;
}

/* libarchive's reason, or "truncated" when the ar itself ran short. */
static int tar_fail(struct deb_ctx *c, struct archive *in, const struct nest *n)
{
	const char *why = archive_error_string(in);

	if (n->failed)
		return fail(c, IMT_ERR_MALFORMED, "truncated");
	return fail(c, IMT_ERR_MALFORMED, "corrupt: %s", why ? why : "?");
}

static struct archive *tar_open(struct deb_ctx *c, struct nest *n,
				const struct deb_comp *comp)
{
	struct archive *in = archive_read_new();

	if (!in) {
		fail(c, IMT_ERR_INTERNAL, "out of memory");
		return NULL;
	}
	/* never an external program: libarchive's own decoders only */
	if ((comp->enable && comp->enable(in) != ARCHIVE_OK) ||
	    archive_read_support_format_tar(in) != ARCHIVE_OK) {
		fail(c, IMT_ERR_UNSUPPORTED, "no decoder for %s", comp->suffix);
		goto fail;
	}
	if (archive_read_open(in, n, NULL, nest_read, NULL) != ARCHIVE_OK) {
		if (n->failed)
			tar_fail(c, in, n);
		else
			fail(c, IMT_ERR_MALFORMED, "not a %s tar (%s)",
			     comp->enable ? comp->suffix + 1 : "plain",
			     archive_error_string(in) ?: "?");
		goto fail;
	}
	/* the compression its name says, once: no gzip inside the gzip */
	if (archive_filter_count(in) != (comp->enable ? 2 : 1) ||
	    archive_filter_code(in, 0) != comp->code) {
		fail(c, IMT_ERR_MALFORMED, "not a %s tar",
		     comp->enable ? comp->suffix + 1 : "plain");
		goto fail;
	}
	return in;
fail:
	archive_read_free(in);
	return NULL;
}

/*
 * After the tar's end, the rest of the ar member: what the tar reader
 * left is read too, so a member cut short is an error however the cut
 * falls.
 */
static int tar_close(struct deb_ctx *c, struct archive *in, struct nest *n)
{
	const void *b;
	la_int64_t off;
	size_t len;
	int r;

	archive_read_free(in);
	while ((r = archive_read_data_block(n->outer, &b, &len, &off)) ==
	       ARCHIVE_OK)
		;
	if (r != ARCHIVE_EOF)
		return fail(c, IMT_ERR_MALFORMED, "truncated");
	return 0;
}

/* Append @len bytes to a control file kept in memory, bounded. */
static int keep_append(struct deb_ctx *c, char **buf, size_t *blen, size_t *cap,
		       const void *b, size_t len)
{
	char *nb;

	if (*blen + len > DEB_CONTROL_MAX)
		return fail(c, IMT_ERR_LIMIT, "larger than %u bytes",
			    DEB_CONTROL_MAX);
	if (*blen + len + 1 > *cap) {
		*cap = (*blen + len + 1) * 2;
		nb = realloc(*buf, *cap);
		if (!nb)
			return fail(c, IMT_ERR_INTERNAL, "out of memory");
		*buf = nb;
	}
	memcpy(*buf + *blen, b, len);
	*blen += len;
	(*buf)[*blen] = '\0';
	return 0;
}

/* What hashing the package costs so far, against its limits. */
static int check_cost(struct deb_ctx *c)
{
	uint64_t b = c->info.bytes;

	if (b > DEB_RATIO_SLACK + (uint64_t)DEB_RATIO_MAX * c->deb_len)
		return fail(c, IMT_ERR_LIMIT,
			    "limit DEB_RATIO_MAX reached: %llu bytes unpacked "
			    "from a .deb of %zu, at most %u times its size "
			    "plus %u",
			    (unsigned long long)b, c->deb_len, DEB_RATIO_MAX,
			    DEB_RATIO_SLACK);
	if (b * c->hs.n > DEB_WORK_MAX)
		return fail(c, IMT_ERR_LIMIT,
			    "limit DEB_WORK_MAX reached: %llu bytes x %zu "
			    "banks to hash, at most %llu",
			    (unsigned long long)b, c->hs.n, DEB_WORK_MAX);
	return 0;
}

/* One more data.tar file at c->path, against the package's limits. */
static int count_file(struct deb_ctx *c)
{
	c->info.path_bytes += strlen(c->path);
	if (c->info.files + 1 > DEB_FILES_MAX)
		return fail(c, IMT_ERR_LIMIT,
			    "limit DEB_FILES_MAX reached: %zu files, at most "
			    "%u",
			    c->info.files + 1, DEB_FILES_MAX);
	if (c->info.path_bytes > DEB_PATH_BYTES_MAX)
		return fail(c, IMT_ERR_LIMIT,
			    "limit DEB_PATH_BYTES_MAX reached: %llu bytes of "
			    "paths, at most %u",
			    (unsigned long long)c->info.path_bytes,
			    DEB_PATH_BYTES_MAX);
	return 0;
}

/*
 * Hash the data of entry @name into @out; a control file to parse is
 * also kept in *@keep (when @keep is not NULL).
 */
static int hash_entry(struct deb_ctx *c, struct archive *in,
		      const struct nest *n, const char *name, uint8_t *out,
		      char **keep, size_t *keep_len)
{
	la_int64_t off, want = 0;
	size_t len, cap = 0;
	const void *b;
	int r;

	if (hash_start(&c->hs))
		return fail(c, IMT_ERR_INTERNAL, "digest failure");
	while ((r = archive_read_data_block(in, &b, &len, &off)) ==
	       ARCHIVE_OK) {
		if (off != want) /* a hole: GNU sparse, never dpkg's */
			return fail(c, IMT_ERR_UNSUPPORTED, "%s: sparse file",
				    name);
		if (hash_block(&c->hs, b, len))
			return fail(c, IMT_ERR_INTERNAL, "digest failure");
		if (keep && keep_append(c, keep, keep_len, &cap, b, len))
			return -1;
		want += (la_int64_t)len;
		c->info.bytes += len;
		if (check_cost(c))
			return -1;
	}
	if (r != ARCHIVE_EOF)
		return tar_fail(c, in, n);
	if (keep && !*keep && keep_append(c, keep, keep_len, &cap, "", 0))
		return -1;
	if (hash_end(&c->hs, out))
		return fail(c, IMT_ERR_INTERNAL, "digest failure");
	return 0;
}

/* ---- the control part -------------------------------------------------- */

/* "./postinst" -> "postinst"; "./" (the top directory) -> "" */
static const char *ctl_name(const char *path)
{
	if (path[0] == '.' && path[1] == '/')
		return path + 2;
	return strcmp(path, ".") == 0 ? "" : path;
}

static int ctl_entry(struct deb_ctx *c, struct archive *in,
		     const struct nest *n, struct archive_entry *e)
{
	const char *path = archive_entry_pathname(e) ?: "";
	const char *name = ctl_name(path);
	struct ctl_member *m;
	size_t i;

	if (archive_entry_filetype(e) == AE_IFDIR && name[0] == '\0')
		return 0;
	if (archive_entry_filetype(e) != AE_IFREG || archive_entry_hardlink(e))
		return fail(c, IMT_ERR_MALFORMED, "%s: not a regular file",
			    path);
	if (!name[0] || name[0] == '.' || strchr(name, '/') ||
	    strlen(name) > DEB_MEMBER_NAME_MAX)
		return fail(c, IMT_ERR_MALFORMED, "%s: not a control file name",
			    path);
	for (i = 0; i < c->nctl; i++) {
		if (strcmp(c->ctl[i].name, name) == 0)
			return fail(c, IMT_ERR_MALFORMED, "%s: twice", path);
	}
	if (strcmp(name, "control") == 0) {
		if (c->have_control)
			return fail(c, IMT_ERR_MALFORMED, "%s: twice", path);
		c->have_control = 1;
		return hash_entry(c, in, n, path, c->control_dig, &c->control,
				  &c->control_len);
	}
	if (c->nctl == DEB_CONTROL_MEMBERS)
		return fail(c, IMT_ERR_LIMIT, "more than %d control files",
			    DEB_CONTROL_MEMBERS);
	m = &c->ctl[c->nctl++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->dig_off = (c->nctl - 1) * c->hs.total;
	if (strcmp(name, "conffiles") == 0) {
		c->have_conffiles = 1;
		return hash_entry(c, in, n, path, c->ctl_dig + m->dig_off,
				  &c->conffiles_text, &c->conffiles_len);
	}
	return hash_entry(c, in, n, path, c->ctl_dig + m->dig_off, NULL, NULL);
}

/* Package names (policy 5.6.1); versions and architectures as dpkg's. */
static int name_ok(const char *v, size_t n, const char *extra, int lower)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		      (!lower && ch >= 'A' && ch <= 'Z') ||
		      strchr(extra, ch)) ||
		    ch == '\0')
			return 0;
	}
	return n > 0 && n < DEB_NAME_MAX;
}

struct ctl_field {
	const char *name;
	size_t off;	   /* in struct deb_info */
	const char *extra; /* bytes allowed beside [a-z0-9] */
	int lower;	   /* no upper case */
};

static const struct ctl_field ctl_fields[] = {
	{ "Package", offsetof(struct deb_info, package), "+-.", 1 },
	{ "Version", offsetof(struct deb_info, version), "+-.~:", 0 },
	{ "Architecture", offsetof(struct deb_info, architecture), "-", 1 },
};

static int parse_control(struct deb_ctx *c)
{
	struct deb822_cursor cur = { 0, 1 };
	struct deb822_stanza st, more;
	struct imt_error perr;
	const char *v;
	size_t i, vlen;
	int r;

	if (!c->have_control)
		return fail(c, IMT_ERR_MALFORMED, "no control file");
	r = deb822_next(c->control, c->control_len, &cur, &st, &perr);
	if (r < 0)
		return fail(c, IMT_ERR_MALFORMED, "control: %s", perr.msg);
	if (r == 0)
		return fail(c, IMT_ERR_MALFORMED, "control: empty");
	r = deb822_next(c->control, c->control_len, &cur, &more, &perr);
	if (r != 0)
		return fail(c, IMT_ERR_MALFORMED, "control: %s",
			    r < 0 ? perr.msg : "more than one stanza");
	for (i = 0; i < sizeof(ctl_fields) / sizeof(ctl_fields[0]); i++) {
		const struct ctl_field *f = &ctl_fields[i];

		if (!deb822_field(&st, f->name, &v, &vlen))
			return fail(c, IMT_ERR_MALFORMED,
				    "control: no %s field", f->name);
		if (!name_ok(v, vlen, f->extra, f->lower))
			return fail(c, IMT_ERR_MALFORMED,
				    "control: bad %s field \"%.*s\"", f->name,
				    (int)(vlen > 64 ? 64 : vlen), v);
		memcpy((char *)&c->info + f->off, v, vlen);
		((char *)&c->info + f->off)[vlen] = '\0';
	}
	if (deb822_field(&st, "Multi-Arch", &v, &vlen)) {
		if (!(vlen == 4 && memcmp(v, "same", 4) == 0) &&
		    !(vlen == 2 && memcmp(v, "no", 2) == 0) &&
		    !(vlen == 7 && memcmp(v, "foreign", 7) == 0) &&
		    !(vlen == 7 && memcmp(v, "allowed", 7) == 0))
			return fail(c, IMT_ERR_MALFORMED,
				    "control: bad Multi-Arch field \"%.*s\"",
				    (int)(vlen > 64 ? 64 : vlen), v);
		c->info.multi_arch_same = vlen == 4;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * conffiles: one absolute path a line, after optional flags (dpkg 1.20:
 * "remove-on-upgrade /etc/foo", a file no longer shipped).
 */
static int parse_conffiles(struct deb_ctx *c)
{
	char *s = c->conffiles_text, *line, *end, *path;
	size_t lineno = 0, cap = 0;
	char **nb;

	while (c->have_conffiles && s && *s) {
		line = s;
		end = strchr(s, '\n');
		s = end ? end + 1 : NULL;
		if (end)
			*end = '\0';
		else
			end = line + strlen(line);
		lineno++;
		while (end > line &&
		       (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			*--end = '\0';
		if (!*line)
			continue;
		path = line;
		if (*path != '/') {
			path = strstr(line, " /");
			if (!path || strncmp(line, "remove-on-upgrade ", 18))
				return fail(c, IMT_ERR_MALFORMED,
					    "conffiles: line %zu: not an absolute path",
					    lineno);
			path++;
		}
		if (c->nconffiles == cap) {
			cap = cap ? cap * 2 : 16;
			nb = realloc(c->conffiles, cap * sizeof(*nb));
			if (!nb)
				return fail(c, IMT_ERR_INTERNAL,
					    "out of memory");
			c->conffiles = nb;
		}
		c->conffiles[c->nconffiles++] = path;
	}
	if (c->nconffiles)
		qsort(c->conffiles, c->nconffiles, sizeof(char *), cmp_str);
	return 0;
}

static int give(struct deb_ctx *c, const char *path, const uint8_t *dig,
		int conffile)
{
	struct import_ref ref = { .kind = IMPORT_REF_FILE,
				  .path = path,
				  .conffile = conffile };
	size_t i;

	for (i = 0; i < c->hs.n; i++) {
		ref.algo = c->hs.name[i];
		ref.digest = dig + c->hs.off[i];
		ref.digest_len = c->hs.size[i];
		if (c->sink->ref(c->sink->arg, &ref, c->err))
			return -1;
	}
	return 0;
}

/*
 * The members dpkg installs as /var/lib/dpkg/info/PKG[:ARCH].MEMBER, and
 * every member (control too) as /var/lib/dpkg/tmp.ci/MEMBER, where dpkg
 * unpacks them first and runs preinst from: both are read or run as
 * root, so IMA measures them there.
 */
static int give_control(struct deb_ctx *c)
{
	char path[sizeof(DEB_INFO_DIR) + 3 * DEB_NAME_MAX + DEB_MEMBER_NAME_MAX];
	size_t i;

	if (c->have_control) {
		if (give(c, DEB_UNPACK_DIR "control", c->control_dig, 0))
			return -1;
		c->info.control_files++;
	}
	for (i = 0; i < c->nctl; i++) {
		snprintf(path, sizeof(path), DEB_UNPACK_DIR "%s",
			 c->ctl[i].name);
		if (give(c, path, c->ctl_dig + c->ctl[i].dig_off, 0))
			return -1;
		c->info.control_files++;
		snprintf(path, sizeof(path), DEB_INFO_DIR "%s%s%s.%s",
			 c->info.package, c->info.multi_arch_same ? ":" : "",
			 c->info.multi_arch_same ? c->info.architecture : "",
			 c->ctl[i].name);
		if (give(c, path, c->ctl_dig + c->ctl[i].dig_off, 0))
			return -1;
		c->info.control_files++;
	}
	return 0;
}

static int give_conffile_new(struct deb_ctx *c)
{
	char path[sizeof(c->path) + sizeof(DEB_CONFFILE_NEW)];

	snprintf(path, sizeof(path), "%s" DEB_CONFFILE_NEW, c->path);
	if (count_file(c) || give(c, path, c->dig, 1))
		return -1;
	c->info.files++;
	return 0;
}

static int read_control(struct deb_ctx *c, struct archive *outer,
			const struct deb_comp *comp)
{
	struct nest n = { outer, 0 };
	struct archive_entry *e;
	struct archive *in;
	int r;

	in = tar_open(c, &n, comp);
	if (!in)
		return -1;
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		if (ctl_entry(c, in, &n, e)) {
			archive_read_free(in);
			return -1;
		}
	}
	if (r != ARCHIVE_EOF) {
		tar_fail(c, in, &n);
		archive_read_free(in);
		return -1;
	}
	if (tar_close(c, in, &n) || parse_control(c) || parse_conffiles(c))
		return -1;
	return give_control(c);
}

/* ---- the data part ----------------------------------------------------- */

/*
 * "./usr/bin/ls" -> "/usr/bin/ls" in c->path; "./" -> "/". Empty, "."
 * and ".." components are refused: a path names one installed file.
 */
static int data_path(struct deb_ctx *c, const char *name)
{
	const char *p = name, *q;
	size_t len = 0, n;

	if (p[0] == '.' && (p[1] == '/' || p[1] == '\0'))
		p++;
	while (*p == '/')
		p++;
	while (*p) {
		q = strchr(p, '/');
		n = q ? (size_t)(q - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return fail(c, IMT_ERR_MALFORMED, "%s: bad path", name);
		if (len + 1 + n > DEB_PATH_MAX)
			return fail(c, IMT_ERR_LIMIT, "%.64s...: path too long",
				    name);
		c->path[len++] = '/';
		memcpy(c->path + len, p, n);
		len += n;
		p += n;
		if (*p == '/')
			p++;
	}
	if (len == 0)
		c->path[len++] = '/';
	c->path[len] = '\0';
	return 0;
}

static uint64_t path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static struct file_ent *file_find(struct deb_ctx *c, const char *path)
{
	uint64_t h = path_hash(path);
	size_t i;

	if (!c->files_cap)
		return NULL;
	for (i = h & (c->files_cap - 1); c->files[i].path;
	     i = (i + 1) & (c->files_cap - 1)) {
		if (c->files[i].h == h && strcmp(c->files[i].path, path) == 0)
			return &c->files[i];
	}
	return &c->files[i];
}

static int file_grow(struct deb_ctx *c)
{
	struct file_ent *old = c->files, *slot;
	size_t i, ocap = c->files_cap;

	c->files_cap = ocap ? ocap * 2 : 256;
	c->files = calloc(c->files_cap, sizeof(*c->files));
	if (!c->files) {
		c->files = old;
		c->files_cap = ocap;
		return fail(c, IMT_ERR_INTERNAL, "out of memory");
	}
	for (i = 0; i < ocap; i++) {
		if (!old[i].path)
			continue;
		slot = file_find(c, old[i].path);
		*slot = old[i];
	}
	free(old);
	return 0;
}

/* Remember c->path's digests @dig for the hard links that may follow. */
static int file_add(struct deb_ctx *c, const uint8_t *dig)
{
	size_t plen = strlen(c->path) + 1;
	struct file_ent *slot;
	char *mem;

	if ((c->nfiles + 1) * 2 > c->files_cap && file_grow(c))
		return -1;
	slot = file_find(c, c->path);
	if (slot->path) { /* the same path again: the last one wins */
		memcpy(slot->dig, dig, c->hs.total);
		return 0;
	}
	mem = malloc(plen + c->hs.total);
	if (!mem)
		return fail(c, IMT_ERR_INTERNAL, "out of memory");
	memcpy(mem, c->path, plen);
	slot->h = path_hash(c->path);
	slot->path = mem;
	slot->dig = (uint8_t *)mem + plen;
	memcpy(slot->dig, dig, c->hs.total);
	c->nfiles++;
	return 0;
}

static void file_free(struct deb_ctx *c)
{
	size_t i;

	for (i = 0; i < c->files_cap; i++)
		free(c->files[i].path);
	free(c->files);
}

static int is_conffile(const struct deb_ctx *c, const char *path)
{
	return c->nconffiles && bsearch(&path, c->conffiles, c->nconffiles,
					sizeof(char *), cmp_str) != NULL;
}

/* A hard link in a tar has no data: the digests of its target. */
static int data_link(struct deb_ctx *c, const char *name, const char *target)
{
	struct file_ent *t;

	if (data_path(c, target))
		return -1;
	t = file_find(c, c->path);
	if (!t || !t->path)
		return fail(c, IMT_ERR_MALFORMED,
			    "%s: hard link to %s, no file before it", name,
			    target);
	memcpy(c->dig, t->dig, c->hs.total);
	return data_path(c, name);
}

static int data_entry(struct deb_ctx *c, struct archive *in,
		      const struct nest *n, struct archive_entry *e)
{
	const char *name = archive_entry_pathname(e) ?: "";
	const char *link = archive_entry_hardlink(e);

	if (link &&
	    !(archive_entry_size_is_set(e) && archive_entry_size(e) > 0)) {
		if (data_link(c, name, link))
			return -1;
	} else if (archive_entry_filetype(e) == AE_IFREG || link) {
		if (data_path(c, name) ||
		    hash_entry(c, in, n, name, c->dig, NULL, NULL))
			return -1;
	} else {
		return 0; /* directory, symbolic link, device, fifo */
	}
	if (count_file(c) || file_add(c, c->dig) ||
	    give(c, c->path, c->dig, is_conffile(c, c->path)))
		return -1;
	/* a conffile is unpacked next to the one in place first */
	if (is_conffile(c, c->path) && give_conffile_new(c))
		return -1;
	c->info.files++;
	return 0;
}

static int read_data(struct deb_ctx *c, struct archive *outer,
		     const struct deb_comp *comp)
{
	struct nest n = { outer, 0 };
	struct archive_entry *e;
	struct archive *in;
	int r;

	in = tar_open(c, &n, comp);
	if (!in)
		return -1;
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		if (data_entry(c, in, &n, e)) {
			archive_read_free(in);
			return -1;
		}
	}
	if (r != ARCHIVE_EOF) {
		tar_fail(c, in, &n);
		archive_read_free(in);
		return -1;
	}
	return tar_close(c, in, &n);
}

/* ---- the ar ------------------------------------------------------------ */

enum deb_step { STEP_CONTROL, STEP_DATA, STEP_DONE };

static int check_version(struct deb_ctx *c, struct archive *outer)
{
	char v[16];
	la_ssize_t n = archive_read_data(outer, v, sizeof(v));
	la_ssize_t i = 2;

	if (n < 0)
		return fail(c, IMT_ERR_MALFORMED,
			    "not a Debian package: debian-binary: truncated");
	while (i < n && v[i] >= '0' && v[i] <= '9')
		i++;
	if (n < 4 || n == (la_ssize_t)sizeof(v) || memcmp(v, "2.", 2) ||
	    i == 2 || i != n - 1 || v[i] != '\n')
		return fail(c, IMT_ERR_UNSUPPORTED,
			    "not a Debian package: debian-binary is not \"2.x\"");
	return 0;
}

/* One ar member after debian-binary: the next step's, or "_" (ignored). */
static int deb_member(struct deb_ctx *c, struct archive *outer,
		      const char *name, enum deb_step *step)
{
	const struct deb_comp *comp;

	if (name[0] == '_')
		return 0;
	if (*step == STEP_CONTROL) {
		comp = comp_of(name, "control.tar", 0);
		if (!comp)
			return fail(c, IMT_ERR_MALFORMED,
				    "not a Debian package: \"%.64s\" where control.tar was expected",
				    name);
		c->member = name;
		*step = STEP_DATA;
		return read_control(c, outer, comp);
	}
	if (*step == STEP_DATA) {
		comp = comp_of(name, "data.tar", 1);
		if (!comp)
			return fail(c, IMT_ERR_MALFORMED,
				    "not a Debian package: \"%.64s\" where data.tar was expected",
				    name);
		c->member = name;
		*step = STEP_DONE;
		return read_data(c, outer, comp);
	}
	return fail(c, IMT_ERR_MALFORMED,
		    "not a Debian package: \"%.64s\" after data.tar", name);
}

static int read_deb(struct deb_ctx *c, struct archive *outer)
{
	static const char *const missing[] = { "control.tar", "data.tar" };
	enum deb_step step = STEP_CONTROL;
	struct archive_entry *e;
	const char *name;
	int r;

	r = archive_read_next_header(outer, &e);
	if (r != ARCHIVE_OK)
		return fail(c, IMT_ERR_MALFORMED, "not a Debian package: %s",
			    archive_error_string(outer) ?: "empty");
	if (strcmp(archive_entry_pathname(e) ?: "", "debian-binary") != 0)
		return fail(c, IMT_ERR_MALFORMED,
			    "not a Debian package: no debian-binary first");
	if (check_version(c, outer))
		return -1;
	while ((r = archive_read_next_header(outer, &e)) == ARCHIVE_OK) {
		name = archive_entry_pathname(e) ?: "";
		c->member = NULL;
		if (deb_member(c, outer, name, &step))
			return -1;
	}
	c->member = NULL;
	if (r != ARCHIVE_EOF)
		return fail(c, IMT_ERR_MALFORMED, "%s: truncated",
			    step == STEP_DONE ? "after data.tar" :
						"not a Debian package");
	if (step != STEP_DONE)
		return fail(c, IMT_ERR_MALFORMED,
			    "not a Debian package: no %s member",
			    missing[step]);
	return 0;
}

int import_deb(const uint8_t *buf, size_t len, const char *const *algos,
	       size_t nalgos, struct deb_info *info,
	       const struct import_sink *sink, struct imt_error *err)
{
	struct deb_ctx *c;
	struct archive *outer;
	int rc = -1;

	c = calloc(1, sizeof(*c));
	if (!c)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "out of memory"),
		       -1;
	c->sink = sink;
	c->err = err;
	c->deb_len = len;
	if (deb_hasher_init(&c->hs, algos, nalgos, err))
		goto out_ctx;
	outer = archive_read_new();
	if (!outer || archive_read_support_format_ar(outer) != ARCHIVE_OK ||
	    archive_read_open_memory(outer, buf, len) != ARCHIVE_OK) {
		fail(c, IMT_ERR_MALFORMED, "not a Debian package: %s",
		     outer ? archive_error_string(outer) ?: "?" : "no memory");
		goto out;
	}
	rc = read_deb(c, outer);
out:
	archive_read_free(outer);
	if (info)
		*info = c->info;
	deb_hasher_free(&c->hs);
out_ctx:
	file_free(c);
	free(c->control);
	free(c->conffiles_text);
	free(c->conffiles);
	free(c);
	return rc;
}

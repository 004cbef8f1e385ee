// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_ref.c - "imatrust ref": reference digests over the REST API.
 *
 *	imatrust ref import-dir --prefix /guest/path [--algo sha256[,sha1]]
 *		[--source NAME] [--kind KIND] [--replace] DIR
 *	imatrust ref add [--source NAME] [--kind KIND] PATH ALGO:HEX
 *	imatrust ref ls [--path PATH] [--source NAME [--kind KIND]] [--json]
 *	imatrust ref rm [--source NAME] [--kind KIND] [PATH ALGO:HEX]
 *	imatrust ref sources [--kind KIND] [--json]
 *
 * import-dir walks DIR without following symbolic links, hashes every
 * regular file with each algorithm, names it PREFIX/relative/path and
 * uploads in chunks of REF_CHUNK; each chunk is one import request
 * on the verifier, which then re-judges the stored records both ways.
 * A --replace withdraws, on the verifier, what its request did not state
 * again, so its first upload carries up to REF_REPLACE_CHUNK references
 * (the server's maximum): a tree that fits is replaced without machines
 * running its later files turning untrusted in between. The source
 * defaults to kind dir-tree, name DIR's absolute path (add: "manual").
 * ref rm with only --source withdraws everything that source said.
 * All take --url, --ca, --token-file (cli_client.h).
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"
#include "hash_algo.h"
#include "hex.h"

#define REF_CHUNK 5000		  /* references per upload (server: 100000) */
#define REF_REPLACE_CHUNK 100000  /* ... the upload that replaces */
#define REF_ALGOS_MAX 4		  /* --algo sha1,sha256,sha384,sha512 */
#define REF_PATH_MAX 4096	  /* bytes of a reference path (DB_PATH_MAX) */
#define REF_NAME_MAX 255	  /* bytes of a source name (DB_NAME_MAX) */
#define REF_READ_SIZE (64 * 1024) /* bytes read from a file at once */

struct ref_args {
	struct cli_client_opts co;
	const char *prefix;
	const char *algos;
	const char *source;
	const char *kind;
	const char *path;
	int replace;
	int json;
	int kind_given; /* --kind was on the command line */
};

/* Parse the options of every ref command; operands stay in argv. */
static int ref_parse(int argc, char **argv, struct ref_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "prefix", required_argument, NULL, 'p' },
		{ "algo", required_argument, NULL, 'a' },
		{ "source", required_argument, NULL, 's' },
		{ "kind", required_argument, NULL, 'k' },
		{ "path", required_argument, NULL, 'P' },
		{ "replace", no_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	a->algos = "sha256";
	a->kind = "dir-tree";
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		switch (ch) {
		case 'p':
			a->prefix = optarg;
			break;
		case 'a':
			a->algos = optarg;
			break;
		case 's':
			a->source = optarg;
			break;
		case 'k':
			a->kind = optarg;
			a->kind_given = 1;
			break;
		case 'P':
			a->path = optarg;
			break;
		case 'r':
			a->replace = 1;
			break;
		case 'j':
			a->json = 1;
			break;
		default:
			return -1;
		}
	}
	if (a->source != NULL &&
	    (strlen(a->source) == 0 || strlen(a->source) > REF_NAME_MAX)) {
		cli_warnx("--source: 1 to %d bytes", REF_NAME_MAX);
		return -1;
	}
	return 0;
}

static json_t *source_json(const struct ref_args *a, const char *name)
{
	return json_pack("{s:s,s:s}", "kind", a->kind, "name", name);
}

/* One upload: POST /v1/references; adds the answer's counts to @sum. */
static int upload(struct cli_client *c, json_t *source, json_t *refs,
		  int replace, json_t *sum)
{
	static const char *const counts[] = { "added",
					      "withdrawn",
					      "machines_rejudged",
					      "records_changed",
					      "machines_now_trusted",
					      "machines_now_untrusted" };
	json_t *body, *ans;
	size_t i;
	int rc;

	body = json_pack("{s:i,s:O,s:b,s:O}", "v", 1, "source", source,
			 "replace", replace, "refs", refs);
	if (body == NULL)
		return -1;
	rc = cli_client_call(c, "POST", "/v1/references", body, &ans);
	json_decref(body);
	if (rc < 0)
		return -1;
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		json_object_set_new(sum, counts[i],
				    json_integer(
					    json_integer_value(
						    json_object_get(sum,
								    counts[i])) +
					    json_integer_value(
						    json_object_get(ans,
								    counts[i]))));
	json_decref(ans);
	return 0;
}

/* ---- import-dir ---- */

struct walk {
	struct cli_client *c;
	json_t *source;
	json_t *chunk;
	json_t *sum;
	int replace; /* for the first upload only */
	const EVP_MD *md[REF_ALGOS_MAX];
	const char *algo[REF_ALGOS_MAX];
	size_t nalgos;
	char prefix[REF_PATH_MAX];
	char rel[REF_PATH_MAX]; /* path below DIR being walked */
	EVP_MD_CTX *ctx[REF_ALGOS_MAX];
	uint8_t *buf;
	size_t files, skipped, unreadable;
};

static int parse_algos(struct walk *w, const char *list)
{
	char copy[64], *save = NULL, *tok;

	if (strlen(list) >= sizeof(copy))
		goto bad;
	strcpy(copy, list);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct hash_algo *h = hash_algo_by_name(tok, strlen(tok));

		if (h == NULL || w->nalgos == REF_ALGOS_MAX ||
		    (w->md[w->nalgos] = EVP_get_digestbyname(h->name)) == NULL)
			goto bad;
		w->algo[w->nalgos++] = h->name;
	}
	if (w->nalgos > 0)
		return 0;
bad:
	cli_warnx("--algo wants up to %d of sha1, sha256, sha384, sha512, "
		  "comma-separated, got '%s'",
		  REF_ALGOS_MAX, list);
	return -1;
}

static int flush_chunk(struct walk *w)
{
	if (json_array_size(w->chunk) == 0 && !w->replace)
		return 0;
	if (upload(w->c, w->source, w->chunk, w->replace, w->sum) < 0)
		return -1;
	w->replace = 0;
	json_array_clear(w->chunk);
	return 0;
}

/* Hash the open file @fd with every algorithm into the chunk. */
static int hash_file(struct walk *w, int fd, const char *rel)
{
	uint8_t md[EVP_MAX_MD_SIZE];
	char hex[2 * EVP_MAX_MD_SIZE + 1], path[2 * REF_PATH_MAX];
	unsigned int len;
	ssize_t n;
	size_t i;

	for (i = 0; i < w->nalgos; i++)
		EVP_DigestInit_ex(w->ctx[i], w->md[i], NULL);
	while ((n = read(fd, w->buf, REF_READ_SIZE)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		for (i = 0; i < w->nalgos; i++)
			EVP_DigestUpdate(w->ctx[i], w->buf, (size_t)n);
	}
	snprintf(path, sizeof(path), "%s/%s", w->prefix, rel);
	if (strlen(path) > REF_PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (i = 0; i < w->nalgos; i++) {
		EVP_DigestFinal_ex(w->ctx[i], md, &len);
		hex_encode(md, len, hex);
		json_array_append_new(w->chunk,
				      json_pack("{s:s,s:s,s:s}", "path", path,
						"algo", w->algo[i], "digest",
						hex));
	}
	w->files++;
	if (json_array_size(w->chunk) + w->nalgos >
	    (w->replace ? REF_REPLACE_CHUNK : REF_CHUNK))
		return flush_chunk(w) < 0 ? -2 : 0;
	return 0;
}

static int walk_dir(struct walk *w, int dfd, size_t rel_len);

/* One directory entry of @dfd: recurse, hash, or skip. */
static int walk_entry(struct walk *w, int dfd, const char *name, size_t rel_len)
{
	size_t n = strlen(name);
	struct stat st;
	int fd, rc = 0;

	if (rel_len + n + 2 > sizeof(w->rel)) {
		cli_warnx("%s/%s: path too long", w->rel, name);
		w->unreadable++;
		return 0;
	}
	snprintf(w->rel + rel_len, sizeof(w->rel) - rel_len, "%s%s",
		 rel_len ? "/" : "", name);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		cli_warnx("%s: %s", w->rel, strerror(errno));
		w->unreadable++;
		return 0;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
		w->skipped++; /* symlinks, devices, sockets, fifos */
		return 0;
	}
	fd = openat(dfd, name,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
			    (S_ISDIR(st.st_mode) ? O_DIRECTORY : 0));
	if (fd < 0) {
		cli_warnx("%s: %s", w->rel, strerror(errno));
		w->unreadable++;
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return walk_dir(w, fd, strlen(w->rel));
	rc = hash_file(w, fd, w->rel);
	if (rc == -1) {
		cli_warnx("%s: %s", w->rel, strerror(errno));
		w->unreadable++;
		rc = 0;
	}
	close(fd);
	return rc;
}

/* Walk the directory open at @dfd (this call closes it). */
static int walk_dir(struct walk *w, int dfd, size_t rel_len)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0;

	if (d == NULL) {
		close(dfd);
		cli_warnx("%s: %s", rel_len ? w->rel : ".", strerror(errno));
		w->unreadable++;
		return 0;
	}
	while (rc == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		rc = walk_entry(w, dirfd(d), e->d_name, rel_len);
		w->rel[rel_len] = '\0';
	}
	closedir(d);
	return rc;
}

static int walk_init(struct walk *w, const struct ref_args *a, const char *dir)
{
	char abs[PATH_MAX];
	size_t i, n;

	if (a->prefix == NULL || a->prefix[0] != '/') {
		cli_warnx("import-dir needs --prefix /absolute/path: where "
			  "DIR is in the machines");
		return -1;
	}
	n = strlen(a->prefix);
	while (n > 1 && a->prefix[n - 1] == '/')
		n--;
	if (n >= sizeof(w->prefix))
		return -1;
	memcpy(w->prefix, a->prefix, n);
	w->prefix[n == 1 ? 0 : n] = '\0'; /* "/" joins as "" + "/" */
	if (parse_algos(w, a->algos) < 0)
		return -1;
	if (a->source == NULL && realpath(dir, abs) == NULL) {
		cli_warnx("%s: %s", dir, strerror(errno));
		return -1;
	}
	if (a->source == NULL && strlen(abs) > REF_NAME_MAX) {
		cli_warnx("%s: name too long for a source: give --source", abs);
		return -1;
	}
	w->source = source_json(a, a->source != NULL ? a->source : abs);
	w->chunk = json_array();
	w->sum = json_object();
	w->buf = malloc(REF_READ_SIZE);
	for (i = 0; i < w->nalgos; i++)
		w->ctx[i] = EVP_MD_CTX_new();
	w->replace = a->replace;
	return w->source && w->chunk && w->sum && w->buf ? 0 : -1;
}

static void walk_free(struct walk *w)
{
	size_t i;

	for (i = 0; i < REF_ALGOS_MAX; i++)
		EVP_MD_CTX_free(w->ctx[i]);
	free(w->buf);
	json_decref(w->source);
	json_decref(w->chunk);
	json_decref(w->sum);
	cli_client_free(w->c);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void print_import(const struct walk *w, const char *dir, double secs)
{
	json_t *s = w->sum;

	printf("imported %zu files (%lld references) from %s as %s:%s in "
	       "%.2f s, %.0f files/s\n",
	       w->files,
	       (long long)json_integer_value(json_object_get(s, "added")), dir,
	       json_string_value(json_object_get(w->source, "kind")),
	       json_string_value(json_object_get(w->source, "name")), secs,
	       secs > 0 ? (double)w->files / secs : 0.0);
	printf("withdrawn %lld, machines re-judged %lld, now trusted %lld, "
	       "now untrusted %lld",
	       (long long)json_integer_value(json_object_get(s, "withdrawn")),
	       (long long)json_integer_value(
		       json_object_get(s, "machines_rejudged")),
	       (long long)json_integer_value(
		       json_object_get(s, "machines_now_trusted")),
	       (long long)json_integer_value(
		       json_object_get(s, "machines_now_untrusted")));
	printf("; skipped %zu (not regular files), unreadable %zu\n",
	       w->skipped, w->unreadable);
}

static int cmd_import_dir(int argc, char **argv)
{
	struct walk w = { 0 };
	struct ref_args a;
	double start = now_seconds();
	int fd, rc = CLI_EXIT_MISMATCH;

	if (ref_parse(argc, argv, &a) < 0 || argc - optind != 1) {
		fprintf(stderr,
			"usage: imatrust ref import-dir --prefix PATH "
			"[--algo ALG[,ALG]] [--source NAME] [--kind KIND] "
			"[--replace] %s DIR\n",
			CLI_CLIENT_USAGE);
		return CLI_EXIT_USAGE;
	}
	if (walk_init(&w, &a, argv[optind]) < 0) {
		walk_free(&w);
		return CLI_EXIT_USAGE;
	}
	fd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		cli_warnx("%s: %s", argv[optind], strerror(errno));
		walk_free(&w);
		return CLI_EXIT_USAGE;
	}
	w.c = cli_client_new(&a.co);
	if (w.c == NULL) {
		close(fd);
		goto out;
	}
	if (walk_dir(&w, fd, 0) < 0 || flush_chunk(&w) < 0)
		goto out;
	print_import(&w, argv[optind], now_seconds() - start);
	rc = w.unreadable > 0 ? CLI_EXIT_MISMATCH : CLI_EXIT_OK;
out:
	walk_free(&w);
	return rc;
}

/* ---- add, ls, rm ---- */

/* "ALGO:HEX" into a refs entry for @path; NULL after a message. */
static json_t *ref_entry(const char *path, const char *spec)
{
	const char *colon = strchr(spec, ':');
	const struct hash_algo *h;

	h = colon != NULL ? hash_algo_by_name(spec, (size_t)(colon - spec)) :
			    NULL;
	if (path[0] != '/' || h == NULL || strlen(colon + 1) != 2 * h->size ||
	    strspn(colon + 1, "0123456789abcdefABCDEF") != 2 * h->size) {
		cli_warnx("want /ABSOLUTE/PATH ALGO:HEX (sha256:<64 hex "
			  "digits>), got '%s' '%s'",
			  path, spec);
		return NULL;
	}
	return json_pack("{s:s,s:s%,s:s}", "path", path, "algo", spec,
			 (size_t)(colon - spec), "digest", colon + 1);
}

static int cmd_add(int argc, char **argv)
{
	struct ref_args a;
	struct cli_client *c = NULL;
	json_t *src = NULL, *refs = NULL, *sum = json_object(), *e;
	int rc = CLI_EXIT_USAGE;

	if (ref_parse(argc, argv, &a) < 0 || argc - optind != 2) {
		fprintf(stderr,
			"usage: imatrust ref add [--source NAME] "
			"[--kind KIND] %s PATH ALGO:HEX\n",
			CLI_CLIENT_USAGE);
		goto out;
	}
	e = ref_entry(argv[optind], argv[optind + 1]);
	if (e == NULL)
		goto out;
	refs = json_pack("[o]", e);
	src = source_json(&a, a.source != NULL ? a.source : "manual");
	rc = CLI_EXIT_MISMATCH;
	c = cli_client_new(&a.co);
	if (c == NULL || refs == NULL || src == NULL ||
	    upload(c, src, refs, 0, sum) < 0)
		goto out;
	printf("added %s; machines re-judged %lld, now trusted %lld\n",
	       argv[optind],
	       (long long)json_integer_value(
		       json_object_get(sum, "machines_rejudged")),
	       (long long)json_integer_value(
		       json_object_get(sum, "machines_now_trusted")));
	rc = CLI_EXIT_OK;
out:
	json_decref(src);
	json_decref(refs);
	json_decref(sum);
	cli_client_free(c);
	return rc;
}

/* The query of "ref ls": ?path=&source=KIND:NAME, escaped. */
static char *ls_query(struct cli_client *c, const struct ref_args *a)
{
	char *path = a->path ? cli_client_escape(c, a->path) : NULL;
	char *src = NULL, *q = NULL, *spec = NULL;

	if (a->source != NULL &&
	    asprintf(&spec, "%s:%s", a->kind, a->source) >= 0) {
		src = cli_client_escape(c, spec);
		free(spec);
	}
	if (asprintf(&q, "%s%s%s%s", path ? "&path=" : "", path ? path : "",
		     src ? "&source=" : "", src ? src : "") < 0)
		q = NULL;
	free(path);
	free(src);
	return q;
}

static void print_ref(json_t *r)
{
	json_t *s = json_object_get(r, "source");

	printf("%s  %s:%s  %s:%s\n",
	       json_string_value(json_object_get(r, "path")),
	       json_string_value(json_object_get(r, "algo")),
	       json_string_value(json_object_get(r, "digest")),
	       json_string_value(json_object_get(s, "kind")),
	       json_string_value(json_object_get(s, "name")));
}

static int cmd_ls(int argc, char **argv)
{
	struct ref_args a;
	struct cli_client *c = NULL;
	json_t *all = json_array(), *r;
	char *q = NULL;
	int rc = CLI_EXIT_MISMATCH;
	size_t i;

	if (ref_parse(argc, argv, &a) < 0 || argc != optind) {
		fprintf(stderr,
			"usage: imatrust ref ls [--path PATH] "
			"[--source NAME [--kind KIND]] [--json] %s\n",
			CLI_CLIENT_USAGE);
		rc = CLI_EXIT_USAGE;
		goto out;
	}
	c = cli_client_new(&a.co);
	if (c == NULL || all == NULL || (q = ls_query(c, &a)) == NULL)
		goto out;
	if (cli_client_get_pages(c, "/v1/references", q, "refs", all) < 0)
		goto out;
	if (a.json) {
		cli_print_json(all);
	} else {
		json_array_foreach(all, i, r)
			print_ref(r);
	}
	rc = CLI_EXIT_OK;
out:
	free(q);
	json_decref(all);
	cli_client_free(c);
	return rc;
}

static int cmd_rm(int argc, char **argv)
{
	struct ref_args a;
	struct cli_client *c = NULL;
	json_t *body = NULL, *ans = NULL, *e;
	int rc = CLI_EXIT_USAGE, nargs;

	nargs = ref_parse(argc, argv, &a) < 0 ? -1 : argc - optind;
	if (nargs != 2 && !(nargs == 0 && a.source != NULL)) {
		fprintf(stderr,
			"usage: imatrust ref rm [--source NAME] "
			"[--kind KIND] %s [PATH ALGO:HEX]\n"
			"       (only --source: withdraw the whole source)\n",
			CLI_CLIENT_USAGE);
		goto out;
	}
	body = json_pack("{s:i}", "v", 1);
	if (body == NULL)
		goto out;
	if (a.source != NULL)
		json_object_set_new(body, "source", source_json(&a, a.source));
	if (nargs == 2) {
		e = ref_entry(argv[optind], argv[optind + 1]);
		if (e == NULL)
			goto out;
		json_object_set_new(body, "refs", json_pack("[o]", e));
	}
	rc = CLI_EXIT_MISMATCH;
	c = cli_client_new(&a.co);
	if (c == NULL ||
	    cli_client_call(c, "DELETE", "/v1/references", body, &ans) < 0)
		goto out;
	printf("deleted %lld references; machines re-judged %lld, now "
	       "untrusted %lld, now trusted %lld\n",
	       (long long)json_integer_value(json_object_get(ans, "deleted")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_rejudged")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_now_untrusted")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_now_trusted")));
	rc = CLI_EXIT_OK;
out:
	json_decref(ans);
	json_decref(body);
	cli_client_free(c);
	return rc;
}

/* ---- sources ---- */

static void print_source(json_t *s)
{
	json_t *retire = json_object_get(s, "retire_at");
	const char *pkg = json_string_value(json_object_get(s, "package"));

	printf("%-11s %-40s %8lld refs",
	       json_string_value(json_object_get(s, "kind")),
	       json_string_value(json_object_get(s, "name")),
	       (long long)json_integer_value(json_object_get(s, "refs")));
	if (pkg != NULL)
		printf("  %s %s %s", pkg,
		       json_string_value(json_object_get(s, "version")),
		       json_string_value(json_object_get(s, "arch")));
	if (json_is_integer(retire))
		printf("  retire at %lld",
		       (long long)json_integer_value(retire));
	putchar('\n');
}

static int cmd_sources(int argc, char **argv)
{
	struct ref_args a;
	struct cli_client *c = NULL;
	json_t *ans = NULL, *s;
	char *kind = NULL, *path = NULL;
	int rc = CLI_EXIT_MISMATCH;
	size_t i;

	if (ref_parse(argc, argv, &a) < 0 || argc != optind) {
		fprintf(stderr,
			"usage: imatrust ref sources [--kind KIND] "
			"[--json] %s\n",
			CLI_CLIENT_USAGE);
		return CLI_EXIT_USAGE;
	}
	c = cli_client_new(&a.co);
	if (c == NULL ||
	    (a.kind_given && (kind = cli_client_escape(c, a.kind)) == NULL) ||
	    asprintf(&path, "/v1/sources%s%s", kind ? "?kind=" : "",
		     kind ? kind : "") < 0) {
		path = NULL;
		goto out;
	}
	if (cli_client_call(c, "GET", path, NULL, &ans) < 0)
		goto out;
	if (a.json) {
		cli_print_json(json_object_get(ans, "sources"));
	} else {
		json_array_foreach(json_object_get(ans, "sources"), i, s)
			print_source(s);
	}
	rc = CLI_EXIT_OK;
out:
	json_decref(ans);
	free(kind);
	free(path);
	cli_client_free(c);
	return rc;
}

static const struct cli_command ref_commands[] = {
	{ "import-dir", cmd_import_dir,
	  "hash a directory tree and upload it as references" },
	{ "add", cmd_add, "add one reference PATH ALGO:HEX" },
	{ "ls", cmd_ls, "list references" },
	{ "rm", cmd_rm, "remove a reference, or withdraw a source" },
	{ "import-deb", cli_ref_import_deb,
	  "import Debian packages (parsed by the verifier)" },
	{ "import-archive", cli_ref_import_archive,
	  "import every package of a local apt archive" },
	{ "import-list", cli_ref_import_list,
	  "import a golden measurement list proven by its PCRs" },
	{ "import-keylime", cli_ref_import_keylime,
	  "import a Keylime runtime policy" },
	{ "import-efi", cli_ref_import_efi,
	  "import EFI applications' Authenticode digests" },
	{ "uki", cli_ref_uki,
	  "print a UKI's sections as the boot policy's \"uki\" entry" },
	{ "export-keylime", cli_ref_export_keylime,
	  "write a policy as a Keylime runtime policy" },
	{ "retire", cli_ref_retire,
	  "withdraw a source (an old package version) and re-judge" },
	{ "sources", cmd_sources,
	  "list the sources: kind, name, package version, refs" },
	{ NULL, NULL, NULL },
};

int cli_ref_main(int argc, char **argv)
{
	return cli_dispatch("ref", ref_commands, argc, argv);
}

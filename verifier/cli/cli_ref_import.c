// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_ref_import.c - "imatrust ref" imports the verifier parses itself,
 * and retiring a source:
 *
 *	imatrust ref import-deb [--algo sha256[,sha1]] FILE.deb...
 *	imatrust ref import-archive [--algo ...] DIR
 *	imatrust ref import-list --name NAME LIST --pcrs ALG:FILE...
 *	imatrust ref import-keylime --name NAME POLICY.json
 *	imatrust ref export-keylime --policy NAME
 *	imatrust ref retire KIND:NAME
 *
 * Each file is uploaded whole (base64 in JSON, at most 48 MiB of .deb)
 * and imported on the verifier in one transaction; import-archive reads
 * the archive's Packages index, checks every .deb's size and SHA-256
 * against it, and uploads them one by one (a version already imported
 * is a no-op on the verifier).
 */
#define _GNU_SOURCE /* asprintf */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"
#include "import_apt.h"

#include <openssl/sha.h>

#define DEB_MAX (48u << 20)    /* bytes of one .deb upload */
#define POLICY_MAX (32u << 20) /* bytes of a Keylime policy */
#define LIST_MAX (32u << 20)   /* bytes of a golden list */
#define PCRS_MAX 65536	       /* bytes of a PCR file */
#define PCRS_FILES_MAX 4       /* --pcrs: banks */

struct import_args {
	struct cli_client_opts co;
	const char *algos;
	const char *name;
	const char *policy;
	const char *pcrs[PCRS_FILES_MAX];
	size_t npcrs;
	int json;
};

static int import_parse(int argc, char **argv, struct import_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "algo", required_argument, NULL, 'a' },
		{ "name", required_argument, NULL, 'n' },
		{ "policy", required_argument, NULL, 'p' },
		{ "pcrs", required_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	a->algos = "sha256";
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		switch (ch) {
		case 'a':
			a->algos = optarg;
			break;
		case 'n':
			a->name = optarg;
			break;
		case 'p':
			a->policy = optarg;
			break;
		case 'P':
			if (a->npcrs == PCRS_FILES_MAX)
				return -1;
			a->pcrs[a->npcrs++] = optarg;
			break;
		case 'j':
			a->json = 1;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

static json_t *algos_json(const char *list)
{
	json_t *arr = json_array();
	char *copy = strdup(list), *save = NULL, *t;

	for (t = copy != NULL ? strtok_r(copy, ",", &save) : NULL;
	     t != NULL && arr != NULL; t = strtok_r(NULL, ",", &save))
		json_array_append_new(arr, json_string(t));
	free(copy);
	return arr;
}

/* @buf as a base64 JSON string. */
static json_t *b64_json(const uint8_t *buf, size_t len)
{
	char *s = malloc(B64_ENCODED_LEN(len) + 1);
	json_t *j;

	if (s == NULL)
		return NULL;
	b64_encode(buf, len, s);
	j = json_string(s);
	free(s);
	return j;
}

static void print_counts(const char *what, json_t *ans)
{
	printf("%s: %lld added, %lld withdrawn; ", what,
	       (long long)json_integer_value(json_object_get(ans, "added")),
	       (long long)json_integer_value(
		       json_object_get(ans, "withdrawn")));
	cli_print_rejudged(ans);
}

/* A Keylime import's entries left out, each by member with why. */
static void print_not_imported(json_t *ans)
{
	json_t *left = json_object_get(ans, "not_imported"), *e;
	json_int_t n =
		json_integer_value(json_object_get(ans, "not_imported_count"));
	size_t i;

	if (n == 0)
		return;
	printf("%lld %s not imported:\n", (long long)n,
	       n == 1 ? "entry" : "entries");
	json_array_foreach(left, i, e)
		printf("  %s: %s\n",
		       json_string_value(json_object_get(e, "member")),
		       json_string_value(json_object_get(e, "why")));
	if ((json_int_t)json_array_size(left) < n)
		printf("  and %lld more\n",
		       (long long)(n - (json_int_t)json_array_size(left)));
}

/* @e of an apt index: the file must have the size and SHA-256 it says. */
static int check_entry(const struct apt_entry *e, const uint8_t *deb,
		       size_t len)
{
	uint8_t md[SHA256_DIGEST_LENGTH];

	if (len != e->size) {
		cli_warnx("%s: %zu bytes, the index (stanza %zu, %s) says "
			  "%llu: not imported",
			  e->path, len, e->stanza, e->package,
			  (unsigned long long)e->size);
		return -1;
	}
	SHA256(deb, len, md);
	if (memcmp(md, e->sha256, sizeof(md)) != 0) {
		cli_warnx("%s: SHA256 differs from the index's (stanza %zu, "
			  "%s): not imported",
			  e->path, e->stanza, e->package);
		return -1;
	}
	return 0;
}

static int upload_deb(struct cli_client *c, const char *file, const char *algos,
		      const struct apt_entry *e)
{
	json_t *body = NULL, *ans = NULL, *src;
	uint8_t *deb;
	size_t len;
	int rc = -1;

	deb = (uint8_t *)cli_read_file(file, DEB_MAX, &len);
	if (deb == NULL)
		return -1;
	if (e != NULL && check_entry(e, deb, len) < 0) {
		free(deb);
		return -1;
	}
	body = json_pack("{s:i,s:o,s:o}", "v", 1, "deb", b64_json(deb, len),
			 "algos", algos_json(algos));
	free(deb);
	if (body == NULL ||
	    cli_client_call(c, "POST", "/v1/references/deb", body, &ans) < 0)
		goto out;
	src = json_object_get(ans, "source");
	if (json_is_true(json_object_get(ans, "already")))
		printf("%s: deb:%s already imported\n", file,
		       json_string_value(json_object_get(src, "name")));
	else
		print_counts(json_string_value(json_object_get(src, "name")),
			     ans);
	rc = 0;
out:
	json_decref(body);
	json_decref(ans);
	return rc;
}

int cli_ref_import_deb(int argc, char **argv)
{
	struct import_args a;
	struct cli_client *c = NULL;
	int rc = CLI_EXIT_USAGE, i;

	if (import_parse(argc, argv, &a) < 0 || optind >= argc) {
		fprintf(stderr,
			"usage: imatrust ref import-deb [--algo "
			"sha256[,sha1]] %s FILE.deb...\n",
			CLI_CLIENT_USAGE);
		return CLI_EXIT_USAGE;
	}
	c = cli_client_new(&a.co);
	rc = c != NULL ? CLI_EXIT_OK : CLI_EXIT_MISMATCH;
	for (i = optind; c != NULL && i < argc; i++) {
		if (upload_deb(c, argv[i], a.algos, NULL) < 0) {
			rc = CLI_EXIT_MISMATCH;
			break;
		}
	}
	cli_client_free(c);
	return rc;
}

struct archive_walk {
	struct cli_client *c;
	const char *algos;
	size_t packages, failed;
};

static int archive_one(void *arg, const struct apt_entry *e,
		       struct imt_error *err)
{
	struct archive_walk *w = arg;

	(void)err;
	w->packages++;
	/* one bad package is named and skipped; the others still count */
	if (upload_deb(w->c, e->path, w->algos, e) < 0)
		w->failed++;
	return 0;
}

int cli_ref_import_archive(int argc, char **argv)
{
	struct import_args a;
	struct archive_walk w = { 0 };
	struct imt_error err;
	int rc = CLI_EXIT_USAGE;

	if (import_parse(argc, argv, &a) < 0 || optind + 1 != argc) {
		fprintf(stderr,
			"usage: imatrust ref import-archive [--algo "
			"sha256[,sha1]] %s DIR\n"
			"       (DIR: a local apt archive or mirror: Packages"
			"[.xz|.gz] and the pool)\n",
			CLI_CLIENT_USAGE);
		return CLI_EXIT_USAGE;
	}
	w.c = cli_client_new(&a.co);
	w.algos = a.algos;
	rc = CLI_EXIT_MISMATCH;
	if (w.c == NULL)
		goto out;
	if (apt_archive_each(argv[optind], archive_one, &w, &err) < 0) {
		cli_warnx("%s: %s", argv[optind], err.msg);
		goto out;
	}
	printf("%s: %zu packages, %zu failed\n", argv[optind], w.packages,
	       w.failed);
	if (w.failed == 0)
		rc = CLI_EXIT_OK;
out:
	cli_client_free(w.c);
	return rc;
}

/* "ALG:FILE" into pcrs[ALG] = the file's text. */
static int add_pcrs(json_t *pcrs, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char *text, *bank;
	size_t len;
	int rc;

	if (colon == NULL || colon == spec || colon[1] == '\0') {
		cli_warnx("--pcrs %s: want ALG:FILE (sha256:pcrs-sha256)",
			  spec);
		return -1;
	}
	text = cli_read_file(colon + 1, PCRS_MAX, &len);
	if (text == NULL)
		return -1;
	bank = strndup(spec, (size_t)(colon - spec));
	rc = bank != NULL ?
		     json_object_set_new(pcrs, bank, json_stringn(text, len)) :
		     -1;
	free(bank);
	free(text);
	return rc;
}

static char *path_with_name(struct cli_client *c, const char *route,
			    const char *name)
{
	char *esc = cli_client_escape(c, name), *path = NULL;

	if (esc != NULL && asprintf(&path, "%s?name=%s", route, esc) < 0)
		path = NULL;
	free(esc);
	return path;
}

int cli_ref_import_list(int argc, char **argv)
{
	struct import_args a;
	struct cli_client *c = NULL;
	json_t *body = NULL, *pcrs = json_object(), *ans = NULL;
	uint8_t *list = NULL;
	char *path = NULL;
	size_t len, i;
	int rc = CLI_EXIT_USAGE;

	if (import_parse(argc, argv, &a) < 0 || optind + 1 != argc ||
	    a.name == NULL || a.npcrs == 0) {
		fprintf(stderr,
			"usage: imatrust ref import-list --name NAME "
			"--pcrs ALG:FILE [--pcrs ALG:FILE...] %s LIST\n"
			"       (LIST: binary_runtime_measurements; FILE: "
			"\"INDEX HEX\" lines)\n",
			CLI_CLIENT_USAGE);
		goto out;
	}
	for (i = 0; i < a.npcrs; i++) {
		if (pcrs == NULL || add_pcrs(pcrs, a.pcrs[i]) < 0)
			goto out;
	}
	rc = CLI_EXIT_MISMATCH;
	list = (uint8_t *)cli_read_file(argv[optind], LIST_MAX, &len);
	if (list == NULL)
		goto out;
	body = json_pack("{s:i,s:o,s:O}", "v", 1, "list", b64_json(list, len),
			 "pcrs", pcrs);
	c = cli_client_new(&a.co);
	path = c != NULL ? path_with_name(c, "/v1/references/list", a.name) :
			   NULL;
	if (body == NULL || path == NULL ||
	    cli_client_call(c, "POST", path, body, &ans) < 0)
		goto out;
	print_counts(a.name, ans);
	rc = CLI_EXIT_OK;
out:
	free(list);
	free(path);
	json_decref(pcrs);
	json_decref(body);
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

int cli_ref_import_keylime(int argc, char **argv)
{
	struct import_args a;
	struct cli_client *c = NULL;
	json_t *body = NULL, *ans = NULL;
	json_error_t je;
	char *text = NULL, *path = NULL;
	size_t len;
	int rc = CLI_EXIT_USAGE;

	if (import_parse(argc, argv, &a) < 0 || optind + 1 != argc ||
	    a.name == NULL) {
		fprintf(stderr,
			"usage: imatrust ref import-keylime --name "
			"NAME %s POLICY.json\n",
			CLI_CLIENT_USAGE);
		goto out;
	}
	text = cli_read_file(argv[optind], POLICY_MAX, &len);
	if (text == NULL)
		goto out;
	body = json_loadb(text, len, 0, &je);
	if (body == NULL) {
		cli_warnx("%s: not JSON: %s (line %d)", argv[optind], je.text,
			  je.line);
		goto out;
	}
	rc = CLI_EXIT_MISMATCH;
	c = cli_client_new(&a.co);
	path = c != NULL ? path_with_name(c, "/v1/references/keylime", a.name) :
			   NULL;
	if (path == NULL || cli_client_call(c, "POST", path, body, &ans) < 0)
		goto out;
	print_counts(a.name, ans);
	print_not_imported(ans);
	rc = CLI_EXIT_OK;
out:
	free(text);
	free(path);
	json_decref(body);
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

int cli_ref_export_keylime(int argc, char **argv)
{
	struct import_args a;
	struct cli_client *c = NULL;
	json_t *ans = NULL;
	char *esc = NULL, *path = NULL;
	int rc = CLI_EXIT_USAGE;

	if (import_parse(argc, argv, &a) < 0 || optind != argc ||
	    a.policy == NULL) {
		fprintf(stderr,
			"usage: imatrust ref export-keylime --policy "
			"NAME %s > POLICY.json\n",
			CLI_CLIENT_USAGE);
		goto out;
	}
	rc = CLI_EXIT_MISMATCH;
	c = cli_client_new(&a.co);
	esc = c != NULL ? cli_client_escape(c, a.policy) : NULL;
	if (esc == NULL ||
	    asprintf(&path, "/v1/policies/%s/keylime", esc) < 0) {
		path = NULL;
		goto out;
	}
	if (cli_client_call(c, "GET", path, NULL, &ans) < 0)
		goto out;
	cli_print_json(ans);
	rc = CLI_EXIT_OK;
out:
	free(esc);
	free(path);
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

int cli_ref_retire(int argc, char **argv)
{
	struct import_args a;
	struct cli_client *c = NULL;
	json_t *body = NULL, *ans = NULL;
	const char *colon;
	char *kind = NULL;
	int rc = CLI_EXIT_USAGE;

	if (import_parse(argc, argv, &a) < 0 || optind + 1 != argc ||
	    (colon = strchr(argv[optind], ':')) == NULL ||
	    colon == argv[optind] || colon[1] == '\0') {
		fprintf(stderr,
			"usage: imatrust ref retire %s KIND:NAME\n"
			"       (deb:hello_1.0_amd64; see imatrust ref "
			"sources)\n",
			CLI_CLIENT_USAGE);
		goto out;
	}
	kind = strndup(argv[optind], (size_t)(colon - argv[optind]));
	body = kind != NULL ? json_pack("{s:i,s:{s:s,s:s}}", "v", 1, "source",
					"kind", kind, "name", colon + 1) :
			      NULL;
	rc = CLI_EXIT_MISMATCH;
	c = cli_client_new(&a.co);
	if (c == NULL || body == NULL ||
	    cli_client_call(c, "POST", "/v1/references/retire", body, &ans) < 0)
		goto out;
	printf("%s retired: %lld references withdrawn; machines re-judged "
	       "%lld, now untrusted %lld\n",
	       argv[optind],
	       (long long)json_integer_value(json_object_get(ans, "withdrawn")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_rejudged")),
	       (long long)json_integer_value(
		       json_object_get(ans, "machines_now_untrusted")));
	rc = CLI_EXIT_OK;
out:
	free(kind);
	json_decref(body);
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * cli_ref_efi.c - "imatrust ref import-efi": EFI applications as
 * references.
 *
 *	imatrust ref import-efi [--bank sha256[,sha1]] [--source NAME]
 *		[--version V] [--json] FILE.efi...
 *
 * Each file is checked here first (a file that is not a PE image is
 * refused by name before anything is sent), then all are uploaded in one
 * request (base64 in JSON) and hashed again and stored by the verifier
 * in one transaction. Prints each file's Authenticode digests.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "cli.h"
#include "cli_client.h"
#include "cli_util.h"
#include "import_efi.h"

#define EFI_FILE_MAX (48u << 20) /* bytes of one image upload */

struct efi_args {
	struct cli_client_opts co;
	const char *banks;
	const char *source;
	const char *version;
	int json;
};

static int efi_parse(int argc, char **argv, struct efi_args *a)
{
	static const struct option opts[] = {
		CLI_CLIENT_LONGOPTS,
		{ "bank", required_argument, NULL, 'b' },
		{ "source", required_argument, NULL, 's' },
		{ "version", required_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	a->banks = "sha256";
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_client_opt(&a->co, ch, optarg))
			continue;
		switch (ch) {
		case 'b':
			a->banks = optarg;
			break;
		case 's':
			a->source = optarg;
			break;
		case 'V':
			a->version = optarg;
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

/* Check @path locally and append {"name","data"} to @files. */
static int add_file(struct import_efi *imp, const char *path, json_t *files)
{
	struct imt_error err;
	char *data, *b64;
	size_t len;
	int rc = -1;

	data = cli_read_file(path, EFI_FILE_MAX, &len);
	if (data == NULL)
		return -1;
	if (import_efi_add(imp, path, (const uint8_t *)data, len, &err) !=
	    IMT_OK) {
		cli_warnx("%s", err.msg);
		goto out;
	}
	b64 = malloc(B64_ENCODED_LEN(len) + 1);
	if (b64 == NULL) {
		cli_warnx("out of memory");
		goto out;
	}
	b64_encode((const uint8_t *)data, len, b64);
	rc = json_array_append_new(files,
				   json_pack("{s:s,s:s}", "name",
					     imp->file[imp->nfiles - 1].name,
					     "data", b64));
	free(b64);
out:
	free(data);
	return rc;
}

static json_t *request(const struct efi_args *a, struct import_efi *imp,
		       json_t *files)
{
	json_t *banks = json_array(), *body;
	size_t i;

	for (i = 0; banks != NULL && i < imp->nbanks; i++)
		json_array_append_new(banks, json_string(imp->bank[i]->name));
	body = json_pack("{s:i,s:o,s:O}", "v", 1, "banks", banks, "files",
			 files);
	if (body != NULL && a->source != NULL)
		json_object_set_new(body, "source", json_string(a->source));
	if (body != NULL && a->version != NULL)
		json_object_set_new(body, "version", json_string(a->version));
	return body;
}

static void print_answer(json_t *ans)
{
	json_t *files = json_object_get(ans, "files"), *f, *d;
	const char *alg;
	size_t i;

	printf("efi:%s: %lld digests added%s\n",
	       json_string_value(
		       json_object_get(json_object_get(ans, "source"), "name")),
	       (long long)json_integer_value(json_object_get(ans, "added")),
	       json_is_true(json_object_get(ans, "already")) ?
		       " (already imported)" :
		       "");
	json_array_foreach(files, i, f) {
		json_object_foreach(json_object_get(f, "digests"), alg, d)
			printf("  %s %s:%s%s\n",
			       json_string_value(json_object_get(f, "name")),
			       alg, json_string_value(d),
			       json_is_true(json_object_get(f, "signed")) ?
				       " (signed)" :
				       "");
	}
}

int cli_ref_import_efi(int argc, char **argv)
{
	struct import_efi *imp = NULL;
	struct cli_client *c = NULL;
	json_t *files = NULL, *body = NULL, *ans = NULL;
	struct imt_error err;
	struct efi_args a;
	int rc = CLI_EXIT_USAGE, i;

	if (efi_parse(argc, argv, &a) < 0 || optind >= argc) {
		fprintf(stderr,
			"usage: imatrust ref import-efi [--bank "
			"sha256[,sha1]] [--source NAME] [--version V] "
			"[--json] %s FILE.efi...\n",
			CLI_CLIENT_USAGE);
		return rc;
	}
	imp = calloc(1, sizeof(*imp));
	files = json_array();
	if (imp == NULL || files == NULL) {
		cli_warnx("out of memory");
		goto out;
	}
	if (import_efi_banks(imp, a.banks, &err) != IMT_OK) {
		cli_warnx("--bank: %s", err.msg);
		goto out;
	}
	for (i = optind; i < argc; i++)
		if (add_file(imp, argv[i], files) < 0)
			goto out;
	body = request(&a, imp, files);
	rc = CLI_EXIT_MISMATCH;
	c = cli_client_new(&a.co);
	if (body == NULL || c == NULL ||
	    cli_client_call(c, "POST", "/v1/references/efi", body, &ans) < 0)
		goto out;
	if (a.json)
		cli_print_json(ans);
	else
		print_answer(ans);
	rc = CLI_EXIT_OK;
out:
	free(imp);
	json_decref(files);
	json_decref(body);
	json_decref(ans);
	cli_client_free(c);
	return rc;
}

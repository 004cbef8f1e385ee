// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_efi.c - EFI applications as references (bearer token):
 *
 *	POST /v1/references/efi	{"v":1,"files":[{"name":N,"data":BASE64}],
 *				 "banks":["sha256",..],"source":S,
 *				 "version":V}
 *
 * The verifier hashes every image itself (Authenticode, in each bank)
 * and stores them as the source efi:S in one transaction: one file that
 * is not a PE image, and nothing is stored. S defaults to the files'
 * names joined by ','. The same images again add nothing ("already").
 * EFI digests never vouch for an IMA record, so nothing is re-judged.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth.h"
#include "b64.h"
#include "change.h"
#include "cluster.h"
#include "db_efi.h"
#include "engine_ops.h"
#include "hex.h"
#include "import_efi.h"
#include "rejudge.h"
#include "rest.h"
#include "verifier.h"
#include "routes.h"

/* "banks": ["sha256", ...] as the comma list import_efi_banks() takes. */
static int parse_banks(json_t *body, struct import_efi *imp,
		       struct http_response *res)
{
	json_t *arr = json_object_get(body, "banks"), *it;
	char list[IMPORT_EFI_BANKS_MAX * 8] = "";
	struct imt_error err;
	size_t i;

	if (arr == NULL) {
		snprintf(list, sizeof(list), "sha256");
	} else if (!json_is_array(arr) || json_array_size(arr) == 0 ||
		   json_array_size(arr) > IMPORT_EFI_BANKS_MAX) {
		http_error(res, 400, "\"banks\": want 1 to %d bank names",
			   IMPORT_EFI_BANKS_MAX);
		return -1;
	}
	json_array_foreach(arr, i, it) {
		const char *b = json_string_value(it);

		if (b == NULL || strlen(b) > 6 || strchr(b, ',') != NULL) {
			http_error(res, 400,
				   "banks[%zu]: want sha1, sha256, "
				   "sha384 or sha512",
				   i);
			return -1;
		}
		if (i > 0)
			strcat(list, ",");
		strcat(list, b);
	}
	if (import_efi_banks(imp, list, &err) != IMT_OK) {
		http_error(res, 400, "\"banks\": %s", err.msg);
		return -1;
	}
	return 0;
}

static int add_file(struct import_efi *imp, size_t i, json_t *f,
		    struct http_response *res)
{
	const char *name = json_string_value(json_object_get(f, "name"));
	json_t *data = json_object_get(f, "data");
	const char *s = json_string_value(data);
	size_t n = s != NULL ? json_string_length(data) : 0;
	struct imt_error err;
	uint8_t *buf;
	long got;

	if (name == NULL || strchr(name, '/') != NULL || s == NULL || n == 0) {
		http_error(res, 400,
			   "files[%zu]: want {\"name\": a file "
			   "name, \"data\": base64}",
			   i);
		return -1;
	}
	buf = malloc(B64_DECODED_MAX(n) + 1);
	if (buf == NULL) {
		http_error(res, 503, "out of memory");
		return -1;
	}
	got = b64_decode(s, n, buf);
	if (got <= 0) {
		free(buf);
		http_error(res, 400, "files[%zu] %s: \"data\" is not base64", i,
			   name);
		return -1;
	}
	if (import_efi_add(imp, name, buf, (size_t)got, &err) != IMT_OK) {
		free(buf);
		http_error(res, 400, "files[%zu] %s; nothing stored", i,
			   err.msg);
		return -1;
	}
	free(buf);
	return 0;
}

static int parse_files(json_t *body, struct import_efi *imp,
		       struct http_response *res)
{
	json_t *arr = json_object_get(body, "files"), *f;
	size_t i;

	if (!json_is_array(arr) || json_array_size(arr) == 0 ||
	    json_array_size(arr) > IMPORT_EFI_FILES_MAX) {
		http_error(res, 400, "\"files\": want 1 to %d images",
			   IMPORT_EFI_FILES_MAX);
		return -1;
	}
	json_array_foreach(arr, i, f) {
		if (add_file(imp, i, f, res) < 0)
			return -1;
	}
	return 0;
}

/* "source", or the file names joined by ','; NULL after a 400. */
static const char *source_name(json_t *body, const struct import_efi *imp,
			       char *buf, struct http_response *res)
{
	const char *s = json_string_value(json_object_get(body, "source"));
	size_t i, len = 0;

	if (json_object_get(body, "source") != NULL &&
	    (s == NULL || s[0] == 0 || strlen(s) > DB_NAME_MAX)) {
		http_error(res, 400,
			   "\"source\": want a name of 1 to %d "
			   "bytes",
			   DB_NAME_MAX);
		return NULL;
	}
	if (s != NULL)
		return s;
	for (i = 0; i < imp->nfiles; i++) {
		size_t n = strlen(imp->file[i].name);

		if (len + n + (i > 0) > DB_NAME_MAX) {
			http_error(res, 400,
				   "the file names make a source "
				   "name over %d bytes: give \"source\"",
				   DB_NAME_MAX);
			return NULL;
		}
		if (i > 0)
			buf[len++] = ',';
		memcpy(buf + len, imp->file[i].name, n);
		len += n;
	}
	buf[len] = 0;
	return buf;
}

static json_t *files_json(const struct import_efi *imp)
{
	json_t *arr = json_array();
	size_t i, b;

	for (i = 0; arr != NULL && i < imp->nfiles; i++) {
		const struct import_efi_file *f = &imp->file[i];
		json_t *d = json_object();

		for (b = 0; d != NULL && b < imp->nbanks; b++)
			json_object_set_new(d, imp->bank[b]->name,
					    hex_json(f->digest[b],
						     imp->bank[b]->size));
		json_array_append_new(arr, json_pack("{s:s,s:s,s:b,s:o*}",
						     "name", f->name, "machine",
						     pe_machine_name(
							     f->info.machine),
						     "signed",
						     f->info.cert_size != 0,
						     "digests", d));
	}
	return arr;
}

/*
 * One transaction, then, when it added digests, the re-judge every import
 * makes: a machine untrusted for an EFI application it booted is trusted
 * again once that application's digest is in a source of its policy.
 */
static void store(struct verifier *v, const char *op_name,
		  struct import_efi *imp, const char *name, const char *version,
		  struct http_response *res)
{
	int64_t now = (int64_t)time(NULL);
	struct engine_answer ea;
	size_t added = 0;
	char *detail;
	json_t *ans;

	detail = change_cause("import", "source",
			      json_pack("{s:s,s:s}", "kind", "efi", "name",
					name),
			      op_name);
	if (detail == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	if (cluster_change_begin(v, res) < 0) {
		free(detail);
		return;
	}
	engine_efi_import(v, name, version, imp, op_name, detail, now, &added,
			  &ea);
	if (ea.status != ENGINE_OK) {
		http_error(res, engine_http_status(ea.status), "%s",
			   ea.message);
		goto out;
	}
	ans = json_pack("{s:{s:s,s:s},s:I,s:b,s:o*}", "source", "kind", "efi",
			"name", name, "added", (json_int_t)added, "already",
			added == 0, "files", files_json(imp));
	if (added > 0)
		change_answer(v, res, 200, REJUDGE_ADDED, ans, detail, now);
	else
		rest_reply(res, 200, ans);
out:
	cluster_change_end(v);
	free(detail);
}

void route_import_efi(void *ctx, const struct http_request *req,
		      struct http_response *res)
{
	static const char *const keys[] = { "files", "banks", "source",
					    "version", NULL };
	struct verifier *v = ctx;
	char op_name[DB_NAME_MAX + 1], buf[DB_NAME_MAX + 1];
	struct import_efi *imp = NULL;
	const char *name, *version;
	json_t *body, *ver;

	if (auth_operator(v, req, res, op_name) < 0)
		return;
	body = rest_body(req, res, keys);
	if (body == NULL)
		return;
	ver = json_object_get(body, "version");
	version = json_string_value(ver);
	if (ver != NULL && (version == NULL || strlen(version) > DB_NAME_MAX)) {
		http_error(res, 400,
			   "\"version\": want text of at most %d "
			   "bytes",
			   DB_NAME_MAX);
		goto out;
	}
	imp = calloc(1, sizeof(*imp));
	if (imp == NULL) {
		http_error(res, 503, "out of memory");
		goto out;
	}
	/* every image hashed before anything is stored: outside every lock */
	if (parse_banks(body, imp, res) < 0 || parse_files(body, imp, res) < 0)
		goto out;
	name = source_name(body, imp, buf, res);
	if (name != NULL)
		store(v, op_name, imp, name, version, res);
out:
	free(imp);
	json_decref(body);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_route_www.c - the fleet console's embedded files through the real
 * HTTPS front (verifier_routes[], curl): each served at its path with its
 * Content-Type, the bytes of verifier/api/www/ and a strong ETag of them, 304
 * for If-None-Match, the strict CSP, nosniff, no referrer and no-cache
 * on every answer (the 304 too); If-None-Match parsing; and the files
 * themselves keep to the CSP: no inline script or style, no innerHTML.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "test_cert.h"
#include "hex.h"
#include "http.h"
#include "verifier.h"
#include "www.h"
#include "routes.h"

#define WWW_DIR FIXTURE_DIR "/../../verifier/api/www/"
#define CSP \
	"default-src 'none'; script-src 'self'; style-src 'self'; " \
	"connect-src 'self'; img-src 'self'; base-uri 'none'; " \
	"form-action 'none'; frame-ancestors 'none'"
#define OUT_MAX (1u << 20)

struct fx {
	struct http_server *srv;
	char *cert, *key;
	char url[64];
};

struct answer {
	long status;
	char *body; /* OUT_MAX bytes */
	size_t len;
	char head[4096]; /* the response headers, as sent */
};

static int setup(void **state)
{
	struct http_config cfg = { .addr = "127.0.0.1",
				   .max_connections = 8,
				   .threads = 1 };
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	test_cert_make(&f->cert, &f->key);
	cfg.cert_pem = f->cert;
	cfg.key_pem = f->key;
	/* the console's routes need no verifier: ctx NULL */
	f->srv = http_start(&cfg, verifier_routes, NULL, err, sizeof(err));
	if (f->srv == NULL)
		fail_msg("http_start: %s", err);
	snprintf(f->url, sizeof(f->url), "https://127.0.0.1:%u",
		 http_port(f->srv));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	http_stop(f->srv);
	free(f->cert);
	free(f->key);
	free(f);
	return 0;
}

static size_t take_body(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;

	if (a->len + size * n < OUT_MAX) {
		memcpy(a->body + a->len, p, size * n);
		a->len += size * n;
	}
	return size * n;
}

static size_t take_head(char *p, size_t size, size_t n, void *arg)
{
	struct answer *a = arg;

	strncat(a->head, p,
		sizeof(a->head) - 1 - strlen(a->head) < size * n ?
			sizeof(a->head) - 1 - strlen(a->head) :
			size * n);
	return size * n;
}

/* GET @path, with If-None-Match: @inm unless NULL. */
static void get(struct fx *f, const char *path, const char *inm,
		struct answer *a)
{
	struct curl_blob ca = { f->cert, strlen(f->cert), CURL_BLOB_COPY };
	struct curl_slist *hdr = NULL;
	CURL *c = curl_easy_init();
	char url[256], h[256];

	memset(a, 0, sizeof(*a));
	a->body = calloc(1, OUT_MAX);
	snprintf(url, sizeof(url), "%s%s", f->url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, take_head);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
	if (inm != NULL) {
		snprintf(h, sizeof(h), "If-None-Match: %s", inm);
		hdr = curl_slist_append(hdr, h);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	}
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &a->status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
}

/* The header line "Name: value\r\n" is in @a, exactly. */
static void assert_header(const struct answer *a, const char *name,
			  const char *value)
{
	char line[512];

	snprintf(line, sizeof(line), "\r\n%s: %s\r\n", name, value);
	if (strstr(a->head, line) == NULL)
		fail_msg("no \"%s: %s\" in:\n%s", name, value, a->head);
}

/* The whole of file NAME in verifier/api/www/; *len its size. */
static char *read_www(const char *name, size_t *len)
{
	char path[512];
	char *buf = calloc(1, OUT_MAX);
	FILE *fp;

	snprintf(path, sizeof(path), "%s%s", WWW_DIR, name);
	fp = fopen(path, "rb");
	if (fp == NULL)
		fail_msg("cannot open %s", path);
	*len = fread(buf, 1, OUT_MAX - 1, fp);
	fclose(fp);
	return buf;
}

/* "\"sha256-HEX\"" of @len bytes at @p, as embed.sh makes it. */
static void etag_of(const char *p, size_t len, char *out)
{
	unsigned char md[32];
	char hex[65];

	EVP_Digest(p, len, md, NULL, EVP_sha256(), NULL);
	hex_encode(md, sizeof(md), hex);
	sprintf(out, "\"sha256-%s\"", hex);
}

static const struct {
	const char *path, *file, *type;
} files[] = {
	{ "/", "index.html", "text/html; charset=utf-8" },
	{ "/app.js", "app.js", "text/javascript; charset=utf-8" },
	{ "/app.css", "app.css", "text/css; charset=utf-8" },
};

static void test_served(void **state)
{
	struct fx *f = *state;
	struct answer a;
	char etag[80], *want;
	size_t i, len;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		print_message("GET %s\n", files[i].path);
		want = read_www(files[i].file, &len);
		etag_of(want, len, etag);
		get(f, files[i].path, NULL, &a);
		assert_int_equal(a.status, 200);
		assert_int_equal(a.len, len);
		assert_memory_equal(a.body, want, len);
		assert_header(&a, "Content-Type", files[i].type);
		assert_header(&a, "ETag", etag);
		assert_header(&a, "Content-Security-Policy", CSP);
		assert_header(&a, "X-Content-Type-Options", "nosniff");
		assert_header(&a, "Referrer-Policy", "no-referrer");
		assert_header(&a, "Cache-Control", "no-cache");
		free(a.body);

		/* the browser's copy is current: 304, no body, headers */
		get(f, files[i].path, etag, &a);
		assert_int_equal(a.status, 304);
		assert_int_equal(a.len, 0);
		assert_header(&a, "ETag", etag);
		assert_header(&a, "Content-Security-Policy", CSP);
		assert_header(&a, "Cache-Control", "no-cache");
		free(a.body);

		/* an old copy: the file again */
		get(f, files[i].path, "\"sha256-00\", W/\"x\"", &a);
		assert_int_equal(a.status, 200);
		assert_int_equal(a.len, len);
		free(a.body);
		free(want);
	}
	/* the API keeps its own headers: no-store, no CSP of the page */
	get(f, "/v1/nothing", NULL, &a);
	assert_int_equal(a.status, 404);
	assert_header(&a, "Cache-Control", "no-store");
	assert_null(strstr(a.head, "Content-Security-Policy"));
	free(a.body);
	get(f, "/index.html", NULL, &a);
	assert_int_equal(a.status, 404);
	free(a.body);
}

static void test_etag_match(void **state)
{
	const char *e = "\"sha256-ab\"";

	(void)state;
	assert_true(www_etag_match("\"sha256-ab\"", 11, e));
	assert_true(www_etag_match("*", 1, e));
	assert_true(www_etag_match(" \"x\" , W/\"sha256-ab\" ", 21, e));
	assert_true(www_etag_match("\"x\",\"sha256-ab\"", 15, e));
	assert_false(www_etag_match("", 0, e));
	assert_false(www_etag_match("\"sha256-a\"", 10, e));
	assert_false(www_etag_match("sha256-ab", 9, e));
	assert_false(www_etag_match("\"sha256-abc\"", 12, e));
	assert_false(www_etag_match("**", 2, e));
	/* the length bounds the value: the tag cut short does not match */
	assert_false(www_etag_match("\"sha256-ab\"", 10, e));
	assert_false(www_etag_match(",,, ,", 5, e));
}

/* Every embedded file is in the table once, and nothing else. */
static void test_table(void **state)
{
	const struct www_asset *a;
	size_t n = 0;

	(void)state;
	for (a = www_assets; a->path != NULL; a++, n++) {
		assert_ptr_equal(www_asset_find(a->path), a);
		assert_int_equal(strlen(a->etag), 2 + 7 + 64);
	}
	assert_int_equal(n, sizeof(files) / sizeof(files[0]));
	assert_null(www_asset_find("/nothing.js"));
}

/* The files keep to what the CSP allows, and to app.js's text rule. */
static void test_files_keep_csp(void **state)
{
	static const char *const js_never[] = {
		"innerHTML",	  "outerHTML", "insertAdjacentHTML",
		"document.write", "eval(",     "new Function",
		"window.confirm", "alert("
	};
	char *html, *js, *p;
	size_t len, i;

	(void)state;
	html = read_www("index.html", &len);
	/* the one script has a src, there is no style element or attribute,
	 * no handler attribute, nothing from another origin */
	for (p = strstr(html, "<script"); p != NULL;
	     p = strstr(p + 1, "<script"))
		assert_true(strncmp(p, "<script src=\"/app.js\"", 21) == 0);
	assert_null(strstr(html, "<style"));
	assert_null(strstr(html, "style="));
	assert_null(strstr(html, "http:"));
	assert_null(strstr(html, "https:"));
	for (p = strstr(html, " on"); p != NULL; p = strstr(p + 1, " on")) {
		i = 3;
		while (p[i] >= 'a' && p[i] <= 'z')
			i++;
		if (i > 3 && p[i] == '=')
			fail_msg("index.html has a handler: %.20s", p);
	}
	free(html);
	js = read_www("app.js", &len);
	/* the rule's comment names what it forbids: the code after it */
	p = strstr(js, "THE RULE OF THIS FILE");
	assert_non_null(p);
	p = strstr(p, "*/");
	assert_non_null(p);
	for (i = 0; i < sizeof(js_never) / sizeof(js_never[0]); i++) {
		print_message("%s\n", js_never[i]);
		if (strstr(p, js_never[i]) != NULL)
			fail_msg("app.js uses %s", js_never[i]);
	}
	assert_null(strstr(p, "http:"));
	assert_null(strstr(p, "https:"));
	free(js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_served, setup, teardown),
		cmocka_unit_test(test_etag_match),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_files_keep_csp),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

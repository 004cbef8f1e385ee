// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_http.c - the HTTPS front on loopback with a real TLS handshake:
 * routing, parameters, and the 4xx answers bad requests get.
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
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "test_cert.h"
#include "http.h"

struct fx {
	struct http_server *srv;
	char *cert;
	char *key;
	char url[64];
};

/* A self-signed P-256 certificate for 127.0.0.1, made in memory. */
static void make_cert(struct fx *f)
{
	test_cert_make(&f->cert, &f->key);
}

static void echo(void *ctx, const struct http_request *req,
		 struct http_response *res)
{
	char *body = malloc(256);

	(void)ctx;
	snprintf(body, 256, "{\"id\":\"%s\",\"len\":%zu}", req->params[0],
		 req->body_len);
	res->body = body;
	res->status = 201;
}

static void health(void *ctx, const struct http_request *req,
		   struct http_response *res)
{
	(void)ctx;
	(void)req;
	res->body = strdup("{\"v\":1,\"status\":\"ok\"}");
}

static const struct http_route routes[] = {
	{ "GET", "/v1/health", health, 0 },
	{ "POST", "/v1/agents/{}/evidence", echo, 100 },
	{ NULL, NULL, NULL, 0 },
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct http_config cfg = { "127.0.0.1", 0, NULL, NULL, 16, 1 };
	char err[256];

	make_cert(f);
	cfg.cert_pem = f->cert;
	cfg.key_pem = f->key;
	f->srv = http_start(&cfg, routes, NULL, err, sizeof(err));
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

static size_t collect(char *p, size_t size, size_t n, void *arg)
{
	strncat(arg, p, 1023 - strlen(arg) < size * n ?
		1023 - strlen(arg) : size * n);
	return size * n;
}

/* Do one request; returns the status and the body in @out. */
static long request(struct fx *f, const char *method, const char *path,
		    const char *type, const char *body, char *out)
{
	struct curl_blob ca = { f->cert, strlen(f->cert), CURL_BLOB_COPY };
	struct curl_slist *hdr = NULL;
	CURL *c = curl_easy_init();
	char url[256], h[128];
	long status = 0;

	out[0] = '\0';
	snprintf(url, sizeof(url), "%s%s", f->url, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (type != NULL) {
		snprintf(h, sizeof(h), "Content-Type: %s", type);
		hdr = curl_slist_append(hdr, h);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	}
	if (body != NULL)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	return status;
}

static void test_routes(void **state)
{
	struct fx *f = *state;
	char out[1024];

	assert_int_equal(request(f, "GET", "/v1/health", NULL, NULL, out), 200);
	assert_string_equal(out, "{\"v\":1,\"status\":\"ok\"}");
	assert_int_equal(request(f, "POST", "/v1/agents/node-1/evidence",
				 "application/json", "{\"a\":1}", out), 201);
	assert_string_equal(out, "{\"id\":\"node-1\",\"len\":7}");
}

static const struct {
	const char *method, *path, *type, *body;
	long status;
	const char *msg;
} refused[] = {
	{ "GET", "/v1/nothing", NULL, NULL, 404, "no such resource" },
	{ "GET", "/v1/agents/../evidence", NULL, NULL, 404, "no such" },
	{ "DELETE", "/v1/health", NULL, NULL, 405, "method not allowed" },
	{ "POST", "/v1/agents/n/evidence", "text/plain", "{}", 415,
	  "Content-Type must be application/json" },
	{ "POST", "/v1/agents/n/evidence", "application/jsonx", "{}", 415,
	  "application/json" },
	{ "POST", "/v1/agents/n/evidence", "application/json",
	  "{\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}", 413,
	  "body larger than 100 bytes" },
	{ "GET", "/v1/health", "application/json", "x", 413, "larger than 0" },
};

static void test_refusals(void **state)
{
	struct fx *f = *state;
	char out[1024];
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		print_message("%s %s\n", refused[i].method, refused[i].path);
		assert_int_equal(request(f, refused[i].method, refused[i].path,
					 refused[i].type, refused[i].body,
					 out), refused[i].status);
		assert_non_null(strstr(out, "\"error\""));
		assert_non_null(strstr(out, refused[i].msg));
	}
}

static void test_route_match(void **state)
{
	struct http_request req;

	(void)state;
	assert_true(http_route_match("/v1/machines/{}", "/v1/machines/a.b-c_1",
				     &req));
	assert_string_equal(req.params[0], "a.b-c_1");
	assert_false(http_route_match("/v1/machines/{}", "/v1/machines/", &req));
	assert_false(http_route_match("/v1/machines/{}", "/v1/machines/a/b",
				      &req));
	assert_false(http_route_match("/v1/machines/{}", "/v1/machines/a%20",
				      &req));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_routes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test(test_route_match),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * route_www.c - the fleet console (verifier/api/www/), no token needed:
 *
 *	GET /		index.html
 *	GET /app.js	the console's script
 *	GET /app.css	its style sheet
 *
 * The files are embedded in the binary (www.h) and hold no data: the page
 * asks for the operator token and reads everything from /v1 with it. Each
 * answer carries a strict Content-Security-Policy (no inline script or
 * style, nothing from elsewhere, no framing), nosniff, no referrer, and
 * a strong ETag with Cache-Control: no-cache, so a browser asks again
 * every time and gets 304 while its copy is current.
 */
#include <stdlib.h>
#include <string.h>

#include "www.h"
#include "routes.h"

#define WWW_CSP \
	"default-src 'none'; script-src 'self'; " \
	"style-src 'self'; connect-src 'self'; img-src 'self'; " \
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const char *const www_headers[] = {
	"Content-Security-Policy",
	WWW_CSP,
	"X-Content-Type-Options",
	"nosniff",
	"Referrer-Policy",
	"no-referrer",
	NULL,
};

const struct www_asset *www_asset_find(const char *path)
{
	const struct www_asset *a;

	for (a = www_assets; a->path != NULL; a++)
		if (strcmp(a->path, path) == 0)
			return a;
	return NULL;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t';
}

int www_etag_match(const char *value, size_t len, const char *etag)
{
	size_t elen = strlen(etag), i = 0, start, end;

	while (i < len) {
		while (i < len && (is_space(value[i]) || value[i] == ','))
			i++;
		start = i;
		while (i < len && value[i] != ',')
			i++;
		end = i;
		while (end > start && is_space(value[end - 1]))
			end--;
		if (end - start == 1 && value[start] == '*')
			return 1;
		if (end - start > 2 && value[start] == 'W' &&
		    value[start + 1] == '/')
			start += 2;
		if (end - start == elen &&
		    memcmp(value + start, etag, elen) == 0)
			return 1;
	}
	return 0;
}

void route_www(void *ctx, const struct http_request *req,
	       struct http_response *res)
{
	const struct www_asset *a = www_asset_find(req->path);

	(void)ctx;
	if (a == NULL) { /* a route of the table without a file */
		http_error(res, 404, "no such resource: GET");
		return;
	}
	res->content_type = a->type;
	res->cache_control = "no-cache";
	res->etag = a->etag;
	res->headers = www_headers;
	if (req->if_none_match != NULL &&
	    www_etag_match(req->if_none_match, strlen(req->if_none_match),
			   a->etag)) {
		res->status = 304;
		return;
	}
	res->body = malloc(a->len + 1);
	if (res->body == NULL) {
		http_error(res, 503, "out of memory");
		return;
	}
	memcpy(res->body, a->data, a->len);
	res->body[a->len] = '\0';
	res->body_len = a->len;
	res->status = 200;
}

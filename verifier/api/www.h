/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * www.h - the fleet console's files (verifier/api/www/), embedded at build
 * time by verifier/api/www/embed.sh into build/gen/www_assets.c and served
 * without a token by route_www(): the files hold no data, the page asks
 * for the token and reads everything from the API with it.
 */
#ifndef IMATRUST_WWW_H
#define IMATRUST_WWW_H

#include <stddef.h>

#include "http.h"

struct www_asset {
	const char *path; /* "/" for index.html, else "/NAME" */
	const char *type; /* Content-Type */
	const unsigned char *data;
	size_t len;
	const char *etag; /* strong: "\"sha256-HEX\"" of the bytes */
};

/* Every embedded file, ending with a NULL path (generated). */
extern const struct www_asset www_assets[];

/* The headers of every console response: CSP, nosniff, no referrer. */
extern const char *const www_headers[];

/**
 * www_asset_find() - the embedded file served at @path, or NULL.
 * @path: the request's path, "/" or "/app.js"
 */
const struct www_asset *www_asset_find(const char *path);

/**
 * www_etag_match() - does an If-None-Match value name @etag?
 * @value: the header's value (need not be NUL-terminated)
 * @len: bytes of @value
 * @etag: the current strong ETag, with its quotes
 *
 * RFC 9110 13.1.2: "*", or a comma-separated list of entity tags
 * compared weakly (a W/ prefix is ignored).
 *
 * Return: 1 when the client's copy is current, else 0.
 */
int www_etag_match(const char *value, size_t len, const char *etag);

/**
 * route_www() - GET of an embedded file: 200 with it, or 304 when the
 * request's If-None-Match names its ETag; www_headers on both.
 * @ctx: the verifier (unused)
 * @req: the request
 * @res: the answer
 */
void route_www(void *ctx, const struct http_request *req,
	       struct http_response *res);

#endif /* IMATRUST_WWW_H */

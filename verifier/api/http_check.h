/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http_check.h - requests two readers could read two ways, found before
 * routing (http.c's, not the routes'): libmicrohttpd 0.9.75 decodes
 * "%2F" and "%00" in the path before it hands it over, takes the first
 * of several Content-Length headers, and keeps a bare CR inside a
 * header value.
 */
#ifndef IMATRUST_HTTP_CHECK_H
#define IMATRUST_HTTP_CHECK_H

#include <microhttpd.h>

/*
 * @uri as the client sent it (before decoding): -1 when its path holds
 * an encoded '/' ("%2F") or it holds an encoded NUL ("%00"), else 0.
 */
int http_check_target(const char *uri);

/*
 * The reason to refuse @conn's headers (Content-Length headers that
 * differ, a CR or NUL inside a name or value), or NULL.
 */
const char *http_check_headers(struct MHD_Connection *conn);

#endif /* IMATRUST_HTTP_CHECK_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client.h - the agent's HTTPS client: libcurl, wrapped once.
 *
 * One easy handle per client, so libcurl keeps one connection to the
 * verifier alive between requests (proto/DESIGN.md §4). TLS 1.2 or later only,
 * https only, the server certificate checked against the fleet CA file
 * (peer and host name), no redirects. Connect timeout 5 s, whole request
 * 30 s. The only file of the agent that includes curl.h.
 */
#ifndef IMATRUST_AGENT_CLIENT_H
#define IMATRUST_AGENT_CLIENT_H

#include <stddef.h>

#define CLIENT_CONNECT_TIMEOUT_MS 5000L
#define CLIENT_TIMEOUT_MS 30000L
#define CLIENT_ERROR_MAX 256	/* one transport error message */

struct client;

/* An HTTP answer, or the reason there was none. */
struct client_reply {
	long status;			/* HTTP status; 0 on transport error */
	char *body;			/* owned, NUL-terminated; NULL if none */
	size_t len;			/* bytes in @body, <= WIRE_BODY_MAX */
	char error[CLIENT_ERROR_MAX];	/* transport error, "" otherwise */
};

/**
 * client_new() - a client for the verifier at @base_url.
 * @base_url: "https://host[:port]", no trailing slash (copied)
 * @ca_cert: PEM file of the CA the server certificate chains to (copied)
 *
 * Return: the client (free with client_free()), or NULL (no memory, or
 * libcurl could not start).
 */
struct client *client_new(const char *base_url, const char *ca_cert);

/**
 * client_free() - close the connection and free @c; NULL is allowed.
 * @c: the client
 */
void client_free(struct client *c);

/**
 * client_post() - POST @json to @path and wait for the answer.
 * @c: the client
 * @path: "/v1/..." appended to the base URL
 * @json: the body, Content-Type application/json; NULL for an empty body
 * @r: receives status and body (any status) or the transport error;
 *     release with client_reply_free()
 *
 * Return: 0 when an HTTP answer arrived (whatever its status), -1 on a
 * transport error (connect, TLS, timeout, answer above WIRE_BODY_MAX),
 * with @r->error set.
 */
int client_post(struct client *c, const char *path, const char *json,
		struct client_reply *r);

/**
 * client_reply_free() - free the body of @r and clear it.
 * @r: the reply
 */
void client_reply_free(struct client_reply *r);

#endif /* IMATRUST_AGENT_CLIENT_H */

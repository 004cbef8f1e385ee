/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * client.h - HTTPS to the verifier: libcurl, wrapped once for the agent
 * and the operator CLI.
 *
 * One easy handle per client, so libcurl keeps one connection to the
 * verifier alive between requests (proto/DESIGN.md §4). TLS 1.2 or later,
 * server certificate checked against a CA file or the system store (peer
 * and host name), no redirects, https only unless the caller allows
 * plain http. JSON bodies in and out, an optional bearer token, a bound
 * on the answer's size. client_post_all() sends many POSTs at once to
 * URLs of their own (webhooks); client_url_parse() reads a URL as
 * libcurl will. client.c and client_post.c (through client_int.h) are
 * the only files of the project that include curl.h.
 */
#ifndef IMATRUST_DAEMON_CLIENT_H
#define IMATRUST_DAEMON_CLIENT_H

#include <stddef.h>

#define CLIENT_CONNECT_TIMEOUT_MS 5000L
#define CLIENT_TIMEOUT_MS 30000L
#define CLIENT_ERROR_MAX 256 /* one transport error message */

/* Why no HTTP answer arrived, for callers that explain it. */
enum client_err {
	CLIENT_ERR_NONE,      /* an answer arrived */
	CLIENT_ERR_CONNECT,   /* nobody listens there */
	CLIENT_ERR_RESOLVE,   /* the host name did not resolve */
	CLIENT_ERR_TLS,	      /* handshake, certificate or CA file */
	CLIENT_ERR_TOO_LARGE, /* the answer exceeded answer_max */
	CLIENT_ERR_PROTOCOL,  /* a scheme the client refuses */
	CLIENT_ERR_REFUSED,   /* the caller refused the address */
	CLIENT_ERR_STOPPED,   /* abandoned when the caller stopped */
	CLIENT_ERR_OTHER,     /* timeout, URL, memory, ... */
};

/* What a client is made of; client_opts_init() sets the defaults. */
struct client_opts {
	const char *base_url;	/* "https://host[:port]" (copied) */
	const char *ca_file;	/* PEM CA file, NULL: system store (copied) */
	const char *token;	/* bearer token, NULL: none (copied, wiped) */
	const char *user_agent; /* User-Agent, NULL: none */
	size_t answer_max;	/* bytes of one answer body */
	long connect_timeout_ms;
	long timeout_ms; /* whole request; 0: no limit */
	int allow_http;	 /* 1: http:// too (the token in clear!) */
};

struct client;

/* An HTTP answer, or the reason there was none. */
#define CLIENT_ACCEPT_POST_MAX 128

struct client_reply {
	long status;		      /* HTTP status; 0 on transport error */
	char *body;		      /* owned, NUL-terminated; NULL if none */
	size_t len;		      /* bytes in @body, <= answer_max */
	enum client_err err;	      /* CLIENT_ERR_NONE with an answer */
	char error[CLIENT_ERROR_MAX]; /* transport error, "" otherwise */
	char accept_post[CLIENT_ACCEPT_POST_MAX]; /* the answer's
					 * Accept-Post header; "" if none */
};

/**
 * client_opts_init() - the agent's defaults: https only, no token, answers
 * up to WIRE_BODY_MAX, 5 s to connect, 30 s per request.
 * @o: the options to fill
 * @base_url: the verifier's base URL (borrowed until client_new())
 * @ca_file: PEM CA file, or NULL for the system store (borrowed)
 */
void client_opts_init(struct client_opts *o, const char *base_url,
		      const char *ca_file);

/**
 * client_new() - a client for the verifier described by @o.
 * @o: the options; strings are copied, trailing '/'s of the URL dropped
 *
 * Return: the client (free with client_free()), or NULL (no memory, or
 * libcurl could not start).
 */
struct client *client_new(const struct client_opts *o);

/**
 * client_free() - close the connection, wipe the token and free @c; NULL
 * is allowed.
 * @c: the client
 */
void client_free(struct client *c);

/**
 * client_request() - @method @path with @json and wait for the answer.
 * @c: the client
 * @method: "GET", "POST", "DELETE"
 * @path: "/v1/..." (with its query) appended to the base URL
 * @json: the body, Content-Type application/json; NULL for none (a POST
 *	  without one sends an empty JSON-typed body)
 * @r: receives status and body (any status) or the transport error;
 *     release with client_reply_free()
 *
 * Return: 0 when an HTTP answer arrived (whatever its status), -1 on a
 * transport error (connect, TLS, timeout, refused scheme, answer above
 * answer_max), with @r->err and @r->error set.
 */
int client_request(struct client *c, const char *method, const char *path,
		   const char *json, struct client_reply *r);

/**
 * client_post() - client_request() with "POST".
 * @c: the client
 * @path: "/v1/..." appended to the base URL
 * @json: the body; NULL for an empty one
 * @r: as for client_request()
 *
 * Return: as client_request().
 */
int client_post(struct client *c, const char *path, const char *json,
		struct client_reply *r);

/**
 * client_post_typed() - POST @len bytes of @body of media type @type.
 * @c: the client
 * @path: "/v1/..." appended to the base URL
 * @type: the Content-Type, e.g. WIRE_EVIDENCE_FRAMED_TYPE
 * @body: the body; it may hold NUL bytes
 * @len: its length
 * @r: as for client_request()
 *
 * Return: as client_request().
 */
int client_post_typed(struct client *c, const char *path, const char *type,
		      const char *body, size_t len, struct client_reply *r);

/**
 * client_reply_free() - free the body of @r and clear it.
 * @r: the reply
 */
void client_reply_free(struct client_reply *r);

/**
 * client_escape() - @s escaped for a URL query argument.
 * @c: the client
 * @s: the text
 *
 * Return: malloc'ed text (caller frees), or NULL.
 */
char *client_escape(struct client *c, const char *s);

/**
 * client_url() - the base URL the client talks to, for messages.
 * @c: the client
 */
const char *client_url(const struct client *c);

/* The parts of an absolute URL (client_url_parse()); NULL when absent. */
struct client_url_parts {
	char *scheme, *host, *user, *password;
};

/**
 * client_url_parse() - split @url as libcurl will read it when it
 * connects, so that a check of the parts checks what is dialled.
 * @url: an absolute URL
 * @u: receives the parts (free with client_url_parts_free())
 *
 * Return: 0, or -1 when @url is no absolute URL (or memory ran out).
 */
int client_url_parse(const char *url, struct client_url_parts *u);

/**
 * client_url_parts_free() - free the parts of @u and clear them.
 * @u: the parts
 */
void client_url_parts_free(struct client_url_parts *u);

/*
 * One POST of client_post_all(): to a whole URL of its own, with its own
 * headers and CA, its answer's status kept and its body discarded.
 */
struct client_post {
	const char *url;
	const char *const *headers; /* "Name: value" lines, NULL-ended */
	const char *body;
	size_t len;
	const char *ca_pem; /* the only CA to verify the peer against (PEM
			     * bytes); NULL: the system store */
	size_t ca_len;
	long connect_timeout_ms;
	long timeout_ms;
	/* each address before a connection to it: 0 to connect there, -1
	 * to refuse (the transfer then fails with err CLIENT_ERR_REFUSED) */
	int (*addr_ok)(const void *sockaddr, void *arg);
	void *arg;

	/* the outcome */
	long status;		      /* HTTP status; 0 when none came */
	enum client_err err;	      /* CLIENT_ERR_NONE with an answer */
	char error[CLIENT_ERROR_MAX]; /* libcurl's detail, "" otherwise */
	void *handle;		      /* client_post_all()'s own */
};

/**
 * client_post_all() - send every post of @p at once (libcurl's multi
 * interface), http or https as each URL says (the caller has checked
 * which it allows), no redirects, the peer verified; return when all
 * have an outcome or @stop says so.
 * @p: the posts; their outcome fields are filled
 * @n: how many
 * @stop: called between waits of at most @poll_ms; nonzero abandons the
 *	  posts still running (their err CLIENT_ERR_STOPPED)
 * @stop_arg: its argument
 * @poll_ms: how long one wait lasts at most
 */
void client_post_all(struct client_post *p, size_t n, int (*stop)(void *arg),
		     void *stop_arg, int poll_ms);

/**
 * client_post_start() - libcurl's global state, for a thread that will
 * call client_post_all(), once before it starts; client_new() needs none.
 *
 * Return: 0, or -1 when libcurl does not start.
 */
int client_post_start(void);

/**
 * client_post_end() - undo one client_post_start().
 */
void client_post_end(void);

#endif /* IMATRUST_DAEMON_CLIENT_H */

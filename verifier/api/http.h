/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http.h - the verifier's HTTPS front: libmicrohttpd behind a route table.
 *
 * Bounded before authenticated: with the headers alone, before it reads
 * a body byte, the server refuses what cannot be right (a request two
 * readers could read two ways 400: "%2F" in the path or "%00" in the
 * target, Content-Length headers that differ, a CR inside a header;
 * unknown route 404, wrong method 405, the route's guard says no, e.g. 401 without an
 * operator token, body too large 413, not JSON (nor the route's other
 * type) 415, the declared body does not fit what is free of max_inflight
 * now 503, or of the address's share 429, both with Retry-After),
 * answers at once and closes the connection. Otherwise it reads the body
 * up to its route's maximum and calls the route's handler with the whole
 * body. Handlers answer JSON; errors are
 * {"v":1,"error":{"status":N,"message":"..."}}.
 *
 * Held by bytes, bounded in time: the budget is taken as body bytes
 * arrive, never from a declared length; a connection has header_timeout
 * seconds for its TLS handshake and headers, and a body as long plus
 * its bytes at body_min_rate, however busy it keeps the connection;
 * connections and bytes are counted per address (IPv6: per /64), with
 * a part of each kept for addresses that hold little (http_peers.h).
 */
#ifndef IMATRUST_HTTP_H
#define IMATRUST_HTTP_H

#include <stdatomic.h>
#include <stddef.h>

#define HTTP_PARAMS_MAX 2	/* "{}" segments in a route pattern */
#define HTTP_PARAM_MAX 64	/* bytes of one such segment */
#define HTTP_OPERATOR_MAX 255	/* bytes of the name a guard sets */
#define HTTP_TIMEOUT_DEFAULT 15 /* seconds; http_config.timeout 0 */
#define HTTP_INFLIGHT_DEFAULT (256u << 20) /* http_config.max_inflight 0 */
#define HTTP_RETRY_AFTER 2	       /* seconds, in a 503 for max_inflight */
#define HTTP_FAIL_OFF UINT32_MAX       /* http_config.fail_burst: no limit */
#define HTTP_HEADER_TIMEOUT_DEFAULT 10 /* seconds; header_timeout 0 */
#define HTTP_BODY_RATE_DEFAULT (16u * 1024) /* bytes/s; body_min_rate 0 */

/*
 * Refusals by a limit of the server and closes at a deadline, counted
 * since the start (for /v1/metrics); the caller owns them.
 */
struct http_stats {
	atomic_uint_fast64_t too_large;	     /* 413: route, max_inflight */
	atomic_uint_fast64_t bytes_budget;   /* 503: max_inflight full */
	atomic_uint_fast64_t bytes_reserved; /* 503: its reserve, for
						 * addresses holding little */
	atomic_uint_fast64_t bytes_per_addr; /* 429: address's share */
	atomic_uint_fast64_t conn_per_addr;  /* not accepted: per address */
	atomic_uint_fast64_t conn_reserved;  /* not accepted: the slots
						 * kept for the few */
	atomic_uint_fast64_t failed_checks;  /* 429: the address's failed
						 * checks (http_peers.h) */
	atomic_uint_fast64_t closed_headers; /* handshake or headers late */
	atomic_uint_fast64_t closed_body;    /* body under the floor rate */
	atomic_uint_fast64_t connections;    /* connections accepted */
};

struct http_request {
	const char *method;
	const char *path;
	const char *body; /* NUL-terminated; "" when none */
	size_t body_len;
	const char *authorization; /* header value, or NULL */
	const char *if_none_match; /* header value, or NULL */
	size_t nparams;
	char params[HTTP_PARAMS_MAX][HTTP_PARAM_MAX + 1];
	void *conn; /* the server's; for http_query() only */
	/* the route matched, for its guard; NULL when a handler is called
	 * without the server */
	const struct http_route *route;
	char op_name[HTTP_OPERATOR_MAX + 1]; /* set by the route's guard
						 * when it passed; else "" */
	int body_type_other;		     /* 1: the body is of the route's
				 * ->other_type, not JSON */
};

struct http_response {
	unsigned int status;
	char *body;	 /* malloc'ed JSON, owned by the server after */
	size_t body_len; /* bytes of a binary body; 0: strlen(body) */
	const char *content_type;   /* default application/json */
	unsigned int retry_after;   /* seconds for Retry-After; 0: none */
	const char *cache_control;  /* NULL: no-store */
	const char *etag;	    /* ETag header; NULL: none */
	const char *const *headers; /* more "Name", "value" pairs ending
					 * with NULL, static; NULL: none */
	/* 1: the request failed a costly check (a quote no enrolled AK
	 * signed): charged to its address's budget of failed checks */
	int charge;
};

struct http_route {
	const char *method;
	const char *pattern; /* "/v1/agents/{}/evidence" */
	void (*handler)(void *ctx, const struct http_request *req,
			struct http_response *res);
	size_t max_body; /* 0: no body allowed */
	/*
	 * Run with the headers only (req->authorization, params), before
	 * any body byte is read. Return 0 to go on (it may fill
	 * req->operator), or -1 with @res answered: the server sends that
	 * and reads nothing more. NULL: anyone may send the route.
	 */
	int (*guard)(void *ctx, struct http_request *req,
		     struct http_response *res);
	/* a Content-Type the route takes besides application/json, or
	 * NULL; the handler sees which in req->body_type_other */
	const char *other_type;
	/* 1: answered 429 from the headers while its address has spent its
	 * budget of failed checks (a handler's res->charge), before a body
	 * byte is read or a signature checked */
	int metered;
	/* what the guard requires of the caller, in the application's own
	 * terms (the verifier's: enum db_token_role); 0 where no guard */
	int role;
};

struct http_server;

struct http_config {
	const char *addr;     /* IPv4 or IPv6 literal */
	unsigned int port;    /* 0 picks a free port (tests) */
	const char *cert_pem; /* certificate chain, PEM text */
	const char *key_pem;  /* private key, PEM text */
	unsigned int max_connections;
	unsigned int threads;	 /* worker threads */
	unsigned int max_per_ip; /* connections from one address
					 * (IPv6: /64); 0: no limit of its
					 * own */
	unsigned int timeout;	 /* seconds a connection may stay idle;
				 * 0: HTTP_TIMEOUT_DEFAULT */
	size_t max_body;	 /* if not 0, caps the body of routes without
				 * a guard (what anyone may send) */
	size_t max_inflight;	 /* bytes of request bodies held at once,
				 * all connections; 0: HTTP_INFLIGHT_DEFAULT */
	unsigned int header_timeout; /* seconds from connect (or the
					 * last answer, plus timeout) to a
					 * request's headers; 0: default */
	size_t body_min_rate;	     /* bytes/s a body must keep up, after
				 * header_timeout s of grace; 0: default */
	unsigned int fail_burst;     /* failed checks an address may cost
					 * at once; 0: HTTP_FAIL_BURST;
					 * HTTP_FAIL_OFF: no limit */
	unsigned int fail_ms;	     /* ... and one more each fail_ms; 0:
				 * HTTP_FAIL_MS */
	struct http_stats *stats;    /* counters; NULL: the server's */
};

/**
 * http_start() - listen and serve @routes until http_stop().
 * @cfg: address, TLS material and limits (copied as needed)
 * @routes: table ending with a NULL method; must outlive the server
 * @ctx: passed to every guard and handler
 * @errbuf: receives the reason on failure
 * @errlen: size of @errbuf
 *
 * Return: the server, or NULL.
 */
struct http_server *http_start(const struct http_config *cfg,
			       const struct http_route *routes, void *ctx,
			       char *errbuf, size_t errlen);

/**
 * http_reload_tls() - serve new handshakes with another certificate and
 * key; established connections keep theirs (http_tls.h).
 * @s: the server
 * @cert_pem: the certificate chain, PEM text
 * @key_pem: its private key, PEM text
 * @errbuf: receives what is wrong with them
 * @errlen: size of @errbuf
 *
 * Return: 0, or -1 with @errbuf set and the old pair still served.
 */
int http_reload_tls(struct http_server *s, const char *cert_pem,
		    const char *key_pem, char *errbuf, size_t errlen);

/**
 * http_port() - the TCP port @s listens on (useful after port 0).
 * @s: the server
 */
unsigned int http_port(const struct http_server *s);

/**
 * http_stop() - close the listener, finish, free @s; NULL is allowed.
 * @s: the server
 */
void http_stop(struct http_server *s);

/**
 * http_error() - set @res to a JSON error with @status.
 * @res: the response
 * @status: HTTP status code
 * @fmt: printf-style message for the operator or agent
 */
void http_error(struct http_response *res, unsigned int status, const char *fmt,
		...) __attribute__((format(printf, 3, 4)));

/**
 * http_query() - the value of query argument @key ("?after=5"), or NULL.
 * @req: the request being handled
 * @key: the argument's name
 *
 * Return: the decoded value, borrowed until the handler returns.
 */
const char *http_query(const struct http_request *req, const char *key);

/**
 * http_route_match() - match @path against @pattern, collecting "{}"s.
 * @pattern: route pattern
 * @path: request path
 * @req: receives the parameters
 *
 * A "{}" matches one segment of [A-Za-z0-9._-], 1 to HTTP_PARAM_MAX long.
 *
 * Return: 1 on a match, else 0.
 */
int http_route_match(const char *pattern, const char *path,
		     struct http_request *req);

#endif /* IMATRUST_HTTP_H */

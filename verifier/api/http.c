// SPDX-License-Identifier: GPL-2.0-only
/*
 * http.c - libmicrohttpd wrapped once: TLS, limits checked with the
 * headers (guard, body size, in-flight budget), bytes and deadlines
 * followed as the body arrives (http_peers.c), route dispatch.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <gnutls/gnutls.h>
#include <jansson.h>
#include <microhttpd.h>

#include "http.h"
#include "http_check.h"
#include "http_peers.h"
#include "http_tls.h"

/*
 * libmicrohttpd's per-connection pool (headers, read buffer). Bodies are
 * copied out as they arrive (take_body), so 16 KiB is plenty; the 32 KiB
 * default is most of what a keep-alive agent connection costs.
 */
#define HTTP_CONNECTION_POOL (16u * 1024)
/*
 * TLS 1.3, and TLS 1.2 with ECDHE and an AEAD cipher only: no CBC, no
 * SHA-1 MACs, no static RSA key exchange (no forward secrecy).
 */
#define HTTP_TLS_PRIORITIES \
	"SECURE256:+SECURE128:-VERS-ALL:" \
	"+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:" \
	"+CHACHA20-POLY1305:+AES-128-GCM:-MAC-ALL:+AEAD:-KX-ALL:" \
	"+ECDHE-ECDSA:+ECDHE-RSA"

struct http_server {
	struct MHD_Daemon *mhd;
	const struct http_route *routes;
	void *ctx;
	struct http_tls *tls; /* certificate and key in force */
	size_t max_body;      /* cap of unguarded routes' bodies; 0: none */
	size_t max_inflight;
	struct http_peers *peers; /* addresses, budget, deadlines */
	struct http_stats *stats; /* cfg->stats, or own_stats */
	struct http_stats own_stats;
	int64_t header_ms; /* header_timeout */
	int64_t idle_ms;   /* timeout */
	size_t rate;	   /* body_min_rate */
};

/* Per-request state across libmicrohttpd's calls. */
struct request_state {
	const struct http_route *route;
	struct http_request req;
	size_t max; /* this request's body limit */
	char *body;
	size_t len;
	size_t cap;	      /* bytes allocated at body */
	size_t reserved;      /* bytes of the budget this request holds */
	size_t seen;	      /* body bytes received, kept or not */
	int64_t body_start;   /* ms when the headers were in */
	struct http_conn *hc; /* its connection's (socket context) */
	unsigned int refuse;  /* status to answer once the body is in */
	unsigned int retry_after;
	int answered; /* refused with the headers: drop the rest */
	char why[128];
};

static int segment_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

int http_route_match(const char *pattern, const char *path,
		     struct http_request *req)
{
	const char *p = pattern, *s = path;

	req->nparams = 0;
	while (*p != '\0') {
		if (p[0] == '{' && p[1] == '}') {
			const char *start = s;

			while (segment_char(*s))
				s++;
			if (s == start || s - start > HTTP_PARAM_MAX ||
			    req->nparams == HTTP_PARAMS_MAX)
				return 0;
			memcpy(req->params[req->nparams], start,
			       (size_t)(s - start));
			req->params[req->nparams++][s - start] = '\0';
			p += 2;
			continue;
		}
		if (*p++ != *s++)
			return 0;
	}
	return *s == '\0';
}

void http_error(struct http_response *res, unsigned int status, const char *fmt,
		...)
{
	char msg[256];
	va_list ap;
	json_t *obj;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	obj = json_pack("{s:i,s:{s:i,s:s}}", "v", 1, "error", "status",
			(int)status, "message", msg);
	free(res->body);
	res->body = obj != NULL ? json_dumps(obj, JSON_COMPACT) : NULL;
	res->status = status;
	json_decref(obj);
}

static enum MHD_Result send_response(struct MHD_Connection *conn,
				     struct http_response *res)
{
	const char *body = res->body != NULL ? res->body : "";
	const char *const *h;
	struct MHD_Response *r;
	enum MHD_Result ret;
	char retry[16];

	r = MHD_create_response_from_buffer(res->body_len > 0 ? res->body_len :
								strlen(body),
					    (void *)body,
					    res->body != NULL ?
						    MHD_RESPMEM_MUST_FREE :
						    MHD_RESPMEM_PERSISTENT);
	if (r == NULL) {
		free(res->body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				res->content_type != NULL ? res->content_type :
							    "application/json");
	MHD_add_response_header(r, "Cache-Control",
				res->cache_control != NULL ?
					res->cache_control :
					"no-store");
	if (res->etag != NULL)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, res->etag);
	for (h = res->headers; h != NULL && h[0] != NULL; h += 2)
		MHD_add_response_header(r, h[0], h[1]);
	if (res->retry_after > 0) {
		snprintf(retry, sizeof(retry), "%u", res->retry_after);
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
	}
	/* RFC 6750: a 401 names the scheme the client must use */
	if (res->status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"imatrust\"");
	ret = MHD_queue_response(conn, res->status, r);
	MHD_destroy_response(r);
	return ret;
}

static void refuse(struct request_state *st, unsigned int status,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Remember why @st gets @status instead of its handler's answer. */
static void refuse(struct request_state *st, unsigned int status,
		   const char *fmt, ...)
{
	va_list ap;

	st->refuse = status;
	va_start(ap, fmt);
	vsnprintf(st->why, sizeof(st->why), fmt, ap);
	va_end(ap);
}

/*
 * What one address may hold of bodies anyone may send: a part of the
 * budget, never less than one body of the route; 0 (no share) for a
 * route with a guard, which only operators pass.
 */
static size_t addr_share(const struct http_server *s,
			 const struct request_state *st)
{
	size_t share = s->max_inflight / HTTP_SHARE_DIV;

	if (st->route == NULL || st->route->guard != NULL)
		return 0;
	return share > st->max ? share : st->max;
}

/* Refuse @st for a budget: 503 or 429, with Retry-After. */
static void refuse_budget(struct request_state *st, unsigned int status)
{
	if (status == 429)
		refuse(st, status,
		       "this address has too many request bodies in flight, try again");
	else
		refuse(st, status,
		       "too many request bodies in flight, try again");
	st->retry_after = HTTP_RETRY_AFTER;
}

/* Take @n more bytes of the in-flight budget; -1 (refused) when not. */
static int budget_take(struct http_server *s, struct request_state *st,
		       size_t n)
{
	unsigned int status =
		http_peers_take(s->peers, st->hc, n, addr_share(s, st));

	if (status != 0) {
		refuse_budget(st, status);
		return -1;
	}
	st->reserved += n;
	return 0;
}

/* Free @st's body and give its part of the budget back. */
static void body_drop(struct http_server *s, struct request_state *st)
{
	free(st->body);
	st->body = NULL;
	st->len = 0;
	st->cap = 0;
	if (st->hc != NULL)
		http_peers_give(s->peers, st->hc, st->reserved);
	st->reserved = 0;
}

/* Find the route; refuse with 404/405 when there is none. */
static void route_request(struct http_server *s, struct request_state *st,
			  const char *method, const char *url)
{
	const struct http_route *r;
	int path_known = 0;

	for (r = s->routes; r->method != NULL; r++) {
		if (!http_route_match(r->pattern, url, &st->req))
			continue;
		path_known = 1;
		if (strcmp(r->method, method) == 0) {
			st->route = r;
			st->req.route = r;
			st->max = r->max_body;
			if (r->guard == NULL && s->max_body != 0 &&
			    s->max_body < st->max)
				st->max = s->max_body;
			return;
		}
	}
	refuse(st,
	       path_known ? MHD_HTTP_METHOD_NOT_ALLOWED : MHD_HTTP_NOT_FOUND,
	       "%s %s",
	       path_known ? "method not allowed:" : "no such resource:",
	       method);
}

/* Is @type the media type @want, parameters aside? */
static int is_type(const char *type, const char *want)
{
	size_t n = strlen(want);

	return type != NULL && strncasecmp(type, want, n) == 0 &&
	       (type[n] == '\0' || type[n] == ';');
}

/*
 * Would a declared body of @n bytes fit what is free now, of the budget
 * and of the address's share? Nothing is taken: bytes are, as they
 * come, so a length declared and never sent holds nothing.
 */
static void check_budget(struct http_server *s, struct request_state *st,
			 size_t n)
{
	size_t all, mine, share = addr_share(s, st);

	http_peers_held(s->peers, st->hc, &all, &mine);
	if (n > s->max_inflight - all) {
		atomic_fetch_add(&s->stats->bytes_budget, 1);
		refuse_budget(st, 503);
	} else if (share != 0 && n > share - (mine < share ? mine : share)) {
		atomic_fetch_add(&s->stats->bytes_per_addr, 1);
		refuse_budget(st, 429);
	}
}

/* What the headers say of the body: its size, its type. */
static void check_body(struct http_server *s, struct request_state *st,
		       struct MHD_Connection *conn)
{
	const char *len =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *type =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_CONTENT_TYPE);
	unsigned long long n = len != NULL ? strtoull(len, NULL, 10) : 0;

	if (n > st->max || n > s->max_inflight) {
		atomic_fetch_add(&s->stats->too_large, 1);
		refuse(st, MHD_HTTP_CONTENT_TOO_LARGE,
		       "body larger than %zu bytes",
		       st->max < s->max_inflight ? st->max : s->max_inflight);
	} else if (st->max > 0 && st->route->other_type != NULL &&
		   is_type(type, st->route->other_type)) {
		st->req.body_type_other = 1;
	} else if (st->max > 0 && !is_type(type, "application/json")) {
		refuse(st, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
		       "Content-Type must be application/json%s%s",
		       st->route->other_type != NULL ? " or " : "",
		       st->route->other_type != NULL ? st->route->other_type :
						       "");
	}
	if (st->refuse == 0 && n > 0)
		check_budget(s, st, (size_t)n);
}

/* Append a piece of the body; refuse once it passes a limit. */
static void take_body(struct http_server *s, struct request_state *st,
		      const char *data, size_t n)
{
	size_t want;
	char *grown;

	if (st->refuse != 0)
		return;
	if (n > st->max - st->len) {
		atomic_fetch_add(&s->stats->too_large, 1);
		refuse(st, MHD_HTTP_CONTENT_TOO_LARGE,
		       "body larger than %zu bytes", st->max);
		goto drop;
	}
	/* the budget is taken as bytes come, whatever was declared */
	if (budget_take(s, st, n) < 0)
		goto drop;
	if (st->len + n >= st->cap) {
		/* doubling: a few reallocs, and no more than what came */
		want = st->cap * 2 > st->len + n + 1 ? st->cap * 2 :
						       st->len + n + 1;
		if (want > st->max + 1)
			want = st->max + 1;
		grown = realloc(st->body, want);
		if (grown == NULL) {
			refuse(st, MHD_HTTP_SERVICE_UNAVAILABLE,
			       "out of memory");
			goto drop;
		}
		st->body = grown;
		st->cap = want;
	}
	memcpy(st->body + st->len, data, n);
	st->len += n;
	st->body[st->len] = '\0';
	return;
drop:
	body_drop(s, st);
}

/*
 * The con_cls on_uri() gives a request whose target holds "%2F" or
 * "%00": libmicrohttpd decodes the path before routing, into a '/' the
 * route table never saw or the end of the string.
 */
static char bad_target;

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls;
	(void)conn;
	return http_check_target(uri) < 0 ? &bad_target : NULL;
}

/* Requests two readers could read two ways: 400 before routing. */
static void check_request(struct request_state *st, struct MHD_Connection *conn,
			  int bad_uri)
{
	const char *why =
		bad_uri ? "an encoded '/' or NUL in the request target" :
			  http_check_headers(conn);

	if (why != NULL)
		refuse(st, MHD_HTTP_BAD_REQUEST, "%s", why);
}

/* The connection's record, set by on_connection(); NULL if none. */
static struct http_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn,
					MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci != NULL ? ci->socket_context : NULL;
}

/* Milliseconds @n bytes take at body_min_rate. */
static int64_t rate_ms(const struct http_server *s, size_t n)
{
	return (int64_t)(n / s->rate) * 1000 +
	       (int64_t)(n % s->rate) * 1000 / (int64_t)s->rate;
}

/*
 * Between requests: the answer of @len bytes is sent (at body_min_rate,
 * a large list to an operator included), then the connection may idle
 * (timeout) and must have the next request's headers in header_timeout.
 */
static void next_request_deadline(struct http_server *s, struct http_conn *hc,
				  size_t len)
{
	http_conn_deadline(hc, HTTP_PHASE_HEADERS,
			   http_now_ms() + rate_ms(s, len) + s->idle_ms +
				   s->header_ms);
}

/*
 * A body is due at body_min_rate after header_timeout of grace: each
 * byte that comes moves the deadline by its share of a second, so a
 * trickle falls behind, whatever length it declared.
 */
static void body_deadline(struct http_server *s, struct request_state *st)
{
	http_conn_deadline(st->hc, HTTP_PHASE_BODY,
			   st->body_start + s->header_ms +
				   rate_ms(s, st->seen));
}

/*
 * The first call, with the headers only: route, guard, body checks. A
 * refusal is answered now; libmicrohttpd then reads no body and closes
 * the connection after the answer.
 */
static enum MHD_Result on_headers(struct http_server *s,
				  struct MHD_Connection *conn, const char *url,
				  const char *method, void **con_cls)
{
	int bad_uri = *con_cls == &bad_target;
	struct http_conn *hc = conn_of(conn);
	struct request_state *st;
	struct http_response res = { 0 };

	/* no record (out of memory), or its headers came too late */
	if (hc == NULL || http_conn_expired(s->peers, hc, http_now_ms()))
		return MHD_NO;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return MHD_NO;
	*con_cls = st;
	st->hc = hc;
	st->body_start = http_now_ms();
	st->req.conn = conn;
	st->req.method = method;
	st->req.path = url;
	st->req.authorization =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_AUTHORIZATION);
	st->req.if_none_match =
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_IF_NONE_MATCH);
	check_request(st, conn, bad_uri);
	if (st->refuse == 0)
		route_request(s, st, method, url);
	if (st->refuse == 0 && st->route->guard != NULL &&
	    st->route->guard(s->ctx, &st->req, &res) < 0) {
		st->req.op_name[0] = '\0';
		if (res.status < 400)
			res.status = MHD_HTTP_FORBIDDEN;
		if (res.body == NULL)
			http_error(&res, res.status, "request refused");
		goto answer;
	}
	if (st->refuse == 0 && st->route->metered &&
	    http_peers_spent(s->peers, hc, http_now_ms(), &st->retry_after)) {
		atomic_fetch_add(&s->stats->failed_checks, 1);
		st->refuse = 429;
		snprintf(st->why, sizeof(st->why),
			 "too many failed checks "
			 "from this address: retry in %u s",
			 st->retry_after);
	}
	if (st->refuse == 0)
		check_body(s, st, conn);
	if (st->refuse == 0) {
		body_deadline(s, st);
		return MHD_YES;
	}
	http_error(&res, st->refuse, "%s", st->why);
	res.retry_after = st->retry_after;
answer:
	st->answered = 1;
	next_request_deadline(s, hc, 0);
	return send_response(conn, &res);
}

/* The whole body is in: the handler's answer, or the refusal's. */
static enum MHD_Result answer(struct http_server *s,
			      struct MHD_Connection *conn,
			      struct request_state *st)
{
	struct http_response res = { 0 };

	/* no deadline while the handler works: it is ours, not the peer's */
	http_conn_deadline(st->hc, HTTP_PHASE_HEADERS, INT64_MAX);
	if (st->refuse != 0) {
		http_error(&res, st->refuse, "%s", st->why);
		res.retry_after = st->retry_after;
	} else {
		st->req.body = st->body != NULL ? st->body : "";
		st->req.body_len = st->len;
		res.status = MHD_HTTP_OK;
		st->route->handler(s->ctx, &st->req, &res);
		if (res.body == NULL && res.status >= 400)
			http_error(&res, res.status, "request failed");
		if (res.charge)
			http_peers_charge(s->peers, st->hc, http_now_ms());
	}
	body_drop(s, st);
	next_request_deadline(s, st->hc,
			      res.body_len > 0 ? res.body_len :
			      res.body != NULL ? strlen(res.body) :
						 0);
	return send_response(conn, &res);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http_server *s = cls;
	struct request_state *st = *con_cls;

	(void)version;
	if (st == NULL || (void *)st == &bad_target)
		return on_headers(s, conn, url, method, con_cls);
	if (*upload_size > 0) {
		if (http_conn_expired(s->peers, st->hc, http_now_ms()))
			return MHD_NO; /* too slow: close */
		st->seen += *upload_size;
		if (!st->answered) {
			take_body(s, st, upload, *upload_size);
			body_deadline(s, st);
		}
		*upload_size = 0; /* consumed, or dropped once refused */
		return MHD_YES;
	}
	if (st->answered)
		return MHD_YES;
	return answer(s, conn, st);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request_state *st = *con_cls;

	(void)conn;
	(void)toe;
	if (st == NULL || (void *)st == &bad_target) {
		*con_cls = NULL;
		return;
	}
	body_drop(cls, st);
	free(st);
	*con_cls = NULL;
}

/* Before a connection is accepted: the address's caps (http_peers.h). */
static enum MHD_Result on_accept(void *cls, const struct sockaddr *addr,
				 socklen_t addrlen)
{
	struct http_server *s = cls;

	(void)addrlen;
	return http_peers_admit(s->peers, addr) == 0 ? MHD_YES : MHD_NO;
}

/* A connection opens (its deadline starts now) or closes. */
static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct http_server *s = cls;
	const union MHD_ConnectionInfo *addr, *fd;
	struct http_conn *hc;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		http_peers_close(s->peers, *socket_context);
		*socket_context = NULL;
		return;
	}
	atomic_fetch_add(&s->stats->connections, 1);
	addr = MHD_get_connection_info(conn,
				       MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	fd = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	hc = fd == NULL ?
		     NULL :
		     http_peers_open(s->peers,
				     addr != NULL ? addr->client_addr : NULL,
				     fd->connect_fd,
				     http_now_ms() + s->header_ms);
	if (hc != NULL)
		hc->owner = s;
	*socket_context = hc;
}

/*
 * GnuTLS asks, at each handshake, for the certificate to send: the one
 * in force now (http_tls.h). libmicrohttpd makes the session's pointer
 * its connection, whose record on_connection() made before any byte
 * of the handshake was read.
 */
static int on_cert(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn,
		   int nreqs, const gnutls_pk_algorithm_t *pk_algos,
		   int pk_algos_length, gnutls_pcert_st **pcert,
		   unsigned int *pcert_length, gnutls_privkey_t *privkey)
{
	struct MHD_Connection *conn = gnutls_session_get_ptr(session);
	struct http_conn *hc = conn != NULL ? conn_of(conn) : NULL;
	struct http_server *s = hc != NULL ? hc->owner : NULL;

	(void)req_ca_rdn;
	(void)nreqs;
	(void)pk_algos;
	(void)pk_algos_length;
	if (s == NULL)
		return -1;
	return http_tls_pick(s->tls, pcert, pcert_length, privkey);
}

int http_reload_tls(struct http_server *s, const char *cert_pem,
		    const char *key_pem, char *errbuf, size_t errlen)
{
	return http_tls_set(s->tls, cert_pem, key_pem, errbuf, errlen);
}

const char *http_query(const struct http_request *req, const char *key)
{
	if (req->conn == NULL)
		return NULL;
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND,
					   key);
}

static int make_addr(const struct http_config *cfg, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, cfg->addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)cfg->port);
		return 0;
	}
	if (inet_pton(AF_INET6, cfg->addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)cfg->port);
		return 1;
	}
	return -1;
}

/* The deadlines, the counters, the per-address table and its sweep. */
static int start_limits(struct http_server *s, const struct http_config *cfg)
{
	struct http_peers_limits lim = {
		.max_conns = cfg->max_connections,
		.per_addr = cfg->max_per_ip,
		.max_inflight = s->max_inflight,
		.fail_burst = cfg->fail_burst,
		.fail_ms = cfg->fail_ms,
	};

	s->stats = cfg->stats != NULL ? cfg->stats : &s->own_stats;
	s->idle_ms = 1000 * (int64_t)(cfg->timeout != 0 ? cfg->timeout :
							  HTTP_TIMEOUT_DEFAULT);
	s->header_ms = 1000 * (int64_t)(cfg->header_timeout != 0 ?
						cfg->header_timeout :
						HTTP_HEADER_TIMEOUT_DEFAULT);
	s->rate = cfg->body_min_rate != 0 ? cfg->body_min_rate :
					    HTTP_BODY_RATE_DEFAULT;
	s->peers = http_peers_new(&lim, s->stats);
	return s->peers != NULL ? 0 : -1;
}

/*
 * The certificate and key: checked now, so a bad pair stops the start;
 * a retired one is kept past the handshake deadline (http_tls.h).
 */
static int start_tls(struct http_server *s, const struct http_config *cfg,
		     char *errbuf, size_t errlen)
{
	char why[200];

	s->tls = http_tls_new(s->header_ms + HTTP_TLS_SLACK_MS);
	if (s->tls == NULL)
		return -1;
	if (http_tls_set(s->tls, cfg->cert_pem, cfg->key_pem, why,
			 sizeof(why)) < 0) {
		snprintf(errbuf, errlen, "TLS: %s", why);
		return -1;
	}
	return 0;
}

struct http_server *http_start(const struct http_config *cfg,
			       const struct http_route *routes, void *ctx,
			       char *errbuf, size_t errlen)
{
	/* Thread pool only when asked: MHD warns about a pool of one. */
	struct MHD_OptionItem pool[] = {
		{ cfg->threads > 1 ? MHD_OPTION_THREAD_POOL_SIZE :
				     MHD_OPTION_END,
		  cfg->threads, NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	struct sockaddr_storage ss;
	struct http_server *s;
	/*
	 * No MHD_USE_TURBO: with it (libmicrohttpd 0.9.75) a connection
	 * that never starts its TLS handshake is never timed out.
	 */
	unsigned int flags = MHD_USE_TLS | MHD_USE_INTERNAL_POLLING_THREAD |
			     MHD_USE_EPOLL_LINUX_ONLY | MHD_USE_ERROR_LOG;
	int v6 = make_addr(cfg, &ss);

	errbuf[0] = '\0';
	if (v6 < 0) {
		snprintf(errbuf, errlen, "'%s' is not an IP address",
			 cfg->addr);
		return NULL;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto fail;
	s->routes = routes;
	s->ctx = ctx;
	s->max_body = cfg->max_body;
	s->max_inflight = cfg->max_inflight != 0 ? cfg->max_inflight :
						   HTTP_INFLIGHT_DEFAULT;
	if (start_limits(s, cfg) < 0 || start_tls(s, cfg, errbuf, errlen) < 0)
		goto fail;
	s->mhd = MHD_start_daemon(flags, (uint16_t)cfg->port, on_accept, s,
				  on_request, s, MHD_OPTION_SOCK_ADDR,
				  (struct sockaddr *)&ss,
				  MHD_OPTION_HTTPS_CERT_CALLBACK, on_cert,
				  MHD_OPTION_HTTPS_PRIORITIES,
				  HTTP_TLS_PRIORITIES,
				  MHD_OPTION_CONNECTION_LIMIT,
				  cfg->max_connections,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				  (size_t)HTTP_CONNECTION_POOL,
				  MHD_OPTION_CONNECTION_TIMEOUT,
				  (unsigned int)(s->idle_ms / 1000),
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection,
				  s, MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
				  MHD_OPTION_ARRAY, pool, MHD_OPTION_END);
	if (s->mhd == NULL) {
		snprintf(errbuf, errlen,
			 "cannot serve HTTPS on %s port %u (address in use?)",
			 cfg->addr, cfg->port);
		goto fail;
	}
	return s;

fail:
	if (s != NULL && s->mhd == NULL && errbuf[0] == '\0')
		snprintf(errbuf, errlen, "out of memory");
	http_stop(s);
	return NULL;
}

unsigned int http_port(const struct http_server *s)
{
	const union MHD_DaemonInfo *info =
		MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);

	return info != NULL ? info->port : 0;
}

void http_stop(struct http_server *s)
{
	if (s == NULL)
		return;
	/* no shutdown(2) of a socket libmicrohttpd is closing */
	http_peers_stop_sweep(s->peers);
	if (s->mhd != NULL)
		MHD_stop_daemon(s->mhd);
	http_peers_free(s->peers);
	http_tls_free(s->tls);
	free(s);
}

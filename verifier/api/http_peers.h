/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http_peers.h - what each client address holds of the HTTPS front
 * (connections, bytes of bodies in flight) and every connection's
 * deadline; http.c's only, not the routes'.
 *
 * An address is an IPv4 address or an IPv6 /64 (one host is given a
 * /64, so its addresses are one client). A connection is admitted while
 * its address holds fewer than per_addr connections; the last
 * 1/HTTP_CONN_RESERVE_DIV of max_connections is kept for addresses that
 * hold fewer than HTTP_FEW_CONNS. Body bytes are taken from the budget
 * as they arrive; the last 1/HTTP_BYTES_RESERVE_DIV of it is kept for
 * addresses that hold at most max_inflight / HTTP_SMALL_HOLDER_DIV, and
 * an address holds at most max_inflight / HTTP_SHARE_DIV of bodies
 * anyone may send (never less than one body of the route).
 *
 * A sweep thread closes (shutdown(2)) every connection past its deadline,
 * however busy it is: libmicrohttpd's own timeout is an idle one.
 */
#ifndef IMATRUST_HTTP_PEERS_H
#define IMATRUST_HTTP_PEERS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http.h"

#define HTTP_CONN_RESERVE_DIV 4	 /* of max_connections, for the few */
#define HTTP_FEW_CONNS 2	 /* an address with fewer holds "few" */
#define HTTP_BYTES_RESERVE_DIV 4 /* of max_inflight, for small holders */
#define HTTP_SMALL_HOLDER_DIV 64 /* of max_inflight: a small holder */
#define HTTP_SHARE_DIV 8	 /* of max_inflight: one address's bodies */
#define HTTP_SWEEP_MS 250	 /* how often deadlines are looked at */
/* Failed costly checks (res->charge) an address may cause: a burst of
 * HTTP_FAIL_BURST, then one each HTTP_FAIL_MS (8 a second); past that a
 * metered route answers 429. An honest agent fails none (its quotes are
 * its enrolled AK's), so a fleet behind one proxy address is not slowed;
 * a forger pays for at most 8 signature checks a second per address. */
#define HTTP_FAIL_BURST 64
#define HTTP_FAIL_MS 125

/* The phase a connection's deadline is for (which counter it bumps). */
enum http_phase {
	HTTP_PHASE_HEADERS, /* TLS handshake, request line, headers */
	HTTP_PHASE_BODY,    /* the body, at the floor rate */
};

struct http_peer; /* one address */
struct http_peers;

/* One connection, from libmicrohttpd's connect notice to its close. */
struct http_conn {
	struct http_conn *prev, *next; /* peers->conns, under its lock */
	struct http_peer *peer; /* its address; NULL when out of memory */
	int fd;
	atomic_int_fast64_t deadline; /* CLOCK_MONOTONIC ms */
	atomic_int phase;	      /* enum http_phase */
	atomic_int closing;	      /* the sweep shut it down */
	void *owner; /* the server's (http.c), for its TLS callback */
};

struct http_peers_limits {
	unsigned int max_conns;
	unsigned int per_addr; /* 0: no cap of its own */
	size_t max_inflight;
	unsigned int fail_burst; /* 0: HTTP_FAIL_BURST */
	unsigned int fail_ms;	 /* 0: HTTP_FAIL_MS */
};

/* Now on CLOCK_MONOTONIC, in milliseconds. */
int64_t http_now_ms(void);

/**
 * http_peers_new() - an empty table and its sweep thread.
 * @lim: the limits (copied)
 * @stats: counters bumped on every refusal and close; must outlive it
 *
 * Return: the table, or NULL (out of memory, no thread).
 */
struct http_peers *http_peers_new(const struct http_peers_limits *lim,
				  struct http_stats *stats);

/* Stop the sweep and free @p; every connection must be closed. */
void http_peers_free(struct http_peers *p);

/* Stop the sweep only (before the server's connections are closed). */
void http_peers_stop_sweep(struct http_peers *p);

/* May @addr open one more connection? 0 yes, -1 no (counted). */
int http_peers_admit(struct http_peers *p, const struct sockaddr *addr);

/*
 * A connection from @addr on @fd started: counted for its address,
 * watched by the sweep with @deadline (ms). NULL when out of memory.
 * One http_peers_admit() should not have let in (another worker's came
 * first) is shut down at once, and counted.
 */
struct http_conn *http_peers_open(struct http_peers *p,
				  const struct sockaddr *addr, int fd,
				  int64_t deadline);

/* @c closed: uncount and free it. */
void http_peers_close(struct http_peers *p, struct http_conn *c);

/* Set @c's deadline (ms, CLOCK_MONOTONIC) for @phase. */
void http_conn_deadline(struct http_conn *c, enum http_phase phase,
			int64_t deadline);

/* Is @c past its deadline at @now? Counts it once when so. */
int http_conn_expired(struct http_peers *p, struct http_conn *c, int64_t now);

/*
 * Take @n bytes of body for a request on @c: 0, or the refusal's status
 * (503: the budget, or its reserve; 429: the address's share of bodies
 * anyone may send, when @share is not 0), counted.
 */
unsigned int http_peers_take(struct http_peers *p, struct http_conn *c,
			     size_t n, size_t share);

/* Give back @n bytes a request on @c took. */
void http_peers_give(struct http_peers *p, struct http_conn *c, size_t n);

/* Bytes of bodies held now by all, and by @c's address. */
/* Has @c's address spent its failed checks at @now? Then 1, and the
 * seconds until one more is allowed in @retry_s. */
int http_peers_spent(struct http_peers *p, const struct http_conn *c,
		     int64_t now, unsigned int *retry_s);
/* Charge one failed check to @c's address at @now. */
void http_peers_charge(struct http_peers *p, struct http_conn *c, int64_t now);

void http_peers_held(struct http_peers *p, const struct http_conn *c,
		     size_t *all, size_t *addr);

#endif /* IMATRUST_HTTP_PEERS_H */

// SPDX-License-Identifier: GPL-2.0-only
/*
 * http_peers.c - connections and bodies in flight per client address,
 * the reserves kept for addresses holding little, and the sweep that
 * closes connections past their deadline (http_peers.h).
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http_peers.h"

#define PEER_BUCKETS 1024 /* hash buckets of the address table */
#define PEER_KEY_MAX 9	  /* family byte + IPv6 /64 */

struct http_peer {
	struct http_peer *next; /* in its bucket */
	unsigned char key[PEER_KEY_MAX];
	size_t key_len;
	unsigned int conns; /* connections open */
	size_t bytes;	    /* body bytes held by its requests */
	int64_t fail_tat;   /* ms: when its failed checks are all paid
				 * back (HTTP_FAIL_MS each); kept that long
				 * after its last connection closed */
};

struct http_peers {
	struct http_peers_limits lim;
	struct http_stats *stats;
	/*
	 * Protects buckets, every http_peer, conns (the list) and the
	 * totals; taken by libmicrohttpd's workers (accept, connect and
	 * close notices, body bytes) and the sweep thread, never around a
	 * call out of this file.
	 */
	pthread_mutex_t lock;
	struct http_peer *buckets[PEER_BUCKETS];
	struct http_conn *conns; /* every open connection */
	unsigned int nconns;
	size_t bytes; /* sum of every peer's bytes */
	/* the sweep thread: runs until stop, woken by wake */
	pthread_t sweeper;
	pthread_cond_t wake;
	int stop;
	int sweeping; /* the thread was started */
};

int64_t http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The key of @addr's client: an IPv4 address (also when mapped into
 * IPv6), or the /64 of an IPv6 one. Return its length, 0 if unknown.
 */
static size_t peer_key(const struct sockaddr *addr, unsigned char *key)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)addr;

	if (addr == NULL)
		return 0;
	if (addr->sa_family == AF_INET) {
		key[0] = 4;
		memcpy(key + 1, &in4->sin_addr, 4);
		return 5;
	}
	if (addr->sa_family != AF_INET6)
		return 0;
	if (memcmp(in6->sin6_addr.s6_addr, mapped, sizeof(mapped)) == 0) {
		key[0] = 4;
		memcpy(key + 1, in6->sin6_addr.s6_addr + 12, 4);
		return 5;
	}
	key[0] = 6;
	memcpy(key + 1, in6->sin6_addr.s6_addr, 8);
	return 9;
}

static size_t bucket_of(const unsigned char *key, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % PEER_BUCKETS;
}

/* The entry of @key, or NULL; with @create, made when missing. */
static struct http_peer *peer_find(struct http_peers *p,
				   const unsigned char *key, size_t len,
				   int create)
{
	struct http_peer **b = &p->buckets[bucket_of(key, len)], *e;

	for (e = *b; e != NULL; e = e->next) {
		if (e->key_len == len && memcmp(e->key, key, len) == 0)
			return e;
	}
	if (!create || (e = calloc(1, sizeof(*e))) == NULL)
		return NULL;
	memcpy(e->key, key, len);
	e->key_len = len;
	e->next = *b;
	*b = e;
	return e;
}

/* Free @e once it holds nothing and owes no failed checks (else the
 * sweep frees it when they are paid back). */
static void peer_release(struct http_peers *p, struct http_peer *e)
{
	struct http_peer **b;

	if (e->conns > 0 || e->bytes > 0 || e->fail_tat > http_now_ms())
		return;
	b = &p->buckets[bucket_of(e->key, e->key_len)];
	while (*b != e)
		b = &(*b)->next;
	*b = e->next;
	free(e);
}

/* May one more connection come from @e (NULL: none yet)? Counts a no. */
static int admit_locked(struct http_peers *p, const struct http_peer *e)
{
	unsigned int held = e != NULL ? e->conns : 0;
	unsigned int reserve = p->lim.max_conns / HTTP_CONN_RESERVE_DIV;

	if (p->lim.per_addr != 0 && held >= p->lim.per_addr) {
		atomic_fetch_add(&p->stats->conn_per_addr, 1);
		return -1;
	}
	if (p->nconns + reserve >= p->lim.max_conns && held >= HTTP_FEW_CONNS) {
		/* the last slots are for addresses that hold few */
		atomic_fetch_add(&p->stats->conn_reserved, 1);
		return -1;
	}
	return 0;
}

int http_peers_admit(struct http_peers *p, const struct sockaddr *addr)
{
	unsigned char key[PEER_KEY_MAX];
	size_t len = peer_key(addr, key);
	int rc;

	pthread_mutex_lock(&p->lock);
	rc = admit_locked(p, len > 0 ? peer_find(p, key, len, 0) : NULL);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

struct http_conn *http_peers_open(struct http_peers *p,
				  const struct sockaddr *addr, int fd,
				  int64_t deadline)
{
	unsigned char key[PEER_KEY_MAX];
	size_t len = peer_key(addr, key);
	struct http_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->fd = fd;
	atomic_store(&c->deadline, deadline);
	atomic_store(&c->phase, HTTP_PHASE_HEADERS);
	pthread_mutex_lock(&p->lock);
	c->peer = len > 0 ? peer_find(p, key, len, 1) : NULL;
	/*
	 * Asked again: workers accept at once, and each may have let one
	 * in past http_peers_admit() before the other's was counted.
	 */
	if (admit_locked(p, c->peer) < 0) {
		atomic_store(&c->closing, 1);
		shutdown(fd, SHUT_RDWR);
	}
	if (c->peer != NULL)
		c->peer->conns++;
	c->next = p->conns;
	if (p->conns != NULL)
		p->conns->prev = c;
	p->conns = c;
	p->nconns++;
	pthread_mutex_unlock(&p->lock);
	return c;
}

void http_peers_close(struct http_peers *p, struct http_conn *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&p->lock);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	p->nconns--;
	if (c->peer != NULL) {
		c->peer->conns--;
		peer_release(p, c->peer);
	}
	pthread_mutex_unlock(&p->lock);
	free(c);
}

void http_conn_deadline(struct http_conn *c, enum http_phase phase,
			int64_t deadline)
{
	atomic_store(&c->phase, phase);
	atomic_store(&c->deadline, deadline);
}

int http_conn_expired(struct http_peers *p, struct http_conn *c, int64_t now)
{
	if (now <= atomic_load(&c->deadline))
		return 0;
	if (atomic_exchange(&c->closing, 1) == 0)
		atomic_fetch_add(atomic_load(&c->phase) == HTTP_PHASE_BODY ?
					 &p->stats->closed_body :
					 &p->stats->closed_headers,
				 1);
	return 1;
}

unsigned int http_peers_take(struct http_peers *p, struct http_conn *c,
			     size_t n, size_t share)
{
	size_t max = p->lim.max_inflight, small = max / HTTP_SMALL_HOLDER_DIV;
	size_t reserve = max / HTTP_BYTES_RESERVE_DIV, mine;
	unsigned int status = 0;

	pthread_mutex_lock(&p->lock);
	mine = c->peer != NULL ? c->peer->bytes : 0;
	if (n > max - p->bytes) {
		atomic_fetch_add(&p->stats->bytes_budget, 1);
		status = 503;
	} else if (p->bytes + n > max - reserve && mine + n > small) {
		/* the last of the budget is for addresses that hold little */
		atomic_fetch_add(&p->stats->bytes_reserved, 1);
		status = 503;
	} else if (share != 0 && mine + n > share) {
		atomic_fetch_add(&p->stats->bytes_per_addr, 1);
		status = 429;
	} else {
		p->bytes += n;
		if (c->peer != NULL)
			c->peer->bytes += n;
	}
	pthread_mutex_unlock(&p->lock);
	return status;
}

void http_peers_give(struct http_peers *p, struct http_conn *c, size_t n)
{
	if (n == 0)
		return;
	pthread_mutex_lock(&p->lock);
	p->bytes -= n;
	if (c->peer != NULL)
		c->peer->bytes -= n;
	pthread_mutex_unlock(&p->lock);
}

void http_peers_held(struct http_peers *p, const struct http_conn *c,
		     size_t *all, size_t *addr)
{
	pthread_mutex_lock(&p->lock);
	*all = p->bytes;
	*addr = c->peer != NULL ? c->peer->bytes : 0;
	pthread_mutex_unlock(&p->lock);
}

/*
 * Shut down every connection past its deadline. The lock keeps each
 * listed connection's socket open: libmicrohttpd closes a socket only
 * after its close notice, which unlists it under the lock.
 */
static void sweep(struct http_peers *p, int64_t now)
{
	struct http_peer *e, *next;
	struct http_conn *c;
	size_t i;

	for (c = p->conns; c != NULL; c = c->next) {
		if (!atomic_load(&c->closing) && http_conn_expired(p, c, now))
			shutdown(c->fd, SHUT_RDWR);
	}
	/* addresses kept for their failed checks alone, now paid back */
	for (i = 0; i < PEER_BUCKETS; i++) {
		for (e = p->buckets[i]; e != NULL; e = next) {
			next = e->next;
			if (e->fail_tat != 0 && e->fail_tat <= now)
				peer_release(p, e);
		}
	}
}

int http_peers_spent(struct http_peers *p, const struct http_conn *c,
		     int64_t now, unsigned int *retry_s)
{
	int64_t owed = 0,
		free_ms = (int64_t)(p->lim.fail_burst - 1) * p->lim.fail_ms;

	if (p->lim.fail_burst == HTTP_FAIL_OFF)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (c != NULL && c->peer != NULL && c->peer->fail_tat > now)
		owed = c->peer->fail_tat - now;
	pthread_mutex_unlock(&p->lock);
	if (owed <= free_ms)
		return 0;
	*retry_s = (unsigned int)((owed - free_ms + 999) / 1000);
	return 1;
}

void http_peers_charge(struct http_peers *p, struct http_conn *c, int64_t now)
{
	if (c == NULL || p->lim.fail_burst == HTTP_FAIL_OFF)
		return;
	pthread_mutex_lock(&p->lock);
	if (c->peer != NULL)
		c->peer->fail_tat =
			(c->peer->fail_tat > now ? c->peer->fail_tat : now) +
			p->lim.fail_ms;
	pthread_mutex_unlock(&p->lock);
}

static void *sweeper(void *arg)
{
	struct http_peers *p = arg;
	struct timespec ts;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		sweep(p, http_now_ms());
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += HTTP_SWEEP_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		while (!p->stop &&
		       pthread_cond_timedwait(&p->wake, &p->lock, &ts) == EINTR)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct http_peers *http_peers_new(const struct http_peers_limits *lim,
				  struct http_stats *stats)
{
	struct http_peers *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (p == NULL)
		return NULL;
	p->lim = *lim;
	if (p->lim.fail_burst == 0)
		p->lim.fail_burst = HTTP_FAIL_BURST;
	if (p->lim.fail_ms == 0)
		p->lim.fail_ms = HTTP_FAIL_MS;
	p->stats = stats;
	pthread_mutex_init(&p->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&p->sweeper, NULL, sweeper, p) != 0) {
		http_peers_free(p);
		return NULL;
	}
	p->sweeping = 1;
	return p;
}

void http_peers_stop_sweep(struct http_peers *p)
{
	if (p == NULL || !p->sweeping)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->sweeper, NULL);
	p->sweeping = 0;
}

void http_peers_free(struct http_peers *p)
{
	size_t i;
	struct http_peer *e, *next;

	if (p == NULL)
		return;
	http_peers_stop_sweep(p);
	for (i = 0; i < PEER_BUCKETS; i++) {
		for (e = p->buckets[i]; e != NULL; e = next) {
			next = e->next;
			free(e);
		}
	}
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_http_peers.c - the per-address table of the HTTPS front without a
 * network: an IPv6 /64 is one address (loopback has one IPv6 address, so
 * test_http_flood.sh cannot show it), an IPv4-mapped address is its IPv4
 * one, the slots kept for addresses holding few, the byte budget taken
 * and given back, and the sweep counting a connection past its deadline.
 * Connections carry fd -1: the sweep's shutdown(2) of one fails, harmless.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "http_peers.h"

#define CONNS_MAX 8 /* max_conns: 2 of them kept for the few */
#define PER_ADDR 4
#define BUDGET (64u * 1024) /* reserve 16 KiB, a small holder 1 KiB */
#define FAR (INT64_MAX / 2) /* a deadline never reached */

static struct sockaddr_storage addr(const char *text)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
	} else {
		assert_int_equal(inet_pton(AF_INET6, text, &in6->sin6_addr), 1);
		in6->sin6_family = AF_INET6;
	}
	return ss;
}

static struct http_peers *peers_new(struct http_stats *st)
{
	struct http_peers_limits lim = { .max_conns = CONNS_MAX,
					 .per_addr = PER_ADDR,
					 .max_inflight = BUDGET };

	memset(st, 0, sizeof(*st));
	return http_peers_new(&lim, st);
}

/* Open a connection from @text if admitted; NULL when refused. */
static struct http_conn *open_from(struct http_peers *p, const char *text)
{
	struct sockaddr_storage ss = addr(text);

	if (http_peers_admit(p, (struct sockaddr *)&ss) < 0)
		return NULL;
	return http_peers_open(p, (struct sockaddr *)&ss, -1, FAR);
}

/* Four addresses of one /64 are one client; another /64 is another. */
static void test_ipv6_per_64(void **state)
{
	static const char *const same[] = {
		"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff::3",
		"2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::5"
	};
	struct http_conn *c[5], *other;
	struct http_stats st;
	struct http_peers *p = peers_new(&st);
	size_t i;

	(void)state;
	for (i = 0; i < PER_ADDR; i++)
		assert_non_null(c[i] = open_from(p, same[i]));
	assert_null(open_from(p, same[4]));
	assert_int_equal(atomic_load(&st.conn_per_addr), 1);
	assert_non_null(other = open_from(p, "2001:db8:1:3::1"));
	http_peers_close(p, c[0]);
	assert_non_null(c[0] = open_from(p, same[4]));
	for (i = 0; i < PER_ADDR; i++)
		http_peers_close(p, c[i]);
	http_peers_close(p, other);
	http_peers_free(p);
}

/* ::ffff:192.0.2.1 and 192.0.2.1 are one address; 192.0.2.2 another. */
static void test_ipv4_mapped(void **state)
{
	struct http_conn *c[PER_ADDR], *other;
	struct http_stats st;
	struct http_peers *p = peers_new(&st);
	size_t i;

	(void)state;
	for (i = 0; i < PER_ADDR; i++)
		assert_non_null(
			c[i] = open_from(p, i % 2 ? "192.0.2.1" :
						    "::ffff:192.0.2.1"));
	assert_null(open_from(p, "192.0.2.1"));
	assert_non_null(other = open_from(p, "192.0.2.2"));
	for (i = 0; i < PER_ADDR; i++)
		http_peers_close(p, c[i]);
	http_peers_close(p, other);
	http_peers_free(p);
}

/*
 * Two addresses holding 4 and 2 take 6 of 8 slots: the last 2 go only
 * to addresses holding fewer than HTTP_FEW_CONNS.
 */
static void test_reserved_slots(void **state)
{
	struct http_conn *c[CONNS_MAX];
	struct http_stats st;
	struct http_peers *p = peers_new(&st);
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < PER_ADDR; i++)
		assert_non_null(c[n++] = open_from(p, "198.51.100.1"));
	assert_non_null(c[n++] = open_from(p, "198.51.100.2"));
	assert_non_null(c[n++] = open_from(p, "198.51.100.2"));
	assert_null(open_from(p, "198.51.100.2"));
	assert_int_equal(atomic_load(&st.conn_reserved), 1);
	assert_non_null(c[n++] = open_from(p, "198.51.100.3"));
	assert_non_null(c[n++] = open_from(p, "198.51.100.4"));
	for (i = 0; i < n; i++)
		http_peers_close(p, c[i]);
	http_peers_free(p);
}

/*
 * Bytes: the whole budget at most; its last quarter only while the
 * address holds at most 1/64 of it; the address's share when one is
 * given; all given back.
 */
static void test_bytes(void **state)
{
	struct http_conn *a, *b;
	struct http_stats st;
	struct http_peers *p = peers_new(&st);
	size_t all, mine;

	(void)state;
	a = open_from(p, "203.0.113.1");
	b = open_from(p, "203.0.113.2");
	assert_int_equal(http_peers_take(p, a, 8192, 8192), 0);
	assert_int_equal(http_peers_take(p, a, 1, 8192), 429);
	assert_int_equal(atomic_load(&st.bytes_per_addr), 1);
	assert_int_equal(http_peers_take(p, a, BUDGET * 3 / 4 - 8192, 0), 0);
	/* in the reserve: a holder of more than 1 KiB is refused */
	assert_int_equal(http_peers_take(p, a, 1, 0), 503);
	assert_int_equal(atomic_load(&st.bytes_reserved), 1);
	assert_int_equal(http_peers_take(p, b, BUDGET / 64, 0), 0);
	assert_int_equal(http_peers_take(p, b, 1, 0), 503);
	http_peers_held(p, a, &all, &mine);
	assert_int_equal(all, BUDGET * 3 / 4 + BUDGET / 64);
	assert_int_equal(mine, BUDGET * 3 / 4);
	http_peers_give(p, a, BUDGET * 3 / 4);
	http_peers_give(p, b, BUDGET / 64);
	http_peers_held(p, b, &all, &mine);
	assert_int_equal(all, 0);
	assert_int_equal(mine, 0);
	assert_int_equal(http_peers_take(p, b, BUDGET + 1, 0), 503);
	assert_int_equal(atomic_load(&st.bytes_budget), 1);
	http_peers_close(p, a);
	http_peers_close(p, b);
	http_peers_free(p);
}

/* The sweep finds a connection past its deadline and counts it once. */
static void test_sweep(void **state)
{
	struct http_conn *h, *b;
	struct http_stats st;
	struct http_peers *p = peers_new(&st);
	int i;

	(void)state;
	h = open_from(p, "192.0.2.7");
	b = open_from(p, "192.0.2.8");
	http_conn_deadline(h, HTTP_PHASE_HEADERS, http_now_ms() - 1);
	http_conn_deadline(b, HTTP_PHASE_BODY, http_now_ms() - 1);
	for (i = 0; i < 100 && (atomic_load(&st.closed_headers) == 0 ||
				atomic_load(&st.closed_body) == 0);
	     i++)
		usleep(50 * 1000);
	assert_int_equal(atomic_load(&st.closed_headers), 1);
	assert_int_equal(atomic_load(&st.closed_body), 1);
	usleep(2 * HTTP_SWEEP_MS * 1000);
	assert_int_equal(atomic_load(&st.closed_headers), 1);
	assert_true(http_conn_expired(p, h, http_now_ms()));
	assert_int_equal(atomic_load(&st.closed_headers), 1);
	http_peers_close(p, h);
	http_peers_close(p, b);
	http_peers_free(p);
}

/*
 * Failed checks: HTTP_FAIL_BURST at once, then one each HTTP_FAIL_MS;
 * what an address owes outlives its connections (a forger reconnecting
 * starts with its debt), and another /64 owes nothing.
 */
static void test_failed_checks(void **state)
{
	struct http_stats st;
	struct http_peers *p = peers_new(&st);
	struct http_conn *c, *o;
	int64_t t0 = http_now_ms();
	unsigned int retry = 0;
	int i;

	(void)state;
	c = open_from(p, "2001:db8:0:1::1");
	o = open_from(p, "2001:db8:0:2::1");
	for (i = 0; i < HTTP_FAIL_BURST; i++) {
		assert_false(http_peers_spent(p, c, t0, &retry));
		http_peers_charge(p, c, t0);
	}
	assert_true(http_peers_spent(p, c, t0, &retry));
	assert_int_equal(retry, 1);
	assert_false(http_peers_spent(p, o, t0, &retry));
	/* paid back at HTTP_FAIL_MS each */
	assert_false(http_peers_spent(p, c, t0 + HTTP_FAIL_MS, &retry));
	http_peers_charge(p, c, t0 + HTTP_FAIL_MS);
	assert_true(http_peers_spent(p, c, t0 + HTTP_FAIL_MS, &retry));
	/* the debt stays with the address across a reconnection */
	http_peers_close(p, c);
	c = open_from(p, "2001:db8:0:1::2");
	assert_true(http_peers_spent(p, c, t0 + HTTP_FAIL_MS, &retry));
	assert_false(http_peers_spent(p, c,
				      t0 + (HTTP_FAIL_BURST + 1) * HTTP_FAIL_MS,
				      &retry));
	http_peers_close(p, c);
	http_peers_close(p, o);
	http_peers_free(p);
}

/* max_failed_checks = 0 (behind a TCP proxy): no address ever pays. */
static void test_failed_checks_off(void **state)
{
	struct http_peers_limits lim = { .max_conns = CONNS_MAX,
					 .per_addr = PER_ADDR,
					 .max_inflight = BUDGET,
					 .fail_burst = HTTP_FAIL_OFF };
	struct http_stats st = { 0 };
	struct http_peers *p = http_peers_new(&lim, &st);
	struct http_conn *c = open_from(p, "192.0.2.9");
	int64_t t0 = http_now_ms();
	unsigned int retry = 0;
	int i;

	(void)state;
	for (i = 0; i < 10 * HTTP_FAIL_BURST; i++)
		http_peers_charge(p, c, t0);
	assert_false(http_peers_spent(p, c, t0, &retry));
	http_peers_close(p, c);
	http_peers_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipv6_per_64),
		cmocka_unit_test(test_ipv4_mapped),
		cmocka_unit_test(test_reserved_slots),
		cmocka_unit_test(test_bytes),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_failed_checks),
		cmocka_unit_test(test_failed_checks_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

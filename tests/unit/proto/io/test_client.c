// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_client.c - the one HTTPS client of the agent and the CLI, against
 * a plain-TCP peer on loopback that writes down the request it gets: an
 * https-only client never connects to an http:// URL; the bearer token,
 * JSON headers and bodies go out as documented; an answer above the limit
 * and a refused connection are told apart; a token with a line break is
 * refused (it would inject a header). client_post_all(): a post's own
 * headers and body, an address the caller refuses never dialled, a stop
 * that abandons; client_url_parse() as libcurl reads a URL.
 */
#define _GNU_SOURCE /* memmem, strcasestr */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "client.h"

#define REQ_MAX 8192

/* One connection's exchange: what arrived, what to answer. */
struct peer {
	int fd; /* listening socket */
	unsigned int port;
	const char *answer; /* the whole HTTP answer */
	char req[REQ_MAX];  /* the request as received */
	size_t len;
	pthread_t thread;
};

static void peer_listen(struct peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);

	memset(p, 0, sizeof(*p));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	p->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(p->fd >= 0);
	assert_int_equal(bind(p->fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(p->fd, 4), 0);
	assert_int_equal(getsockname(p->fd, (struct sockaddr *)&sa, &len), 0);
	p->port = ntohs(sa.sin_port);
}

/* Headers, then as many body bytes as Content-Length says. */
static int request_complete(const char *req, size_t len)
{
	const char *end = memmem(req, len, "\r\n\r\n", 4);
	const char *cl = strcasestr(req, "\r\nContent-Length:");

	if (end == NULL)
		return 0;
	if (cl == NULL || cl > end)
		return 1;
	return len >= (size_t)(end + 4 - req) + strtoul(cl + 17, NULL, 10);
}

static void *peer_serve(void *arg)
{
	struct peer *p = arg;
	int c = accept(p->fd, NULL, NULL);
	ssize_t n;

	if (c < 0)
		return NULL;
	while (p->len < sizeof(p->req) - 1 &&
	       !request_complete(p->req, p->len)) {
		n = read(c, p->req + p->len, sizeof(p->req) - 1 - p->len);
		if (n <= 0)
			break;
		p->len += (size_t)n;
		p->req[p->len] = '\0';
	}
	if (send(c, p->answer, strlen(p->answer), MSG_NOSIGNAL) < 0)
		p->len = 0;
	close(c);
	return NULL;
}

static void peer_start(struct peer *p, const char *answer)
{
	p->answer = answer;
	assert_int_equal(pthread_create(&p->thread, NULL, peer_serve, p), 0);
}

static void peer_close(struct peer *p)
{
	close(p->fd);
}

static struct client *http_client(unsigned int port, const char *token,
				  size_t answer_max)
{
	struct client_opts o;
	char url[64];
	struct client *c;

	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", port);
	client_opts_init(&o, url, NULL);
	o.allow_http = 1;
	o.token = token;
	if (answer_max != 0)
		o.answer_max = answer_max;
	c = client_new(&o);
	assert_non_null(c);
	return c;
}

#define OK_ANSWER \
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" \
	"Content-Length: 11\r\nConnection: close\r\n\r\n{\"a\":true}\n"

/* The agent's defaults (https only): an http:// URL is never dialled. */
static void test_https_only_never_connects(void **state)
{
	struct client_reply r;
	struct client_opts o;
	struct client *c;
	struct peer p;
	char url[64];
	int fd;

	(void)state;
	peer_listen(&p);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", p.port);
	client_opts_init(&o, url, NULL);
	o.token = "secret";
	c = client_new(&o);
	assert_non_null(c);
	assert_int_equal(client_post(c, "/v1/agents", "{}", &r), -1);
	assert_int_equal(r.err, CLIENT_ERR_PROTOCOL);
	assert_int_equal(r.status, 0);
	assert_true(r.error[0] != '\0');
	client_free(c);
	/* nobody knocked */
	fcntl(p.fd, F_SETFL, O_NONBLOCK);
	fd = accept(p.fd, NULL, NULL);
	assert_int_equal(fd, -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
	peer_close(&p);
}

static void test_get_carries_token_not_content_type(void **state)
{
	struct client_reply r;
	struct client *c;
	struct peer p;

	(void)state;
	peer_listen(&p);
	c = http_client(p.port, "tok123", 0);
	peer_start(&p, OK_ANSWER);
	assert_int_equal(client_request(c, "GET", "/v1/machines?limit=1", NULL,
					&r),
			 0);
	pthread_join(p.thread, NULL);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.err, CLIENT_ERR_NONE);
	assert_string_equal(r.body, "{\"a\":true}\n");
	assert_int_equal(r.len, 11);
	/* the trailing '/' of the base URL is not doubled */
	assert_non_null(strstr(p.req, "GET /v1/machines?limit=1 HTTP/1.1\r\n"));
	assert_non_null(strstr(p.req, "\r\nAuthorization: Bearer tok123\r\n"));
	assert_non_null(strstr(p.req, "\r\nAccept: application/json\r\n"));
	assert_null(strcasestr(p.req, "Content-Type"));
	client_reply_free(&r);
	assert_null(r.body);
	client_free(c);
	peer_close(&p);
}

static void test_post_sends_json_without_expect(void **state)
{
	static const char body[] = "{\"id\":\"node-1\"}";
	struct client_reply r;
	struct client *c;
	struct peer p;

	(void)state;
	peer_listen(&p);
	c = http_client(p.port, NULL, 0);
	peer_start(&p, OK_ANSWER);
	assert_int_equal(client_post(c, "/v1/agents", body, &r), 0);
	pthread_join(p.thread, NULL);
	assert_non_null(strstr(p.req, "POST /v1/agents HTTP/1.1\r\n"));
	assert_non_null(
		strstr(p.req, "\r\nContent-Type: application/json\r\n"));
	assert_null(strcasestr(p.req, "Authorization"));
	assert_null(strcasestr(p.req, "100-continue"));
	assert_non_null(strstr(p.req, "\r\n\r\n{\"id\":\"node-1\"}"));
	client_reply_free(&r);
	client_free(c);
	peer_close(&p);
}

static void test_delete_with_body(void **state)
{
	struct client_reply r;
	struct client *c;
	struct peer p;

	(void)state;
	peer_listen(&p);
	c = http_client(p.port, "t", 0);
	peer_start(&p, OK_ANSWER);
	assert_int_equal(client_request(c, "DELETE", "/v1/references",
					"{\"source\":\"x\"}", &r),
			 0);
	pthread_join(p.thread, NULL);
	assert_non_null(strstr(p.req, "DELETE /v1/references HTTP/1.1\r\n"));
	assert_non_null(strstr(p.req, "\r\n\r\n{\"source\":\"x\"}"));
	client_reply_free(&r);
	client_free(c);
	peer_close(&p);
}

static void test_answer_above_limit(void **state)
{
	struct client_reply r;
	struct client *c;
	struct peer p;

	(void)state;
	peer_listen(&p);
	c = http_client(p.port, NULL, 8);
	peer_start(&p, OK_ANSWER);
	assert_int_equal(client_request(c, "GET", "/", NULL, &r), -1);
	pthread_join(p.thread, NULL);
	assert_int_equal(r.err, CLIENT_ERR_TOO_LARGE);
	assert_string_equal(r.error, "answer larger than 8 bytes");
	assert_null(r.body);
	client_free(c);
	peer_close(&p);
}

static void test_refused_connection(void **state)
{
	struct client_reply r;
	struct client *c;
	struct peer p;
	unsigned int port;

	(void)state;
	peer_listen(&p);
	port = p.port;
	peer_close(&p); /* nobody listens there any more */
	c = http_client(port, NULL, 0);
	assert_int_equal(client_request(c, "GET", "/", NULL, &r), -1);
	assert_int_equal(r.err, CLIENT_ERR_CONNECT);
	client_free(c);
}

static void test_token_with_line_break_refused(void **state)
{
	struct client_opts o;

	(void)state;
	client_opts_init(&o, "https://127.0.0.1:1", NULL);
	o.token = "tok\r\nX-Injected: 1";
	assert_null(client_new(&o));
	o.token = "tok\n";
	assert_null(client_new(&o));
}

/* client_post_all(): its own URL, headers and body; the status kept. */
static void test_post_all_delivers(void **state)
{
	static const char *const headers[] = { "webhook-id: e-1", NULL };
	struct client_post post;
	struct peer p;
	char url[64];

	(void)state;
	peer_listen(&p);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/hook", p.port);
	memset(&post, 0, sizeof(post));
	post.url = url;
	post.headers = headers;
	post.body = "{\"type\":\"x\"}";
	post.len = strlen(post.body);
	post.connect_timeout_ms = 2000;
	post.timeout_ms = 5000;
	peer_start(&p, OK_ANSWER);
	assert_int_equal(client_post_start(), 0);
	client_post_all(&post, 1, NULL, NULL, 50);
	pthread_join(p.thread, NULL);
	assert_int_equal(post.err, CLIENT_ERR_NONE);
	assert_int_equal(post.status, 200);
	assert_null(post.handle);
	assert_non_null(strstr(p.req, "POST /hook HTTP/1.1\r\n"));
	assert_non_null(strstr(p.req, "\r\nwebhook-id: e-1\r\n"));
	assert_null(strcasestr(p.req, "100-continue"));
	assert_non_null(strstr(p.req, "\r\n\r\n{\"type\":\"x\"}"));
	client_post_end();
	peer_close(&p);
}

static int refuse_all(const void *sa, void *arg)
{
	(void)sa;
	++*(int *)arg;
	return -1;
}

static int stop_now(void *arg)
{
	(void)arg;
	return 1;
}

/* An address the caller refuses is never dialled; a stop abandons. */
static void test_post_all_refused_and_stopped(void **state)
{
	struct client_post post[2];
	int asked = 0;
	struct peer p;
	char url[64];

	(void)state;
	peer_listen(&p); /* listening, never accepting */
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/", p.port);
	memset(post, 0, sizeof(post));
	post[0].url = url;
	post[0].body = "{}";
	post[0].len = 2;
	post[0].timeout_ms = 5000;
	post[0].addr_ok = refuse_all;
	post[0].arg = &asked;
	assert_int_equal(client_post_start(), 0);
	client_post_all(post, 1, NULL, NULL, 50);
	assert_int_equal(post[0].err, CLIENT_ERR_REFUSED);
	assert_int_equal(post[0].status, 0);
	assert_true(asked >= 1);
	/* the peer takes the connection but never answers: stopped */
	post[1] = post[0];
	post[1].addr_ok = NULL;
	client_post_all(&post[1], 1, stop_now, NULL, 50);
	assert_int_equal(post[1].err, CLIENT_ERR_STOPPED);
	assert_int_equal(post[1].status, 0);
	client_post_end();
	peer_close(&p);
}

static void test_url_parse(void **state)
{
	struct client_url_parts u;

	(void)state;
	assert_int_equal(client_url_parse("https://a:b@Example.org:8443/x", &u),
			 0);
	assert_string_equal(u.scheme, "https");
	assert_string_equal(u.host, "Example.org");
	assert_string_equal(u.user, "a");
	assert_string_equal(u.password, "b");
	client_url_parts_free(&u);
	assert_null(u.host);
	assert_int_equal(client_url_parse("http://[::1]/", &u), 0);
	assert_string_equal(u.host, "[::1]");
	assert_null(u.user);
	client_url_parts_free(&u);
	assert_int_equal(client_url_parse("not a url", &u), -1);
	assert_null(u.scheme);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_https_only_never_connects),
		cmocka_unit_test(test_get_carries_token_not_content_type),
		cmocka_unit_test(test_post_sends_json_without_expect),
		cmocka_unit_test(test_delete_with_body),
		cmocka_unit_test(test_answer_above_limit),
		cmocka_unit_test(test_refused_connection),
		cmocka_unit_test(test_token_with_line_break_refused),
		cmocka_unit_test(test_post_all_delivers),
		cmocka_unit_test(test_post_all_refused_and_stopped),
		cmocka_unit_test(test_url_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

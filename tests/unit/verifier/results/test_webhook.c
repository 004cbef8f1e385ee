// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_webhook.c - what a webhook receiver relies on: the signature (the
 * Standard Webhooks example vector, recomputed with `openssl dgst
 * -sha256 -mac HMAC`), secrets as whsec_ text, key ids, the backoff
 * schedule, the URL rule and the config file's "webhook" lines.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "db_webhook.h"
#include "webhook.h"
#include "webhook_endpoint.h"
#include "webhook_sign.h"

/*
 * standardwebhooks.com's example; checked with
 *   printf '%s' 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' |
 *   openssl dgst -sha256 -mac HMAC -macopt hexkey:$(printf \
 *   MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw | base64 -d | xxd -p -c 100) \
 *   -binary | base64
 */
#define EX_SECRET "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
#define EX_ID "msg_p5jXN8AQM9LWM0D4loKWxJek"
#define EX_TS 1614265330
#define EX_BODY "{\"test\": 2432232314}"
#define EX_SIG "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

static void test_signature_vector(void **state)
{
	uint8_t secret[DB_WEBHOOK_SECRET_MAX];
	char sig[WEBHOOK_SIGNATURE_MAX];
	size_t len = 0;

	(void)state;
	assert_int_equal(webhook_secret_parse(EX_SECRET, strlen(EX_SECRET),
					      secret, &len),
			 0);
	assert_int_equal(len, 24);
	assert_int_equal(webhook_sign(secret, len, EX_ID, EX_TS, EX_BODY,
				      strlen(EX_BODY), sig),
			 0);
	assert_string_equal(sig, EX_SIG);
	/* every input is signed: id, timestamp, body, key */
	webhook_sign(secret, len, "msg_other", EX_TS, EX_BODY, strlen(EX_BODY),
		     sig);
	assert_string_not_equal(sig, EX_SIG);
	webhook_sign(secret, len, EX_ID, EX_TS + 1, EX_BODY, strlen(EX_BODY),
		     sig);
	assert_string_not_equal(sig, EX_SIG);
	webhook_sign(secret, len, EX_ID, EX_TS, EX_BODY, strlen(EX_BODY) - 1,
		     sig);
	assert_string_not_equal(sig, EX_SIG);
	secret[0] ^= 1;
	webhook_sign(secret, len, EX_ID, EX_TS, EX_BODY, strlen(EX_BODY), sig);
	assert_string_not_equal(sig, EX_SIG);
}

/* During a rotation both secrets sign, the current one first. */
static void test_sign_all(void **state)
{
	uint8_t secret[DB_WEBHOOK_SECRET_MAX], other[32] = { 7 };
	char all[WEBHOOK_SIGNATURES_MAX], one[WEBHOOK_SIGNATURE_MAX];
	char want[WEBHOOK_SIGNATURES_MAX];
	size_t len = 0;

	(void)state;
	assert_int_equal(webhook_secret_parse(EX_SECRET, strlen(EX_SECRET),
					      secret, &len),
			 0);
	assert_int_equal(webhook_sign_all(secret, len, NULL, 0, EX_ID, EX_TS,
					  EX_BODY, strlen(EX_BODY), all),
			 0);
	assert_string_equal(all, EX_SIG);
	assert_int_equal(webhook_sign(other, sizeof(other), EX_ID, EX_TS,
				      EX_BODY, strlen(EX_BODY), one),
			 0);
	assert_int_equal(webhook_sign_all(other, sizeof(other), secret, len,
					  EX_ID, EX_TS, EX_BODY,
					  strlen(EX_BODY), all),
			 0);
	snprintf(want, sizeof(want), "%s %s", one, EX_SIG);
	assert_string_equal(all, want);
}

static void test_secret_text(void **state)
{
	uint8_t raw[32], back[DB_WEBHOOK_SECRET_MAX];
	char text[WEBHOOK_SECRET_TEXT_MAX], id[WEBHOOK_KEY_ID_LEN + 1];
	char id2[WEBHOOK_KEY_ID_LEN + 1];
	size_t len = 0, i;

	(void)state;
	for (i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(i * 7 + 1);
	webhook_secret_text(raw, sizeof(raw), text);
	assert_memory_equal(text, "whsec_", 6);
	assert_int_equal(strlen(text), 6 + 44);
	/* a secret file's newline is fine; bare base64 too */
	strcat(text, "\n");
	assert_int_equal(webhook_secret_parse(text, strlen(text), back, &len),
			 0);
	assert_int_equal(len, 32);
	assert_memory_equal(back, raw, 32);
	assert_int_equal(webhook_secret_parse(text + 6, strlen(text) - 6, back,
					      &len),
			 0);
	/* too short, not base64, empty */
	assert_int_equal(webhook_secret_parse("whsec_AAAA", 10, back, &len),
			 -1);
	assert_int_equal(webhook_secret_parse("whsec_!!!!!!!!!!!!!!!!!!!!!!!!"
					      "!!!!!!!!",
					      38, back, &len),
			 -1);
	assert_int_equal(webhook_secret_parse("", 0, back, &len), -1);
	webhook_key_id(raw, sizeof(raw), id);
	assert_int_equal(strlen(id), WEBHOOK_KEY_ID_LEN);
	raw[31] ^= 1;
	webhook_key_id(raw, sizeof(raw), id2);
	assert_string_not_equal(id, id2);
}

/* 1 s doubling to 300 s, at most a quarter less for jitter. */
static void test_backoff(void **state)
{
	static const unsigned int want[] = { 1,	 2,   4,   8,	16,  32,
					     64, 128, 256, 300, 300, 300 };
	unsigned int i, d;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(webhook_backoff(i + 1, 0), want[i]);
		d = webhook_backoff(i + 1, 0xffffffffu);
		assert_true(d <= want[i] && d >= want[i] - want[i] / 4);
	}
	assert_int_equal(webhook_backoff(1000000, 0), WEBHOOK_BACKOFF_MAX);
	assert_int_equal(webhook_backoff(0, 0), 1);
	/* the jitter does spread: not every draw gives the same delay */
	assert_int_not_equal(webhook_backoff(10, 0), webhook_backoff(10, 37));
}

static void test_url_rule(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(webhook_url_check("https://nac.example/hook", 0, why,
					   sizeof(why)),
			 0);
	assert_int_equal(webhook_url_check("http://127.0.0.1:8080/h", 0, why,
					   sizeof(why)),
			 0);
	assert_int_equal(webhook_url_check("http://[::1]/h", 0, why,
					   sizeof(why)),
			 0);
	assert_int_equal(webhook_url_check("http://nac.example/h", 0, why,
					   sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "loopback"));
	assert_int_equal(webhook_url_check("http://nac.example/h", 1, why,
					   sizeof(why)),
			 0);
	assert_int_equal(webhook_url_check("ftp://nac.example/", 1, why,
					   sizeof(why)),
			 -1);
	assert_int_equal(webhook_url_check("file:///etc/passwd", 1, why,
					   sizeof(why)),
			 -1);
	assert_int_equal(webhook_url_check("nac.example/hook", 0, why,
					   sizeof(why)),
			 -1);
	assert_int_equal(webhook_url_check("https://u:p@nac.example/", 0, why,
					   sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "password"));
	/* a name that starts like a loopback address is a name */
	assert_int_equal(webhook_url_check("http://127.attacker.example/", 0,
					   why, sizeof(why)),
			 -1);
	assert_int_equal(webhook_url_check("http://[::ffff:127.0.0.1]/", 0, why,
					   sizeof(why)),
			 0);
	assert_int_equal(webhook_url_check("http://[fe80::1]/", 0, why,
					   sizeof(why)),
			 -1);
}

/* webhook_addr_check() on @text (IPv4 or IPv6) for an http:// URL or an
 * https:// one, with or without allow-http. */
static int addr_ok(const char *text, int http, int allow_http)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in in = { .sin_family = AF_INET };
	const struct sockaddr *sa = (const struct sockaddr *)&in;
	char why[256];

	if (inet_pton(AF_INET, text, &in.sin_addr) != 1) {
		assert_int_equal(inet_pton(AF_INET6, text, &in6.sin6_addr), 1);
		sa = (const struct sockaddr *)&in6;
	}
	return webhook_addr_check(sa, http, allow_http, why, sizeof(why)) == 0;
}

/* The address connected to decides, whatever the URL's name said. */
static void test_addr_rule(void **state)
{
	static const char *const never[] = {
		"169.254.169.254", "169.254.0.1",
		"0.0.0.0",	   "0.1.2.3",
		"224.0.0.1",	   "239.255.255.250",
		"255.255.255.255", "240.0.0.1",
		"fe80::1",	   "febf::1",
		"ff02::1",	   "::",
		"fd00:ec2::254",   "::ffff:169.254.169.254",
		"::ffff:0.0.0.0",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		if (addr_ok(never[i], 0, 1) || addr_ok(never[i], 1, 1))
			fail_msg("%s taken", never[i]);
	}
	assert_true(addr_ok("127.0.0.1", 1, 0));
	assert_true(addr_ok("127.9.9.9", 1, 0));
	assert_true(addr_ok("::1", 1, 0));
	assert_true(addr_ok("::ffff:127.0.0.1", 1, 0));
	/* http:// beyond loopback only when allowed; https:// anywhere */
	assert_false(addr_ok("10.0.0.1", 1, 0));
	assert_false(addr_ok("2001:db8::1", 1, 0));
	assert_false(addr_ok("::ffff:10.0.0.1", 1, 0));
	assert_true(addr_ok("10.0.0.1", 1, 1));
	assert_true(addr_ok("10.0.0.1", 0, 0));
	assert_true(addr_ok("2001:db8::1", 0, 0));
	assert_true(addr_ok("fec0::1", 0, 0));
}

static int parse(const char *text, struct config *c, char *err)
{
	config_defaults(c);
	if (config_parse(c, "v.conf", text, strlen(text), err, 256) < 0)
		return -1;
	return config_check(c, err, 256);
}

#define BASE "tls_cert = c.pem\ntls_key = k.pem\n"

static void test_config_lines(void **state)
{
	struct webhook_spec s;
	struct config c;
	const char *line;
	size_t pos = 0, len;
	char err[256];

	(void)state;
	assert_int_equal(parse(BASE
			       "webhook = nac https://nac.example/h secret=/etc/s ca=nac.pem\n"
			       "webhook = pager http://127.0.0.1:9/p secret=/etc/p "
			       "secret_previous=/etc/p0\n"
			       "webhook_max_pending = 50\n",
			       &c, err),
			 0);
	assert_int_equal(c.webhook_max_pending, 50);
	assert_int_equal(c.webhook_keep, 86400);
	assert_int_equal(webhook_spec_next(&c, &pos, &line, &len), 1);
	assert_int_equal(webhook_spec_parse(line, len, &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.name, "nac");
	assert_string_equal(s.url, "https://nac.example/h");
	assert_string_equal(s.ca_file, "nac.pem");
	assert_string_equal(s.secret_file, "/etc/s");
	assert_string_equal(s.secret_previous_file, "");
	assert_int_equal(s.allow_http, 0);
	assert_int_equal(webhook_spec_next(&c, &pos, &line, &len), 1);
	assert_int_equal(webhook_spec_parse(line, len, &s, err, sizeof(err)),
			 0);
	assert_string_equal(s.name, "pager");
	assert_string_equal(s.secret_previous_file, "/etc/p0");
	assert_int_equal(webhook_spec_next(&c, &pos, &line, &len), 0);

	assert_int_equal(parse(BASE "webhook = nac http://nac.example/ "
				    "secret=/s\n",
			       &c, err),
			 -1);
	assert_non_null(strstr(err, "loopback"));
	assert_int_equal(parse(BASE "webhook = nac http://nac.example/ "
				    "secret=/s allow-http\n",
			       &c, err),
			 0);
	assert_int_equal(parse(BASE "webhook = nac https://nac.example/\n", &c,
			       err),
			 -1);
	assert_non_null(strstr(err, "secret=FILE is required"));
	assert_int_equal(parse(BASE "webhook = nac https://a/ secret=/s\n"
				    "webhook = nac https://b/ secret=/s\n",
			       &c, err),
			 -1);
	assert_non_null(strstr(err, "twice"));
	assert_int_equal(parse(BASE "webhook = n/a https://a/ secret=/s\n", &c,
			       err),
			 -1);
	assert_int_equal(parse(BASE "webhook = nac https://a/ secret=/s "
				    "colour=blue\n",
			       &c, err),
			 -1);
	assert_non_null(strstr(err, "unknown option"));
	assert_int_equal(parse(BASE "webhook = nac\n", &c, err), -1);
	/* ca=: a file name in webhook_ca_dir, as the API's "ca" */
	assert_int_equal(parse(BASE "webhook = nac https://a/ secret=/s "
				    "ca=/etc/passwd\n",
			       &c, err),
			 -1);
	assert_non_null(strstr(err, "webhook nac: ca: want a file name in "
				    "webhook_ca_dir"));
	assert_int_equal(parse(BASE "webhook = nac https://a/ secret=/s "
				    "ca=../x\n",
			       &c, err),
			 -1);
	assert_non_null(strstr(err, "webhook_ca_dir"));
	assert_string_equal(c.webhook_ca_dir, "/etc/imatrust/webhook-ca");
	/* other keys still may be set once */
	assert_int_equal(parse(BASE "webhook_keep = 1\nwebhook_keep = 2\n", &c,
			       err),
			 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signature_vector),
		cmocka_unit_test(test_sign_all),
		cmocka_unit_test(test_secret_text),
		cmocka_unit_test(test_backoff),
		cmocka_unit_test(test_url_rule),
		cmocka_unit_test(test_addr_rule),
		cmocka_unit_test(test_config_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

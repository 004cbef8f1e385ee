// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_config.c - the verifier's config file: values, defaults and
 * "path:line: message" errors; what a reload (SIGHUP) takes and keeps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "http.h"
#include "wire.h"

static int parse(const char *text, struct config *c, char *err)
{
	config_defaults(c);
	return config_parse(c, "v.conf", text, strlen(text), err, 256);
}

static char noted[512];

static void note(const char *key, int taken)
{
	size_t n = strlen(noted);

	snprintf(noted + n, sizeof(noted) - n, "%s%s=%d", n > 0 ? " " : "", key,
		 taken);
}

/* Run-time keys are taken, the others kept and named; equal ones quiet. */
static void test_reload(void **state)
{
	static const char text[] = "listen = 10.0.0.1\nthreads = 4\n"
				   "stale_after = 300\nlog_level = debug\n"
				   "tls_cert = /etc/new.pem\n"
				   "keep_boots = 3\n";
	static struct config cur, next;
	char err[256];

	(void)state;
	config_defaults(&cur);
	config_defaults(&next);
	assert_int_equal(config_parse(&next, "v.conf", text, strlen(text), err,
				      sizeof(err)),
			 0);
	noted[0] = '\0';
	config_reload(&cur, &next, note);
	assert_string_equal(noted, "listen=0 tls_cert=1 stale_after=1 "
				   "log_level=1 threads=0");
	assert_string_equal(cur.listen_addr, "127.0.0.1");
	assert_int_equal(cur.threads, 2);
	assert_int_equal(cur.stale_after, 300);
	assert_string_equal(cur.log_level, "debug");
	assert_string_equal(cur.tls_cert, "/etc/new.pem");
	assert_true(config_reloadable("nonce_ttl"));
	assert_false(config_reloadable("database"));
	assert_false(config_reloadable("webhook"));
}

static void test_values_and_defaults(void **state)
{
	struct config c;
	char err[256];

	(void)state;
	assert_int_equal(parse("# lab verifier\n"
			       "listen = 10.77.0.1   # the bridge\n"
			       "\n  port=9443\r\n"
			       "tls_cert = /etc/imatrust/cert.pem\n"
			       "tls_key = /etc/imatrust/key.pem",
			       &c, err),
			 0);
	assert_string_equal(c.listen_addr, "10.77.0.1");
	assert_int_equal(c.listen_port, 9443);
	assert_int_equal(c.nonce_ttl, 30);
	assert_string_equal(c.database, "/var/lib/imatrust/verifier.db");
	assert_int_equal(config_check(&c, err, sizeof(err)), 0);
}

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "port = 0", "v.conf:1: '0' is not a number from 1 to 65535" },
	{ "\nport = 70000", "v.conf:2: '70000' is not a number" },
	{ "port = 12ab", "v.conf:1: '12ab' is not a number" },
	{ "port = -1", "v.conf:1: '-1' is not a number" },
	{ "colour = blue", "v.conf:1: unknown key 'colour'" },
	{ "listen 1.2.3.4", "v.conf:1: expected \"key = value\"" },
	{ "port = 1\nport = 2", "v.conf:2: 'port' set twice" },
	{ "nonce_ttl = 99999999999999999999999", "is not a number" },
	/* the limits of the HTTPS front */
	{ "max_body = 6291457", "not a number from 1024 to 6291456" },
	{ "connection_timeout = 10", "not a number from 11 to 3600" },
	{ "max_connections_per_ip = 0", "not a number from 1 to" },
	{ "max_inflight_body = 67108863", "not a number from 67108864" },
	{ "header_timeout = 0", "not a number from 1 to 3600" },
	{ "body_min_rate = 63", "not a number from 64 to" },
};

static void test_errors(void **state)
{
	struct config c;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text, &c, err), -1);
		assert_non_null(strstr(err, bad[i].msg));
	}
}

/* The limits' defaults: what verifier/README.md and the help promise. */
static void test_limit_defaults(void **state)
{
	struct config c;
	char err[256];

	(void)state;
	assert_int_equal(parse("connection_timeout = 11\n"
			       "max_connections_per_ip = 2",
			       &c, err),
			 0);
	assert_int_equal(c.connection_timeout, 11);
	assert_int_equal(c.max_connections_per_ip, 2);
	config_defaults(&c);
	assert_int_equal(c.max_body, WIRE_BODY_MAX);
	assert_int_equal(c.max_connections, 4096);
	assert_int_equal(c.max_connections_per_ip, 64);
	assert_int_equal(c.connection_timeout, 15);
	assert_int_equal(c.max_inflight_body, 256u << 20);
	assert_int_equal(c.header_timeout, HTTP_HEADER_TIMEOUT_DEFAULT);
	assert_int_equal(c.body_min_rate, HTTP_BODY_RATE_DEFAULT);
}

/* deploy/config/verifier.conf parses and shows the limits' defaults. */
static void test_example_config(void **state)
{
	const char *path = FIXTURE_DIR "/../../deploy/config/verifier.conf";
	struct config c, d;
	char text[8192], err[256];
	size_t n;
	FILE *f;

	(void)state;
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text), f);
	fclose(f);
	assert_true(n < sizeof(text));
	config_defaults(&c);
	if (config_parse(&c, path, text, n, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	config_defaults(&d);
	assert_int_equal(c.max_body, d.max_body);
	assert_int_equal(c.max_connections, d.max_connections);
	assert_int_equal(c.max_connections_per_ip, d.max_connections_per_ip);
	assert_int_equal(c.connection_timeout, d.connection_timeout);
	assert_int_equal(c.max_inflight_body, d.max_inflight_body);
	assert_int_equal(c.header_timeout, d.header_timeout);
	assert_int_equal(c.body_min_rate, d.body_min_rate);
}

static void test_required_keys(void **state)
{
	struct config c;
	char err[256];

	(void)state;
	assert_int_equal(parse("port = 8443", &c, err), 0);
	assert_int_equal(config_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'tls_cert' must be set"));
	assert_int_equal(parse("tls_cert=a\ntls_key=b\nlog_level=loud", &c,
			       err),
			 0);
	assert_int_equal(config_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "log_level"));
}

static void test_enrollment_keys(void **state)
{
	struct config c;
	char err[256];

	(void)state;
	assert_int_equal(parse("tls_cert=a\ntls_key=b", &c, err), 0);
	assert_string_equal(c.enroll, "ca");
	assert_int_equal(config_enroll_mode(&c), CONFIG_ENROLL_CA);
	assert_int_equal(c.max_open_enrollments, 1024);
	assert_int_equal(c.max_enrollments_per_ek, 4);
	assert_int_equal(c.max_pending, 100);
	assert_int_equal(c.pending_expire, 7 * 86400);
	assert_int_equal(parse("tls_cert=a\ntls_key=b\nenroll = ca+registered"
			       "\nmax_pending = 0",
			       &c, err),
			 0);
	assert_int_equal(config_check(&c, err, sizeof(err)), 0);
	assert_int_equal(config_enroll_mode(&c), CONFIG_ENROLL_CA_REGISTERED);
	assert_int_equal(parse("tls_cert=a\ntls_key=b\nenroll = anyone", &c,
			       err),
			 0);
	assert_int_equal(config_check(&c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "enroll must be"));
	assert_int_equal(parse("max_open_enrollments = 0", &c, err), -1);
	assert_int_equal(parse("max_enrollments_per_ek = 65", &c, err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enrollment_keys),
		cmocka_unit_test(test_values_and_defaults),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_required_keys),
		cmocka_unit_test(test_limit_defaults),
		cmocka_unit_test(test_example_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_agent_config.c - the agent's config file: defaults, values, the
 * checks across keys, and "path:line: message" errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "agent_config.h"

static int parse(const char *text, struct agent_config *c, char *err)
{
	agent_config_defaults(c);
	return agent_config_parse(c, "a.conf", text, strlen(text), err, 256);
}

static void test_defaults(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	assert_int_equal(parse("verifier_url = https://10.77.0.1:8443/\n"
			       "ca_cert = /etc/imatrust/ca.pem\n",
			       &c, err),
			 0);
	assert_string_equal(c.tcti, "device:/dev/tpmrm0");
	assert_string_equal(c.state_dir, "/var/lib/imatrust-agent");
	assert_string_equal(c.measurement_list,
			    "/sys/kernel/security/ima/binary_runtime_measurements");
	assert_string_equal(c.bank, "sha256");
	assert_string_equal(c.key_alg, "rsa");
	assert_string_equal(c.ek, "auto");
	assert_int_equal(c.heartbeat, 10);
	assert_string_equal(c.boot_log,
			    "/sys/kernel/security/tpm0/binary_bios_measurements");
	assert_int_equal(c.poll_fallback_ms, 200);
	assert_int_equal(c.backoff_max, 30);
	assert_string_equal(c.log_level, "info");
	assert_string_equal(c.export, "off"); /* upstream's default too */
	assert_int_equal(c.export_records, 10000);
	assert_int_equal(agent_config_check(&c, err, 256), 0);
	/* the trailing slash goes, the id becomes the host name */
	assert_string_equal(c.verifier_url, "https://10.77.0.1:8443");
	assert_true(c.id[0] != '\0');
}

static void test_values(void **state)
{
	struct agent_config c;
	char err[256];

	(void)state;
	assert_int_equal(parse("verifier_url=https://v\nca_cert=/ca\n"
			       "id = guest-1.lab\nbank = sha1\nkey_alg = ecc\n"
			       "ek = p384\n"
			       "heartbeat = 3600\npoll_fallback_ms = 10\n"
			       "backoff_max = 1\nlog_level = warning\n"
			       "export = on\nexport_records = 1\n"
			       "tcti = swtpm:host=127.0.0.1,port=2321\n",
			       &c, err),
			 0);
	assert_int_equal(agent_config_check(&c, err, 256), 0);
	assert_string_equal(c.id, "guest-1.lab");
	assert_string_equal(c.bank, "sha1");
	assert_int_equal(agent_config_parse(&c, "a.conf", "bank = sha384\n", 14,
					    err, sizeof(err)),
			 0);
	assert_string_equal(c.bank, "sha384");
	assert_string_equal(c.key_alg, "ecc");
	assert_string_equal(c.ek, "p384");
	assert_int_equal(c.heartbeat, 3600);
	assert_string_equal(c.export, "on");
	assert_int_equal(c.export_records, 1);
	assert_string_equal(c.tcti, "swtpm:host=127.0.0.1,port=2321");
}

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	{ "heartbeat = 0", "a.conf:1: '0' is not a number from 1 to 3600" },
	{ "\n# c\nheartbeat = 3601", "a.conf:3: '3601' is not a number" },
	{ "poll_fallback_ms = 5", "a.conf:1: '5' is not a number from 10" },
	{ "backoff_max = 1h", "a.conf:1: '1h' is not a number" },
	{ "bank = sm3",
	  "a.conf:1: 'sm3' is not one of sha256|sha1|sha384|sha512" },
	{ "bank = auto", "a.conf:1: 'auto' is not one of sha256|sha1|sha384" },
	{ "key_alg = dsa", "a.conf:1: 'dsa' is not one of rsa|ecc" },
	{ "ek = rsa4096",
	  "a.conf:1: 'rsa4096' is not one of auto|rsa2048|rsa3072|p256|p384" },
	{ "export = yes", "a.conf:1: 'yes' is not one of on|off" },
	{ "export_records = 0", "a.conf:1: '0' is not a number from 1" },
	{ "log_level = loud", "a.conf:1: 'loud' is not one of" },
	{ "verifier = https://v", "a.conf:1: unknown key 'verifier'" },
	{ "tcti device:/dev/tpm0", "a.conf:1: expected \"key = value\"" },
	{ "id = a\nid = b", "a.conf:2: 'id' set twice" },
};

static void test_bad_lines(void **state)
{
	struct agent_config c;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(bad[i].text, &c, err), -1);
		if (strstr(err, bad[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err,
				 bad[i].msg);
	}
}

static const struct {
	const char *text;
	const char *msg;
} bad_check[] = {
	{ "ca_cert = /ca", "'verifier_url' must be set" },
	{ "verifier_url = https://v", "'ca_cert' must be set" },
	{ "verifier_url = http://v\nca_cert=/ca", "must be https://" },
	{ "verifier_url = https://\nca_cert=/ca", "must be https://" },
	{ "verifier_url = https:///x\nca_cert=/ca", "must be https://" },
	{ "verifier_url = https://v\nca_cert=/ca\nid = a b",
	  "id 'a b' is not 1-64" },
	{ "verifier_url = https://v\nca_cert=/ca\nid = a/b",
	  "id 'a/b' is not 1-64" },
};

static void test_checks(void **state)
{
	struct agent_config c;
	char err[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_check) / sizeof(bad_check[0]); i++) {
		assert_int_equal(parse(bad_check[i].text, &c, err), 0);
		assert_int_equal(agent_config_check(&c, err, sizeof(err)), -1);
		if (strstr(err, bad_check[i].msg) == NULL)
			fail_msg("case %zu: '%s' lacks '%s'", i, err,
				 bad_check[i].msg);
	}
}

static void test_load(void **state)
{
	char path[] = "/tmp/imatrust-agent-conf-XXXXXX";
	struct agent_config c;
	char err[512];
	FILE *f;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "verifier_url = https://v\nca_cert = /ca\nbank = md5\n");
	fclose(f);
	assert_int_equal(agent_config_load(&c, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":3: 'md5' is not one of"));
	assert_ptr_equal(strstr(err, path), err);

	f = fopen(path, "w");
	fprintf(f, "ca_cert = /ca\n");
	fclose(f);
	assert_int_equal(agent_config_load(&c, path, err, sizeof(err)), -1);
	assert_ptr_equal(strstr(err, path), err);
	assert_non_null(strstr(err, "'verifier_url' must be set"));

	f = fopen(path, "w");
	fprintf(f, "verifier_url = https://v\nca_cert = /ca\n");
	fclose(f);
	assert_int_equal(agent_config_load(&c, path, err, sizeof(err)), 0);
	unlink(path);
	assert_int_equal(agent_config_load(&c, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "No such file"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),  cmocka_unit_test(test_values),
		cmocka_unit_test(test_bad_lines), cmocka_unit_test(test_checks),
		cmocka_unit_test(test_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_webhook_ca.c - a webhook's CA bundle comes only from
 * webhook_ca_dir (issue 33): /etc/passwd, "../x", a symbolic link out
 * of the directory, a directory, a FIFO and a file without a PEM
 * certificate are refused naming the rule; a PEM file in it is read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "webhook_ca.h"

#define PEM "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

struct lab {
	char top[64]; /* a scratch directory */
	char dir[96]; /* top/ca: webhook_ca_dir */
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	char p[160];

	snprintf(l->top, sizeof(l->top), "/tmp/test_webhook_ca.XXXXXX");
	if (mkdtemp(l->top) == NULL)
		return -1;
	snprintf(l->dir, sizeof(l->dir), "%s/ca", l->top);
	mkdir(l->dir, 0755);
	snprintf(p, sizeof(p), "%s/nac.pem", l->dir);
	put(p, PEM);
	snprintf(p, sizeof(p), "%s/outside.pem", l->top);
	put(p, PEM);
	snprintf(p, sizeof(p), "%s/out.pem", l->dir);
	if (symlink("../outside.pem", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/in.pem", l->dir);
	if (symlink("nac.pem", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/passwd", l->dir);
	if (symlink("/etc/passwd", p) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/text", l->dir);
	put(p, "root:x:0:0:root:/root:/bin/bash\n");
	snprintf(p, sizeof(p), "%s/sub", l->dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/fifo", l->dir);
	if (mkfifo(p, 0600) < 0)
		return -1;
	*state = l;
	return 0;
}

static int teardown(void **state)
{
	struct lab *l = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", l->top);
	if (system(cmd) != 0)
		return -1;
	free(l);
	return 0;
}

/* webhook_ca_read() of @name refuses, its reason holding @want. */
static void refused(const struct lab *l, const char *name, const char *want)
{
	char why[256] = "";
	size_t len = 0;
	char *text = webhook_ca_read(l->dir, name, &len, why, sizeof(why));

	assert_null(text);
	if (strstr(why, want) == NULL)
		fail_msg("%s: \"%s\" does not say \"%s\"", name, why, want);
	assert_null(strstr(why, "root:")); /* no contents reflected */
}

static void test_names(void **state)
{
	static const char *const bad[] = {
		"",	   "/etc/passwd", "../x",	    "..",   ".",
		".hidden", "a/b",	  "sub/../nac.pem", "x\ny",
	};
	char why[256], longname[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(webhook_ca_name_check(bad[i], why,
						       sizeof(why)),
				 -1);
		assert_non_null(strstr(why, "a file name in webhook_ca_dir"));
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(webhook_ca_name_check(longname, why, sizeof(why)), -1);
	assert_int_equal(webhook_ca_name_check("nac.pem", why, sizeof(why)), 0);
	assert_int_equal(webhook_ca_name_check("a..b", why, sizeof(why)), 0);
}

static void test_read(void **state)
{
	struct lab *l = *state;
	char why[256], outside[160];
	size_t len = 0;
	char *text;

	text = webhook_ca_read(l->dir, "nac.pem", &len, why, sizeof(why));
	assert_non_null(text);
	assert_int_equal(len, strlen(PEM));
	assert_string_equal(text, PEM);
	free(text);

	refused(l, "/etc/passwd", "a file name in webhook_ca_dir");
	refused(l, "../outside.pem", "a file name in webhook_ca_dir");
	refused(l, "out.pem", "symbolic link"); /* out of the dir */
	refused(l, "in.pem", "symbolic link");	/* even within it */
	refused(l, "passwd", "symbolic link");
	refused(l, "text", "holds no PEM certificate");
	refused(l, "sub", "not a regular file");
	refused(l, "fifo", "not a regular file"); /* and did not hang */
	refused(l, "missing.pem", "No such file");
	/* the file outside is readable: only the rule keeps it out */
	snprintf(outside, sizeof(outside), "%s/outside.pem", l->top);
	assert_int_equal(access(outside, R_OK), 0);
	text = webhook_ca_read("/nonexistent-ca-dir", "nac.pem", &len, why,
			       sizeof(why));
	assert_null(text);
	assert_non_null(strstr(why, "webhook_ca_dir /nonexistent-ca-dir"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

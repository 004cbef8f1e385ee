// SPDX-License-Identifier: GPL-2.0-only
/*
 * rss_floor.c - what the agent's TLS libraries hold resident before it
 * does any work of its own (tests/bench/agent-rss; issue #37).
 *
 *	rss-floor ssl	OPENSSL_init_ssl() alone, as libcurl's init calls it
 *	rss-floor curl	the same, then libcurl loaded (dlopen(), with the
 *			libraries it needs) and curl_global_init(), as the
 *			agent's client_new() starts it
 *
 * Prints VmRSS, RssAnon and RssFile of /proc/self/status. Exit: 0, 1 when
 * libcurl does not load, 2 usage.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <openssl/ssl.h>

#define RSS_FLOOR_CURL_ALL 3L /* CURL_GLOBAL_DEFAULT */

static int load_curl(void)
{
	void *h = dlopen("libcurl.so.4", RTLD_NOW);
	int (*init)(long);

	if (h == NULL) {
		fprintf(stderr, "rss-floor: %s\n", dlerror());
		return -1;
	}
	*(void **)&init = dlsym(h, "curl_global_init");
	if (init == NULL || init(RSS_FLOOR_CURL_ALL) != 0) {
		fprintf(stderr, "rss-floor: curl_global_init failed\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	char line[256];
	FILE *f;

	if (argc != 2 ||
	    (strcmp(argv[1], "ssl") != 0 && strcmp(argv[1], "curl") != 0)) {
		fprintf(stderr, "usage: rss-floor ssl|curl\n");
		return 2;
	}
	OPENSSL_init_ssl(0, NULL);
	if (strcmp(argv[1], "curl") == 0 && load_curl() < 0)
		return 1;
	f = fopen("/proc/self/status", "r");
	if (f == NULL)
		return 1;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "VmRSS:", 6) == 0 ||
		    strncmp(line, "RssAnon:", 8) == 0 ||
		    strncmp(line, "RssFile:", 8) == 0)
			fputs(line, stdout);
	}
	fclose(f);
	return 0;
}

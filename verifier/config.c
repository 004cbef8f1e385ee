// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.c - imatrust-verifier's configuration file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

enum key_type { K_STRING, K_UINT };

struct key {
	const char *name;
	enum key_type type;
	size_t off;
	size_t size;		/* K_STRING: buffer size */
	uint64_t min, max;	/* K_UINT bounds */
	const char *def;	/* default, as text; "" for none */
	int required;
	const char *help;
};

#define STR(n, f, d, r, h) \
	{ n, K_STRING, offsetof(struct config, f), \
	  sizeof(((struct config *)0)->f), 0, 0, d, r, h }
#define UINT(n, f, lo, hi, d, h) \
	{ n, K_UINT, offsetof(struct config, f), 0, lo, hi, d, 0, h }

static const struct key keys[] = {
	STR("listen", listen_addr, "127.0.0.1", 0,
	    "address to listen on (IPv4 or IPv6 literal)"),
	UINT("port", listen_port, 1, 65535, "8443", "TCP port for HTTPS"),
	STR("tls_cert", tls_cert, "", 1,
	    "PEM file: the server certificate (and chain)"),
	STR("tls_key", tls_key, "", 1, "PEM file: the server's private key"),
	STR("database", database, "/var/lib/imatrust/verifier.db", 0,
	    "SQLite database file"),
	STR("ek_ca", ek_ca, "", 0,
	    "PEM bundle of CAs that issue TPM EK certificates; machines whose EK does not chain wait in 'pending'"),
	UINT("nonce_ttl", nonce_ttl, 1, 3600, "30",
	     "seconds a nonce stays valid"),
	UINT("stale_after", stale_after, 5, 86400, "120",
	     "seconds without valid evidence before a machine is 'stale'"),
	UINT("max_body", max_body, 1024, 16u << 20, "6291456",
	     "largest request body in bytes"),
	UINT("max_connections", max_connections, 1, 100000, "4096",
	     "concurrent connections (one per agent)"),
	STR("log_level", log_level, "info", 0, "debug, info or warning"),
	UINT("threads", threads, 1, 64, "2", "HTTPS worker threads"),
	STR("violations", violations, "allow", 0,
	    "policy for IMA violation records (ToMToU, open_writers): 'allow' records an event, 'untrusted' makes the machine untrusted"),
	STR("any_path", any_path, "deny", 0,
	    "policy for a digest listed only for another path: 'allow' accepts it, 'deny' judges it unknown"),
	UINT("keep_boots", keep_boots, 1, 1000, "3",
	     "boots (with their records and events) kept per machine"),
	UINT("max_events", max_events, 0, 10000000, "10000",
	     "events kept per machine (0: no cap)"),
};

#define KEY_COUNT (sizeof(keys) / sizeof(keys[0]))

static int set_value(struct config *c, const struct key *k, const char *v,
		     size_t n, char *why, size_t whylen)
{
	char num[24], *end;
	uint64_t u;

	if (k->type == K_STRING) {
		if (n >= k->size) {
			snprintf(why, whylen, "value longer than %zu bytes",
				 k->size - 1);
			return -1;
		}
		memcpy((char *)c + k->off, v, n);
		((char *)c + k->off)[n] = '\0';
		return 0;
	}
	if (n == 0 || n >= sizeof(num) || v[0] < '0' || v[0] > '9') {
		snprintf(why, whylen, "'%.*s' is not a number", (int)n, v);
		return -1;
	}
	memcpy(num, v, n);
	num[n] = '\0';
	errno = 0;
	u = strtoull(num, &end, 10);
	if (errno != 0 || *end != '\0' || u < k->min || u > k->max) {
		snprintf(why, whylen, "'%s' is not a number from %llu to %llu",
			 num, (unsigned long long)k->min,
			 (unsigned long long)k->max);
		return -1;
	}
	*(uint64_t *)((char *)c + k->off) = u;
	return 0;
}

void config_defaults(struct config *c)
{
	char why[128];
	size_t i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < KEY_COUNT; i++) {
		if (keys[i].def[0] != '\0')
			set_value(c, &keys[i], keys[i].def,
				  strlen(keys[i].def), why, sizeof(why));
	}
}

static const char *trim(const char *s, const char *end, const char **tail)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' ||
			   end[-1] == '\r'))
		end--;
	*tail = end;
	return s;
}

int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *errbuf, size_t errlen)
{
	const char *p = text, *end = text + len;
	uint32_t seen[(KEY_COUNT + 31) / 32] = { 0 };
	size_t lineno = 0, i;
	char why[160];

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl != NULL ? nl : end;
		const char *hash = memchr(p, '#', (size_t)(eol - p));
		const char *k, *kend, *v, *vend, *eq;

		lineno++;
		k = trim(p, hash != NULL ? hash : eol, &vend);
		p = nl != NULL ? nl + 1 : end;
		if (k == vend)
			continue;
		eq = memchr(k, '=', (size_t)(vend - k));
		if (eq == NULL) {
			snprintf(why, sizeof(why), "expected \"key = value\"");
			goto bad;
		}
		k = trim(k, eq, &kend);
		v = trim(eq + 1, vend, &vend);
		for (i = 0; i < KEY_COUNT; i++) {
			if (strlen(keys[i].name) == (size_t)(kend - k) &&
			    memcmp(keys[i].name, k, (size_t)(kend - k)) == 0)
				break;
		}
		if (i == KEY_COUNT) {
			snprintf(why, sizeof(why), "unknown key '%.*s'",
				 (int)(kend - k), k);
			goto bad;
		}
		if (seen[i / 32] & (1u << (i % 32))) {
			snprintf(why, sizeof(why), "'%s' set twice",
				 keys[i].name);
			goto bad;
		}
		seen[i / 32] |= 1u << (i % 32);
		if (set_value(c, &keys[i], v, (size_t)(vend - v), why,
			      sizeof(why)) < 0)
			goto bad;
	}
	return 0;

bad:
	snprintf(errbuf, errlen, "%s:%zu: %s", path, lineno, why);
	return -1;
}

int config_check(const struct config *c, char *errbuf, size_t errlen)
{
	size_t i;

	for (i = 0; i < KEY_COUNT; i++) {
		if (keys[i].required && keys[i].type == K_STRING &&
		    ((const char *)c + keys[i].off)[0] == '\0') {
			snprintf(errbuf, errlen, "'%s' must be set (%s)",
				 keys[i].name, keys[i].help);
			return -1;
		}
	}
	if (strcmp(c->log_level, "debug") != 0 &&
	    strcmp(c->log_level, "info") != 0 &&
	    strcmp(c->log_level, "warning") != 0) {
		snprintf(errbuf, errlen,
			 "log_level must be debug, info or warning");
		return -1;
	}
	if (strcmp(c->violations, "allow") != 0 &&
	    strcmp(c->violations, "untrusted") != 0) {
		snprintf(errbuf, errlen, "violations must be allow or untrusted");
		return -1;
	}
	if (strcmp(c->any_path, "allow") != 0 &&
	    strcmp(c->any_path, "deny") != 0) {
		snprintf(errbuf, errlen, "any_path must be allow or deny");
		return -1;
	}
	return 0;
}

void config_print_help(void *out)
{
	size_t i;

	for (i = 0; i < KEY_COUNT; i++) {
		const struct key *k = &keys[i];

		fprintf(out, "%s = %s\n\t%s", k->name,
			k->def[0] != '\0' ? k->def :
			k->required ? "(required)" : "(unset)", k->help);
		if (k->type == K_UINT)
			fprintf(out, " [%llu-%llu]",
				(unsigned long long)k->min,
				(unsigned long long)k->max);
		fputc('\n', out);
	}
}

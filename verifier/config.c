// SPDX-License-Identifier: GPL-2.0-only
/*
 * config.c - imatrust-verifier's configuration file: its key table. The
 * parsing is proto/conf.c's.
 */
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "config.h"
#include "webhook_endpoint.h"
#include "wire.h"

#define STR(n, f, d, r, h) CONF_STR(config, n, f, d, r, NULL, h)
#define UINT(n, f, lo, hi, d, h) CONF_NUM(config, n, f, lo, hi, d, h)
#define LIST(n, f, h) CONF_LIST(config, n, f, h)

static const struct conf_key keys[] = {
	STR("listen", listen_addr, "127.0.0.1", 0,
	    "address to listen on (IPv4 or IPv6 literal)"),
	UINT("port", listen_port, 1, 65535, "8443", "TCP port for HTTPS"),
	STR("tls_cert", tls_cert, "", 1,
	    "PEM file: the server certificate (and chain)"),
	STR("tls_key", tls_key, "", 1, "PEM file: the server's private key"),
	STR("database", database, "/var/lib/imatrust/verifier.db", 0,
	    "SQLite database file, or a PostgreSQL URI (postgresql://...; then set result_key)"),
	STR("ek_ca", ek_ca, "", 0,
	    "PEM bundle of CAs that issue TPM EK certificates, or a directory of them named by subject hash (openssl rehash); machines whose EK does not chain wait in 'pending'"),
	UINT("nonce_ttl", nonce_ttl, 1, 3600, "30",
	     "seconds a nonce stays valid"),
	UINT("stale_after", stale_after, 5, 86400, "120",
	     "seconds without valid evidence before a machine is 'stale'"),
	/* the limits of the HTTPS front (http.h) */
	UINT("max_body", max_body, 1024, WIRE_BODY_MAX, "6291456",
	     "largest request body in bytes from a client without an operator token (the agent routes: enrollment, activation, evidence); at most 6291456, the protocol's limit. Operator routes have their own (64 MiB for /v1/references)"),
	UINT("max_connections", max_connections, 1, 100000, "4096",
	     "concurrent connections (one per agent); must stay below the open-file limit (RLIMIT_NOFILE, LimitNOFILE= of the systemd unit): at start the verifier raises its soft limit to fit, or lowers max_connections with a warning"),
	UINT("max_connections_per_ip", max_connections_per_ip, 1, 100000, "64",
	     "concurrent connections from one IP address (IPv6: one /64), so one client cannot hold them all (agents behind one NAT address share it); the last quarter of max_connections is kept for addresses holding fewer than 2"),
	UINT("connection_timeout", connection_timeout, 11, 3600, "15",
	     "seconds a connection may stay idle before the verifier closes it; agents send evidence at least every 'heartbeat' seconds (agent default 10) on one keep-alive connection, so keep it above their heartbeat or they reconnect for every message"),
	UINT("max_inflight_body", max_inflight_body, CONFIG_INFLIGHT_MIN,
	     1ull << 40, "268435456",
	     "bytes of request bodies held at once over all connections, counted as they arrive; a request whose declared body does not fit what is free is answered 503 with Retry-After before its body is read. One address (IPv6: /64) holds at most an eighth of it in bodies sent without an operator token (429), and the last quarter is kept for addresses holding under a 64th. At least 67108864 (the largest body, a reference import)"),
	UINT("header_timeout", header_timeout, 1, 3600, "10",
	     "seconds a client has for its TLS handshake and request headers from connecting (or, on a kept-alive connection, from the last answer plus connection_timeout), however busy it keeps the connection; then it is closed (imatrust_http_closed_total)"),
	UINT("body_min_rate", body_min_rate, 64, 1ull << 30, "16384",
	     "bytes per second a request body must keep up after header_timeout seconds of grace: a body of N bytes has header_timeout + N / body_min_rate seconds; a slower one is closed (imatrust_http_closed_total)"),
	UINT("max_failed_checks", max_failed_checks, 0, 1000000, "64",
	     "costly checks one address (IPv6: /64) may fail at once (quotes no enrolled AK signed, refused enrollments), then 8 a second; past that its evidence and enrollments get 429 before their body is read (imatrust_http_refused_total{reason=\"address_failed_checks\"}); 0: no limit, for verifiers behind a TCP proxy without the PROXY protocol, where every agent has the proxy's address"),
	STR("log_level", log_level, "info", 0, "debug, info or warning"),
	UINT("threads", threads, 1, 64, "2", "HTTPS worker threads"),
	STR("violations", violations, "allow", 0,
	    "policy for IMA violation records (ToMToU, open_writers): 'allow' records an event, 'untrusted' makes the machine untrusted"),
	STR("any_path", any_path, "deny", 0,
	    "policy for a digest listed only for another path: 'allow' accepts it, 'deny' judges it unknown"),
	UINT("upgrade_window", upgrade_window, 0, 315360000, "0",
	     "seconds an older version of a Debian package stays accepted after a newer one was imported (ref import-deb, import-archive): then it is retired and every machine re-judged; 0: until an operator retires it (imatrust ref retire deb:NAME)"),
	UINT("keep_boots", keep_boots, 1, 1000, "3",
	     "boots (with their records and events) kept per machine"),
	UINT("max_events", max_events, 0, 10000000, "10000",
	     "events kept per machine (0: no cap)"),
	UINT("audit_keep", audit_keep, 0, 3153600000, "34560000",
	     "seconds an audit entry is kept (400 days; 0: forever), whether or not the machine it names is still there; each entry also goes to the systemd journal when written, for a longer record elsewhere"),
	UINT("event_keep", event_keep, 0, 3153600000, "0",
	     "seconds an event (a state change and its reason) is kept, whichever boot it belongs to (0: events go only with their boot, keep_boots, and past max_events)"),
	/* attestation */
	STR("bank_change", bank_change, "deny", 0,
	    "a quote of another PCR bank than the machine's first: 'deny' makes it failed, 'allow' pins the new bank"),
	UINT("backlog_machine_max", backlog_machine_max, 4u << 20, 1u << 30,
	     "67108864",
	     "bytes of unproven list held for one machine catching up (a list that long needs it)"),
	UINT("backlog_total_max", backlog_total_max, 4u << 20, 1ull << 34,
	     "268435456",
	     "bytes of unproven list held for all machines together; past it the oldest is asked again"),
	/* identities and enrollment */
	STR("enroll", enroll, "ca", 0,
	    "who enrolls: 'ca' (an EK whose certificate chains to ek_ca, or that is pre-registered for its id, enrolls; others wait in 'pending'), 'registered' (only ids pre-registered with imatrust machine add for that EK), 'ca+registered' (pre-registered and chained)"),
	UINT("max_open_enrollments", max_open_enrollments, 1, 1000000, "1024",
	     "credential challenges open at once, all EKs together (past it: 503)"),
	UINT("max_enrollments_per_ek", max_enrollments_per_ek, 1, 64, "4",
	     "credential challenges open at once for one EK (past it: 429)"),
	UINT("max_pending", max_pending, 0, 1000000, "100",
	     "machines waiting in 'pending' at most (0: an EK nobody vouched for is refused)"),
	UINT("pending_expire", pending_expire, 0, 315360000, "604800",
	     "seconds a pending machine nobody approved is kept before it is removed (0: forever)"),
	/* webhooks */
	LIST("webhook", webhooks,
	     "NAME URL [ca=FILE] [secret=FILE] [secret_previous=FILE] [allow-http], repeatable: an endpoint that receives every machine state change, signed with the whsec_ secret in FILE (required), and also with the one in secret_previous= while a rotation is under way (drop it to finish); https:// verified against the system's CAs or ca=FILE, a file name in webhook_ca_dir; http:// only to loopback unless allow-http"),
	STR("webhook_ca_dir", webhook_ca_dir, "/etc/imatrust/webhook-ca", 0,
	    "directory of the webhook endpoints' CA bundles: a webhook's ca (ca=FILE here, \"ca\" of POST /v1/webhooks) is only a file name in it (no '/', not starting with '.', not a symbolic link: a regular PEM file), so an operator token cannot make the verifier read another file"),
	UINT("webhook_max_pending", webhook_max_pending, 1, 10000000, "10000",
	     "undelivered messages kept per webhook endpoint; past it the oldest are dropped, logged and counted (imatrust_webhook_dropped_total)"),
	UINT("webhook_keep", webhook_keep, 0, 315360000, "86400",
	     "seconds a delivered webhook message is kept before retention deletes it"),
	/* signed attestation results */
	STR("result_key", result_key, "", 0,
	    "PEM file: the P-256 private key that signs attestation results (EAR, GET /v1/machines/ID/result); empty: result-key.pem in the SQLite database's directory. Made on first start when missing (mode 0600); a key that is not P-256, unreadable, or readable by group or others stops the start"),
	UINT("result_key_rotate", result_key_rotate, 0, 315360000, "0",
	     "seconds a result signing key signs: once its file is that old, the verifier makes a new one at its next result or JWK Set request, as imatrust-verifier key rotate does (the old key's public half kept in the JWK Set as the previous key, file result_key.prev; verifiers sharing the file rotate it once); 0: only on command"),
};

static const char *const enroll_modes[] = {
	[CONFIG_ENROLL_CA] = "ca",
	[CONFIG_ENROLL_REGISTERED] = "registered",
	[CONFIG_ENROLL_CA_REGISTERED] = "ca+registered",
};

#define ENROLL_MODES (sizeof(enroll_modes) / sizeof(enroll_modes[0]))

enum config_enroll config_enroll_mode(const struct config *c)
{
	size_t i;

	for (i = 0; i < ENROLL_MODES; i++) {
		if (strcmp(c->enroll, enroll_modes[i]) == 0)
			return (enum config_enroll)i;
	}
	return CONFIG_ENROLL_CA;
}

/* Is @s one of @n names? */
static int one_of(const char *s, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0)
			return 1;
	}
	return 0;
}

#define KEY_COUNT (sizeof(keys) / sizeof(keys[0]))

/*
 * The keys a running verifier takes again on SIGHUP (config_reload());
 * imatrust-verifier.conf(5) and imatrust-verifier(8) list them. The
 * files of tls_cert, tls_key and ek_ca are read again by the daemon.
 */
static const char *const reloadable[] = {
	"tls_cert",	  "tls_key",	  "ek_ca",	    "log_level",
	"nonce_ttl",	  "stale_after",  "keep_boots",	    "max_events",
	"pending_expire", "webhook_keep", "upgrade_window",
};

#define RELOADABLE (sizeof(reloadable) / sizeof(reloadable[0]))

int config_reloadable(const char *key)
{
	return one_of(key, reloadable, RELOADABLE);
}

/* Does @k hold the same value in @a and @b? */
static int same_value(const struct conf_key *k, const struct config *a,
		      const struct config *b)
{
	const char *pa = (const char *)a + k->off;
	const char *pb = (const char *)b + k->off;

	if (k->type == CONF_UINT)
		return memcmp(pa, pb, sizeof(uint64_t)) == 0;
	return strncmp(pa, pb, k->size) == 0;
}

void config_reload(struct config *cur, const struct config *next,
		   void (*note)(const char *key, int taken))
{
	const struct conf_key *k;
	int taken;
	size_t i;

	for (i = 0; i < KEY_COUNT; i++) {
		k = &keys[i];
		if (same_value(k, cur, next))
			continue;
		taken = config_reloadable(k->name);
		if (taken)
			memcpy((char *)cur + k->off,
			       (const char *)next + k->off,
			       k->type == CONF_UINT ? sizeof(uint64_t) :
						      k->size);
		if (note != NULL)
			note(k->name, taken);
	}
}

/* Every "webhook" line parses, and no name is given twice. */
static int check_webhooks(const struct config *c, char *errbuf, size_t errlen)
{
	struct webhook_spec s, t;
	size_t pos = 0, pos2, len, len2;
	const char *line, *line2;

	while (webhook_spec_next(c, &pos, &line, &len)) {
		if (webhook_spec_parse(line, len, &s, errbuf, errlen) < 0)
			return -1;
		pos2 = pos;
		while (webhook_spec_next(c, &pos2, &line2, &len2)) {
			if (webhook_spec_parse(line2, len2, &t, errbuf,
					       errlen) == 0 &&
			    strcmp(s.name, t.name) == 0) {
				snprintf(errbuf, errlen,
					 "webhook %s is given "
					 "twice",
					 s.name);
				return -1;
			}
		}
	}
	return 0;
}

void config_defaults(struct config *c)
{
	/* the table's defaults are checked by tests/unit/verifier */
	conf_defaults(keys, KEY_COUNT, c, sizeof(*c), NULL);
}

int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *errbuf, size_t errlen)
{
	struct imt_error err;

	if (conf_parse(keys, KEY_COUNT, c, path, text, len, &err) != IMT_OK) {
		snprintf(errbuf, errlen, "%s", err.msg);
		return -1;
	}
	return 0;
}

int config_check(const struct config *c, char *errbuf, size_t errlen)
{
	struct imt_error err;

	if (conf_check(keys, KEY_COUNT, c, &err) != IMT_OK) {
		snprintf(errbuf, errlen, "%s", err.msg);
		return -1;
	}
	if (strcmp(c->bank_change, "deny") != 0 &&
	    strcmp(c->bank_change, "allow") != 0) {
		snprintf(errbuf, errlen, "bank_change must be deny or allow");
		return -1;
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
		snprintf(errbuf, errlen,
			 "violations must be allow or untrusted");
		return -1;
	}
	if (strcmp(c->any_path, "allow") != 0 &&
	    strcmp(c->any_path, "deny") != 0) {
		snprintf(errbuf, errlen, "any_path must be allow or deny");
		return -1;
	}
	if (!one_of(c->enroll, enroll_modes, ENROLL_MODES)) {
		snprintf(errbuf, errlen,
			 "enroll must be ca, registered or ca+registered");
		return -1;
	}
	return check_webhooks(c, errbuf, errlen);
}

void config_print_help(void *out)
{
	char line[512];
	size_t i;

	for (i = 0; i < KEY_COUNT; i++) {
		conf_describe(&keys[i], line, sizeof(line));
		fprintf(out, "%s%s\n", line,
			config_reloadable(keys[i].name) ?
				"; taken again on SIGHUP" :
				"");
	}
}

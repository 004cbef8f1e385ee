/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config.h - imatrust-verifier's configuration: one file, one struct.
 *
 * Format: "key = value" lines; '#' starts a comment; blank lines are
 * ignored. Every key, its type, bounds, default and help text live in
 * one table in config.c; imatrust-verifier.conf(5) is generated from it
 * by `imatrust-verifier -H`.
 */
#ifndef IMATRUST_CONFIG_H
#define IMATRUST_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define CONFIG_PATH_MAX 4096
#define CONFIG_FILE_MAX (64 * 1024) /* a larger config file is a mistake */
/* max_inflight_body's floor: the largest body of one route (routes.c) */
#define CONFIG_INFLIGHT_MIN (64u << 20)
#define CONFIG_WEBHOOKS_MAX 16384 /* bytes of all "webhook" lines */

struct config {
	char listen_addr[64]; /* IPv4/IPv6 literal */
	uint64_t listen_port;
	char tls_cert[CONFIG_PATH_MAX]; /* PEM server certificate chain */
	char tls_key[CONFIG_PATH_MAX];	/* PEM private key */
	char database[CONFIG_PATH_MAX]; /* SQLite file */
	char ek_ca[CONFIG_PATH_MAX]; /* PEM bundle EK certificates chain to */
	uint64_t nonce_ttl;	     /* seconds a nonce stays valid */
	uint64_t stale_after;	     /* seconds without evidence: stale */
	uint64_t max_body;	     /* bytes of one body without a token */
	uint64_t max_connections;
	uint64_t max_connections_per_ip;
	uint64_t connection_timeout; /* seconds idle before close */
	uint64_t max_inflight_body;  /* bytes of bodies held at once */
	uint64_t header_timeout;     /* seconds to a request's headers */
	uint64_t body_min_rate;	     /* bytes/s a body must keep up */
	uint64_t max_failed_checks;  /* per address at once; 0: no limit */
	char log_level[16];	     /* debug, info, warning */
	uint64_t threads;	     /* HTTPS worker threads */
	char violations[16];	     /* policy: "allow" or "untrusted" */
	char any_path[16];	     /* policy: "allow" or "deny" a digest
					 * known only for another path */
	uint64_t upgrade_window;     /* seconds an older package version
					 * stays accepted after a newer one
					 * is imported; 0: until retired */
	uint64_t keep_boots;	     /* retention: boots kept per machine */
	uint64_t max_events;	     /* retention: events per machine */
	uint64_t audit_keep;	     /* retention: seconds; 0: forever */
	uint64_t event_keep;	     /* retention: seconds; 0: no age cap */
	/* attestation (engine.c, attest.c) */
	char bank_change[16];	      /* "deny" or "allow" a new quote bank */
	uint64_t backlog_machine_max; /* unproven list bytes per machine */
	uint64_t backlog_total_max;   /* ... for all machines */
	/* identities and enrollment (one block: config.c keeps its keys
	 * together too) */
	char enroll[16];	       /* "ca", "registered", "ca+registered" */
	uint64_t max_open_enrollments; /* open challenges, all EKs */
	uint64_t max_enrollments_per_ek; /* open challenges of one EK */
	uint64_t max_pending;		 /* pending machines at most */
	uint64_t pending_expire;	 /* seconds; 0: pending never expire */
	/* webhooks (webhook.c): one endpoint per line of @webhooks */
	char webhooks[CONFIG_WEBHOOKS_MAX];
	uint64_t webhook_max_pending; /* undelivered messages per endpoint */
	uint64_t webhook_keep;	      /* seconds delivered ones are kept */
	char webhook_ca_dir[CONFIG_PATH_MAX]; /* the only place of their
						 * CA files (webhook_ca.h) */
	/* signed attestation results (result_key.c) */
	char result_key[CONFIG_PATH_MAX]; /* PEM P-256 private key; "":
						 * result-key.pem beside the
						 * database */
	uint64_t result_key_rotate;	  /* seconds a key signs; 0: ever */
};

/* Who is admitted at enrollment (key "enroll"). */
enum config_enroll {
	CONFIG_ENROLL_CA,	     /* a CA-chained or pre-registered EK
					 * enrolls; others go pending */
	CONFIG_ENROLL_REGISTERED,    /* only pre-registered (id, EK) */
	CONFIG_ENROLL_CA_REGISTERED, /* pre-registered and CA-chained */
};

/**
 * config_enroll_mode() - the enum of @c->enroll (checked by
 * config_check(); CONFIG_ENROLL_CA for anything else).
 * @c: the configuration
 */
enum config_enroll config_enroll_mode(const struct config *c);

/**
 * config_defaults() - fill @c with every key's default.
 * @c: the configuration
 */
void config_defaults(struct config *c);

/**
 * config_parse() - apply "key = value" lines from @text to @c.
 * @c: the configuration (defaults already set)
 * @path: file name for error messages
 * @text: the file's contents (need not be NUL-terminated)
 * @len: bytes in @text
 * @errbuf: receives "path:line: message" on failure
 * @errlen: size of @errbuf
 *
 * Return: 0, or -1 on the first bad line (unknown key, bad value, value
 * out of bounds, duplicate key).
 */
int config_parse(struct config *c, const char *path, const char *text,
		 size_t len, char *errbuf, size_t errlen);

/**
 * config_check() - cross-key checks once the whole file is read.
 * @c: the configuration
 * @errbuf: receives the message on failure
 * @errlen: size of @errbuf
 *
 * Return: 0, or -1 when a required key is missing.
 */
int config_check(const struct config *c, char *errbuf, size_t errlen);

/**
 * config_reloadable() - may a running verifier take a new value of @key
 * (SIGHUP)? The others need a restart.
 * @key: a key's name
 *
 * Return: 1 or 0.
 */
int config_reloadable(const char *key);

/**
 * config_reload() - take into @cur the values of @next that a running
 * verifier may change (config_reloadable()); keep the others.
 * @cur: the configuration in force
 * @next: the file as read again (parsed and checked)
 * @note: called for each key whose value differs, with 1 when taken and
 *	0 when it needs a restart; NULL: none
 *
 * The caller holds whatever lock the readers of @cur hold.
 */
void config_reload(struct config *cur, const struct config *next,
		   void (*note)(const char *key, int taken));

/**
 * config_print_help() - one line per key: name, default, bounds, help.
 * @out: where to write (a FILE *)
 */
void config_print_help(void *out);

#endif /* IMATRUST_CONFIG_H */

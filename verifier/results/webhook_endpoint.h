/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * webhook_endpoint.h - what makes a webhook endpoint acceptable: its
 * name, its URL (https://, or http:// to loopback or when allowed), and
 * the config file's "webhook = NAME URL [ca=FILE] [secret=FILE]
 * [secret_previous=FILE] [allow-http]" lines. Checks only: no I/O.
 */
#ifndef IMATRUST_WEBHOOK_ENDPOINT_H
#define IMATRUST_WEBHOOK_ENDPOINT_H

#include <stddef.h>

#include "config.h"
#include "db_webhook.h"

/* One endpoint as the config file or POST /v1/webhooks states it. */
struct webhook_spec {
	char name[DB_WEBHOOK_NAME_MAX + 1];
	char url[DB_WEBHOOK_URL_MAX + 1];
	char ca_file[CONFIG_PATH_MAX];	   /* "" for the system's; a
						 * file name in webhook_ca_dir
						 * (webhook_ca.h) */
	char secret_file[CONFIG_PATH_MAX]; /* "" for none */
	/* the secret a rotation replaces, still signing; "" for none */
	char secret_previous_file[CONFIG_PATH_MAX];
	int allow_http;
};

/**
 * webhook_name_ok() - 1 when @name is 1-64 of [A-Za-z0-9._-], else 0.
 */
int webhook_name_ok(const char *name);

/**
 * webhook_url_check() - is @url one the verifier will post to?
 * @url: the URL
 * @allow_http: accept http:// to any host (else only to loopback:
 *              127.0.0.0/8, ::1, localhost)
 * @why: receives the reason when not
 * @whylen: size of @why
 *
 * https:// or http:// only, with a host, without user or password (the
 * URL is listed by GET /v1/webhooks).
 *
 * Return: 0, or -1 with @why filled.
 */
int webhook_url_check(const char *url, int allow_http, char *why,
		      size_t whylen);

struct sockaddr;

/**
 * webhook_addr_check() - may a webhook connect to @sa?
 * @sa: the address the connection is about to be made to (AF_INET or
 *      AF_INET6), after name resolution: the check holds whatever a
 *      name resolves to, now or later
 * @http: the URL is http:// (not https://)
 * @allow_http: the endpoint allows http:// beyond loopback
 * @why: receives the reason when not
 * @whylen: size of @why
 *
 * Never: link-local (169.254.0.0/16, the metadata service, fe80::/10),
 * fd00:ec2::254, 0.0.0.0/8, multicast, reserved, the unspecified address.
 * http:// only to loopback (127.0.0.0/8, ::1) unless @allow_http.
 *
 * Return: 0, or -1 with @why filled.
 */
int webhook_addr_check(const struct sockaddr *sa, int http, int allow_http,
		       char *why, size_t whylen);

/**
 * webhook_spec_parse() - one "webhook" value of the config file.
 * @text: "NAME URL [ca=FILE] [secret=FILE] [secret_previous=FILE]
 *        [allow-http]", @len bytes
 * @len: its length
 * @s: receives the endpoint
 * @why: receives the reason on failure
 * @whylen: size of @why
 *
 * The config file's endpoints must name their secret file: the secret
 * is the operator's, shared with the receiver. secret_previous= names
 * the one it replaces during a rotation: both sign.
 *
 * Return: 0, or -1 with @why filled.
 */
int webhook_spec_parse(const char *text, size_t len, struct webhook_spec *s,
		       char *why, size_t whylen);

/**
 * webhook_spec_next() - the next line of @c->webhooks (one value per
 * line, as the config parser appends them).
 * @c: the configuration
 * @pos: the cursor, 0 to start
 * @line: receives the line's start
 * @len: receives its length
 *
 * Return: 1 when there was a line, 0 at the end.
 */
int webhook_spec_next(const struct config *c, size_t *pos, const char **line,
		      size_t *len);

#endif /* IMATRUST_WEBHOOK_ENDPOINT_H */

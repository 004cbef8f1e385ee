// SPDX-License-Identifier: GPL-2.0-only
/*
 * webhook_endpoint.c - names, URLs and config lines of webhook endpoints.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "client.h"
#include "db_webhook.h"
#include "webhook_ca.h"
#include "webhook_endpoint.h"
#include "wire.h"

_Static_assert(DB_WEBHOOK_NAME_MAX == WIRE_ID_MAX,
	       "a webhook's name is an API name (wire_id_ok())");

int webhook_name_ok(const char *name)
{
	return wire_id_ok(name);
}

/* An IPv4 address (host order) no webhook may reach: link-local (and so
 * the cloud metadata service at 169.254.169.254), "this network",
 * multicast, reserved and broadcast. */
static int v4_forbidden(uint32_t a)
{
	return (a >> 16) == 0xa9fe || /* 169.254.0.0/16 */
	       (a >> 24) == 0 ||      /* 0.0.0.0/8 */
	       (a >> 28) >= 0xe;      /* 224.0.0.0/4, 240.0.0.0/4 */
}

static int v4_loopback(uint32_t a)
{
	return (a >> 24) == 127;
}

/* IPv6: link-local fe80::/10, multicast ff00::/8, the unspecified
 * address, and fd00:ec2::254 (a cloud's IPv6 metadata address); an
 * IPv4-mapped address is judged as its IPv4 address. */
static int v6_class(const struct in6_addr *a, int *loop)
{
	static const uint8_t metadata[16] = {
		0xfd, 0x00, 0x0e, 0xc2, [14] = 0x02, 0x54,
	};
	uint32_t v4;

	*loop = IN6_IS_ADDR_LOOPBACK(a);
	if (IN6_IS_ADDR_V4MAPPED(a)) {
		memcpy(&v4, &a->s6_addr[12], 4);
		v4 = ntohl(v4);
		*loop = v4_loopback(v4);
		return v4_forbidden(v4);
	}
	return IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_MULTICAST(a) ||
	       IN6_IS_ADDR_UNSPECIFIED(a) || memcmp(a, metadata, 16) == 0;
}

int webhook_addr_check(const struct sockaddr *sa, int http, int allow_http,
		       char *why, size_t whylen)
{
	char text[INET6_ADDRSTRLEN] = "?";
	int forbidden, loop = 0;
	uint32_t v4;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		v4 = ntohl(in->sin_addr.s_addr);
		forbidden = v4_forbidden(v4);
		loop = v4_loopback(v4);
		inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		forbidden = v6_class(&in6->sin6_addr, &loop);
		inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text));
	} else {
		snprintf(why, whylen, "not an IP address");
		return -1;
	}
	if (forbidden) {
		snprintf(why, whylen,
			 "%s is link-local, metadata, multicast "
			 "or reserved: never a webhook target",
			 text);
		return -1;
	}
	if (http && !allow_http && !loop) {
		snprintf(why, whylen,
			 "http:// reached %s, not loopback: use "
			 "https://, or allow-http",
			 text);
		return -1;
	}
	return 0;
}

/* "localhost", or an IP literal (IPv6 in brackets) that is loopback. */
static int loopback(const char *host)
{
	char v6[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(host);
	struct in6_addr a6;
	struct in_addr a4;
	int loop;

	if (strcmp(host, "localhost") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return v4_loopback(ntohl(a4.s_addr));
	if (n < 3 || n > sizeof(v6) || host[0] != '[' || host[n - 1] != ']')
		return 0;
	memcpy(v6, host + 1, n - 2);
	v6[n - 2] = '\0';
	return inet_pton(AF_INET6, v6, &a6) == 1 && !v6_class(&a6, &loop) &&
	       loop;
}

int webhook_url_check(const char *url, int allow_http, char *why, size_t whylen)
{
	struct client_url_parts u;
	int rc = -1;

	if (strlen(url) > DB_WEBHOOK_URL_MAX) {
		snprintf(why, whylen, "url longer than %d bytes",
			 DB_WEBHOOK_URL_MAX);
		return -1;
	}
	if (client_url_parse(url, &u) < 0) {
		snprintf(why, whylen, "url is not an absolute http(s) URL");
		return -1;
	}
	if (u.scheme == NULL || u.host == NULL || u.host[0] == '\0' ||
	    (strcmp(u.scheme, "https") != 0 && strcmp(u.scheme, "http") != 0))
		snprintf(why, whylen,
			 "url must be https:// (or http://) with a host");
	else if (u.user != NULL || u.password != NULL)
		snprintf(why, whylen,
			 "url must not carry a user or password "
			 "(GET /v1/webhooks lists it)");
	else if (strcmp(u.scheme, "http") == 0 && !allow_http &&
		 !loopback(u.host))
		snprintf(why, whylen,
			 "http:// only to loopback (127.0.0.0/8, "
			 "::1, localhost) unless allowed: use https://, or "
			 "allow-http / \"allow_http\": true");
	else
		rc = 0;
	client_url_parts_free(&u);
	return rc;
}

/* The next space-separated word of [*p, end): 1, or 0 when none left. */
static int word(const char **p, const char *end, const char **w, size_t *n)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	*w = *p;
	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	*n = (size_t)(*p - *w);
	return *n > 0;
}

/* Copy word @w into @dst (size @size); -1 when it does not fit. */
static int copy_word(char *dst, size_t size, const char *w, size_t n)
{
	if (n >= size)
		return -1;
	memcpy(dst, w, n);
	dst[n] = '\0';
	return 0;
}

/* One "key=value" option or the "allow-http" flag. */
static int option(struct webhook_spec *s, const char *w, size_t n, char *why,
		  size_t whylen)
{
	char reason[192];

	if (n == 10 && memcmp(w, "allow-http", 10) == 0) {
		s->allow_http = 1;
		return 0;
	}
	if (n > 3 && memcmp(w, "ca=", 3) == 0 &&
	    copy_word(s->ca_file, sizeof(s->ca_file), w + 3, n - 3) == 0) {
		/* the API's rule: a file name in webhook_ca_dir */
		if (webhook_ca_name_check(s->ca_file, reason, sizeof(reason)) ==
		    0)
			return 0;
		snprintf(why, whylen, "webhook %s: %s", s->name, reason);
		return -1;
	}
	if (n > 7 && memcmp(w, "secret=", 7) == 0 &&
	    copy_word(s->secret_file, sizeof(s->secret_file), w + 7, n - 7) ==
		    0)
		return 0;
	if (n > 16 && memcmp(w, "secret_previous=", 16) == 0 &&
	    copy_word(s->secret_previous_file, sizeof(s->secret_previous_file),
		      w + 16, n - 16) == 0)
		return 0;
	snprintf(why, whylen,
		 "webhook %s: unknown option '%.*s' (want "
		 "ca=FILE, secret=FILE, secret_previous=FILE or allow-http)",
		 s->name, (int)(n > 64 ? 64 : n), w);
	return -1;
}

int webhook_spec_parse(const char *text, size_t len, struct webhook_spec *s,
		       char *why, size_t whylen)
{
	const char *p = text, *end = text + len, *w;
	char reason[256];
	size_t n;

	memset(s, 0, sizeof(*s));
	if (!word(&p, end, &w, &n) ||
	    copy_word(s->name, sizeof(s->name), w, n) < 0 ||
	    !webhook_name_ok(s->name)) {
		snprintf(why, whylen,
			 "webhook: want NAME URL [ca=FILE] [secret=FILE] "
			 "[secret_previous=FILE] [allow-http], NAME of "
			 "[A-Za-z0-9._-], "
			 "1-%d bytes",
			 DB_WEBHOOK_NAME_MAX);
		return -1;
	}
	if (!word(&p, end, &w, &n) ||
	    copy_word(s->url, sizeof(s->url), w, n) < 0) {
		snprintf(why, whylen, "webhook %s: want a URL after the name",
			 s->name);
		return -1;
	}
	while (word(&p, end, &w, &n)) {
		if (option(s, w, n, why, whylen) < 0)
			return -1;
	}
	if (webhook_url_check(s->url, s->allow_http, reason, sizeof(reason)) <
	    0) {
		snprintf(why, whylen, "webhook %s: %s", s->name, reason);
		return -1;
	}
	if (s->secret_file[0] == '\0') {
		snprintf(why, whylen,
			 "webhook %s: secret=FILE is required, a "
			 "file holding the secret shared with the receiver "
			 "(make one: printf 'whsec_%%s\\n' \"$(openssl rand "
			 "-base64 32)\" > FILE)",
			 s->name);
		return -1;
	}
	return 0;
}

int webhook_spec_next(const struct config *c, size_t *pos, const char **line,
		      size_t *len)
{
	const char *s = c->webhooks + *pos, *nl;

	if (*s == '\0')
		return 0;
	nl = strchr(s, '\n');
	*line = s;
	*len = nl != NULL ? (size_t)(nl - s) : strlen(s);
	*pos += *len + (nl != NULL);
	return 1;
}

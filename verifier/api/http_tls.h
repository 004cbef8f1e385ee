/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * http_tls.h - the HTTPS front's certificate and key, swapped while
 * serving (SIGHUP, issue #36).
 *
 * GnuTLS asks for them at every handshake (libmicrohttpd's
 * MHD_OPTION_HTTPS_CERT_CALLBACK): a handshake takes the pair in force
 * when it starts; connections already established keep theirs. A pair
 * replaced is retired, not freed: a handshake that took it a moment
 * before may still sign with it. Retired pairs are freed by a later
 * http_tls_set() once older than the grace (a handshake that lasts
 * longer is closed by its header_timeout deadline), or by
 * http_tls_free().
 */
#ifndef IMATRUST_HTTP_TLS_H
#define IMATRUST_HTTP_TLS_H

#include <stddef.h>
#include <stdint.h>

#include <gnutls/abstract.h>

#define HTTP_TLS_CHAIN_MAX 16 /* certificates in one chain */
/* a retired pair's grace, past the handshake deadline (header_timeout) */
#define HTTP_TLS_SLACK_MS 60000

struct http_tls;

/**
 * http_tls_new() - no pair in force yet: handshakes fail until
 * http_tls_set().
 * @grace_ms: how long a retired pair is kept
 *
 * Return: the holder, or NULL when out of memory.
 */
struct http_tls *http_tls_new(int64_t grace_ms);

/**
 * http_tls_set() - put a certificate chain and its key in force.
 * @t: the holder
 * @cert_pem: the chain, PEM text, the server's certificate first
 * @key_pem: its private key, PEM text
 * @errbuf: receives what is wrong with them
 * @errlen: size of @errbuf
 *
 * Nothing changes when the PEM does not parse or the key is not the
 * certificate's: the pair in force stays.
 *
 * Return: 0, or -1 with @errbuf set.
 */
int http_tls_set(struct http_tls *t, const char *cert_pem, const char *key_pem,
		 char *errbuf, size_t errlen);

/**
 * http_tls_pick() - the pair in force, for one handshake.
 * @t: the holder
 * @pcert: receives the chain
 * @n: receives its length
 * @key: receives the key
 *
 * Return: 0, or -1 when none is in force.
 */
int http_tls_pick(struct http_tls *t, gnutls_pcert_st **pcert, unsigned int *n,
		  gnutls_privkey_t *key);

/**
 * http_tls_free() - free @t, its pair and the retired ones; once no
 * handshake can run (the server stopped). NULL is allowed.
 * @t: the holder
 */
void http_tls_free(struct http_tls *t);

#endif /* IMATRUST_HTTP_TLS_H */

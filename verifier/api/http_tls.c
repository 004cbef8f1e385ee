// SPDX-License-Identifier: GPL-2.0-only
/*
 * http_tls.c - the certificate and key in force, swapped atomically,
 * the replaced ones retired for a grace (see http_tls.h).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/gnutls.h>

#include "http_peers.h"
#include "http_tls.h"

/* One certificate chain and its key. */
struct http_cred {
	gnutls_pcert_st certs[HTTP_TLS_CHAIN_MAX];
	unsigned int n;
	gnutls_privkey_t key;
	int64_t retired_ms;	/* when replaced (http_now_ms()) */
	struct http_cred *next; /* the retired list */
};

struct http_tls {
	_Atomic(struct http_cred *) cur;
	pthread_mutex_t lock;	   /* setters and the retired list */
	struct http_cred *retired; /* newest first */
	int64_t grace_ms;
};

static void cred_free(struct http_cred *cr)
{
	unsigned int i;

	if (cr == NULL)
		return;
	for (i = 0; i < cr->n; i++)
		gnutls_pcert_deinit(&cr->certs[i]);
	if (cr->key != NULL)
		gnutls_privkey_deinit(cr->key);
	free(cr);
}

/* The SHA-256 key id of @pub into @id (@len bytes in, used out). */
static int key_id(gnutls_pubkey_t pub, unsigned char *id, size_t *len)
{
	return gnutls_pubkey_get_key_id(pub, GNUTLS_KEYID_USE_SHA256, id, len);
}

/* Is @key the private half of @cert's public key? */
static int key_matches(const gnutls_pcert_st *cert, gnutls_privkey_t key)
{
	unsigned char a[64], b[64];
	size_t alen = sizeof(a), blen = sizeof(b);
	gnutls_pubkey_t pub;
	int same;

	if (gnutls_pubkey_init(&pub) < 0)
		return 0;
	same = gnutls_pubkey_import_privkey(pub, key, 0, 0) == 0 &&
	       key_id(pub, a, &alen) == 0 &&
	       key_id(cert->pubkey, b, &blen) == 0 && alen == blen &&
	       memcmp(a, b, alen) == 0;
	gnutls_pubkey_deinit(pub);
	return same;
}

/* Parse @cert_pem and @key_pem into a pair; NULL with @errbuf set. */
static struct http_cred *cred_load(const char *cert_pem, const char *key_pem,
				   char *errbuf, size_t errlen)
{
	gnutls_datum_t c = { (unsigned char *)cert_pem,
			     (unsigned int)strlen(cert_pem) };
	gnutls_datum_t k = { (unsigned char *)key_pem,
			     (unsigned int)strlen(key_pem) };
	struct http_cred *cr = calloc(1, sizeof(*cr));
	int rc;

	if (cr == NULL) {
		snprintf(errbuf, errlen, "out of memory");
		return NULL;
	}
	cr->n = HTTP_TLS_CHAIN_MAX;
	rc = gnutls_pcert_list_import_x509_raw(cr->certs, &cr->n, &c,
					       GNUTLS_X509_FMT_PEM, 0);
	if (rc < 0 || cr->n == 0) {
		cr->n = 0;
		snprintf(errbuf, errlen, "the certificate: %s",
			 rc < 0 ? gnutls_strerror(rc) : "no PEM certificate");
		goto fail;
	}
	rc = gnutls_privkey_init(&cr->key);
	if (rc == 0)
		rc = gnutls_privkey_import_x509_raw(cr->key, &k,
						    GNUTLS_X509_FMT_PEM, NULL,
						    0);
	if (rc < 0) {
		snprintf(errbuf, errlen, "the key: %s", gnutls_strerror(rc));
		goto fail;
	}
	if (!key_matches(&cr->certs[0], cr->key)) {
		snprintf(errbuf, errlen,
			 "the key is not the certificate's (its public key differs)");
		goto fail;
	}
	return cr;
fail:
	cred_free(cr);
	return NULL;
}

struct http_tls *http_tls_new(int64_t grace_ms)
{
	struct http_tls *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	atomic_init(&t->cur, NULL);
	pthread_mutex_init(&t->lock, NULL);
	t->grace_ms = grace_ms;
	return t;
}

/* Free the retired pairs older than the grace; under t->lock. */
static void retired_sweep(struct http_tls *t, int64_t now)
{
	struct http_cred **pp = &t->retired, *cr;

	while ((cr = *pp) != NULL) {
		if (now - cr->retired_ms > t->grace_ms) {
			*pp = cr->next;
			cred_free(cr);
		} else {
			pp = &cr->next;
		}
	}
}

int http_tls_set(struct http_tls *t, const char *cert_pem, const char *key_pem,
		 char *errbuf, size_t errlen)
{
	struct http_cred *cr = cred_load(cert_pem, key_pem, errbuf, errlen);
	struct http_cred *old;
	int64_t now = http_now_ms();

	if (cr == NULL)
		return -1;
	pthread_mutex_lock(&t->lock);
	old = atomic_exchange(&t->cur, cr);
	retired_sweep(t, now);
	if (old != NULL) {
		old->retired_ms = now;
		old->next = t->retired;
		t->retired = old;
	}
	pthread_mutex_unlock(&t->lock);
	return 0;
}

int http_tls_pick(struct http_tls *t, gnutls_pcert_st **pcert, unsigned int *n,
		  gnutls_privkey_t *key)
{
	struct http_cred *cr = atomic_load(&t->cur);

	if (cr == NULL)
		return -1;
	*pcert = cr->certs;
	*n = cr->n;
	*key = cr->key;
	return 0;
}

void http_tls_free(struct http_tls *t)
{
	struct http_cred *cr;

	if (t == NULL)
		return;
	cred_free(atomic_load(&t->cur));
	while ((cr = t->retired) != NULL) {
		t->retired = cr->next;
		cred_free(cr);
	}
	pthread_mutex_destroy(&t->lock);
	free(t);
}

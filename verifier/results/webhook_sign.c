// SPDX-License-Identifier: GPL-2.0-only
/*
 * webhook_sign.c - Standard Webhooks signatures and secrets.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>

#include "db_webhook.h"
#include "hex.h"
#include "webhook_sign.h"

/* "<id>.<timestamp>." precedes the body in what is signed */
#define SIGNED_PREFIX_MAX (DB_WEBHOOK_NAME_MAX + 64)

int webhook_sign(const uint8_t *secret, size_t secret_len, const char *id,
		 int64_t timestamp, const char *body, size_t body_len,
		 char out[WEBHOOK_SIGNATURE_MAX])
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						 (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	char prefix[SIGNED_PREFIX_MAX];
	uint8_t mac[EVP_MAX_MD_SIZE];
	EVP_MAC_CTX *ctx = NULL;
	EVP_MAC *hmac;
	size_t mac_len = 0;
	int n, ok;

	n = snprintf(prefix, sizeof(prefix), "%s.%" PRId64 ".", id, timestamp);
	if (n < 0 || (size_t)n >= sizeof(prefix))
		return -1;
	hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (hmac != NULL)
		ctx = EVP_MAC_CTX_new(hmac);
	ok = ctx != NULL &&
	     EVP_MAC_init(ctx, secret, secret_len, params) == 1 &&
	     EVP_MAC_update(ctx, (const uint8_t *)prefix, (size_t)n) == 1 &&
	     EVP_MAC_update(ctx, (const uint8_t *)body, body_len) == 1 &&
	     EVP_MAC_final(ctx, mac, &mac_len, sizeof(mac)) == 1 &&
	     mac_len == 32;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(hmac);
	if (!ok)
		return -1;
	memcpy(out, "v1,", 3);
	b64_encode(mac, mac_len, out + 3);
	return 0;
}

int webhook_sign_all(const uint8_t *secret, size_t secret_len,
		     const uint8_t *previous, size_t previous_len,
		     const char *id, int64_t timestamp, const char *body,
		     size_t body_len, char out[WEBHOOK_SIGNATURES_MAX])
{
	size_t n;

	if (webhook_sign(secret, secret_len, id, timestamp, body, body_len,
			 out) < 0)
		return -1;
	if (previous == NULL)
		return 0;
	n = strlen(out);
	out[n++] = ' ';
	return webhook_sign(previous, previous_len, id, timestamp, body,
			    body_len, out + n);
}

void webhook_key_id(const uint8_t *secret, size_t secret_len,
		    char out[WEBHOOK_KEY_ID_LEN + 1])
{
	uint8_t md[SHA256_DIGEST_LENGTH];

	SHA256(secret, secret_len, md);
	hex_encode(md, WEBHOOK_KEY_ID_LEN / 2, out);
	OPENSSL_cleanse(md, sizeof(md));
}

void webhook_secret_text(const uint8_t *secret, size_t secret_len,
			 char out[WEBHOOK_SECRET_TEXT_MAX])
{
	size_t p = sizeof(WEBHOOK_SECRET_PREFIX) - 1;

	memcpy(out, WEBHOOK_SECRET_PREFIX, p);
	b64_encode(secret, secret_len, out + p);
}

int webhook_secret_parse(const char *text, size_t len,
			 uint8_t out[DB_WEBHOOK_SECRET_MAX], size_t *out_len)
{
	uint8_t buf[B64_DECODED_MAX(B64_ENCODED_LEN(DB_WEBHOOK_SECRET_MAX))];
	size_t p = sizeof(WEBHOOK_SECRET_PREFIX) - 1;
	long got;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' ||
			   text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	if (len >= p && memcmp(text, WEBHOOK_SECRET_PREFIX, p) == 0) {
		text += p;
		len -= p;
	}
	if (len == 0 || len % 4 != 0 ||
	    len > B64_ENCODED_LEN(DB_WEBHOOK_SECRET_MAX))
		return -1;
	got = b64_decode(text, len, buf);
	if (got < DB_WEBHOOK_SECRET_MIN || got > DB_WEBHOOK_SECRET_MAX) {
		OPENSSL_cleanse(buf, sizeof(buf));
		return -1;
	}
	memcpy(out, buf, (size_t)got);
	*out_len = (size_t)got;
	OPENSSL_cleanse(buf, sizeof(buf));
	return 0;
}

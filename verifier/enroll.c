// SPDX-License-Identifier: GPL-2.0-only
/*
 * enroll.c - EK certificate check, credential challenge, proof check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>

#include "enroll.h"
#include "tpm_credential.h"
#include "tpm_public.h"

/* The public key of @ek_pub; NULL and @err filled on failure. */
static EVP_PKEY *ek_key(const uint8_t *ek_pub, size_t len,
			struct imt_error *err)
{
	TPMT_PUBLIC pub;
	EVP_PKEY *key = NULL;

	if (tpm_public_parse(ek_pub, len, &pub, err) != IMT_OK ||
	    tpm_public_to_pkey(&pub, &key, err) != IMT_OK)
		return NULL;
	return key;
}

/* Verify @x against @store; 1 when it chains, else 0 with @why set. */
static int chains(X509_STORE *store, X509 *x, char *why, size_t whylen)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ok = 0;

	if (ctx == NULL || X509_STORE_CTX_init(ctx, store, x, NULL) != 1) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	ok = X509_verify_cert(ctx) == 1;
	if (!ok)
		snprintf(why, whylen, "EK certificate does not chain: %s",
			 X509_verify_cert_error_string(
				 X509_STORE_CTX_get_error(ctx)));
out:
	X509_STORE_CTX_free(ctx);
	return ok;
}

enum imt_result enroll_check_ek_cert(X509_STORE *store, const uint8_t *ek_pub,
				     size_t ek_pub_len, const uint8_t *cert,
				     size_t cert_len, int *chained, char *why,
				     size_t whylen, struct imt_error *err)
{
	const unsigned char *p = cert;
	EVP_PKEY *key = NULL, *cert_key;
	enum imt_result rc = IMT_OK;
	X509 *x = NULL;

	*chained = 0;
	key = ek_key(ek_pub, ek_pub_len, err);
	if (key == NULL)
		return err->status;
	if (cert_len == 0) {
		snprintf(why, whylen, "no EK certificate");
		goto out;
	}
	x = d2i_X509(NULL, &p, (long)cert_len);
	if (x == NULL || p != cert + cert_len) {
		rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				   IMT_NO_POS, "ek_cert: not one DER certificate");
		goto out;
	}
	cert_key = X509_get0_pubkey(x);
	if (cert_key == NULL || EVP_PKEY_eq(cert_key, key) != 1) {
		rc = imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				   IMT_NO_POS,
				   "ek_cert: certifies another key than ek_pub");
		goto out;
	}
	if (store == NULL) {
		snprintf(why, whylen, "no EK CA configured");
		goto out;
	}
	*chained = chains(store, x, why, whylen);
out:
	X509_free(x);
	EVP_PKEY_free(key);
	return rc;
}

static enum imt_result blob_set(struct wire_blob *b, const uint8_t *data,
				size_t len, struct imt_error *err)
{
	b->data = malloc(len);
	if (b->data == NULL)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "out of memory");
	memcpy(b->data, data, len);
	b->len = len;
	return IMT_OK;
}

enum imt_result enroll_challenge(const struct wire_enroll *msg,
				 struct db_challenge *ch,
				 struct wire_challenge *out,
				 struct imt_error *err)
{
	struct tpm_credential cred;
	TPMT_PUBLIC ek, ak;
	enum imt_result rc;

	memset(out, 0, sizeof(*out));
	if ((rc = tpm_public_parse(msg->ek_pub.data, msg->ek_pub.len, &ek,
				   err)) != IMT_OK ||
	    (rc = tpm_public_parse(msg->ak_pub.data, msg->ak_pub.len, &ak,
				   err)) != IMT_OK ||
	    (rc = tpm_public_check_ak(&ak, err)) != IMT_OK)
		return rc;
	if (msg->ak_pub.len > sizeof(ch->ak_pub))
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS,
				     IMT_NO_POS, "ak_pub: too large");
	memcpy(ch->ak_pub, msg->ak_pub.data, msg->ak_pub.len);
	ch->ak_pub_len = msg->ak_pub.len;
	if ((rc = tpm_public_name(&ak, ch->ak_name, &ch->ak_name_len,
				  err)) != IMT_OK)
		return rc;
	if (RAND_bytes(ch->secret, ENROLL_SECRET_SIZE) != 1)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "no randomness");
	ch->secret_len = ENROLL_SECRET_SIZE;
	rc = tpm_credential_make(&ek, ch->ak_name, ch->ak_name_len,
				 ch->secret, ch->secret_len, &cred, err);
	if (rc == IMT_OK)
		rc = blob_set(&out->credential, cred.id_object,
			      cred.id_object_len, err);
	if (rc == IMT_OK)
		rc = blob_set(&out->secret, cred.secret, cred.secret_len, err);
	if (rc != IMT_OK) {
		explicit_bzero(ch->secret, sizeof(ch->secret));
		wire_free(WIRE_CHALLENGE, out);
	}
	return rc;
}

int enroll_proof_ok(const struct db_challenge *ch, const char *agent,
		    const uint8_t *proof, size_t proof_len)
{
	uint8_t mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;
	int ok;

	if (proof_len != ENROLL_PROOF_SIZE ||
	    HMAC(EVP_sha256(), ch->secret, (int)ch->secret_len,
		 (const unsigned char *)agent, strlen(agent), mac,
		 &mac_len) == NULL || mac_len != ENROLL_PROOF_SIZE)
		return 0;
	ok = CRYPTO_memcmp(mac, proof, ENROLL_PROOF_SIZE) == 0;
	explicit_bzero(mac, sizeof(mac));
	return ok;
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * enroll.c - EK certificate check, credential challenge, proof check.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <openssl/crypto.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "db_enroll.h"
#include "db_machine.h"
#include "enroll.h"
#include "hex.h"
#include "tpm_credential.h"
#include "tpm_public.h"

_Static_assert(DB_FPR_SIZE == HEX_FPR_SIZE,
	       "an EK fingerprint is what hex_fpr_parse() reads");

#define CHAIN_MAX 8 /* certificates in one ek_cert (EK + intermediates) */

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

enum imt_result enroll_fingerprint(const uint8_t *ek_pub, size_t ek_pub_len,
				   uint8_t fpr[DB_FPR_SIZE],
				   struct imt_error *err)
{
	EVP_PKEY *key = ek_key(ek_pub, ek_pub_len, err);
	unsigned char *der = NULL;
	int len;

	if (key == NULL)
		return err->status;
	len = i2d_PUBKEY(key, &der);
	EVP_PKEY_free(key);
	if (len <= 0)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "ek_pub: no DER form");
	SHA256(der, (size_t)len, fpr);
	OPENSSL_free(der);
	return IMT_OK;
}

void enroll_fpr_hex(const uint8_t fpr[DB_FPR_SIZE],
		    char out[ENROLL_FPR_HEX + 1])
{
	hex_encode(fpr, DB_FPR_SIZE, out);
}

/*
 * Decode @len bytes of concatenated DER certificates: the first in *@x,
 * the rest in *@rest (NULL when none). -1 when the bytes are not that.
 */
static int certs_decode(const uint8_t *der, size_t len, X509 **x,
			STACK_OF(X509) * *rest)
{
	const unsigned char *p = der, *end = der + len;
	X509 *c;

	*x = d2i_X509(NULL, &p, (long)len);
	*rest = NULL;
	if (*x == NULL)
		return -1;
	while (p < end) {
		if ((*rest == NULL && (*rest = sk_X509_new_null()) == NULL) ||
		    sk_X509_num(*rest) >= CHAIN_MAX - 1)
			return -1;
		c = d2i_X509(NULL, &p, (long)(end - p));
		if (c == NULL || sk_X509_push(*rest, c) <= 0) {
			X509_free(c);
			return -1;
		}
	}
	return 0;
}

/* Verify @x against @store; 1 when it chains, else 0 with @why set. */
static int chains(X509_STORE *store, X509 *x, STACK_OF(X509) * rest, char *why,
		  size_t whylen)
{
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ok = 0;

	/* @rest is untrusted: only self-signed CAs of @store anchor */
	if (ctx == NULL || X509_STORE_CTX_init(ctx, store, x, rest) != 1) {
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
	STACK_OF(X509) *rest = NULL;
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
	if (certs_decode(cert, cert_len, &x, &rest) < 0) {
		rc = imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				   IMT_NO_POS,
				   "ek_cert: not DER certificates (the EK's, "
				   "then at most %d intermediates)",
				   CHAIN_MAX - 1);
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
	*chained = chains(store, x, rest, why, whylen);
out:
	sk_X509_pop_free(rest, X509_free);
	X509_free(x);
	EVP_PKEY_free(key);
	return rc;
}

X509_STORE *enroll_ca_load(const char *path, char *why, size_t whylen)
{
	X509_STORE *store;
	struct stat st;
	int is_dir, ok;

	if (stat(path, &st) < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	is_dir = S_ISDIR(st.st_mode);
	store = X509_STORE_new();
	if (store == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	/* a directory is looked up by subject hash (<hash>.N) when needed */
	ok = is_dir ? X509_STORE_load_path(store, path) :
		      X509_STORE_load_file(store, path);
	if (ok != 1) {
		snprintf(why, whylen, "%s: cannot load the EK CA %s", path,
			 is_dir ? "directory" : "bundle");
		X509_STORE_free(store);
		return NULL;
	}
	return store;
}

static void name_text(const X509_NAME *n, char *out, size_t len)
{
	BIO *b = BIO_new(BIO_s_mem());
	int got = 0;

	out[0] = '\0';
	if (b != NULL && X509_NAME_print_ex(b, n, 0, XN_FLAG_RFC2253) >= 0)
		got = BIO_read(b, out, (int)len - 1);
	if (got > 0)
		out[got] = '\0';
	BIO_free(b);
}

int enroll_cert_names(const uint8_t *cert, size_t cert_len, char *subject,
		      char *issuer, size_t len)
{
	const unsigned char *p = cert;
	X509 *x;

	if (cert == NULL || cert_len == 0 ||
	    (x = d2i_X509(NULL, &p, (long)cert_len)) == NULL)
		return -1;
	name_text(X509_get_subject_name(x), subject, len);
	name_text(X509_get_issuer_name(x), issuer, len);
	X509_free(x);
	return 0;
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

/* Copy what enrollment @msg says about its keys into @ch. */
static enum imt_result keep_keys(const struct wire_enroll *msg,
				 const TPMT_PUBLIC *ak, struct db_challenge *ch,
				 struct imt_error *err)
{
	enum imt_result rc;

	if (msg->ak_pub.len > sizeof(ch->ak_pub) ||
	    msg->ek_pub.len > sizeof(ch->ek_pub) ||
	    msg->ek_cert.len > sizeof(ch->ek_cert))
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "ek_pub, ek_cert or ak_pub: "
				     "too large");
	snprintf(ch->machine_id, sizeof(ch->machine_id), "%s", msg->agent);
	memcpy(ch->ek_pub, msg->ek_pub.data, msg->ek_pub.len);
	ch->ek_pub_len = msg->ek_pub.len;
	if (msg->ek_cert.len > 0)
		memcpy(ch->ek_cert, msg->ek_cert.data, msg->ek_cert.len);
	ch->ek_cert_len = msg->ek_cert.len;
	memcpy(ch->ak_pub, msg->ak_pub.data, msg->ak_pub.len);
	ch->ak_pub_len = msg->ak_pub.len;
	rc = enroll_fingerprint(msg->ek_pub.data, msg->ek_pub.len, ch->ek_fpr,
				err);
	if (rc == IMT_OK)
		rc = tpm_public_name(ak, ch->ak_name, &ch->ak_name_len, err);
	return rc;
}

/* A fresh secret, and the digest of the proof that will show it. */
static enum imt_result new_secret(struct db_challenge *ch,
				  struct imt_error *err)
{
	uint8_t mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;

	if (RAND_bytes(ch->secret, ENROLL_SECRET_SIZE) != 1)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "no randomness");
	ch->secret_len = ENROLL_SECRET_SIZE;
	if (HMAC(EVP_sha256(), ch->secret, (int)ch->secret_len,
		 (const unsigned char *)ch->machine_id, strlen(ch->machine_id),
		 mac, &mac_len) == NULL)
		return imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				     IMT_NO_POS, "HMAC failed");
	enroll_proof_hash(mac, mac_len, ch->proof_hash);
	explicit_bzero(mac, sizeof(mac));
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
	    (rc = tpm_public_check_ak(&ak, err)) != IMT_OK ||
	    (rc = keep_keys(msg, &ak, ch, err)) != IMT_OK ||
	    (rc = new_secret(ch, err)) != IMT_OK)
		return rc;
	rc = tpm_credential_make(&ek, ch->ak_name, ch->ak_name_len, ch->secret,
				 ch->secret_len, &cred, err);
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

void enroll_proof_hash(const uint8_t *proof, size_t proof_len,
		       uint8_t out[DB_PROOF_HASH_SIZE])
{
	SHA256(proof, proof_len, out);
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
		 &mac_len) == NULL ||
	    mac_len != ENROLL_PROOF_SIZE)
		return 0;
	ok = CRYPTO_memcmp(mac, proof, ENROLL_PROOF_SIZE) == 0;
	explicit_bzero(mac, sizeof(mac));
	return ok;
}

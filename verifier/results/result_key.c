// SPDX-License-Identifier: GPL-2.0-only
/*
 * result_key.c - the key that signs attestation results: its file, its
 * JWK and thumbprint, ES256.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include "db.h"
#include "file.h"
#include "result_key.h"
#include "tpm_crypto.h"

#define GROUP_NAME_MAX 64

int result_key_path(const struct config *c, char *out, size_t n)
{
	char db[CONFIG_PATH_MAX];
	int len;

	if (c->result_key[0] != '\0') {
		len = snprintf(out, n, "%s", c->result_key);
	} else if (db_is_uri(c->database)) {
		return -1; /* a PostgreSQL database has no directory */
	} else {
		snprintf(db, sizeof(db), "%s", c->database);
		/* dirname() may write into its argument: db is a copy */
		len = snprintf(out, n, "%s/%s", dirname(db), RESULT_KEY_FILE);
	}
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

/* OpenSSL's last error as text, for @why. */
static void ossl_why(char *why, size_t whylen, const char *path,
		     const char *what)
{
	struct imt_error err;

	tpm_crypto_fail(&err, IMT_ERR_INTERNAL, what);
	snprintf(why, whylen, "%s: %s", path, err.msg);
}

int result_key_thumbprint(const uint8_t *x, const uint8_t *y,
			  char out[RESULT_KID_MAX])
{
	char bx[B64_ENCODED_LEN(RESULT_COORD_LEN) + 1];
	char by[B64_ENCODED_LEN(RESULT_COORD_LEN) + 1];
	char canon[160];
	uint8_t md[SHA256_DIGEST_LENGTH];
	int n;

	b64url_encode(x, RESULT_COORD_LEN, bx);
	b64url_encode(y, RESULT_COORD_LEN, by);
	/* RFC 7638 §3.2: the required members, sorted, no whitespace */
	n = snprintf(canon, sizeof(canon),
		     "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"%s\",\"y\":\"%s\"}",
		     bx, by);
	if (n < 0 || (size_t)n >= sizeof(canon) ||
	    SHA256((const uint8_t *)canon, (size_t)n, md) == NULL)
		return -1;
	b64url_encode(md, sizeof(md), out);
	return 0;
}

struct result_key *result_key_from_pkey(EVP_PKEY *pkey)
{
	char group[GROUP_NAME_MAX] = "";
	struct result_key *k = NULL;
	BIGNUM *x = NULL, *y = NULL;

	if (pkey == NULL || !EVP_PKEY_is_a(pkey, "EC") ||
	    EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME,
					   group, sizeof(group), NULL) != 1 ||
	    strcmp(group, SN_X9_62_prime256v1) != 0)
		goto fail;
	k = calloc(1, sizeof(*k));
	if (k == NULL ||
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) != 1 ||
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y) != 1 ||
	    BN_bn2binpad(x, k->x, RESULT_COORD_LEN) != RESULT_COORD_LEN ||
	    BN_bn2binpad(y, k->y, RESULT_COORD_LEN) != RESULT_COORD_LEN ||
	    result_key_thumbprint(k->x, k->y, k->kid) < 0)
		goto fail;
	BN_free(x);
	BN_free(y);
	k->pkey = pkey;
	return k;
fail:
	BN_free(x);
	BN_free(y);
	free(k);
	EVP_PKEY_free(pkey);
	return NULL;
}

void result_key_free(struct result_key *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pkey);
	free(k);
}

struct result_key *result_key_create(const char *path, const struct stat *owner,
				     char *why, size_t whylen)
{
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	BIO *mem = BIO_new(BIO_s_mem());
	char *pem = NULL;
	long len;
	int ok;

	ok = pkey != NULL && mem != NULL &&
	     PEM_write_bio_PrivateKey(mem, pkey, NULL, NULL, 0, NULL, NULL) ==
		     1;
	len = ok ? BIO_get_mem_data(mem, &pem) : 0;
	if (!ok || len <= 0) {
		ossl_why(why, whylen, path, "making a P-256 key");
		ok = 0;
	} else {
		ok = file_replace_owned(path, pem, (size_t)len, owner, why,
					whylen) == 0;
	}
	if (pem != NULL && len > 0)
		OPENSSL_cleanse(pem, (size_t)len);
	BIO_free(mem);
	if (!ok) {
		EVP_PKEY_free(pkey);
		return NULL;
	}
	return result_key_from_pkey(pkey);
}

/*
 * Read the key file open at @fd: mode, size, PEM (a private key, or a
 * public one when @public), P-256.
 */
static struct result_key *read_key(int fd, const char *path, int public,
				   char *why, size_t whylen)
{
	char pem[RESULT_KEY_PEM_MAX + 1];
	struct result_key *k = NULL;
	EVP_PKEY *pkey = NULL;
	struct stat st;
	ssize_t n;
	BIO *mem;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s: not a regular file", path);
		return NULL;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(why, whylen,
			 "%s: mode %04o: group or others may "
			 "read the result signing key (chmod 600 it, or "
			 "remove it to make a new one)",
			 path, (unsigned int)(st.st_mode & 07777));
		return NULL;
	}
	n = read(fd, pem, sizeof(pem));
	if (n < 0 || n > RESULT_KEY_PEM_MAX) {
		snprintf(why, whylen, "%s: %s", path,
			 n < 0 ? strerror(errno) : "too large for a key");
		return NULL;
	}
	mem = BIO_new_mem_buf(pem, (int)n);
	if (mem != NULL && public)
		pkey = PEM_read_bio_PUBKEY(mem, NULL, NULL, NULL);
	else if (mem != NULL)
		pkey = PEM_read_bio_PrivateKey(mem, NULL, NULL, NULL);
	BIO_free(mem);
	OPENSSL_cleanse(pem, sizeof(pem));
	if (pkey == NULL) {
		ossl_why(why, whylen, path,
			 public ? "reading a PEM public key" :
				  "reading a PEM private key");
		return NULL;
	}
	k = result_key_from_pkey(pkey);
	if (k == NULL)
		snprintf(why, whylen,
			 "%s: not an EC P-256 key (the result "
			 "signing key must be P-256 for ES256)",
			 path);
	return k;
}

struct result_key *result_key_load(const char *path, int *created, char *why,
				   size_t whylen)
{
	struct result_key *k;
	int fd;

	*created = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		k = result_key_create(path, NULL, why, whylen);
		*created = k != NULL;
		return k;
	}
	if (fd < 0) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	k = read_key(fd, path, 0, why, whylen);
	close(fd);
	return k;
}

struct result_key *result_key_load_public(const char *path, int *absent,
					  char *why, size_t whylen)
{
	struct result_key *k;
	int fd;

	*absent = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*absent = errno == ENOENT;
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	k = read_key(fd, path, 1, why, whylen);
	close(fd);
	return k;
}

int result_key_save_public(const struct result_key *k, const char *path,
			   const struct stat *owner, char *why, size_t whylen)
{
	BIO *mem = BIO_new(BIO_s_mem());
	char *pem = NULL;
	long len = 0;
	int rc = -1;

	if (mem != NULL && PEM_write_bio_PUBKEY(mem, k->pkey) == 1)
		len = BIO_get_mem_data(mem, &pem);
	if (len <= 0)
		ossl_why(why, whylen, path, "writing a PEM public key");
	else
		rc = file_replace_owned(path, pem, (size_t)len, owner, why,
					whylen);
	BIO_free(mem);
	return rc;
}

json_t *result_key_jwk(const struct result_key *k)
{
	char x[B64_ENCODED_LEN(RESULT_COORD_LEN) + 1];
	char y[B64_ENCODED_LEN(RESULT_COORD_LEN) + 1];

	b64url_encode(k->x, RESULT_COORD_LEN, x);
	b64url_encode(k->y, RESULT_COORD_LEN, y);
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "kty", "EC", "crv",
			 "P-256", "x", x, "y", y, "use", "sig", "alg", "ES256",
			 "kid", k->kid);
}

int result_key_sign(const struct result_key *k, const void *data, size_t len,
		    uint8_t sig[RESULT_SIG_LEN])
{
	uint8_t der[80]; /* DER ECDSA-Sig-Value of P-256: at most 72 */
	const uint8_t *p = der;
	const BIGNUM *r, *s;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	ECDSA_SIG *es = NULL;
	size_t der_len = sizeof(der);
	int rc = -1;

	if (ctx == NULL ||
	    EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, k->pkey) != 1 ||
	    EVP_DigestSign(ctx, der, &der_len, data, len) != 1)
		goto out;
	/* JWS wants r || s (RFC 7518 §3.4), OpenSSL gives DER */
	es = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
	if (es == NULL)
		goto out;
	ECDSA_SIG_get0(es, &r, &s);
	if (BN_bn2binpad(r, sig, RESULT_COORD_LEN) == RESULT_COORD_LEN &&
	    BN_bn2binpad(s, sig + RESULT_COORD_LEN, RESULT_COORD_LEN) ==
		    RESULT_COORD_LEN)
		rc = 0;
out:
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(ctx);
	return rc;
}

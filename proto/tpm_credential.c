// SPDX-License-Identifier: GPL-2.0-only
/*
 * tpm_credential.c - TPM2_MakeCredential in software (TPM 2.0 Part 1 §24).
 *
 *   seed         RSA EK: random, encrypted with RSA-OAEP("IDENTITY")
 *                ECC EK: KDFe(Z, "IDENTITY", ephemeral.x, ek.x)
 *   symKey       KDFa(seed, "STORAGE", name), the EK's AES key size
 *   encIdentity  AES-CFB(symKey, IV 0, TPM2B_DIGEST(credential))
 *   HMACkey      KDFa(seed, "INTEGRITY"), the nameAlg digest size
 *   outerHMAC    HMAC(HMACkey, encIdentity || name)
 *   credentialBlob = TPM2B_DIGEST(outerHMAC) || encIdentity
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "hash_algo.h"
#include "tpm_credential.h"
#include "tpm_crypto.h"
#include "tpm_public.h"

#define ECC_COORD_MAX 66 /* P-521, the largest TPM curve */

/* The seed and where it goes, for one call; wiped before return. */
struct seed {
	const EVP_MD *md; /* the EK's nameAlg */
	size_t size;	  /* its digest size = the seed size */
	uint8_t value[EVP_MAX_MD_SIZE];
	TPM2B_ENCRYPTED_SECRET encrypted;
};

/* RSA EK: a random seed, encrypted with OAEP (Part 1, RSA secret sharing). */
static enum imt_result seed_rsa(EVP_PKEY *ek, struct seed *seed,
				struct imt_error *err)
{
	static const char label[] = "IDENTITY"; /* sizeof counts the NUL */
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, ek, NULL);
	size_t out_len = sizeof(seed->encrypted.secret);
	enum imt_result rc = IMT_OK;
	void *oaep_label = OPENSSL_memdup(label, sizeof(label));

	if (RAND_bytes(seed->value, (int)seed->size) != 1) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "seed generation");
		goto out;
	}
	if (ctx == NULL || oaep_label == NULL ||
	    EVP_PKEY_encrypt_init(ctx) != 1 ||
	    EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) != 1 ||
	    EVP_PKEY_CTX_set_rsa_oaep_md(ctx, seed->md) != 1 ||
	    EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, seed->md) != 1 ||
	    EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, oaep_label, sizeof(label)) !=
		    1) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "RSA-OAEP setup");
		goto out;
	}
	oaep_label = NULL; /* owned by ctx now */
	if (EVP_PKEY_encrypt(ctx, seed->encrypted.secret, &out_len, seed->value,
			     seed->size) != 1) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				     "RSA-OAEP encryption of the seed");
		goto out;
	}
	seed->encrypted.size = (UINT16)out_len;
out:
	OPENSSL_free(oaep_label);
	EVP_PKEY_CTX_free(ctx);
	return rc;
}

/* Write @pkey's public coordinate @param as @size big-endian bytes. */
static int ecc_coord(EVP_PKEY *pkey, const char *param, uint8_t *out,
		     size_t size)
{
	BIGNUM *bn = NULL;
	int ok;

	ok = EVP_PKEY_get_bn_param(pkey, param, &bn) == 1 &&
	     BN_bn2binpad(bn, out, (int)size) == (int)size;
	BN_free(bn);
	return ok;
}

/*
 * ECC EK: one-pass Diffie-Hellman with a fresh ephemeral key, the seed
 * from KDFe (Part 1, ECC secret sharing).
 */
static enum imt_result seed_ecc(EVP_PKEY *ek, const TPMT_PUBLIC *ek_pub,
				struct seed *seed, struct imt_error *err)
{
	char group[64];
	uint8_t z[ECC_COORD_MAX];
	TPMS_ECC_POINT point;
	EVP_PKEY *eph = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	size_t coord = ((size_t)EVP_PKEY_get_bits(ek) + 7) / 8, z_len = coord;
	size_t offset = 0;
	enum imt_result rc = IMT_OK;

	memset(&point, 0, sizeof(point));
	if (coord > ECC_COORD_MAX ||
	    EVP_PKEY_get_utf8_string_param(ek, OSSL_PKEY_PARAM_GROUP_NAME,
					   group, sizeof(group), NULL) != 1) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "EK curve");
		goto out;
	}
	eph = EVP_PKEY_Q_keygen(NULL, NULL, "EC", group);
	ctx = eph != NULL ? EVP_PKEY_CTX_new_from_pkey(NULL, eph, NULL) : NULL;
	if (ctx == NULL || EVP_PKEY_derive_init(ctx) != 1 ||
	    EVP_PKEY_derive_set_peer(ctx, ek) != 1 ||
	    EVP_PKEY_derive(ctx, z, &z_len) != 1 || z_len != coord ||
	    !ecc_coord(eph, OSSL_PKEY_PARAM_EC_PUB_X, point.x.buffer, coord) ||
	    !ecc_coord(eph, OSSL_PKEY_PARAM_EC_PUB_Y, point.y.buffer, coord)) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "ECDH with the EK");
		goto out;
	}
	point.x.size = (UINT16)coord;
	point.y.size = (UINT16)coord;
	rc = tpm_crypto_kdfe(seed->md, z, z_len, "IDENTITY", point.x.buffer,
			     coord, ek_pub->unique.ecc.x.buffer,
			     ek_pub->unique.ecc.x.size, seed->value,
			     8 * seed->size, err);
	if (rc != IMT_OK)
		goto out;
	/* The TPM recomputes Z from the ephemeral point: that is "secret". */
	if (Tss2_MU_TPMS_ECC_POINT_Marshal(&point, seed->encrypted.secret,
					   sizeof(seed->encrypted.secret),
					   &offset) != TSS2_RC_SUCCESS) {
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS, "cannot marshal TPMS_ECC_POINT");
		goto out;
	}
	seed->encrypted.size = (UINT16)offset;
out:
	OPENSSL_cleanse(z, sizeof(z));
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(eph);
	return rc;
}

/* The EK's parent-protection cipher: AES in CFB mode. */
static const EVP_CIPHER *ek_cipher(const TPMT_PUBLIC *ek, size_t *key_bits)
{
	const TPMT_SYM_DEF_OBJECT *sym =
		ek->type == TPM2_ALG_RSA ? &ek->parameters.rsaDetail.symmetric :
					   &ek->parameters.eccDetail.symmetric;

	if (sym->algorithm != TPM2_ALG_AES || sym->mode.aes != TPM2_ALG_CFB)
		return NULL;
	*key_bits = sym->keyBits.aes;
	switch (sym->keyBits.aes) {
	case 128:
		return EVP_aes_128_cfb128();
	case 192:
		return EVP_aes_192_cfb128();
	case 256:
		return EVP_aes_256_cfb128();
	default:
		return NULL;
	}
}

/* encIdentity and outerHMAC from the seed, into @blob. */
static enum imt_result wrap(const struct seed *seed, const EVP_CIPHER *cipher,
			    size_t key_bits, const uint8_t *name,
			    size_t name_len, const uint8_t *cred,
			    size_t cred_len, TPM2B_ID_OBJECT *blob,
			    struct imt_error *err)
{
	uint8_t sym_key[32], hmac_key[EVP_MAX_MD_SIZE], iv[16] = { 0 };
	uint8_t plain[2 + EVP_MAX_MD_SIZE];
	uint8_t mac_in[2 + EVP_MAX_MD_SIZE + TPM_NAME_MAX];
	uint8_t *enc = blob->credential + 2 + seed->size;
	size_t enc_len = 2 + cred_len, mac_len;
	EVP_CIPHER_CTX *ctx = NULL;
	enum imt_result rc;
	int n, fin;

	rc = tpm_crypto_kdfa(seed->md, seed->value, seed->size, "STORAGE", name,
			     name_len, NULL, 0, sym_key, key_bits, err);
	if (rc == IMT_OK)
		rc = tpm_crypto_kdfa(seed->md, seed->value, seed->size,
				     "INTEGRITY", NULL, 0, NULL, 0, hmac_key,
				     8 * seed->size, err);
	if (rc != IMT_OK)
		goto out;
	/* The plaintext is the credential as a TPM2B_DIGEST. */
	plain[0] = (uint8_t)(cred_len >> 8);
	plain[1] = (uint8_t)cred_len;
	memcpy(plain + 2, cred, cred_len);
	ctx = EVP_CIPHER_CTX_new();
	if (ctx == NULL ||
	    EVP_EncryptInit_ex(ctx, cipher, NULL, sym_key, iv) != 1 ||
	    EVP_EncryptUpdate(ctx, enc, &n, plain, (int)enc_len) != 1 ||
	    EVP_EncryptFinal_ex(ctx, enc + n, &fin) != 1 ||
	    (size_t)(n + fin) != enc_len) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL,
				     "AES-CFB encryption of the credential");
		goto out;
	}
	memcpy(mac_in, enc, enc_len);
	memcpy(mac_in + enc_len, name, name_len);
	blob->credential[0] = (uint8_t)(seed->size >> 8);
	blob->credential[1] = (uint8_t)seed->size;
	if (EVP_Q_mac(NULL, "HMAC", NULL, EVP_MD_get0_name(seed->md), NULL,
		      hmac_key, seed->size, mac_in, enc_len + name_len,
		      blob->credential + 2, seed->size, &mac_len) == NULL ||
	    mac_len != seed->size) {
		rc = tpm_crypto_fail(err, IMT_ERR_INTERNAL, "outer HMAC");
		goto out;
	}
	blob->size = (UINT16)(2 + seed->size + enc_len);
out:
	EVP_CIPHER_CTX_free(ctx);
	OPENSSL_cleanse(sym_key, sizeof(sym_key));
	OPENSSL_cleanse(hmac_key, sizeof(hmac_key));
	OPENSSL_cleanse(plain, sizeof(plain));
	return rc;
}

/* Everything about @ek and @name that is checked before any crypto. */
static enum imt_result check_inputs(const TPMT_PUBLIC *ek, const uint8_t *name,
				    size_t name_len, size_t cred_len,
				    struct seed *seed, struct imt_error *err)
{
	const struct hash_algo *name_algo;
	TPMA_OBJECT want = TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;

	if (ek->type != TPM2_ALG_RSA && ek->type != TPM2_ALG_ECC)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS,
				     "EK of type 0x%04x is not RSA or ECC",
				     (unsigned int)ek->type);
	if ((ek->objectAttributes & want) != want ||
	    (ek->objectAttributes & TPMA_OBJECT_SIGN_ENCRYPT))
		return imt_error_set(err, IMT_ERR_MISMATCH, IMT_NO_POS,
				     IMT_NO_POS,
				     "EK is not a restricted decryption key");
	seed->md = tpm_crypto_md(ek->nameAlg);
	if (seed->md == NULL)
		return imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				     IMT_NO_POS, "EK nameAlg 0x%04x",
				     (unsigned int)ek->nameAlg);
	seed->size = (size_t)EVP_MD_get_size(seed->md);
	name_algo =
		name_len >= 2 ?
			hash_algo_by_tpm((uint16_t)(name[0] << 8 | name[1])) :
			NULL;
	if (name_algo == NULL || name_len != 2 + name_algo->size)
		return imt_error_set(err, IMT_ERR_MALFORMED, IMT_NO_POS,
				     IMT_NO_POS,
				     "Name of %zu bytes is not a hash algorithm and its digest",
				     name_len);
	if (cred_len == 0 || cred_len > seed->size)
		return imt_error_set(err, IMT_ERR_LIMIT, IMT_NO_POS, IMT_NO_POS,
				     "credential of %zu bytes; the EK allows 1 to %zu",
				     cred_len, seed->size);
	return IMT_OK;
}

enum imt_result tpm_credential_make(const TPMT_PUBLIC *ek, const uint8_t *name,
				    size_t name_len, const uint8_t *cred,
				    size_t cred_len, struct tpm_credential *out,
				    struct imt_error *err)
{
	const EVP_CIPHER *cipher;
	TPM2B_ID_OBJECT blob;
	EVP_PKEY *ek_key = NULL;
	struct seed seed;
	size_t key_bits = 0, offset;
	enum imt_result rc;
	TSS2_RC trc;

	memset(&seed, 0, sizeof(seed));
	memset(&blob, 0, sizeof(blob));
	rc = check_inputs(ek, name, name_len, cred_len, &seed, err);
	if (rc != IMT_OK)
		goto out;
	cipher = ek_cipher(ek, &key_bits);
	if (cipher == NULL) {
		rc = imt_error_set(err, IMT_ERR_UNSUPPORTED, IMT_NO_POS,
				   IMT_NO_POS,
				   "EK symmetric algorithm is not AES-128/192/256-CFB");
		goto out;
	}
	rc = tpm_public_to_pkey(ek, &ek_key, err);
	if (rc != IMT_OK)
		goto out;
	if (ek->type == TPM2_ALG_RSA)
		rc = seed_rsa(ek_key, &seed, err);
	else
		rc = seed_ecc(ek_key, ek, &seed, err);
	if (rc == IMT_OK)
		rc = wrap(&seed, cipher, key_bits, name, name_len, cred,
			  cred_len, &blob, err);
	if (rc != IMT_OK)
		goto out;
	offset = 0;
	trc = Tss2_MU_TPM2B_ID_OBJECT_Marshal(&blob, out->id_object,
					      sizeof(out->id_object), &offset);
	if (trc != TSS2_RC_SUCCESS) {
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS,
				   "cannot marshal TPM2B_ID_OBJECT");
		goto out;
	}
	out->id_object_len = offset;
	offset = 0;
	trc = Tss2_MU_TPM2B_ENCRYPTED_SECRET_Marshal(&seed.encrypted,
						     out->secret,
						     sizeof(out->secret),
						     &offset);
	if (trc != TSS2_RC_SUCCESS) {
		rc = imt_error_set(err, IMT_ERR_INTERNAL, IMT_NO_POS,
				   IMT_NO_POS,
				   "cannot marshal TPM2B_ENCRYPTED_SECRET");
		goto out;
	}
	out->secret_len = offset;
out:
	EVP_PKEY_free(ek_key);
	OPENSSL_cleanse(&seed, sizeof(seed));
	OPENSSL_cleanse(&blob, sizeof(blob));
	return rc;
}

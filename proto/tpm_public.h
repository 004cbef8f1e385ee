/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpm_public.h - TPM 2.0 public areas as the verifier sees them: the
 * TPM2B_PUBLIC an agent sends for its EK and AK, the key inside it, the
 * object's Name, and the attributes an attestation key must have.
 *
 * Pure functions over bytes: nothing here talks to a TPM.
 */
#ifndef IMATRUST_TPM_PUBLIC_H
#define IMATRUST_TPM_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "hash_algo.h"
#include "result.h"

/* A Name: the nameAlg (2 bytes, big endian) and the digest. */
#define TPM_NAME_MAX (2 + HASH_ALGO_MAX_SIZE)

/**
 * tpm_public_parse() - unmarshal a TPM2B_PUBLIC that fills @buf exactly.
 * @buf: the marshalled TPM2B_PUBLIC (size field, then TPMT_PUBLIC)
 * @len: bytes in @buf
 * @pub: receives the public area
 * @err: filled on failure, with the byte offset where parsing stopped
 *
 * Only the structure is checked here: the size field must cover exactly
 * the TPMT_PUBLIC, which may not be empty, and nothing may follow it.
 *
 * Return: IMT_OK or IMT_ERR_MALFORMED.
 */
enum imt_result tpm_public_parse(const uint8_t *buf, size_t len,
				 TPMT_PUBLIC *pub, struct imt_error *err);

/**
 * tpm_public_to_pkey() - the public key of an RSA or ECC public area.
 * @pub: the public area
 * @pkey: receives a new key the caller frees with EVP_PKEY_free()
 * @err: filled on failure
 *
 * RSA keys of 1024 to 4096 bits (an exponent of 0 means 65537) and ECC
 * keys on NIST P-256 or P-384; an ECC point must lie on its curve.
 *
 * Return: IMT_OK; IMT_ERR_UNSUPPORTED for another type or curve;
 * IMT_ERR_MALFORMED for a key the crypto library rejects (bad size, point
 * not on the curve); IMT_ERR_INTERNAL on allocation failure.
 */
enum imt_result tpm_public_to_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **pkey,
				   struct imt_error *err);

/**
 * tpm_public_name() - the object's Name: nameAlg || H(TPMT_PUBLIC).
 * @pub: the public area
 * @name: receives the Name, at most TPM_NAME_MAX bytes
 * @name_len: receives the number of bytes written to @name
 * @err: filled on failure
 *
 * The hash is over the canonical marshalling of @pub, which is what the
 * TPM hashes; for input that tpm_public_parse() accepted it equals the
 * bytes after the size field.
 *
 * Return: IMT_OK, IMT_ERR_UNSUPPORTED for a nameAlg we cannot compute,
 * or IMT_ERR_INTERNAL.
 */
enum imt_result tpm_public_name(const TPMT_PUBLIC *pub, uint8_t *name,
				size_t *name_len, struct imt_error *err);

/**
 * tpm_public_check_ak() - does @pub have the attributes of an AK?
 * @pub: the public area of the attestation key
 * @err: on IMT_ERR_MISMATCH, names the first attribute that is wrong
 *
 * An AK is an RSA or ECC key with restricted, sign, fixedTPM,
 * fixedParent and sensitiveDataOrigin set and decrypt clear: a key the
 * TPM made, that cannot leave it, and that only signs TPM-generated data.
 *
 * Return: IMT_OK, IMT_ERR_UNSUPPORTED for a key type other than RSA or
 * ECC, or IMT_ERR_MISMATCH.
 */
enum imt_result tpm_public_check_ak(const TPMT_PUBLIC *pub,
				    struct imt_error *err);

/**
 * tpm_public_ak_template() - the template an agent creates its AK from.
 * @type: TPM2_ALG_RSA (RSA-2048, RSASSA with SHA-256) or TPM2_ALG_ECC
 *	  (NIST P-256, ECDSA with SHA-256)
 * @tmpl: filled; unique is left empty for the TPM (or a software key)
 *
 * What tpm2_createak makes by default for -G rsa and -G ecc: nameAlg
 * SHA-256 and the attributes tpm_public_check_ak() requires, plus
 * userWithAuth. The agent sends it to its TPM and the benchmarks' software
 * AKs fill it in, so both present the same public area.
 */
void tpm_public_ak_template(TPMI_ALG_PUBLIC type, TPM2B_PUBLIC *tmpl);

#endif /* IMATRUST_TPM_PUBLIC_H */

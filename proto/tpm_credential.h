/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpm_credential.h - TPM2_MakeCredential in software, for enrollment.
 *
 * The verifier wraps a secret so that only the TPM holding the EK, and
 * only for an object with the given Name loaded in that TPM (the AK), can
 * recover it with TPM2_ActivateCredential (TPM 2.0 Part 1 §24,
 * "Credential Protection"; Part 3 §12.6).
 */
#ifndef IMATRUST_TPM_CREDENTIAL_H
#define IMATRUST_TPM_CREDENTIAL_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_tpm2_types.h>

#include "result.h"

/* What TPM2_ActivateCredential takes, both marshalled with size fields. */
struct tpm_credential {
	uint8_t id_object[sizeof(TPM2B_ID_OBJECT)]; /* credentialBlob */
	size_t id_object_len;
	uint8_t secret[sizeof(TPM2B_ENCRYPTED_SECRET)]; /* secret */
	size_t secret_len;
};

/**
 * tpm_credential_make() - wrap @cred for the object @name under @ek.
 * @ek: public area of the endorsement key (a restricted decryption key,
 *      RSA or ECC, with an AES-CFB symmetric definition)
 * @name: Name of the object the TPM must hold to unwrap (the AK's Name:
 *        nameAlg and digest, see tpm_public_name())
 * @name_len: bytes in @name
 * @cred: the credential, at most the size of @ek's nameAlg digest
 * @cred_len: bytes in @cred, at least 1
 * @out: receives the marshalled TPM2B_ID_OBJECT and TPM2B_ENCRYPTED_SECRET
 * @err: filled on failure
 *
 * A fresh seed is made for every call: for an RSA EK, random bytes
 * encrypted with RSA-OAEP (label "IDENTITY"); for an ECC EK, the KDFe of
 * an ECDH exchange with a fresh ephemeral key. From the seed, KDFa derives
 * the AES key ("STORAGE", bound to @name) that encrypts @cred and the
 * HMAC key ("INTEGRITY") that protects it. Secrets are wiped before
 * return; the output is not secret (only the EK's TPM can open it).
 *
 * Return: IMT_OK; IMT_ERR_UNSUPPORTED for an EK type, curve, nameAlg or
 * symmetric algorithm we do not handle; IMT_ERR_MISMATCH when @ek is not
 * a restricted decryption key; IMT_ERR_MALFORMED when @name's length does
 * not fit its algorithm or the EK's key is invalid; IMT_ERR_LIMIT when
 * @cred is empty or too long; IMT_ERR_INTERNAL.
 */
enum imt_result tpm_credential_make(const TPMT_PUBLIC *ek, const uint8_t *name,
				    size_t name_len, const uint8_t *cred,
				    size_t cred_len, struct tpm_credential *out,
				    struct imt_error *err);

#endif /* IMATRUST_TPM_CREDENTIAL_H */

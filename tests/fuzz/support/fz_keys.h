/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fz_keys.h - attestation keys held in software, of every kind the
 * verifier takes (RSASSA and RSA-PSS 2048, ECDSA P-256 and P-384), so a
 * harness can sign what the fuzzer shaped and reach the checks that come
 * after the signature.
 *
 * Each key is presented as a TPM would present an AK: a TPMT_PUBLIC with
 * restricted|sign|fixedTPM|fixedParent|sensitiveDataOrigin|userWithAuth,
 * nameAlg sha256, its marshalled TPM2B_PUBLIC and its Name. Generated on
 * first use; nothing here is secret or fit for anything but fuzzing.
 */
#ifndef IMATRUST_FZ_KEYS_H
#define IMATRUST_FZ_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "tpm_public.h"

enum fz_key_kind {
	FZ_KEY_RSASSA,
	FZ_KEY_RSAPSS,
	FZ_KEY_ECC256,
	FZ_KEY_ECC384,
	FZ_KEY_COUNT,
};

#define FZ_SIG_MAX 600 /* a marshalled TPMT_SIGNATURE */

struct fz_key {
	EVP_PKEY *priv; /* signs */
	EVP_PKEY *pub;	/* the verifier's view: tpm_public_to_pkey() */
	TPMT_PUBLIC tpub;
	uint8_t pub2b[sizeof(TPM2B_PUBLIC)]; /* marshalled TPM2B_PUBLIC */
	size_t pub2b_len;
	uint8_t name[TPM_NAME_MAX];
	size_t name_len;
	uint16_t scheme; /* TPM2_ALG_RSASSA, _RSAPSS or _ECDSA */
};

/** fz_key() - key @kind, generated on the first call; aborts on failure. */
const struct fz_key *fz_key(enum fz_key_kind kind);

/**
 * fz_key_sign() - sign @msg as a TPM would, into a marshalled TPMT_SIGNATURE.
 * @k: the key
 * @scheme: the sigAlg to write (the key's own, or another to test refusal)
 * @hash: the hash to sign with and to write; one OpenSSL cannot compute
 *        is written as asked but signed with sha256
 * @msg: the bytes (a TPMS_ATTEST)
 * @len: bytes in @msg
 * @out: FZ_SIG_MAX bytes
 *
 * An RSA key signs PKCS#1 v1.5 unless @scheme is TPM2_ALG_RSAPSS; an EC
 * key signs ECDSA whatever @scheme says.
 *
 * Return: bytes written; aborts when signing fails.
 */
size_t fz_key_sign(const struct fz_key *k, uint16_t scheme, uint16_t hash,
		   const uint8_t *msg, size_t len, uint8_t *out);

#endif /* IMATRUST_FZ_KEYS_H */

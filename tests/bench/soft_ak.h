/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * soft_ak.h - an attestation key held in software, for benchmarks that
 * simulate more agents than swtpm processes would fit on one machine.
 *
 * An ECC NIST P-256 key (or, with soft_ak_new_alg(), an RSA-2048 key) in
 * OpenSSL, presented as a TPM would present an AK (TPM2B_PUBLIC with
 * restricted|sign|fixedTPM|fixedParent|sensitiveDataOrigin|userWithAuth,
 * nameAlg sha256, the ECDSA-SHA256 or RSASSA-SHA256 scheme; RSA: keyBits
 * 2048, exponent 0 for 65537, the modulus in unique.rsa), and quotes as a
 * TPM would sign them: a marshalled TPMS_ATTEST of type
 * TPM_ST_ATTEST_QUOTE over sha256 PCRs 0-10 and a marshalled
 * TPMT_SIGNATURE (ECDSA (r, s), or RSASSA: PKCS#1 v1.5 over SHA-256).
 * Nothing here is secret or fit for anything but tests.
 */
#ifndef IMATRUST_SOFT_AK_H
#define IMATRUST_SOFT_AK_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "pcr_set.h"
#include "tpm_public.h"

#define SOFT_AK_PUB_MAX 320    /* a marshalled TPM2B_PUBLIC (RSA-2048: 282) */
#define SOFT_AK_ATTEST_MAX 512 /* a marshalled quote TPMS_ATTEST */
#define SOFT_AK_SIG_MAX 272    /* a marshalled TPMT_SIGNATURE (RSA: 262) */
#define SOFT_AK_PCRS 11	       /* PCRs 0-10 are quoted */

/* The key's algorithm, and so its scheme. */
enum soft_ak_alg {
	SOFT_AK_P256,	 /* ECC NIST P-256, ECDSA-SHA256 */
	SOFT_AK_RSA2048, /* RSA-2048 (e = 65537), RSASSA-SHA256 */
};

struct soft_ak {
	enum soft_ak_alg alg;
	EVP_PKEY *key;	    /* owned: the private key */
	EVP_PKEY_CTX *sign; /* owned: initialised for EVP_PKEY_sign() */
	uint8_t pub[SOFT_AK_PUB_MAX]; /* TPM2B_PUBLIC */
	size_t pub_len;
	uint8_t name[TPM_NAME_MAX]; /* nameAlg || SHA-256(TPMT_PUBLIC) */
	size_t name_len;
};

/* What a quote says besides the PCRs: the TPM's counters and the nonce. */
struct soft_quote {
	const uint8_t *nonce; /* qualifyingData, borrowed */
	size_t nonce_len;
	uint64_t clock;
	uint32_t reset_count;
	uint32_t restart_count;
	const struct pcr_set *pcrs; /* the quoted bank's PCRs, borrowed */
	int unsafe;		    /* 1: clockInfo.safe cleared */
	uint32_t select;	    /* PCRs quoted (bit i: PCR i); 0: 0-10 */
};

/**
 * soft_ak_new_alg() - generate a key of @alg and its TPM presentation.
 * @ak: filled; release with soft_ak_free()
 * @alg: SOFT_AK_P256 or SOFT_AK_RSA2048
 *
 * The public area is checked with the verifier's own tpm_public_parse(),
 * tpm_public_check_ak() and tpm_public_to_pkey(), and the Name computed
 * by tpm_public_name(), so a key the verifier would refuse never leaves.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int soft_ak_new_alg(struct soft_ak *ak, enum soft_ak_alg alg);

/** soft_ak_new() - soft_ak_new_alg() of a P-256 key. */
int soft_ak_new(struct soft_ak *ak);

/**
 * soft_ak_alg_parse() - "p256" or "rsa2048" to its algorithm.
 * Return: 0, or -1 for any other name.
 */
int soft_ak_alg_parse(const char *name, enum soft_ak_alg *alg);

/** soft_ak_alg_name() - "P-256" or "RSA-2048", for people. */
const char *soft_ak_alg_name(enum soft_ak_alg alg);

/** soft_ak_sig_name() - "ECDSA P-256" or "RSASSA-2048", for people. */
const char *soft_ak_sig_name(enum soft_ak_alg alg);

/** soft_ak_free() - release what soft_ak_new() made; NULL-safe. */
void soft_ak_free(struct soft_ak *ak);

/**
 * soft_ak_quote() - make and sign a quote.
 * @ak: the key (its sign context is used: one thread at a time per key)
 * @q: what to quote
 * @attest: receives the TPMS_ATTEST, SOFT_AK_ATTEST_MAX bytes available
 * @attest_len: receives its length
 * @sig: receives the TPMT_SIGNATURE, SOFT_AK_SIG_MAX bytes available
 * @sig_len: receives its length
 *
 * Return: 0, or -1 with a message on stderr.
 */
int soft_ak_quote(struct soft_ak *ak, const struct soft_quote *q,
		  uint8_t *attest, size_t *attest_len, uint8_t *sig,
		  size_t *sig_len);

/** soft_ak_write_pem() - the public key as PEM (tpm2_checkquote -u). */
int soft_ak_write_pem(const struct soft_ak *ak, const char *path);

#endif /* IMATRUST_SOFT_AK_H */

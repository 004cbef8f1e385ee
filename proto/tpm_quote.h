/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpm_quote.h - check a TPM2_Quote: the TPMS_ATTEST the TPM signed, the
 * TPMT_SIGNATURE over it, the nonce inside it and the PCR digest.
 *
 * Pure functions over bytes and an AK key: nothing here talks to a TPM.
 * tpm_quote_check() does everything a verifier needs for one quote; the
 * steps are exported too, as replay (proto/DESIGN.md §4) recomputes the PCR
 * digest for several candidate PCR 10 values of one signed quote.
 */
#ifndef IMATRUST_TPM_QUOTE_H
#define IMATRUST_TPM_QUOTE_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "hash_algo.h"
#include "pcr_set.h"
#include "result.h"

/* The fields of a quote's TPMS_ATTEST that a verifier uses. */
struct tpm_quote {
	uint8_t nonce[sizeof(TPMU_HA)]; /* extraData (qualifyingData) */
	size_t nonce_len;
	uint8_t signer[sizeof(TPMU_NAME)]; /* qualifiedSigner */
	size_t signer_len;
	uint64_t clock; /* clockInfo */
	uint32_t reset_count;
	uint32_t restart_count;
	int safe;
	uint64_t firmware_version;
	TPML_PCR_SELECTION pcr_select; /* in the TPM's order */
	uint8_t pcr_digest[sizeof(TPMU_HA)];
	size_t pcr_digest_len;
};

/**
 * tpm_quote_parse() - unmarshal a quote's TPMS_ATTEST.
 * @buf: the TPMS_ATTEST bytes the TPM signed (what tpm2_quote -m writes)
 * @len: bytes in @buf
 * @quote: receives the fields
 * @err: filled on failure, with the byte offset where parsing stopped
 *
 * The magic must be TPM_GENERATED_VALUE and the type TPM_ST_ATTEST_QUOTE
 * (both checked before the rest is decoded), and the structure must fill
 * @buf exactly.
 *
 * Return: IMT_OK; IMT_ERR_MISMATCH when the magic or the type is wrong
 * (the message says which); IMT_ERR_MALFORMED for bytes that do not
 * decode.
 */
enum imt_result tpm_quote_parse(const uint8_t *buf, size_t len,
				struct tpm_quote *quote, struct imt_error *err);

/**
 * tpm_quote_unwrap() - find the TPMS_ATTEST inside a TPM2B_ATTEST.
 * @buf: the marshalled TPM2B_ATTEST (size field, then TPMS_ATTEST)
 * @len: bytes in @buf
 * @attest: receives a pointer into @buf (borrowed, not a copy)
 * @attest_len: receives the length of the TPMS_ATTEST
 * @err: filled on failure
 *
 * Return: IMT_OK, or IMT_ERR_MALFORMED when the size field does not
 * cover the rest of @buf exactly.
 */
enum imt_result tpm_quote_unwrap(const uint8_t *buf, size_t len,
				 const uint8_t **attest, size_t *attest_len,
				 struct imt_error *err);

/**
 * tpm_quote_verify_signature() - verify a TPMT_SIGNATURE over @attest.
 * @attest: the signed TPMS_ATTEST bytes
 * @attest_len: bytes in @attest
 * @sig: the marshalled TPMT_SIGNATURE
 * @sig_len: bytes in @sig; the signature must fill them exactly
 * @ak: the AK's public key (see tpm_public_to_pkey())
 * @hash_alg: receives the signature's hash algorithm (a TPM2_ALG_ID),
 *            which is also the hash of the quote's PCR digest; may be NULL
 * @err: filled on failure
 *
 * Schemes: RSASSA-PKCS1-v1_5 and RSASSA-PSS with an RSA AK, ECDSA with
 * an ECC AK; hashes sha256, sha384, sha512. A PSS salt of any length is
 * accepted: TPMs differ (digest size or the maximum) and the salt length
 * does not change what is proven.
 *
 * Return: IMT_OK; IMT_ERR_MISMATCH when the signature does not verify or
 * its scheme does not fit the key (the message starts with "signature");
 * IMT_ERR_MALFORMED for bytes that do not decode; IMT_ERR_UNSUPPORTED
 * for another scheme or hash; IMT_ERR_INTERNAL.
 */
enum imt_result tpm_quote_verify_signature(const uint8_t *attest,
					   size_t attest_len,
					   const uint8_t *sig, size_t sig_len,
					   EVP_PKEY *ak, uint16_t *hash_alg,
					   struct imt_error *err);

/**
 * tpm_quote_pcr_digest() - the PCR digest a quote over @pcrs must carry.
 * @quote: the parsed quote; its selection says which PCRs, in what order
 * @pcrs: PCR values of the one bank the quote selects
 * @hash_alg: hash of the digest (the signature's, see above)
 * @out: receives the digest, up to HASH_ALGO_MAX_SIZE bytes
 * @out_len: receives its length
 * @err: filled on failure
 *
 * The hash over the selected PCR values, bank by bank in selection order
 * and by ascending index within a bank, as TPM2_Quote computes it.
 *
 * Return: IMT_OK; IMT_ERR_MISMATCH when the quote selects a bank other
 * than @pcrs->algo; IMT_ERR_UNSUPPORTED when it selects no bank or
 * several, or a PCR past PCR_SET_COUNT; IMT_ERR_MALFORMED when a selected
 * PCR is absent from @pcrs; IMT_ERR_INTERNAL.
 */
enum imt_result tpm_quote_pcr_digest(const struct tpm_quote *quote,
				     const struct pcr_set *pcrs,
				     uint16_t hash_alg, uint8_t *out,
				     size_t *out_len, struct imt_error *err);

/**
 * tpm_selection_mask() - the PCRs of bank @alg (a TPM_ALG_ID) that @sel
 * selects: the one reading of a TPML_PCR_SELECTION, for the quote's
 * selection here and for what a TPM answered to PCR_Read in the agent.
 *
 * Return: bit i set when PCR i is selected (PCRs 0-31).
 */
uint32_t tpm_selection_mask(const TPML_PCR_SELECTION *sel, uint16_t alg);

/**
 * tpm_quote_pcr_mask() - the PCRs a quote selects in @bank.
 * @quote: the parsed quote
 * @bank: the bank
 *
 * Return: bit i set when PCR i of @bank is selected (PCRs 0-31).
 */
uint32_t tpm_quote_pcr_mask(const struct tpm_quote *quote,
			    const struct hash_algo *bank);

/**
 * tpm_quote_authentic() - is this quote the enrolled TPM's answer to
 * @nonce? Structure, the AK's signature, and qualifyingData == @nonce.
 * @attest: the TPMS_ATTEST bytes
 * @attest_len: bytes in @attest
 * @sig: the marshalled TPMT_SIGNATURE
 * @sig_len: bytes in @sig
 * @ak: the enrolled AK's public key
 * @nonce: the nonce the sender claims the quote answers
 * @nonce_len: bytes in @nonce
 * @quote: receives the parsed quote (valid with IMT_OK)
 * @hash_alg: receives the signature's hash (for tpm_quote_check_pcrs())
 * @err: on failure, names the failing check
 *
 * What fails here proves nothing about the machine: anyone can send it.
 * What tpm_quote_check_pcrs() finds wrong after this passed, the TPM
 * signed. A verifier keeps the two apart (proto/DESIGN.md §4).
 *
 * Return: IMT_OK; the parser's or signature's error; IMT_ERR_MISMATCH
 * ("nonce: ...") when qualifyingData is not @nonce.
 */
enum imt_result tpm_quote_authentic(const uint8_t *attest, size_t attest_len,
				    const uint8_t *sig, size_t sig_len,
				    EVP_PKEY *ak, const uint8_t *nonce,
				    size_t nonce_len, struct tpm_quote *quote,
				    uint16_t *hash_alg, struct imt_error *err);

/**
 * tpm_quote_check_pcrs() - does the quote's PCR digest cover @pcrs?
 * @quote: an authentic quote (tpm_quote_authentic())
 * @hash_alg: its signature's hash
 * @pcrs: the PCR values the agent sent with it
 * @err: "pcr digest: ..." on a mismatch
 *
 * Return: IMT_OK, or tpm_quote_pcr_digest()'s errors, IMT_ERR_MISMATCH.
 */
enum imt_result tpm_quote_check_pcrs(const struct tpm_quote *quote,
				     uint16_t hash_alg,
				     const struct pcr_set *pcrs,
				     struct imt_error *err);

/**
 * tpm_quote_check() - everything a verifier checks on one quote.
 * @attest: the TPMS_ATTEST bytes (use tpm_quote_unwrap() on a TPM2B_ATTEST)
 * @attest_len: bytes in @attest
 * @sig: the marshalled TPMT_SIGNATURE
 * @sig_len: bytes in @sig
 * @ak: the enrolled AK's public key
 * @nonce: the nonce the verifier issued
 * @nonce_len: bytes in @nonce
 * @pcrs: the PCR values the agent sent with the quote
 * @quote: receives the parsed quote (valid only when IMT_OK is returned);
 *         may be NULL
 * @err: on failure, names the failing check
 *
 * In order: structure, magic and type, signature, nonce, PCR digest. The
 * contents are only compared once the signature proves that the TPM made
 * them, so a tampered quote reports "signature", never a misleading
 * nonce or PCR difference. Which PCRs must be selected is the caller's
 * policy: compare tpm_quote_pcr_mask() after this returns.
 *
 * Return: IMT_OK; IMT_ERR_MISMATCH with a message starting with "magic",
 * "type", "signature", "nonce" or "pcr digest"; IMT_ERR_MALFORMED for
 * bytes that do not decode or PCR values missing from @pcrs;
 * IMT_ERR_UNSUPPORTED or IMT_ERR_INTERNAL as above.
 */
enum imt_result tpm_quote_check(const uint8_t *attest, size_t attest_len,
				const uint8_t *sig, size_t sig_len,
				EVP_PKEY *ak, const uint8_t *nonce,
				size_t nonce_len, const struct pcr_set *pcrs,
				struct tpm_quote *quote, struct imt_error *err);

#endif /* IMATRUST_TPM_QUOTE_H */

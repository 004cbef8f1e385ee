/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * enroll.h - trust bootstrap (proto/DESIGN.md §3): fingerprint and vouch for an
 * EK, make the credential challenge for an AK, check the activation
 * proof.
 *
 * Pure checks over bytes plus the EK CA store: no database, no HTTP. The
 * engine (engine_enroll.c) stores, the route handlers answer.
 */
#ifndef IMATRUST_ENROLL_H
#define IMATRUST_ENROLL_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509_vfy.h>

#include "db_enroll.h"
#include "db_machine.h"
#include "result.h"
#include "wire.h"

#define ENROLL_SECRET_SIZE 32	 /* bytes of a credential secret */
#define ENROLL_CHALLENGE_TTL 300 /* seconds a challenge stays open */
/* ... when nothing vouches for its EK (no certificate chaining to ek_ca,
 * not pre-registered, no machine of its own): a TPM activates in a second
 * or two, and a flood of made-up EKs holds the unvouched slots that long */
#define ENROLL_UNVOUCHED_TTL 60
#define ENROLL_PROOF_SIZE 32 /* HMAC-SHA256 */

#define ENROLL_FPR_HEX (2 * DB_FPR_SIZE) /* hex digits of a fingerprint */

/**
 * enroll_fingerprint() - the EK fingerprint: SHA-256 of the DER
 * SubjectPublicKeyInfo of the EK's public key.
 * @ek_pub: the marshalled TPM2B_PUBLIC of the EK
 * @ek_pub_len: its length
 * @fpr: receives DB_FPR_SIZE bytes
 *
 * The same key gives the same fingerprint whatever template (attributes,
 * policy) carried it, so one TPM cannot pass for two by changing its
 * TPMT_PUBLIC; and it is what an operator computes from the EK
 * certificate: openssl x509 -pubkey -noout | openssl pkey -pubin
 * -outform DER | sha256sum.
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED or IMT_ERR_UNSUPPORTED for a public
 * area we cannot read; IMT_ERR_INTERNAL.
 */
enum imt_result enroll_fingerprint(const uint8_t *ek_pub, size_t ek_pub_len,
				   uint8_t fpr[DB_FPR_SIZE],
				   struct imt_error *err);

/**
 * enroll_fpr_hex() - @fpr as 64 lower-case hex digits and a NUL.
 */
void enroll_fpr_hex(const uint8_t fpr[DB_FPR_SIZE],
		    char out[ENROLL_FPR_HEX + 1]);

/**
 * enroll_check_ek_cert() - does the EK certificate vouch for @ek_pub?
 * @store: the EK CA bundle, or NULL when none is configured
 * @ek_pub: the marshalled TPM2B_PUBLIC of the EK
 * @ek_pub_len: its length
 * @cert: DER: the EK certificate, then optionally the intermediate CA
 *        certificates it chains through (concatenated); may be empty
 * @cert_len: its length
 * @chained: receives 1 when the certificate chains to a self-signed CA
 *           of @store (through the intermediates sent and those in
 *           @store) and certifies exactly @ek_pub's key, else 0
 * @why: receives why not (for the machine's state reason), when
 *       *chained is 0
 * @whylen: size of @why
 *
 * A missing store or certificate, or one that does not chain, is not an
 * error: the machine waits in "pending" for an operator. A certificate
 * for another key than @ek_pub is an error: the agent lies.
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED for bytes that do not decode;
 * IMT_ERR_MISMATCH when the certificate's key is not the EK's.
 */
enum imt_result enroll_check_ek_cert(X509_STORE *store, const uint8_t *ek_pub,
				     size_t ek_pub_len, const uint8_t *cert,
				     size_t cert_len, int *chained, char *why,
				     size_t whylen, struct imt_error *err);

/**
 * enroll_ca_load() - the EK CA store of ek_ca.
 * @path: a PEM bundle, or a directory of CA certificates named by subject
 *        hash as openssl rehash (c_rehash) names them (<hash>.0, ...)
 * @why: receives what is wrong, on failure
 * @whylen: size of @why
 *
 * A directory is read when a chain is verified, certificate by
 * certificate as needed: a vendor root added to it (and rehashed) counts
 * from the next enrollment on; one it does not hold is simply not there.
 *
 * Return: the store (X509_STORE_free()), or NULL.
 */
X509_STORE *enroll_ca_load(const char *path, char *why, size_t whylen);

/**
 * enroll_cert_names() - subject and issuer (RFC 2253) of the first
 * certificate of @cert, for operators.
 * @cert: DER as stored (the EK certificate, maybe with intermediates)
 * @cert_len: its length
 * @subject: receives the subject ("" when empty)
 * @issuer: receives the issuer
 * @len: size of each buffer
 *
 * Return: 0, or -1 when @cert does not start with a certificate.
 */
int enroll_cert_names(const uint8_t *cert, size_t cert_len, char *subject,
		      char *issuer, size_t len);

/**
 * enroll_challenge() - check the AK and make the credential challenge of
 * enrollment @msg.
 * @msg: the enrollment message
 * @ch: receives what is stored: the id asked for, the EK (public area,
 *      certificate, fingerprint), the AK and its Name, the secret and
 *      the digest of the proof it expects; expires_at and ek_chained
 *      are the caller's
 * @out: receives the challenge to send (blobs owned: wire_free())
 * @err: names the check that failed
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED for public areas that do not decode;
 * IMT_ERR_MISMATCH for an AK without the attributes of an AK (the
 * message names the attribute); IMT_ERR_UNSUPPORTED for key types we
 * cannot handle; IMT_ERR_LIMIT; IMT_ERR_INTERNAL.
 */
enum imt_result enroll_challenge(const struct wire_enroll *msg,
				 struct db_challenge *ch,
				 struct wire_challenge *out,
				 struct imt_error *err);

/**
 * enroll_proof_hash() - SHA-256 of a proof: the key under which its
 * challenge is stored (so the challenge is found by the proof alone, and
 * a wrong proof finds nothing and changes nothing).
 * @proof: the proof
 * @proof_len: its length
 * @out: receives DB_PROOF_HASH_SIZE bytes
 */
void enroll_proof_hash(const uint8_t *proof, size_t proof_len,
		       uint8_t out[DB_PROOF_HASH_SIZE]);

/**
 * enroll_proof_ok() - is @proof HMAC-SHA256(secret, @agent)?
 * @ch: the stored challenge
 * @agent: the agent id
 * @proof: the proof sent
 * @proof_len: its length
 *
 * Compared in constant time. Return: 1 when it is, else 0.
 */
int enroll_proof_ok(const struct db_challenge *ch, const char *agent,
		    const uint8_t *proof, size_t proof_len);

#endif /* IMATRUST_ENROLL_H */

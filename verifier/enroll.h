/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * enroll.h - trust bootstrap (proto/DESIGN.md §3): vouch for an EK, make the
 * credential challenge for an AK, check the activation proof.
 *
 * Pure checks over bytes plus the EK CA store: no database, no HTTP. The
 * route handlers (route_agents.c) store and answer.
 */
#ifndef IMATRUST_ENROLL_H
#define IMATRUST_ENROLL_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/x509_vfy.h>

#include "db.h"
#include "result.h"
#include "wire.h"

#define ENROLL_SECRET_SIZE 32		/* bytes of a credential secret */
#define ENROLL_CHALLENGE_TTL 300	/* seconds a challenge stays open */
#define ENROLL_PROOF_SIZE 32		/* HMAC-SHA256 */

/**
 * enroll_check_ek_cert() - does the EK certificate vouch for @ek_pub?
 * @store: the EK CA bundle, or NULL when none is configured
 * @ek_pub: the marshalled TPM2B_PUBLIC of the EK
 * @ek_pub_len: its length
 * @cert: the DER certificate (may be empty)
 * @cert_len: its length
 * @chained: receives 1 when the certificate chains to @store and
 *           certifies exactly @ek_pub's key, else 0
 * @why: receives why not (for the machine's event), when *chained is 0
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
 * enroll_challenge() - check the AK and make its credential challenge.
 * @msg: the enrollment message
 * @ch: receives the secret, the AK and its Name (for storage)
 * @out: receives the challenge to send (blobs owned: wire_free())
 * @err: names the check that failed
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED for public areas that do not decode;
 * IMT_ERR_MISMATCH for an AK without the attributes of an AK;
 * IMT_ERR_UNSUPPORTED for key types we cannot handle; IMT_ERR_INTERNAL.
 */
enum imt_result enroll_challenge(const struct wire_enroll *msg,
				 struct db_challenge *ch,
				 struct wire_challenge *out,
				 struct imt_error *err);

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

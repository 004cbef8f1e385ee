/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tpm.h - the agent's TPM: endorsement key, attestation key, credential
 * activation, quotes and PCR extends, over tpm2-tss ESAPI.
 *
 * This is the agent's only user of tss2_esys.h (proto/DESIGN.md §9 rules 10
 * and 12): every Esys_* call is in tpm.c, every TSS2_RC becomes an enum
 * tpm_status there and is logged once, decoded, by that file. Everything
 * that crosses this header is plain bytes in TPM wire format (marshalled
 * TPM2B_PUBLIC, TPMS_ATTEST, TPMT_SIGNATURE, ...), exactly what the
 * verifier receives, so callers never see a TSS type.
 *
 * Typical use:
 *
 *	tpm_open(conf->tcti, &tpm);
 *	tpm_ek_find(tpm, conf->ek, TPM_KEY_RSA, &ek);
 *	tpm_ak_load(tpm, conf->state_dir, TPM_KEY_RSA, &ak);
 *	... enroll, tpm_activate_credential(), then tpm_quote() per batch
 *	tpm_close(tpm);
 *
 * A struct tpm is not thread-safe: one thread uses it at a time.
 */
#ifndef IMATRUST_AGENT_TPM_H
#define IMATRUST_AGENT_TPM_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "pcr_set.h"

#define TPM_BLOB_MAX \
	4096		      /* a marshalled TPM2B_PUBLIC, TPMS_ATTEST or
				 * TPMT_SIGNATURE (all far smaller) */
#define TPM_CERT_MAX 8192     /* an EK certificate in NV, DER */
#define TPM_AK_NAME_MAX 66    /* a Name: nameAlg (2) + digest (<= 64) */
#define TPM_SECRET_MAX 64     /* a credential secret (TPM2B_DIGEST) */
#define TPM_NONCE_MAX 64      /* qualifyingData of a quote (TPM2B_DATA) */
#define TPM_AK_FILE "ak.blob" /* in the state directory */

/*
 * What went wrong, as much as a caller can act on. Details (the decoded
 * TSS2_RC) are logged by tpm.c where the error happened.
 */
enum tpm_status {
	TPM_OK = 0,
	TPM_ERR_COMM,	   /* transport (TCTI) or a TPM that is busy,
				 * testing, or whose PCRs kept moving: retry
				 * later */
	TPM_ERR_AUTH,	   /* authorization or policy failed (e.g. a
				 * non-empty endorsement hierarchy password) */
	TPM_ERR_NV_ABSENT, /* the NV index (EK certificate) is not there */
	TPM_ERR_OTHER,	   /* anything else: bad input, key that does not
				 * load, state file error, TPM failure */
};

/* The key algorithms the agent offers for its EK and AK. */
enum tpm_key_alg {
	TPM_KEY_RSA, /* RSA 2048 (AK: RSASSA-PKCS1-v1_5 SHA-256) */
	TPM_KEY_ECC, /* NIST P-256 (AK: ECDSA SHA-256) */
};

struct tpm;

/* The endorsement key as enrollment sends it. */
struct tpm_ek {
	enum tpm_key_alg alg;
	uint8_t pub[TPM_BLOB_MAX]; /* marshalled TPM2B_PUBLIC */
	size_t pub_len;
	uint8_t cert[TPM_CERT_MAX]; /* DER from NV: the EK certificate,
					 * then the intermediates of the
					 * chain indices; cert_len 0 when the
					 * TPM has no EK certificate */
	size_t cert_len;
	size_t chain_certs;  /* intermediates after the EK certificate */
	const char *kind;    /* "rsa2048", "rsa3072", "p256", "p384" */
	const char *profile; /* the profile's template: "L-1", "H-6"... */
};

/* The attestation key as enrollment sends it. */
struct tpm_ak {
	enum tpm_key_alg alg;
	uint8_t pub[TPM_BLOB_MAX]; /* marshalled TPM2B_PUBLIC */
	size_t pub_len;
	uint8_t name[TPM_AK_NAME_MAX]; /* nameAlg || H(TPMT_PUBLIC) */
	size_t name_len;
	int created; /* 1 when made by this call (a new AK
					 * the verifier has not enrolled) */
};

/* One quote as evidence carries it (proto/DESIGN.md §4). */
struct tpm_evidence_quote {
	uint8_t attest[TPM_BLOB_MAX]; /* TPMS_ATTEST as the TPM signed it */
	size_t attest_len;
	uint8_t sig[TPM_BLOB_MAX]; /* marshalled TPMT_SIGNATURE */
	size_t sig_len;
	struct pcr_set pcrs; /* the quoted PCRs' values */
};

/* One bank's digest for tpm_pcr_extend(). */
struct tpm_digest {
	const struct hash_algo *algo;	   /* a PCR bank */
	uint8_t value[HASH_ALGO_MAX_SIZE]; /* algo->size bytes */
};

/**
 * tpm_open() - connect to the TPM named by a TCTI configuration string.
 * @tcti_conf: "device:/dev/tpmrm0", "swtpm:host=127.0.0.1,port=2321",
 *	       "mssim:...", or NULL for the TSS default (borrowed)
 * @out: receives the handle; close it with tpm_close()
 *
 * Return: TPM_OK; TPM_ERR_COMM when the TPM does not answer (no device,
 * nothing listening: worth retrying); TPM_ERR_OTHER for a configuration
 * that cannot work (unknown TCTI, bad TCTI options) or no memory.
 */
enum tpm_status tpm_open(const char *tcti_conf, struct tpm **out);

/**
 * tpm_close() - flush the EK and AK from the TPM and disconnect.
 * @t: the handle; NULL is allowed
 */
void tpm_close(struct tpm *t);

/**
 * tpm_ek_find() - find the EK the operator names, create it and read its
 * certificate and certificate chain.
 * @t: the TPM
 * @kind: "rsa2048" (templates L-1, H-1), "p256" (L-2, H-2), "rsa3072"
 *	  (H-6), "p384" (H-3) of the TCG EK Credential Profile 2.5, one
 *	  template by the profile's name ("L-1", "H-6"), or "auto": those
 *	  of @alg's family, then the others
 * @alg: the family "auto" tries first, and whose low-range EK it takes
 *	 when no EK has a certificate
 * @ek: receives the EK public area, certificate and chain
 *
 * The EK taken is the first of @kind's templates, in the order above,
 * whose certificate index (0x01c00002, 0x01c0000a, 0x01c00012,
 * 0x01c00014, 0x01c00016, 0x01c0001c) holds one; when none does, the
 * first, without a certificate. It is created from the template the TPM
 * keeps in NV for it (the certificate index + 2 in the low range with
 * its nonce at + 1, + 1 in the high range) where there is one, else
 * from the profile's. Behind the certificate @ek->cert carries every
 * certificate of the chain indices 0x01c00100-0x01c001ff, in index
 * order. Any previous EK (and with it the AK) of @t is flushed first.
 *
 * Return: TPM_OK, TPM_ERR_COMM, TPM_ERR_AUTH (the endorsement hierarchy
 * has a password), TPM_ERR_OTHER (also for a @kind it does not know).
 */
enum tpm_status tpm_ek_find(struct tpm *t, const char *kind,
			    enum tpm_key_alg alg, struct tpm_ek *ek);

/**
 * tpm_ek_load() - create the EK from the standard template and read its
 * certificate.
 * @t: the TPM
 * @alg: RSA 2048 or ECC P-256, templates L-1 and L-2 of the TCG EK
 *	 Credential Profile (policy A, no userWithAuth)
 * @ek: receives the EK public area and certificate
 *
 * The EK is a primary key of the endorsement hierarchy: the same template
 * gives the same key every time, so it is recreated rather than stored.
 * tpm_ek_find() of "rsa2048" (RSA) or "p256" (ECC): the low-range EK, or
 * the high range's when only it has a certificate; with no certificate
 * @ek->cert_len is 0 and the call succeeds.
 *
 * Return: TPM_OK, TPM_ERR_COMM, TPM_ERR_AUTH (the endorsement hierarchy
 * has a password), TPM_ERR_OTHER.
 */
enum tpm_status tpm_ek_load(struct tpm *t, enum tpm_key_alg alg,
			    struct tpm_ek *ek);

/**
 * tpm_ak_load() - load the AK kept in @state_dir, or create and keep one.
 * @t: the TPM, with the EK loaded
 * @state_dir: the agent's state directory; the AK blob is TPM_AK_FILE in
 *	       it, written atomically with mode 0600 (borrowed)
 * @alg: RSA 2048 RSASSA-SHA256 or ECC P-256 ECDSA-SHA256
 * @ak: receives the AK public area and Name; @ak->created tells whether
 *	this call made a new AK
 *
 * The AK is a restricted signing key under the EK (fixedTPM, fixedParent,
 * sensitiveDataOrigin, userWithAuth, restricted, sign). A kept AK is
 * reused after a restart. It is replaced, with a warning, only when it
 * cannot belong to this EK: the file names another EK or AK algorithm,
 * or the TPM refuses the blob as not its own (cleared TPM, new EK seed).
 * A file that is unreadable or malformed is an error, not a reason to
 * make a new identity.
 *
 * Return: TPM_OK, TPM_ERR_COMM, TPM_ERR_AUTH, TPM_ERR_OTHER.
 */
enum tpm_status tpm_ak_load(struct tpm *t, const char *state_dir,
			    enum tpm_key_alg alg, struct tpm_ak *ak);

/**
 * tpm_activate_credential() - TPM2_ActivateCredential with the EK and AK.
 * @t: the TPM, with EK and AK loaded
 * @cred: marshalled TPM2B_ID_OBJECT (credentialBlob)
 * @cred_len: bytes in @cred
 * @secret: marshalled TPM2B_ENCRYPTED_SECRET
 * @secret_len: bytes in @secret
 * @out: receives the recovered secret, at least TPM_SECRET_MAX bytes;
 *	 the caller wipes it with explicit_bzero() after use
 * @out_len: receives the number of bytes written to @out
 *
 * Return: TPM_OK; TPM_ERR_OTHER for input that does not unmarshal or a
 * credential the TPM rejects (made for another EK or another AK Name);
 * TPM_ERR_COMM; TPM_ERR_AUTH.
 */
enum tpm_status tpm_activate_credential(struct tpm *t, const uint8_t *cred,
					size_t cred_len, const uint8_t *secret,
					size_t secret_len, uint8_t *out,
					size_t *out_len);

/**
 * tpm_quote() - an AK-signed quote over @mask of @bank and those PCRs.
 * @t: the TPM, with the AK loaded
 * @bank: the PCR bank (a hash_algo with ->bank set and a TPM algorithm)
 * @mask: bit i quotes PCR i (PCRs 0-23); proto/DESIGN.md §4 uses 0-10 and
 *	  every other PCR the firmware event log extends (rules_pcr_mask())
 * @nonce: qualifyingData, the verifier's nonce
 * @nonce_len: bytes in @nonce, at most TPM_NONCE_MAX
 * @q: receives the TPMS_ATTEST, the TPMT_SIGNATURE and the PCR values
 *
 * The PCR values are read with TPM2_PCR_Read (eight per call) before the
 * quote, and the TPM's PCR update counter is read again after it: when
 * any PCR changed in between (the kernel extended), the round is retried,
 * so the values returned are the ones the quote's pcrDigest covers.
 *
 * Return: TPM_OK; TPM_ERR_COMM when the PCRs kept changing or transport
 * failed; TPM_ERR_OTHER for a bad argument or a TPM error.
 */
enum tpm_status tpm_quote(struct tpm *t, const struct hash_algo *bank,
			  uint32_t mask, const uint8_t *nonce, size_t nonce_len,
			  struct tpm_evidence_quote *q);

/**
 * typedef tpm_quote_resolver - find the values a quote covers.
 * @arg: the caller's
 * @q: a quote whose PCRs moved between the read before it and the one
 *     after it; @q->pcrs holds the values read before
 *
 * Return: 0 when @q->pcrs now holds values the quote's digest covers, -1
 * when none were found (the quote is taken again).
 */
typedef int (*tpm_quote_resolver)(void *arg, struct tpm_evidence_quote *q);

/**
 * tpm_quote_resolved() - tpm_quote() that keeps a quote whose PCRs moved
 * when @resolve finds the values it covers.
 * @t: the TPM
 * @bank: as tpm_quote()
 * @mask: as tpm_quote()
 * @nonce: as tpm_quote()
 * @nonce_len: as tpm_quote()
 * @resolve: see tpm_quote_resolver; NULL is tpm_quote()
 * @arg: passed to @resolve
 * @q: as tpm_quote()
 *
 * Return: as tpm_quote().
 */
enum tpm_status tpm_quote_resolved(struct tpm *t, const struct hash_algo *bank,
				   uint32_t mask, const uint8_t *nonce,
				   size_t nonce_len, tpm_quote_resolver resolve,
				   void *arg, struct tpm_evidence_quote *q);

/**
 * tpm_pcr_extend() - TPM2_PCR_Extend of one PCR in one or more banks.
 * @t: the TPM
 * @pcr: the PCR index (0-23)
 * @values: one digest per bank to extend
 * @count: entries in @values (1 to the number of banks)
 *
 * For test harnesses that play the kernel; the agent itself never
 * extends.
 *
 * Return: TPM_OK, TPM_ERR_COMM, TPM_ERR_AUTH (locality), TPM_ERR_OTHER.
 */
enum tpm_status tpm_pcr_extend(struct tpm *t, unsigned int pcr,
			       const struct tpm_digest *values, size_t count);

/**
 * tpm_reset_count() - the TPM's resetCount (TPM2_ReadClock).
 * @t: the TPM
 * @reset_count: receives it
 *
 * It counts TPM Resets, i.e. boots, and stays through a kexec, which
 * carries the measurement list over with the PCRs: the one notion of
 * "this boot" both the verifier and the list agree on.
 *
 * Return: TPM_OK, TPM_ERR_COMM, TPM_ERR_OTHER.
 */
enum tpm_status tpm_reset_count(struct tpm *t, uint32_t *reset_count);

/**
 * tpm_status_name() - short lower-case name of @status ("comm", ...).
 * @status: a status
 *
 * Return: a static string, never NULL.
 */
const char *tpm_status_name(enum tpm_status status);

#endif /* IMATRUST_AGENT_TPM_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wire.h - the JSON messages between agent and verifier (protocol v3).
 *
 * Every message carries "v": 1, 2 or 3 (WIRE_VERSION); a receiver rejects
 * any other version, and a field added by a later version than the
 * message says. The encoder
 * writes the version the message's ->version says (evidence, verdict), or
 * else the lowest one that can carry the message, so a v1 peer still
 * reads everything a later peer sends it unless it spoke a later version
 * itself. Binary TPM structures travel as base64, nonces and digests as
 * lower-case hex, PCR values as {"index": "hex"}. Each message is a plain
 * struct described by a field table in wire.c, so one encoder and one
 * decoder serve all of them and every field has a stated maximum.
 *
 *   enroll       agent -> verifier  POST /v1/agents
 *   challenge    verifier -> agent  the credential to activate
 *   activate     agent -> verifier  POST /v1/agents/{id}/activate
 *   evidence     agent -> verifier  POST /v1/agents/{id}/evidence
 *   verdict      verifier -> agent  answer to activate and evidence
 *   nonce        verifier -> agent  answer to POST /v1/agents/{id}/nonce:
 *                                   a nonce and nothing about the machine
 *   bundle       pipeline -> verifier  POST /v1/verify (operator): the
 *                                   evidence fields of a whole list, with
 *                                   the AK or an enrolled machine's id
 */
#ifndef IMATRUST_WIRE_H
#define IMATRUST_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "hash_algo.h"
#include "pcr_set.h"
#include "result.h"

#define WIRE_VERSION 3
#define WIRE_VERSION_MIN 1 /* the oldest one still accepted */
#define WIRE_ID_MAX 64	   /* agent id: [A-Za-z0-9._-] */
#define WIRE_NONCE_MIN \
	16 /* bytes: what the verifier stores
					 * (db.h DB_NONCE_MIN) */
#define WIRE_NONCE_MAX \
	64		       /* bytes: a TPM2B_DATA's qualifyingData
					 * (db.h DB_NONCE_MAX) */
#define WIRE_TPM_BLOB_MAX 4096 /* a TPM2B / TPMS structure */
#define WIRE_CERT_MAX 8192     /* an EK certificate, DER */
#define WIRE_RECORDS_MAX \
	(4u << 20)		     /* list bytes per evidence, boot log
					 * included */
#define WIRE_BOOT_LOG_MAX (1u << 20) /* firmware event log bytes (v2) */
#define WIRE_STATE_MAX 16	     /* "untrusted" ... */
#define WIRE_BODY_MAX (6u << 20)     /* JSON body, any message */
/* first_index of a probe: evidence with no records that asks, proven by
 * its quote, for the machine's state and next index (PROTOCOL.md) */
#define WIRE_PROBE_INDEX ((uint64_t)1 << 62)

enum wire_kind {
	WIRE_ENROLL,
	WIRE_CHALLENGE,
	WIRE_ACTIVATE,
	WIRE_EVIDENCE,
	WIRE_VERDICT,
	WIRE_NONCE,
	WIRE_BUNDLE,
};

/* A byte string owned by its message (freed by wire_free()). */
struct wire_blob {
	uint8_t *data;
	size_t len;
};

struct wire_enroll {
	char agent[WIRE_ID_MAX + 1];
	struct wire_blob ek_pub;  /* TPM2B_PUBLIC */
	struct wire_blob ek_cert; /* DER; optional (len 0) */
	struct wire_blob ak_pub;  /* TPM2B_PUBLIC */
};

struct wire_challenge {
	struct wire_blob credential; /* TPM2B_ID_OBJECT */
	struct wire_blob secret;     /* TPM2B_ENCRYPTED_SECRET */
};

struct wire_activate {
	char agent[WIRE_ID_MAX + 1];
	uint8_t proof[32]; /* HMAC-SHA256(secret, agent id) */
	size_t proof_len;
};

struct wire_evidence {
	char agent[WIRE_ID_MAX + 1];
	uint8_t nonce[WIRE_NONCE_MAX];
	size_t nonce_len;
	const struct hash_algo *bank; /* of the quote and "pcrs" */
	struct wire_blob quote;	      /* TPMS_ATTEST as the TPM signed it */
	struct wire_blob signature;   /* TPMT_SIGNATURE */
	struct pcr_set pcrs;	      /* the quoted PCRs' values */
	uint64_t first_index;	      /* list index of records[0] */
	struct wire_blob records;     /* binary list bytes; may be empty */
	uint64_t more;		      /* 1: the list goes on past @records,
					 * which filled a message (optional) */
	struct wire_blob boot_log;    /* v2, optional (len 0): the raw TCG
					 * firmware event log of this boot */
	uint64_t list_start;	      /* v3, optional (0 absent): the first
					 * index the kernel still holds this
					 * boot; [0, list_start) were deleted
					 * from it. < WIRE_PROBE_INDEX */
	uint8_t list_start_pcr[HASH_ALGO_MAX_SIZE]; /* v3, optional:
					 * PCR 10 of @bank right after record
					 * list_start - 1, the agent's replay;
					 * only with list_start > 0 */
	size_t list_start_pcr_len; /* 0 absent, else @bank's size */
	int export_sync;	   /* v3 "export": true: the agent deletes
					 * what the answer's stored_records
					 * confirms, so they must be durable */
	unsigned int version;	   /* decoded: 1 to 3; to encode: 0 is
					 * the lowest that carries it */
};

struct wire_verdict {
	char state[WIRE_STATE_MAX + 1];
	uint8_t nonce[WIRE_NONCE_MAX]; /* for the next evidence */
	size_t nonce_len;
	uint64_t nonce_expires; /* seconds since the epoch */
	uint64_t nonce_ttl;	/* seconds it lives from issue (optional:
					 * 0 when absent); immune to clock skew */
	uint64_t next_index;	/* first record the verifier needs */
	char boot_log[WIRE_STATE_MAX + 1]; /* v2, optional ("" absent):
						 * "wanted" */
	uint64_t stored_records;	   /* v3, optional: records [0, this) of
					 * the quote's boot are in the
					 * database (durably after "export") */
	int has_stored_records;		   /* 1: @stored_records is sent */
	unsigned int version;		   /* as in struct wire_evidence */
};

/* A nonce only: anyone may ask for it, so it says nothing else. */
struct wire_nonce {
	uint8_t nonce[WIRE_NONCE_MAX]; /* the machine's outstanding nonce */
	size_t nonce_len;
	uint64_t nonce_expires; /* seconds since the epoch */
	uint64_t nonce_ttl;	/* seconds it has left */
};

/*
 * A one-shot verification request: one quote over the caller's nonce and
 * the whole list from record 0, judged and stored nowhere. The evidence
 * fields are the agent's (same keys, same encoding); @ev.agent,
 * @ev.first_index and @ev.more are not part of it (0). wire_decode()
 * refuses a bundle with both or neither of @machine and @ak_pub.
 */
struct wire_bundle {
	char policy[WIRE_ID_MAX + 1];  /* optional ("" absent): the default */
	char machine[WIRE_ID_MAX + 1]; /* optional: use its enrolled AK */
	struct wire_blob ak_pub;       /* optional: TPM2B_PUBLIC, as enroll */
	struct wire_evidence ev;       /* nonce, bank, quote, signature, pcrs,
					 * records, boot_log (optional) */
};

/**
 * wire_id_ok() - whether @s is an id or name of the protocol and of the
 * API (machine ids, policy, key and webhook names): 1 to WIRE_ID_MAX of
 * [A-Za-z0-9._-]. The one owner of that rule.
 */
int wire_id_ok(const char *s);

/**
 * wire_encode() - the JSON text of message @msg of kind @kind.
 * @kind: which struct @msg points to
 * @msg: the message
 * @err: filled on failure
 *
 * Return: a NUL-terminated string the caller frees, or NULL when a field
 * is out of its bounds.
 */
char *wire_encode(enum wire_kind kind, const void *msg, struct imt_error *err);

/**
 * wire_decode() - parse @len bytes of JSON into @msg of kind @kind.
 * @kind: which struct @msg points to
 * @json: the body (need not be NUL-terminated)
 * @len: its length
 * @msg: zeroed by this call, then filled; release with wire_free()
 * @err: on failure names the field and what is wrong with it
 *
 * Return: IMT_OK; IMT_ERR_MALFORMED (not JSON, wrong version, missing or
 * ill-typed field, bad encoding, unknown key); IMT_ERR_LIMIT (body or a
 * field above its maximum); IMT_ERR_UNSUPPORTED (unknown bank).
 */
enum imt_result wire_decode(enum wire_kind kind, const char *json, size_t len,
			    void *msg, struct imt_error *err);

/*
 * Evidence with its bytes after the JSON (PROTOCOL.md, "Bytes after the
 * JSON"): the evidence's JSON text, in which each base64 field ("quote",
 * "signature", "records", "boot_log") is the count of its bytes and
 * "pcrs" the list of PCR indices, ascending; one NUL byte; then those
 * bytes in the order of the fields, each PCR value in its bank's size.
 * JSON text has no raw NUL byte, so the first one ends it. The bytes then
 * travel as they are, not as base64 or hex inside JSON strings, which the
 * JSON parser reads a character at a time: that cost the verifier more
 * per record than storing the record, and 40 % of a heartbeat's work
 * beside its signature check.
 */
#define WIRE_EVIDENCE_FRAMED_TYPE "application/vnd.imatrust.evidence"

/**
 * wire_encode_evidence_framed() - the body of @ev in the framed form.
 * @ev: the evidence; its blobs and PCR values go after the JSON text
 * @len: receives the body's length (it holds a NUL byte)
 * @err: filled on failure
 *
 * Return: the body the caller frees, or NULL as wire_encode().
 */
char *wire_encode_evidence_framed(const struct wire_evidence *ev, size_t *len,
				  struct imt_error *err);

/**
 * wire_decode_evidence_framed() - parse a framed evidence body into @ev.
 * @body: the JSON text, a NUL byte, the bytes it counts
 * @len: its length
 * @ev: zeroed by this call, then filled; release with wire_free()
 * @err: on failure says what is wrong
 *
 * Return: as wire_decode(); IMT_ERR_MALFORMED also when no NUL byte ends
 * the JSON text, a blob is not a count or PCRs not a list of indices,
 * or the counts and the bytes after the text disagree; IMT_ERR_LIMIT
 * when a count passes its field's maximum.
 */
enum imt_result wire_decode_evidence_framed(const char *body, size_t len,
					    struct wire_evidence *ev,
					    struct imt_error *err);

/**
 * wire_free() - release what wire_decode() allocated in @msg.
 * @kind: which struct @msg points to
 * @msg: the message; its blobs are freed and zeroed
 */
void wire_free(enum wire_kind kind, void *msg);

#endif /* IMATRUST_WIRE_H */

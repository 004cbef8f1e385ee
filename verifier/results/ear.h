/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ear.h - a machine's attestation result as an EAR (EAT Attestation
 * Result, draft-fv-rats-ear): the claims, with the AR4SI trustworthiness
 * vector (draft-ietf-rats-ar4si), signed as a compact JWS (ES256) that a
 * relying party checks offline with the verifier's JWK Set.
 *
 * Format (version: the eat_profile), claims of the JWT:
 *
 *	eat_profile	"tag:github.com,2023:veraison/ear"
 *	iat, exp	seconds; exp: when the verifier would stop calling the
 *			machine trusted without new evidence (stale_after)
 *	sub		the machine id
 *	eat_nonce	the relying party's nonce, when it gave one
 *	ear.verifier-id	{"developer": "imatrust", "build": "imatrust-verifier V"}
 *	submods		{ID: {"ear.status", "ear.trustworthiness-vector",
 *			 "ear.appraisal-policy-id", "imatrust.state",
 *			 "imatrust.tnc", "imatrust.state-reason"}}
 *
 * Everything but ear_token() is pure: no clock, no database, no key.
 */
#ifndef IMATRUST_EAR_H
#define IMATRUST_EAR_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "db_machine.h"
#include "result_key.h"

#ifndef IMATRUST_VERSION
#define IMATRUST_VERSION "0.1"
#endif

#define EAR_PROFILE "tag:github.com,2023:veraison/ear"
#define EAR_DEVELOPER "imatrust"
#define EAR_NONCE_MIN 8 /* bytes of an eat_nonce (EAT) */
#define EAR_NONCE_MAX 64
#define EAR_TOKEN_MAX (256u << 10) /* bytes of one compact JWS */

/* ear.status: the trust tiers of AR4SI, with their JSON names */
enum ear_tier {
	EAR_TIER_NONE = 0,
	EAR_TIER_AFFIRMING = 2,
	EAR_TIER_WARNING = 32,
	EAR_TIER_CONTRAINDICATED = 96,
};

/*
 * AR4SI trustworthiness claim values the verifier gives (0: no claim,
 * left out of the vector).
 */
#define EAR_TC_NONE 0
#define EAR_TC_INSTANCE_TRUSTWORTHY 2 /* instance-identity */
#define EAR_TC_INSTANCE_UNRECOGNIZED 97
#define EAR_TC_RUNTIME_APPROVED 2 /* executables */
#define EAR_TC_RUNTIME_UNRECOGNIZED 33
#define EAR_TC_RUNTIME_CONTRAINDICATED 96
#define EAR_TC_HARDWARE_GENUINE 2 /* hardware */
#define EAR_TC_CRYPTO_FAILED 99	  /* any: evidence does not verify */

/* The vector the verifier can appraise; other AR4SI claims it leaves out. */
struct ear_vector {
	int instance_identity;
	int executables;
	int hardware;
};

/* What the verifier knows of one machine; strings borrowed. */
struct ear_facts {
	const char *id;
	enum db_machine_state state;
	const char *reason; /* the state reason's JSON text, or NULL */
	const char *policy; /* the named policy that applies */
	int ek_chained;	    /* its EK certificate chains to ek_ca */
	int64_t last_seen;  /* last valid evidence, 0 when none */
	int64_t now;
	uint64_t stale_after; /* seconds */
	const char *nonce;    /* base64url as given, or NULL */
};

/** ear_tier_of() - ear.status of a machine in @state. */
enum ear_tier ear_tier_of(enum db_machine_state state);

/** ear_tier_name() - "none", "affirming", "warning", "contraindicated". */
const char *ear_tier_name(enum ear_tier tier);

/**
 * ear_vector_of() - the trustworthiness vector @f supports.
 * @f: the machine's facts
 * @tv: receives the claims (EAR_TC_NONE where none is made)
 */
void ear_vector_of(const struct ear_facts *f, struct ear_vector *tv);

/**
 * ear_expiry() - "exp" of a result issued at @f->now: last_seen +
 * stale_after when the machine's state rests on evidence, at most now +
 * stale_after, at least now + 1.
 */
int64_t ear_expiry(const struct ear_facts *f);

/**
 * ear_nonce_ok() - is @nonce base64url (unpadded) of EAR_NONCE_MIN to
 * EAR_NONCE_MAX bytes?
 */
int ear_nonce_ok(const char *nonce);

/**
 * ear_claims() - the JWT claims set of @f.
 * Return: a new reference, or NULL on allocation failure.
 */
json_t *ear_claims(const struct ear_facts *f);

/**
 * ear_token() - @claims signed by @k as a compact JWS (JWT): header
 * {"alg":"ES256","typ":"JWT","kid":KID}.
 * @k: the result key
 * @claims: the claims set (borrowed)
 *
 * Return: malloc'ed NUL-terminated token, or NULL.
 */
char *ear_token(const struct result_key *k, json_t *claims);

#endif /* IMATRUST_EAR_H */

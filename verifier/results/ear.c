// SPDX-License-Identifier: GPL-2.0-only
/*
 * ear.c - attestation results as EAR claims, signed as a JWT.
 *
 * The tier and the vector come from what the verifier knows, nothing
 * more (verifier/README.md "Signed attestation results" has the table):
 * a machine's tier follows its state; instance-identity is claimed for a
 * machine whose EK was vouched for (CA chain, pre-registration or an
 * operator's approval: every machine but a pending one), hardware only
 * when the EK certificate chains to ek_ca, executables from the verdicts
 * of the current boot's records.
 */
#include <stdlib.h>
#include <string.h>

#include "db_machine.h"
#include "ear.h"
#include "transition.h"
#include "json_text.h"

enum ear_tier ear_tier_of(enum db_machine_state state)
{
	static const enum ear_tier tiers[] = {
		[DB_STATE_ENROLLING] = EAR_TIER_NONE,
		[DB_STATE_PENDING] = EAR_TIER_NONE,
		[DB_STATE_TRUSTED] = EAR_TIER_AFFIRMING,
		[DB_STATE_UNTRUSTED] = EAR_TIER_CONTRAINDICATED,
		[DB_STATE_FAILED] = EAR_TIER_CONTRAINDICATED,
		[DB_STATE_STALE] = EAR_TIER_WARNING,
	};

	if ((size_t)state >= sizeof(tiers) / sizeof(tiers[0]))
		return EAR_TIER_NONE;
	return tiers[state];
}

const char *ear_tier_name(enum ear_tier tier)
{
	switch (tier) {
	case EAR_TIER_AFFIRMING:
		return "affirming";
	case EAR_TIER_WARNING:
		return "warning";
	case EAR_TIER_CONTRAINDICATED:
		return "contraindicated";
	default:
		return "none";
	}
}

/*
 * An untrusted machine's runtime: a record nobody vouched for is
 * unrecognized (33); one that contradicts what is known (another digest
 * for its path, a bad signature, a violation, a boot rule) is
 * contraindicated (96).
 */
static int untrusted_runtime(const char *reason)
{
	json_t *j = reason != NULL ? json_loads(reason, 0, NULL) : NULL;
	const char *verdict = json_string_value(json_object_get(j, "verdict"));
	int tc = verdict != NULL && strcmp(verdict, "unknown") == 0 ?
			 EAR_TC_RUNTIME_UNRECOGNIZED :
			 EAR_TC_RUNTIME_CONTRAINDICATED;

	json_decref(j);
	return tc;
}

void ear_vector_of(const struct ear_facts *f, struct ear_vector *tv)
{
	memset(tv, 0, sizeof(*tv));
	tv->instance_identity = f->state == DB_STATE_PENDING ?
					EAR_TC_INSTANCE_UNRECOGNIZED :
					EAR_TC_INSTANCE_TRUSTWORTHY;
	if (f->ek_chained)
		tv->hardware = EAR_TC_HARDWARE_GENUINE;
	switch (f->state) {
	case DB_STATE_TRUSTED:
		tv->executables = EAR_TC_RUNTIME_APPROVED;
		break;
	case DB_STATE_UNTRUSTED:
		tv->executables = untrusted_runtime(f->reason);
		break;
	case DB_STATE_FAILED:
		/* signed evidence that does not hold: replay, counters... */
		tv->executables = EAR_TC_CRYPTO_FAILED;
		break;
	default:
		/* no (fresh) evidence: no claim about what runs */
		break;
	}
}

int64_t ear_expiry(const struct ear_facts *f)
{
	int64_t bound = f->now + (int64_t)f->stale_after;
	int64_t due = f->last_seen + (int64_t)f->stale_after;
	int on_evidence = f->state == DB_STATE_TRUSTED ||
			  f->state == DB_STATE_UNTRUSTED ||
			  f->state == DB_STATE_FAILED;

	if (!on_evidence || f->last_seen <= 0 || due >= bound)
		return bound;
	return due > f->now ? due : f->now + 1;
}

int ear_nonce_ok(const char *nonce)
{
	uint8_t buf[B64_DECODED_MAX(B64URL_ENCODED_LEN(EAR_NONCE_MAX) + 3)];
	size_t n = strlen(nonce);
	long got;

	if (n < B64URL_ENCODED_LEN(EAR_NONCE_MIN) ||
	    n > B64URL_ENCODED_LEN(EAR_NONCE_MAX))
		return 0;
	got = b64url_decode(nonce, n, buf);
	return got >= EAR_NONCE_MIN && got <= EAR_NONCE_MAX;
}

/* Add @name: @value to @o when @value is a claim. */
static void vector_add(json_t *o, const char *name, int value)
{
	if (value != EAR_TC_NONE)
		json_object_set_new(o, name, json_integer(value));
}

static json_t *submod(const struct ear_facts *f)
{
	struct ear_vector tv;
	json_t *vec = json_object();

	ear_vector_of(f, &tv);
	vector_add(vec, "instance-identity", tv.instance_identity);
	vector_add(vec, "executables", tv.executables);
	vector_add(vec, "hardware", tv.hardware);
	return json_pack("{s:s,s:o,s:s,s:s,s:s,s:o}", "ear.status",
			 ear_tier_name(ear_tier_of(f->state)),
			 "ear.trustworthiness-vector", vec,
			 "ear.appraisal-policy-id", f->policy, "imatrust.state",
			 db_machine_state_name(f->state), "imatrust.tnc",
			 transition_tnc_name(transition_tnc_of(f->state)),
			 "imatrust.state-reason", json_reason(f->reason));
}

json_t *ear_claims(const struct ear_facts *f)
{
	json_t *c;

	c = json_pack("{s:s,s:I,s:I,s:s,s:{s:s,s:s},s:{s:o}}", "eat_profile",
		      EAR_PROFILE, "iat", (json_int_t)f->now, "exp",
		      (json_int_t)ear_expiry(f), "sub", f->id,
		      "ear.verifier-id", "developer", EAR_DEVELOPER, "build",
		      "imatrust-verifier " IMATRUST_VERSION, "submods", f->id,
		      submod(f));
	if (c != NULL && f->nonce != NULL &&
	    json_object_set_new(c, "eat_nonce", json_string(f->nonce)) < 0) {
		json_decref(c);
		c = NULL;
	}
	return c;
}

/* base64url of the compact JSON of @j, appended at @out; its length. */
static size_t part(json_t *j, char *out, size_t room)
{
	char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
	size_t len = text != NULL ? strlen(text) : 0;

	if (text == NULL || B64_ENCODED_LEN(len) + 1 > room) {
		free(text);
		return 0;
	}
	b64url_encode((const uint8_t *)text, len, out);
	free(text);
	return strlen(out);
}

char *ear_token(const struct result_key *k, json_t *claims)
{
	uint8_t sig[RESULT_SIG_LEN];
	char *tok = malloc(EAR_TOKEN_MAX);
	json_t *hdr = json_pack("{s:s,s:s,s:s}", "alg", "ES256", "typ", "JWT",
				"kid", k->kid);
	size_t n = 0, m;

	if (tok == NULL || hdr == NULL)
		goto fail;
	n = part(hdr, tok, EAR_TOKEN_MAX);
	if (n == 0)
		goto fail;
	tok[n++] = '.';
	m = part(claims, tok + n, EAR_TOKEN_MAX - n);
	if (m == 0)
		goto fail;
	n += m;
	/* the signing input is header.payload (RFC 7515 §5.1) */
	if (result_key_sign(k, tok, n, sig) < 0 ||
	    n + 1 + B64_ENCODED_LEN(RESULT_SIG_LEN) + 1 > EAR_TOKEN_MAX)
		goto fail;
	tok[n++] = '.';
	b64url_encode(sig, sizeof(sig), tok + n);
	json_decref(hdr);
	return tok;
fail:
	json_decref(hdr);
	free(tok);
	return NULL;
}

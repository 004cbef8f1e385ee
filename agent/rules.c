// SPDX-License-Identifier: GPL-2.0-only
/*
 * rules.c - the protocol's rules for the agent, pure (see rules.h).
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rules.h"
#include "tcg_log.h"

/* The 403 messages that mean "enroll again" (PROTOCOL.md). */
static const char *const rules_reenroll_403[] = { "not activated", "challenge",
						  "rejected" };

static int rules_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum rules_reaction rules_reaction(long status, const char *message)
{
	size_t i;

	if (status == 200 || status == 201)
		return RULES_GO_ON;
	if (status == 404)
		return RULES_ENROLL;
	if (status == 409)
		return RULES_CONFLICT;
	if (status != 403)
		return RULES_BACKOFF;
	if (rules_starts(message, "pending"))
		return RULES_PENDING;
	for (i = 0;
	     i < sizeof(rules_reenroll_403) / sizeof(rules_reenroll_403[0]);
	     i++) {
		if (rules_starts(message, rules_reenroll_403[i]))
			return RULES_ENROLL;
	}
	return RULES_BACKOFF;
}

const char *rules_reaction_name(enum rules_reaction r)
{
	static const char *const names[] = {
		[RULES_GO_ON] = "go on",      [RULES_ENROLL] = "enroll",
		[RULES_PENDING] = "pending",  [RULES_CONFLICT] = "conflict",
		[RULES_BACKOFF] = "back off",
	};

	return (size_t)r < sizeof(names) / sizeof(names[0]) ? names[r] : "?";
}

void rules_error_message(const char *body, size_t len, char *out, size_t size)
{
	const char *msg;
	json_t *root;

	out[0] = '\0';
	if (body == NULL || len == 0)
		return;
	root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
	msg = json_string_value(
		json_object_get(json_object_get(root, "error"), "message"));
	if (msg != NULL)
		snprintf(out, size, "%s", msg);
	json_decref(root);
}

uint64_t rules_nonce_life_ms(uint64_t expires, uint64_t now_wall)
{
	uint64_t ms;

	if (expires <= now_wall)
		return RULES_NONCE_LIFE_MIN_MS;
	if (expires - now_wall > RULES_NONCE_LIFE_MAX_MS / 1000)
		return RULES_NONCE_LIFE_MAX_MS;
	ms = (expires - now_wall) * 1000;
	return ms < RULES_NONCE_LIFE_MIN_MS ? RULES_NONCE_LIFE_MIN_MS : ms;
}

int rules_nonce_stale(uint64_t got_ms, uint64_t life_ms, uint64_t now_ms)
{
	return now_ms < got_ms || now_ms - got_ms >= life_ms / 2;
}

enum rules_resume rules_resume(uint64_t first, uint64_t count,
			       uint64_t next_index, uint64_t *drop)
{
	*drop = 0;
	if (next_index == first + count)
		return RULES_CONTINUE;
	if (next_index >= first && next_index < first + count) {
		*drop = next_index - first;
		return RULES_KEEP_TAIL;
	}
	return RULES_REWIND;
}

uint64_t rules_wait_ms(int pollable, uint64_t fallback_ms,
		       uint64_t heartbeat_left_ms, int retry_soon)
{
	uint64_t ms = heartbeat_left_ms;

	/* without poll() only a timer notices records; likewise for
	 * records a quote just missed, which wake no poll() again */
	if ((!pollable || retry_soon) && fallback_ms < ms)
		ms = fallback_ms;
	return ms;
}

int rules_proof(const uint8_t *secret, size_t secret_len, const char *id,
		uint8_t *proof)
{
	unsigned int len = 0;

	if (HMAC(EVP_sha256(), secret, (int)secret_len,
		 (const unsigned char *)id, strlen(id), proof, &len) == NULL ||
	    len != RULES_PROOF_LEN)
		return -1;
	return 0;
}

uint32_t rules_pcr_mask(const uint8_t *log, size_t len)
{
	uint32_t extended;
	struct imt_error err;

	if (log == NULL ||
	    tcg_log_extended(log, len, &extended, &err) != IMT_OK)
		return RULES_PCR_MASK;
	return RULES_PCR_MASK | extended;
}

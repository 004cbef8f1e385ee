/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rules.h - the protocol's rules for the agent (proto/PROTOCOL.md), as
 * pure functions: how to react to an answer, when a nonce is too old,
 * where to resume the list after a verdict, how long to sleep, and the
 * activation proof. agent.c does the I/O around them; the unit tests call
 * them directly (tests/unit/agent/test_rules.c).
 */
#ifndef IMATRUST_AGENT_RULES_H
#define IMATRUST_AGENT_RULES_H

#include <stddef.h>
#include <stdint.h>

#define RULES_PROOF_LEN 32		/* HMAC-SHA256 */
#define RULES_NONCE_LIFE_MIN_MS 2000	/* a nonce is used within this */
#define RULES_NONCE_LIFE_MAX_MS 3600000 /* the verifier's nonce_ttl max */
#define RULES_MESSAGE_MAX 256		/* an error message kept for logs */
#define RULES_PCR_MASK 0x7ffu		/* PCRs 0-10 are always quoted */

/* What the agent does after an HTTP answer (PROTOCOL.md, status codes). */
enum rules_reaction {
	RULES_GO_ON,	/* 200/201: processed */
	RULES_ENROLL,	/* 404, 403 "not activated" / "challenge" */
	RULES_PENDING,	/* 403 "pending": wait for an operator */
	RULES_CONFLICT, /* 409: the id belongs to another EK */
	RULES_BACKOFF,	/* 400, 413, 415, 5xx, anything else */
};

/* Where the list continues after a verdict. */
enum rules_resume {
	RULES_CONTINUE,	 /* next_index follows the batch: go on */
	RULES_KEEP_TAIL, /* inside the batch: keep the records past it */
	RULES_REWIND,	 /* elsewhere: read the list again from there */
};

/**
 * rules_reaction() - the reaction to HTTP @status with error @message.
 * @status: the HTTP status
 * @message: the "message" of the error body, or "" (borrowed)
 */
enum rules_reaction rules_reaction(long status, const char *message);

/**
 * rules_reaction_name() - "go on", "enroll", ... for log lines.
 * @r: a reaction
 */
const char *rules_reaction_name(enum rules_reaction r);

/**
 * rules_error_message() - the "message" of an error body.
 * @body: {"v":1,"error":{"status":N,"message":"..."}} (need not be
 *	  NUL-terminated); NULL is allowed
 * @len: bytes in @body
 * @out: receives the message, cut to @size - 1 bytes; "" when the body
 *	 is not such an error
 * @size: bytes in @out
 */
void rules_error_message(const char *body, size_t len, char *out, size_t size);

/**
 * rules_nonce_life_ms() - how long a nonce lives by the agent's clock.
 * @expires: nonce_expires of the verdict (verifier wall clock, seconds)
 * @now_wall: the agent's wall clock when the verdict arrived (seconds)
 *
 * Clock skew between the machines makes @expires - @now_wall only an
 * estimate of the TTL; it is clamped to [RULES_NONCE_LIFE_MIN_MS,
 * RULES_NONCE_LIFE_MAX_MS] so skew can neither make every round ask for a
 * new nonce nor let the agent keep one for days.
 *
 * Return: the lifetime in milliseconds.
 */
uint64_t rules_nonce_life_ms(uint64_t expires, uint64_t now_wall);

/**
 * rules_nonce_stale() - is a nonce too old to send (PROTOCOL.md)?
 * @got_ms: monotonic time the nonce arrived
 * @life_ms: its lifetime, rules_nonce_life_ms()
 * @now_ms: monotonic time now
 *
 * Return: 1 when at least half its lifetime has passed, else 0.
 */
int rules_nonce_stale(uint64_t got_ms, uint64_t life_ms, uint64_t now_ms);

/**
 * rules_resume() - where the list continues after a verdict.
 * @first: list index of the first record sent
 * @count: records sent (the batch is [first, first + count))
 * @next_index: the verdict's next_index
 * @drop: on RULES_KEEP_TAIL, how many records at the batch's head the
 *	  verifier has proven (the rest it wants again)
 *
 * Keeping the tail spares a re-read of the whole list (the only way back
 * in a list file) in the common race of records added between quote and
 * read.
 */
enum rules_resume rules_resume(uint64_t first, uint64_t count,
			       uint64_t next_index, uint64_t *drop);

/**
 * rules_wait_ms() - how long to sleep before looking at the list again.
 * @pollable: the list reports new records through poll()
 * @fallback_ms: the timer for lists that cannot be polled
 * @heartbeat_left_ms: time until the next heartbeat is due
 * @retry_soon: records are waiting that the last quote did not cover
 *
 * Return: milliseconds, at most @heartbeat_left_ms.
 */
uint64_t rules_wait_ms(int pollable, uint64_t fallback_ms,
		       uint64_t heartbeat_left_ms, int retry_soon);

/**
 * rules_proof() - the activation proof, HMAC-SHA256(key=@secret, @id).
 * @secret: the secret ActivateCredential recovered
 * @secret_len: its length
 * @id: the agent id
 * @proof: receives RULES_PROOF_LEN bytes
 *
 * Return: 0, or -1 when OpenSSL fails.
 */
int rules_proof(const uint8_t *secret, size_t secret_len, const char *id,
		uint8_t *proof);

/**
 * rules_pcr_mask() - the PCRs to quote: 0-10, and every other PCR the
 * firmware event log @log extends (systemd-stub's 11-13, shim's 14, ...),
 * which the verifier replays and requires quoted (proto/DESIGN.md §4).
 * @log: the firmware event log, or NULL when none is sent
 * @len: bytes in @log
 * A log that does not parse (none, a SHA-1-only legacy one, a bad one)
 * extends nothing the verifier replays: PCRs 0-10.
 * Return: the mask, bit i for PCR i.
 */
uint32_t rules_pcr_mask(const uint8_t *log, size_t len);

#endif /* IMATRUST_AGENT_RULES_H */

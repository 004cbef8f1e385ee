/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * agent_int.h - what the agent's state machine files share (agent/agent*.c):
 * the agent's state and the steps each file contributes. Not for anyone
 * else: agent.h is the interface.
 *
 *   agent.c         start, stop, the step table, agent_run()
 *   agent_list.c    the record buffer and the list's two readers
 *   agent_talk.c    talking to the verifier: nonce, enrollment, verdicts
 *   agent_export.c  export = on: staging and deleting the kernel's records
 *   agent_round.c   a round of evidence, and waiting for the next one
 *
 * Records travel through one buffer: pend[0, pend_len) holds the records
 * [pend_first, pend_first + pend_count) of the list, read but not yet
 * proven by a verdict. The follower always stands at pend_first +
 * pend_count, except when pend_full: then a batch did not fit behind
 * them and the follower was rewound to that same index.
 */
#ifndef IMATRUST_AGENT_AGENT_INT_H
#define IMATRUST_AGENT_AGENT_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "agent_config.h"
#include "backoff.h"
#include "client.h"
#include "hash_algo.h"
#include "list_export.h"
#include "list_follow.h"
#include "list_replay.h"
#include "rules.h"
#include "tpm.h"
#include "wire.h"

#define AGENT_PATH_MAX (sizeof("/v1/agents//evidence") + WIRE_ID_MAX)
#define AGENT_EXPORT_RETRY_MS (60 * 1000) /* after a refused export */
/*
 * Rounds start at least this far apart. Each takes the TPM for several
 * commands (PCR reads, a signing quote), and every record the kernel
 * measures waits for the TPM too: back to back under a sustained
 * measurement rate, the agent's quotes cut the machine's own throughput
 * several times (tests/guest/fleet/export.sh). After a quiet moment the
 * next round starts at once, so detection latency is unchanged.
 */
#define AGENT_ROUND_MIN_MS 250

/*
 * agent_ek.c: the EK kind to ask tpm_ek_find() for (@c->ek, or for
 * "auto" the EK this machine took before, remembered in its state
 * directory; @buf holds it), and agent_ek_remember(), the EK taken.
 */
const char *agent_ek_kind(const struct agent_config *c, char *buf, size_t n);
void agent_ek_remember(const struct agent_config *c, const struct tpm_ek *ek);

enum agent_step {
	STEP_CONNECT, /* POST /nonce */
	STEP_ENROLL,  /* POST /v1/agents, activate */
	STEP_PENDING, /* wait for an operator, then connect */
	STEP_STREAM,  /* evidence rounds */
	STEP_BACKOFF, /* wait, then a->after_backoff */
	STEP_STOP,    /* SIGTERM/SIGINT */
	STEP_COUNT,
};

struct agent {
	const struct agent_config *cfg;
	volatile sig_atomic_t *stop;
	const sigset_t *sigmask;
	const struct hash_algo *bank;
	enum tpm_key_alg alg;
	struct tpm *tpm;
	struct tpm_ek ek;
	struct tpm_ak ak;
	struct client *client;
	struct list_follow *list;
	struct list_follow *replay_list; /* the same list, read ahead
						 * for the replay only */
	struct list_replay *replay;	 /* PCR 10 over the list read */
	int pollable; /* the list wakes poll() for new records */
	struct backoff backoff;
	enum agent_step after_backoff;
	char path_nonce[AGENT_PATH_MAX];
	char path_activate[AGENT_PATH_MAX];
	char path_evidence[AGENT_PATH_MAX];

	/* the nonce for the next evidence; nonce_len 0: ask for one */
	uint8_t nonce[WIRE_NONCE_MAX];
	size_t nonce_len;
	uint64_t nonce_got_ms; /* monotonic */
	uint64_t nonce_life_ms;
	int synced; /* a verdict said where the list continues */
	char state[WIRE_STATE_MAX + 1]; /* of the last verdict */

	uint8_t *pend; /* WIRE_RECORDS_MAX bytes */
	size_t pend_len;
	size_t pend_dirty; /* pend[0, pend_dirty) may have been written
			    * since the last pages_release() */
	uint64_t pend_first, pend_count;
	int pend_full;
	uint64_t last_sent_ms; /* monotonic time of the last evidence */
	uint64_t grew_ms;      /* monotonic: the list grew (0: not since) */
	int retry_soon;	       /* records wait that the last quote missed */
	int verifier_framed;   /* its last 2xx answer said it takes
				 * framed evidence (Accept-Post) */
	int evidence_json;     /* it refused framed evidence all the same
				 * (415): JSON for the rest of the run */
	long last_status;      /* of the last answer that was not 2xx */

	/* the firmware event log, read once at start; NULL: none to send */
	char *boot_log;
	size_t boot_log_len;
	int boot_log_due;  /* send it with the next evidence: the first
				 * of this start or enrolment, or wanted */
	uint32_t pcr_mask; /* quoted: 0-10 and what the log extends */

	/* export = on, on a kernel that can (list_export.h) */
	int export_on;
	struct list_export exp;
	uint64_t stored_records;  /* of the last verdict... */
	int stored_durable;	  /* ...to evidence that asked for it */
	uint64_t export_retry_ms; /* monotonic: no export before */
	int export_unconfirmed;	  /* said that nothing is confirmed */
};

/* agent.c */
uint64_t agent_now_ms(void);
void agent_sleep(struct agent *a, uint32_t ms);
void __attribute__((format(printf, 1, 2))) agent_status(const char *fmt, ...);

/* agent_list.c */
void agent_resume(struct agent *a, uint64_t next_index);
int agent_fill(struct agent *a);
int agent_list_open(struct agent *a, uint64_t index);
void agent_list_close(struct agent *a);

/* agent_talk.c */
enum rules_reaction agent_post_body(struct agent *a, const char *path,
				    const char *type, const char *body,
				    size_t len, struct client_reply *r);
enum agent_step agent_react(struct agent *a, enum rules_reaction re,
			    enum agent_step retry);
enum agent_step agent_take_verdict(struct agent *a, struct client_reply *r);
enum agent_step agent_nonce(struct agent *a);
enum agent_step agent_connect(struct agent *a);
enum agent_step agent_enroll(struct agent *a);
enum agent_step agent_pending(struct agent *a);
enum agent_step agent_backoff(struct agent *a);

/* agent_export.c */
void agent_export_fields(const struct agent *a, struct wire_evidence *ev);
void agent_export(struct agent *a);
int agent_export_start(struct agent *a);

/* agent_round.c */
enum agent_step agent_stream(struct agent *a);

#endif /* IMATRUST_AGENT_AGENT_INT_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bench_fleet.h - the simulated fleet of tests/bench/verifier: agents
 * with software AKs, a pool of measurement records the references know,
 * the database seeded with both, and the evidence each agent sends.
 */
#ifndef IMATRUST_BENCH_FLEET_H
#define IMATRUST_BENCH_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "soft_ak.h"
#include "wire.h"

#define FLEET_POOL 1024 /* default distinct records, each with a reference */
#define FLEET_RECORD_MAX 256  /* bytes of one pool record */
#define FLEET_RESET_COUNT 7   /* every agent's TPM resetCount */
#define FLEET_RESTART_COUNT 0 /* ... and restartCount */

/* One record of the pool: its list bytes and its sha256 template hash. */
struct fleet_record {
	uint8_t bytes[FLEET_RECORD_MAX];
	size_t len;
	uint8_t hash[32];
};

struct fleet_agent {
	char id[WIRE_ID_MAX + 1];
	struct soft_ak ak;
	uint8_t nonce[WIRE_NONCE_MAX]; /* the verifier's latest */
	size_t nonce_len;
	uint8_t pcr10[32]; /* PCR 10 after the records sent */
	uint64_t next;	   /* list index of the next record */
	uint64_t clock;	   /* the TPM clock in its quotes */
	uint64_t image;	   /* the pool index of its list's record 1 */
	size_t first;	   /* records in its boot's first evidence, with
			    * boot_aggregate (0: that one alone) */
	void *conn;	   /* the client's per-agent connection */
};

/* Evidence being built; the buffers belong to one thread. */
struct fleet_evidence {
	uint8_t attest[SOFT_AK_ATTEST_MAX];
	uint8_t sig[SOFT_AK_SIG_MAX];
	uint8_t *records;  /* room for FLEET_BATCH_MAX records */
	uint8_t pcr10[32]; /* PCR 10 after this batch */
	uint64_t next;	   /* list index after this batch */
	size_t body_len;   /* of the body fleet_evidence() returned */
};

#define FLEET_BATCH_MAX 1000 /* records in one evidence */

/**
 * fleet_boot_log() - give every agent the boot of the firmware event log
 * at @path: PCRs 0-9 are its sha256 replay, and each agent sends it with
 * its first evidence (as a v2 agent). Call before fleet_pool_init().
 *
 * Return: 0, or -1 with a message on stderr.
 */
int fleet_boot_log(const char *path);

/** fleet_boot_log_data() - that log; NULL when there is none. */
const uint8_t *fleet_boot_log_data(void);

/** fleet_boot_log_len() - bytes of that log; 0 when there is none. */
size_t fleet_boot_log_len(void);

/**
 * fleet_pool_size() - make the pool @n records (0: FLEET_POOL), each
 * with a reference: an agent's list from its record 1 on is the pool
 * from its @image on, so agents of distinct images (@image @n / k
 * apart) send records no other agent sends. Call before
 * fleet_pool_init().
 */
void fleet_pool_size(size_t n);

/** fleet_pool_count() - records in the pool (and references seeded). */
size_t fleet_pool_count(void);

/**
 * fleet_pool_init() - build the boot_aggregate record (over the sha256
 * PCRs 0-9 of the agents' boot: all zero without fleet_boot_log()) and
 * the pool's ima-ng records (fleet_pool_size()) with random paths and
 * digests; their template hashes come from libimatrust's replay, which
 * is what the verifier computes.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int fleet_pool_init(void);

/**
 * fleet_seed() - store @n agents, activated (AK bound, state enrolling),
 * and a reference for every pool record in the database at @path, which
 * the verifier must not have open.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int fleet_seed(const char *path, struct fleet_agent *agents, size_t n);

/**
 * fleet_evidence() - the body of @a's next evidence, framed as the agent
 * sends it (wire.h: JSON text, NUL, records): a quote over its PCRs
 * after @nrec more records (the first evidence of a boot is
 * boot_aggregate and @a->first - 1 more records, whatever @nrec says:
 * boot_aggregate alone when @a->first is 0).
 * @e: buffers, and on return what the agent's state becomes once the
 *     verifier accepts it (see fleet_accept()) and the body's length
 *
 * Return: the body the caller frees, or NULL with a message on stderr.
 */
char *fleet_evidence(struct fleet_agent *a, size_t nrec,
		     struct fleet_evidence *e);

/** fleet_accept() - the verifier took @e: move @a past it. */
void fleet_accept(struct fleet_agent *a, const struct fleet_evidence *e);

/**
 * fleet_write_peer() - a fresh quote of @a over a random nonce, in the
 * files tpm2_checkquote reads: DIR/ak.pem, quote.msg (TPMS_ATTEST),
 * quote.sig (TPMT_SIGNATURE), pcrs.tpm2 (PCRs 0-10 as tpm2_quote -o
 * writes them), nonce.hex.
 *
 * Return: 0, or -1 with a message on stderr.
 */
int fleet_write_peer(struct fleet_agent *a, const char *dir);

/**
 * fleet_thread_cpu() - CPU seconds of the calling thread: what the
 * benchmarks time the verifier's own calls by, on a shared machine.
 */
double fleet_thread_cpu(void);

#endif /* IMATRUST_BENCH_FLEET_H */

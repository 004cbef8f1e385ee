/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verifier.h - imatrust-verifier's state, shared by its route handlers.
 *
 * Route handlers run on libmicrohttpd's worker threads. The writer is
 * one database connection (db.h: not thread-safe), so every db_* call on
 * it and every read-modify-write of a machine happens under v->lock,
 * which the trust engine (engine.h) owns for everything that changes a
 * machine; the CPU work (JSON, signature checks, replay) runs outside it.
 * Read routes use the read view instead (read_begin(), reader.c): its
 * own lock and read-only connection, never v->lock (issue #33).
 */
#ifndef IMATRUST_VERIFIER_H
#define IMATRUST_VERIFIER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <openssl/x509_vfy.h>

#include "config.h"

struct ak_cache;
struct boot_memo;
struct backlog;
struct db;
struct http_stats;
struct imt_error;
struct keyring;
struct policy_set;
struct result_keys;
struct webhooks;

/* Counters for GET /v1/metrics; updated without the lock. */
struct verifier_metrics {
	atomic_uint_fast64_t enrollments;	/* accepted POST /v1/agents */
	atomic_uint_fast64_t activations;	/* proofs accepted */
	atomic_uint_fast64_t evidence_ok;	/* evidence that verified */
	atomic_uint_fast64_t evidence_failed;	/* evidence judged failed */
	atomic_uint_fast64_t evidence_framed;	/* bodies with the records
						 * after the JSON (wire.h) */
	atomic_uint_fast64_t records;		/* records judged */
	atomic_uint_fast64_t rejected;		/* 4xx answers to agents */
	atomic_uint_fast64_t evidence_rejected; /* not the enrolled TPM's,
						 * or not its nonce */
	atomic_uint_fast64_t nonces_issued;	/* nonce rows written */
	/* enrollment refused or bounded (engine_enroll.c) */
	atomic_uint_fast64_t enroll_cap;     /* max_open_enrollments: 503 */
	atomic_uint_fast64_t enroll_ek_cap;  /* ... per EK: 429 */
	atomic_uint_fast64_t enroll_evicted; /* unvouched challenges
						 * dropped for a vouched EK */
	atomic_uint_fast64_t enroll_taken;   /* id or EK taken: 409 */
	atomic_uint_fast64_t enroll_unregistered; /* policy: 403 */
	atomic_uint_fast64_t enroll_pending_cap;  /* max_pending: 503 */
	atomic_uint_fast64_t activations_refused; /* wrong proof: 403 */
	atomic_uint_fast64_t verifications;	  /* one-shot verdicts given */
};

struct verifier {
	struct config cfg;
	pthread_mutex_t lock;	 /* protects db: held around every db_* call */
	struct db *db;		 /* owned; the one writer connection (in a
				 * read view: its read-only one) */
	X509_STORE *ek_ca;	 /* EK issuers from cfg.ek_ca; NULL if none */
	struct backlog *backlog; /* catching-up machines; may be NULL */
	struct ak_cache *ak_cache;   /* enrolled AKs as keys; may be NULL */
	struct boot_memo *boot_memo; /* boot log checks passed; may be NULL */
	/* policies and signature keys in force (policies.c, keyring.c);
	 * under lock, loaded on first use */
	struct policy_set *policies;
	struct keyring *keyring;
	time_t started;
	struct verifier_metrics metrics;
	/* the HTTPS front's refusals and closes (api/http.h), which the
	 * daemon's main gives its server; NULL when none serves */
	struct http_stats *http_stats;
	struct webhooks *webhooks; /* the delivery thread (webhook.c) */
	/* sign attestation results (result_keys.c: locks itself); NULL
	 * when none is loaded (the routes answer 503) */
	struct result_keys *result_keys;
	/* this instance runs the housekeeping (cluster_lead()) */
	atomic_int leader;
	/* reader.c: the read view, NULL when reads take lock and db */
	struct verifier *reader;
	/* in a read view: the verifier it reads for; NULL in that one */
	struct verifier *main;
};

/*
 * reader.c: the read view of @v (issue #33): its own lock, a read-only
 * connection to cfg.database, its own policies and keyring; no backlog,
 * AK cache, boot memo or webhooks. verifier_reader_open() after db_open()
 * of @v, verifier_reader_close() before db_close(); -1 with @err.
 */
int verifier_reader_open(struct verifier *v, struct imt_error *err);
void verifier_reader_close(struct verifier *v);

/*
 * read_begin() - the view to read through, locked, its policies and keys
 * to be read again, in one snapshot of the database; @v itself under
 * v->lock when it has no reader. A read route calls everything with the
 * view until read_end(). @v may be a view already.
 */
struct verifier *read_begin(struct verifier *v);
void read_end(struct verifier *r);

/* verifier_main() - the verifier a view reads for (its counters). */
struct verifier *verifier_main(struct verifier *v);

/*
 * caches.c: the in-memory state evidence uses beside the database, as
 * imatrust-verifier runs it (the backlog sized by @v->cfg, the AK cache,
 * the boot memo); -1 when out of memory, and what was made stays for
 * verifier_caches_free(), which takes any of them NULL.
 */
int verifier_caches_new(struct verifier *v);
void verifier_caches_free(struct verifier *v);

#endif /* IMATRUST_VERIFIER_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_boot.h - boots and their records (db_boot.c, db_records.c,
 * db_verdict.c), a boot's history gap (db_boot_history.c), firmware event
 * logs (db_boot_log.c) and boot baselines (db_boot_baseline.c). The
 * conventions every function follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_BOOT_H
#define IMATRUST_DB_BOOT_H

#include "db.h"

#define DB_PCR_SHA1_SIZE 20
#define DB_PCR_SHA256_SIZE 32
#define DB_PCR_SHA384_SIZE 48
#define DB_PCR_SHA512_SIZE 64

enum db_verdict {
	DB_VERDICT_KNOWN,
	DB_VERDICT_UNKNOWN,
	DB_VERDICT_MISMATCH,
	DB_VERDICT_VIOLATION,
	DB_VERDICT_EXCLUDED,
	DB_VERDICT_SIGNED,	  /* a good IMA signature by a policy's key */
	DB_VERDICT_BAD_SIGNATURE, /* an IMA signature that does not verify */
};

struct db_boot {
	int64_t id;
	uint32_t reset_count;
	uint32_t restart_count;
	int64_t started_at;
	uint64_t next_record_index;
	/* PCR 10 after replaying the stored records */
	uint8_t pcr10_sha1[DB_PCR_SHA1_SIZE];
	uint8_t pcr10_sha256[DB_PCR_SHA256_SIZE];
	/* the wide banks, carried from the boot's first quote in them
	 * (0018_wide_banks.sql); have_ 0: not replayed in that bank */
	uint8_t pcr10_sha384[DB_PCR_SHA384_SIZE];
	uint8_t pcr10_sha512[DB_PCR_SHA512_SIZE];
	int have_sha384, have_sha512;
	uint8_t boot_aggregate[DB_DIGEST_MAX];
	size_t boot_aggregate_len; /* 0 until known */
	/* records [history_from, history_to) were deleted from the machine
	 * before the verifier stored them (db_boot_history_gap());
	 * history_to 0: the boot's history is complete */
	uint64_t history_from, history_to;
	int history_followed; /* records of the boot were stored before
				 * the gap: history_from > 0 */
};

/* One measurement record; pointers borrowed. */
struct db_record {
	uint64_t index; /* position in the boot's list */
	uint32_t pcr;
	const char *template; /* "ima-ng", ... */
	const char *path;
	const char *digest_algo;
	const uint8_t *digest;
	size_t digest_len;
	enum db_verdict verdict;
	const uint8_t *sig; /* the ima-sig "sig" field, or NULL */
	size_t sig_len;
};

/* A batch that moves a boot from @from_index to @to_index. */
struct db_boot_advance {
	int64_t boot_id;
	uint64_t from_index;	   /* next_record_index the batch starts at */
	uint64_t to_index;	   /* from_index + nrecords */
	const uint8_t *pcr10_sha1; /* running values after the batch */
	const uint8_t *pcr10_sha256;
	const uint8_t *pcr10_sha384; /* NULL: not carried (stored NULL) */
	const uint8_t *pcr10_sha512;
	const uint8_t *boot_aggregate; /* NULL keeps the stored one */
	size_t boot_aggregate_len;
	const struct db_record *records; /* indices from_index, ... */
	size_t nrecords;		 /* at most DB_BATCH_MAX */
	/*
	 * 1: the machine's nonce row says it was seen now (db_nonce_renew()
	 * with seen_at, in this transaction): machines.last_seen is not
	 * written, so a heartbeat writes the nonce's row alone
	 */
	int seen_in_nonce;
	/*
	 * The boot's row as this transaction read it after taking the
	 * machine's write lock (db_evidence_view_get() after
	 * db_machine_lock()), or NULL. An empty batch then compares with it
	 * instead of reading the row again: one statement fewer per
	 * heartbeat, one round trip on PostgreSQL.
	 */
	const struct db_boot *row;
};

/* A re-judged verdict for db_record_set_verdicts(). */
struct db_verdict_update {
	uint64_t index;
	enum db_verdict verdict;
};

typedef int (*db_record_cb)(int64_t boot_id, const struct db_record *rec,
			    void *arg);

const char *db_verdict_name(enum db_verdict verdict);
int db_verdict_parse(const char *name, enum db_verdict *verdict);

/**
 * db_boot_start() - record a new boot (new resetCount/restartCount) as
 * the machine's current one, with index 0, PCR 10 all zero in both banks,
 * and a "reboot" event, in one transaction.
 * @out: receives the new boot (may be NULL)
 *
 * The counters must move forward: (reset, restart) greater than the
 * current boot's in that order, else IMT_ERR_MISMATCH.
 */
int db_boot_start(struct db *db, const char *machine_id, uint32_t reset_count,
		  uint32_t restart_count, int64_t now, struct db_boot *out,
		  struct imt_error *err);

/**
 * db_boot_current() - the machine's latest boot.
 * @found: receives 1 when it has one, else 0
 */
int db_boot_current(struct db *db, const char *machine_id, struct db_boot *out,
		    int *found, struct imt_error *err);

/**
 * db_boot_get() - boot @boot_id.
 * @found: receives 1 when it exists, else 0
 */
int db_boot_get(struct db *db, int64_t boot_id, struct db_boot *out, int *found,
		struct imt_error *err);

/**
 * db_boot_history_gap() - records [@from, @to) of boot @boot_id were
 * deleted from the machine before they were stored: the boot goes on at
 * @to (db_boot_history.c).
 * @db: the database
 * @boot_id: a stored boot whose next_record_index is @from
 * @from: the boot's next index (S)
 * @to: the machine's list start (L), above @from
 * @anchor: PCR 10 after record @to - 1 as the agent replayed it, in the
 *	quoted bank (kept for the operator; the running values move with
 *	the next db_boot_advance() from @to)
 * @anchor_len: its size, 1 to DB_DIGEST_MAX
 *
 * The boot keeps the latest gap, and history_followed once any gap came
 * after stored records (@from > 0). IMT_ERR_MISMATCH when the boot is
 * not at @from (concurrent evidence).
 */
int db_boot_history_gap(struct db *db, int64_t boot_id, uint64_t from,
			uint64_t to, const uint8_t *anchor, size_t anchor_len,
			struct imt_error *err);

#define DB_BOOT_LOG_MAX \
	(1u << 20) /* bytes of one firmware event log
					 * (wire.h WIRE_BOOT_LOG_MAX) */
#define DB_BOOT_LOG_SHA256_SIZE 32

/* The firmware event log of a boot; @data owned (db_boot_log_release()). */
struct db_boot_log {
	uint8_t *data; /* NULL unless asked for */
	size_t len;
	uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE];
	int64_t received_at;
};

enum db_boot_log_result {
	DB_BOOT_LOG_STORED,    /* the boot had none: stored */
	DB_BOOT_LOG_SAME,      /* the same bytes were there: nothing done */
	DB_BOOT_LOG_DIFFERENT, /* other bytes were there: nothing done */
};

/**
 * db_boot_log_store() - keep @log as the firmware event log of boot
 * @boot_id, once.
 * @db: the database
 * @boot_id: a stored boot
 * @log: the raw event log (borrowed)
 * @len: its length, 1 to DB_BOOT_LOG_MAX
 * @now: when it arrived
 * @res: receives what happened; a boot keeps its first log for good, so
 *       the caller turns DB_BOOT_LOG_DIFFERENT into a failed evidence
 * @err: filled on failure
 *
 * Return: 0, or -1 (IMT_ERR_LIMIT for @len out of bounds, IMT_ERR_MISMATCH
 * for an unknown boot).
 */
int db_boot_log_store(struct db *db, int64_t boot_id, const uint8_t *log,
		      size_t len, int64_t now, enum db_boot_log_result *res,
		      struct imt_error *err);

/**
 * db_boot_log_get() - the firmware event log of boot @boot_id.
 * @db: the database
 * @boot_id: the boot
 * @with_log: 0: size, digest and time only (out->data stays NULL)
 * @out: filled when found; release with db_boot_log_release()
 * @found: receives 1 when the boot has a log, else 0
 * @err: filled on failure
 *
 * Return: 0 or -1.
 */
int db_boot_log_get(struct db *db, int64_t boot_id, int with_log,
		    struct db_boot_log *out, int *found, struct imt_error *err);

/** db_boot_log_release() - free @log's bytes; accepts NULL. */
void db_boot_log_release(struct db_boot_log *log);

/**
 * db_boot_log_sha256() - the digest db_boot_log_store() keeps for @log.
 * @log: the bytes
 * @len: their length
 * @out: receives SHA-256 of them
 *
 * Return: 0, or -1 when the digest is unavailable.
 */
int db_boot_log_sha256(const uint8_t *log, size_t len,
		       uint8_t out[DB_BOOT_LOG_SHA256_SIZE]);

/* A machine's boot baseline (schema 0009); @data owned (release it). */
struct db_boot_baseline {
	uint8_t *data; /* NULL unless asked for */
	size_t len;
	uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE];
	int64_t set_at;
	char approved_by[DB_NAME_MAX + 1]; /* "": taken on first use */
	int64_t approved_at;
};

/**
 * db_boot_baseline_keep() - @log as @machine_id's baseline, unless it has
 * one: the first log a machine sends is its baseline until approved.
 * @db: the database
 * @machine_id: an enrolled machine
 * @log: the raw event log (borrowed)
 * @len: 1 to DB_BOOT_LOG_MAX
 * @now: the time
 * @err: filled on failure
 *
 * Return: 0 (also when a baseline was there: nothing changes), or -1.
 */
int db_boot_baseline_keep(struct db *db, const char *machine_id,
			  const uint8_t *log, size_t len, int64_t now,
			  struct imt_error *err);

/**
 * db_boot_baseline_approve() - @log as @machine_id's baseline, approved
 * by @op_name (replacing any).
 * @db: the database
 * @machine_id: an enrolled machine
 * @log: the raw event log (borrowed)
 * @len: 1 to DB_BOOT_LOG_MAX
 * @op_name: who approved it
 * @now: the time
 * @err: filled on failure
 *
 * Return: 0 or -1.
 */
int db_boot_baseline_approve(struct db *db, const char *machine_id,
			     const uint8_t *log, size_t len,
			     const char *op_name, int64_t now,
			     struct imt_error *err);

/**
 * db_boot_baseline_get() - @machine_id's boot baseline.
 * @db: the database
 * @machine_id: the machine
 * @with_log: 0: digest, times and approver only (out->data stays NULL)
 * @out: filled when found; release with db_boot_baseline_release()
 * @found: receives 1 when the machine has a baseline, else 0
 * @err: filled on failure
 *
 * Return: 0 or -1.
 */
int db_boot_baseline_get(struct db *db, const char *machine_id, int with_log,
			 struct db_boot_baseline *out, int *found,
			 struct imt_error *err);

/**
 * db_boot_baseline_of_boot() - db_boot_baseline_get() of the machine that
 * boot @boot_id belongs to.
 * @db: the database
 * @boot_id: a boot
 * @with_log: as db_boot_baseline_get()
 * @out: as db_boot_baseline_get()
 * @found: as db_boot_baseline_get()
 * @err: filled on failure
 *
 * Return: 0 or -1.
 */
int db_boot_baseline_of_boot(struct db *db, int64_t boot_id, int with_log,
			     struct db_boot_baseline *out, int *found,
			     struct imt_error *err);

/** db_boot_baseline_release() - free @b's bytes; accepts NULL. */
void db_boot_baseline_release(struct db_boot_baseline *b);

/**
 * db_boot_advance() - store a batch of judged records together with the
 * new next_record_index and running PCR 10 values, and the machine's
 * last_seen = @now, all in ONE transaction: after a crash either the
 * whole batch and the new index are there, or neither.
 *
 * IMT_ERR_MISMATCH when the boot's stored index is not a->from_index
 * (another writer got there first: reload and replay).
 * An empty batch (heartbeat) only updates last_seen and the PCRs.
 */
int db_boot_advance(struct db *db, const struct db_boot_advance *a, int64_t now,
		    struct imt_error *err);

/**
 * db_record_list() - call @cb for the records of @boot_id with index >=
 * @from, in order, at most @limit (1..DB_LIST_MAX).
 * @rejudge_only: only records with verdict unknown or mismatch: those an
 *                added reference may change.
 */
int db_record_list(struct db *db, int64_t boot_id, uint64_t from,
		   unsigned int limit, int rejudge_only, db_record_cb cb,
		   void *arg, struct imt_error *err);

/* Known records that a change of references may have made wrong. */
enum db_known_set {
	/* known, with a digest queued as withdrawn: found by reading the
	 * boot's known records once */
	DB_KNOWN_WITHDRAWN_SCAN,
	/* known, but no reference names their own path and digest: known
	 * by the digest alone (any_path = allow), or no longer known at all */
	DB_KNOWN_UNPINNED,
};

/**
 * db_record_list_known() - call @cb for the records of @boot_id in @set
 * with index >= @from, in order, at most @limit (1..DB_LIST_MAX).
 */
int db_record_list_known(struct db *db, int64_t boot_id, enum db_known_set set,
			 uint64_t from, unsigned int limit, db_record_cb cb,
			 void *arg, struct imt_error *err);

/**
 * db_record_set_verdicts() - store re-judged verdicts, in one transaction.
 * Do not call from inside a db_record_list() callback: collect first.
 * IMT_ERR_MISMATCH if a record does not exist (nothing is changed then).
 */
int db_record_set_verdicts(struct db *db, int64_t boot_id,
			   const struct db_verdict_update *u, size_t n,
			   struct imt_error *err);

#endif /* IMATRUST_DB_BOOT_H */

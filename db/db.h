/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db.h - the verifier's storage: reference digests, machines, boots,
 * records, events, nonces and operator tokens.
 *
 * The interface names no SQLite type, so a PostgreSQL backend can sit
 * behind it later. Conventions, the same for every function:
 *
 * - Return 0 on success, -1 on failure; a failure fills @err (which may
 *   be NULL) and never aborts the process. err->status tells the caller
 *   what kind of failure it was:
 *     IMT_ERR_MALFORMED    an argument is invalid (NULL, too long, unknown
 *                          algorithm or enum value, digest of the wrong
 *                          size, reason that is not JSON)
 *     IMT_ERR_MISMATCH     the request conflicts with what is stored: the
 *                          machine or boot does not exist or already
 *                          exists, a boot was advanced by someone else,
 *                          boot counters go backwards, an import is open
 *     IMT_ERR_UNSUPPORTED  the database was written by a newer imatrust,
 *                          or is not an imatrust database
 *     IMT_ERR_LIMIT        a maximum stated below was reached
 *     IMT_ERR_INTERNAL     the storage failed (I/O, disk full, busy,
 *                          out of memory)
 * - Outcomes that are normal answers (a lookup class, a nonce that was
 *   already used, a token that does not match, a machine that is not
 *   there) are results in out-parameters with a 0 return, not failures.
 * - Times are seconds since the epoch, passed in as @now; nothing here
 *   reads the clock, so callers (and tests) decide what "now" is.
 * - Strings are NUL-terminated and borrowed for the call; digests and
 *   keys are raw bytes. Data handed to a callback is borrowed and valid
 *   only during that call.
 * - A struct db is one connection, the only writer of its file. It is
 *   not thread-safe: a multi-threaded caller holds its own lock around
 *   every call. A callback must not call back into the same struct db.
 */
#ifndef IMATRUST_DB_H
#define IMATRUST_DB_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

/* Limits, each checked with a distinct error message. */
#define DB_MACHINE_ID_MAX 128	/* bytes in a machine id, agent-chosen */
#define DB_PATH_MAX 4096	/* bytes in a file path (PATH_MAX) */
#define DB_NAME_MAX 255		/* bytes in a source or token name */
#define DB_KEY_MAX 4096		/* bytes in an EK/AK public area */
#define DB_CERT_MAX 16384	/* bytes in an EK certificate (DER) */
#define DB_AK_NAME_MAX 66	/* TPM2B_NAME: 2-byte alg + sha512 */
#define DB_REASON_MAX 8192	/* bytes in a state reason or event reason */
#define DB_TEMPLATE_MAX 32	/* bytes in an IMA template name */
#define DB_NONCE_MIN 16		/* bytes in a nonce, at least */
#define DB_NONCE_MAX 64		/* bytes in a nonce, at most (TPM2B) */
#define DB_TOKEN_MIN 16		/* bytes in a token, at least */
#define DB_TOKEN_MAX_BYTES 512	/* bytes in a token, at most */
#define DB_TOKENS_MAX 64	/* operator tokens stored */
#define DB_BATCH_MAX 65536	/* records in one db_boot_advance() */
#define DB_LIST_MAX 10000	/* rows one list call may return */
#define DB_DIGEST_MAX 64	/* bytes in a digest: sha512 */

struct db;

/* ---- open / close (db.c) ---------------------------------------------- */

/**
 * db_open() - open (creating if needed) and migrate the database at @path.
 * @path: file name; its directory must be writable (WAL needs -wal, -shm)
 * @out: receives the handle on success, NULL on failure
 * @err: failure report, may be NULL
 *
 * Applies the pending migrations, each in its own transaction. A database
 * whose schema is newer than this binary knows is refused
 * (IMT_ERR_UNSUPPORTED) and left untouched.
 */
int db_open(const char *path, struct db **out, struct imt_error *err);

/** db_close() - finalize every statement and close; NULL is fine. */
void db_close(struct db *db);

/** db_schema_version() - the schema version this binary migrates to. */
int db_schema_version(void);

/* ---- batches of calls (db_tx.c) ---------------------------------------- */

/**
 * db_batch_begin() - group the writes of many calls (of many machines'
 * evidence, say) into one transaction: one commit instead of one per call.
 *
 * Inside a batch each call is still atomic on its own: one that fails is
 * undone alone (a savepoint) and the batch goes on. Nothing of the batch
 * is visible to other connections or survives a crash until
 * db_batch_commit(): after a crash either the whole batch or none of it
 * is there. So answer the agents whose writes are in a batch only after
 * its commit. A reference import cannot run inside a batch.
 */
int db_batch_begin(struct db *db, struct imt_error *err);
/** db_batch_commit() - commit the batch; on failure nothing of it stays. */
int db_batch_commit(struct db *db, struct imt_error *err);
/** db_batch_abort() - drop the batch; safe when none is open. */
void db_batch_abort(struct db *db);

/* ---- reference digests (db_ref.c) ------------------------------------- */

enum db_source_kind {
	DB_SOURCE_DIR_TREE,	/* imatrust ref import-dir */
	DB_SOURCE_DEB,		/* a Debian package's files */
	DB_SOURCE_GOLDEN_LIST,	/* a golden machine's measurement list */
	DB_SOURCE_KEYLIME,	/* a Keylime runtime policy */
};

struct db_ref_source {
	enum db_source_kind kind;
	const char *name;	/* e.g. "bash_5.2.15-2+b2_amd64.deb" */
};

/* Lookup classes, strongest first: see db_ref_lookup(). */
enum db_ref_class {
	DB_REF_KNOWN,		/* this digest is listed for this path */
	DB_REF_MISMATCH,	/* the path has digests, this is not one */
	DB_REF_KNOWN_ANY_PATH,	/* path unlisted, digest is elsewhere */
	DB_REF_UNKNOWN_PATH,	/* neither path nor digest is listed */
};

/* One reference as listed; pointers borrowed for the callback. */
struct db_ref {
	int64_t id;		/* cursor for the next page */
	const char *path;
	const char *algo;
	const uint8_t *digest;
	size_t digest_len;
	enum db_source_kind source_kind;
	const char *source_name;
	int64_t imported_at;
};

/* Filter for db_ref_list(); NULL members match everything. */
struct db_ref_filter {
	const char *path;			/* exact path */
	const struct db_ref_source *source;	/* one import */
};

/* Return non-zero to stop the listing early. */
typedef int (*db_ref_cb)(const struct db_ref *ref, void *arg);

/**
 * db_ref_add() - record that @source says @path may hash to @digest.
 * @algo: kernel hash name ("sha256"); @digest_len must be its size
 *
 * Adding a reference that is already there is not an error. Inside
 * db_ref_import_begin()/commit() @source must be the import's source and
 * the row joins the import's transaction; otherwise it is its own
 * transaction and the source's imported_at becomes @now.
 */
int db_ref_add(struct db *db, const struct db_ref_source *source,
	       const char *path, const char *algo, const uint8_t *digest,
	       size_t digest_len, int64_t now, struct imt_error *err);

/**
 * db_ref_import_begin() - open one transaction for many db_ref_add(), and
 * start a new generation of @source: the references added from here on
 * (in this transaction and in the chunks continued after it) carry it,
 * whether they are new or stated again.
 *
 * Until db_ref_import_commit() or _abort(), every other writing call on
 * this handle fails with IMT_ERR_MISMATCH rather than join (and possibly
 * be rolled back with) the import: run an import without interleaving.
 */
int db_ref_import_begin(struct db *db, const struct db_ref_source *source,
			int64_t now, struct imt_error *err);
/**
 * db_ref_import_continue() - db_ref_import_begin() for the next chunk of
 * the same import: one more transaction in @source's current generation.
 * Between two chunks the handle is free for other calls (evidence).
 */
int db_ref_import_continue(struct db *db, const struct db_ref_source *source,
			   int64_t now, struct imt_error *err);
int db_ref_import_commit(struct db *db, struct imt_error *err);
/** db_ref_import_abort() - roll the import back; safe if none is open. */
void db_ref_import_abort(struct db *db);

/**
 * db_ref_lookup() - classify a measured (path, digest).
 * @cls: receives the class
 *
 * A path that has reference digests in @algo pins them: another file's
 * digest does not make it acceptable, so the answer is DB_REF_MISMATCH
 * even when the digest is listed for some other path. DB_REF_KNOWN_ANY_PATH
 * is only returned for paths without references in @algo; whether it is
 * acceptable is the policy's call. References in another algorithm do
 * not count: they cannot be compared.
 */
int db_ref_lookup(struct db *db, const char *path, const char *algo,
		  const uint8_t *digest, size_t digest_len,
		  enum db_ref_class *cls, struct imt_error *err);

/**
 * db_ref_delete() - remove the reference (@path, @digest).
 * @source: remove only this import's word for it; NULL removes all
 * @deleted: receives how many reference rows went away (may be NULL)
 *
 * Deleting what is not there succeeds with *deleted = 0.
 */
int db_ref_delete(struct db *db, const struct db_ref_source *source,
		  const char *path, const char *algo, const uint8_t *digest,
		  size_t digest_len, size_t *deleted, struct imt_error *err);

/**
 * db_ref_list() - call @cb for references with id > @after, in id order.
 * @filter: may be NULL
 * @limit: at most this many (1..DB_LIST_MAX)
 * @next: receives the id to pass as @after for the next page, or 0 when
 *        this page was the last (may be NULL)
 */
int db_ref_list(struct db *db, const struct db_ref_filter *filter,
		int64_t after, unsigned int limit, db_ref_cb cb, void *arg,
		int64_t *next, struct imt_error *err);

/**
 * db_ref_delete_source() - withdraw everything one import said (before
 * re-importing a package, say), in one transaction; paths and digests no
 * other import names go too. The source itself is forgotten.
 * @deleted: receives how many references went away (may be NULL)
 */
int db_ref_delete_source(struct db *db, const struct db_ref_source *source,
			 size_t *deleted, struct imt_error *err);

/**
 * db_ref_withdraw() - withdraw at most @limit of @source's references, in
 * one transaction (call again while *@more: a big source is withdrawn in
 * short transactions).
 * @stale_only: 1: only those of an older generation than the source's
 *              current one (what the last import did not state again: the
 *              rest of a replace); 0: all, and the source itself with its
 *              last reference
 * @limit: 1..DB_LIST_MAX
 * @deleted: receives how many went
 * @more: receives 1 when there may be more to withdraw
 *
 * Every withdrawn reference (this, db_ref_delete(), db_ref_delete_source())
 * queues its digest for re-judging: see db_ref_withdrawn_count().
 */
int db_ref_withdraw(struct db *db, const struct db_ref_source *source,
		    int stale_only, unsigned int limit, size_t *deleted,
		    int *more, struct imt_error *err);

/**
 * db_ref_withdrawn_count() - how many digests withdrawals queued since the
 * queue was last cleared: the known records carrying them are to be
 * judged again (db_record_list_known()). The queue is written in the same
 * transaction as the withdrawal, so it survives a crash.
 */
int db_ref_withdrawn_count(struct db *db, size_t *n, struct imt_error *err);

/**
 * db_ref_withdrawn_clear() - empty the queue, at most @limit digests per
 * call (*@more: call again). Only once the known records of every current
 * boot were judged again after the withdrawals, and with no withdrawal in
 * between (the caller serializes reference changes).
 */
int db_ref_withdrawn_clear(struct db *db, unsigned int limit, int *more,
			   struct imt_error *err);

/* ---- machines and events (db_machine.c) ------------------------------- */

enum db_machine_state {
	DB_STATE_ENROLLING,
	DB_STATE_PENDING,
	DB_STATE_TRUSTED,
	DB_STATE_UNTRUSTED,
	DB_STATE_FAILED,
	DB_STATE_STALE,
};

/* What enrollment knows; pointers borrowed for the call. */
struct db_machine_new {
	const char *id;
	const uint8_t *ek_pub;
	size_t ek_pub_len;
	const uint8_t *ek_cert;	/* NULL when the TPM has none */
	size_t ek_cert_len;
	const uint8_t *ak_pub;
	size_t ak_pub_len;
	const uint8_t *ak_name;
	size_t ak_name_len;
	enum db_machine_state state;	/* enrolling or pending */
};

/* A stored machine. From db_machine_get() the blobs and strings are owned
 * (db_machine_release() frees them); from db_machine_list() borrowed. */
struct db_machine {
	char id[DB_MACHINE_ID_MAX + 1];
	uint8_t *ek_pub;
	size_t ek_pub_len;
	uint8_t *ek_cert;	/* NULL when none */
	size_t ek_cert_len;
	uint8_t *ak_pub;
	size_t ak_pub_len;
	uint8_t ak_name[DB_AK_NAME_MAX];
	size_t ak_name_len;
	enum db_machine_state state;
	char *state_reason;	/* NULL when none */
	int64_t created_at;
	int64_t last_seen;	/* 0 before the first evidence */
	int approved;
	int activated;		/* its TPM proved it holds EK and AK */
	char bank[8];		/* pinned quote bank; "" until the first */
	int64_t rejected_at;	/* last "rejected" event, 0 when none */
};

struct db_event {
	int64_t id;		/* cursor for the next page */
	const char *machine_id;
	int64_t boot_id;	/* 0 when no boot was current */
	int64_t time;
	const char *kind;
	const char *from_state;	/* NULL unless a state change */
	const char *to_state;	/* NULL unless a state change */
	const char *reason;	/* JSON text, or NULL */
};

typedef int (*db_machine_cb)(const struct db_machine *m, void *arg);
typedef int (*db_event_cb)(const struct db_event *ev, void *arg);

/** db_machine_state_name() - "trusted", ...; "invalid" when out of range. */
const char *db_machine_state_name(enum db_machine_state state);
/** db_machine_state_parse() - inverse of the above; -1 when unknown. */
int db_machine_state_parse(const char *name, enum db_machine_state *state);

/**
 * db_machine_create() - store a new machine and an "enrolled" event.
 *
 * IMT_ERR_MISMATCH when a machine with that id exists.
 */
int db_machine_create(struct db *db, const struct db_machine_new *m,
		      int64_t now, struct imt_error *err);

/**
 * db_machine_get() - read one machine.
 * @out: filled when found; release with db_machine_release()
 * @found: receives 1 when the machine exists, else 0 (@out untouched)
 */
int db_machine_get(struct db *db, const char *id, struct db_machine *out,
		   int *found, struct imt_error *err);

/** db_machine_release() - free what db_machine_get() allocated in @m. */
void db_machine_release(struct db_machine *m);

/**
 * db_machine_set_state() - change the state and write the event, in one
 * transaction.
 * @reason: JSON text (which record, which check), or NULL
 *
 * An event ("state", from, to, reason) is written only when the state
 * changes; an unchanged state just updates the stored reason. Use
 * db_event_add() to record more about a state that holds.
 */
int db_machine_set_state(struct db *db, const char *id,
			 enum db_machine_state state, const char *reason,
			 int64_t now, struct imt_error *err);

/**
 * db_machine_approve() - operator approval: set approved, and move a
 * pending machine to enrolling; writes an "approved" event naming
 * @operator (a token name) in the same transaction.
 */
int db_machine_approve(struct db *db, const char *id, const char *operator,
		       int64_t now, struct imt_error *err);

/**
 * db_machine_list() - call @cb for machines with id > @after (NULL for
 * the first page), in id order, at most @limit (1..DB_LIST_MAX).
 */
int db_machine_list(struct db *db, const char *after, unsigned int limit,
		    db_machine_cb cb, void *arg, struct imt_error *err);

/**
 * db_machine_list_silent() - call @cb for machines that are enrolling,
 * trusted or untrusted and sent no evidence since @before (last_seen, or
 * created_at when none, < @before): the candidates for "stale". At most
 * @limit (1..DB_LIST_MAX), oldest last_seen first.
 */
int db_machine_list_silent(struct db *db, int64_t before, unsigned int limit,
			   db_machine_cb cb, void *arg, struct imt_error *err);

/**
 * db_event_add() - append an event that is not a state change.
 * @kind: short word ("reboot", "violation", ...)
 * @reason: JSON text or NULL
 */
int db_event_add(struct db *db, const char *machine_id, const char *kind,
		 const char *reason, int64_t now, struct imt_error *err);

/**
 * db_event_list() - call @cb for a machine's events with id > @after, in
 * order, at most @limit (1..DB_LIST_MAX).
 */
int db_event_list(struct db *db, const char *machine_id, int64_t after,
		  unsigned int limit, db_event_cb cb, void *arg,
		  struct imt_error *err);

/* ---- attestation's own machine columns (db_attest.c) ------------------ */

/**
 * db_machine_pin_bank() - pin @bank ("sha1", "sha256") as the machine's
 * quote bank, inside the caller's transaction.
 */
int db_machine_pin_bank(struct db *db, const char *id, const char *bank,
			struct imt_error *err);

/**
 * db_machine_note_rejected() - write a "rejected" event with @reason
 * unless one was written less than @interval seconds before @now; the
 * rate limit is in the same UPDATE, so concurrent callers write one.
 * @written: receives 1 when the event was written, else 0
 */
int db_machine_note_rejected(struct db *db, const char *id, int64_t now,
			     int64_t interval, const char *reason,
			     int *written, struct imt_error *err);

/**
 * db_machine_transition() - write one row of the verifier's state table:
 * state @to with @reason and, when @kind is not NULL, an event of that
 * kind (with @from and @to when they differ). Only the engine calls it
 * (verifier/engine.c); @from is the state the caller read.
 */
int db_machine_transition(struct db *db, const char *id,
			  const char *from, const char *to,
			  const char *reason, const char *kind, int64_t now,
			  struct imt_error *err);

/* ---- enrollment (db_enroll.c) --------------------------------------- */

#define DB_SECRET_MIN 16	/* bytes in a credential secret, at least */
#define DB_SECRET_MAX 64	/* ... at most (TPM2B_DIGEST) */

/*
 * An open credential challenge (proto/DESIGN.md §3): the secret made for the AK
 * @ak_pub, kept until the agent proves it recovered it or enrolls again.
 * A re-enrollment of a known machine keeps its old AK valid until the new
 * one is proven.
 */
struct db_challenge {
	uint8_t secret[DB_SECRET_MAX];
	size_t secret_len;
	uint8_t ak_pub[DB_KEY_MAX];
	size_t ak_pub_len;
	uint8_t ak_name[DB_AK_NAME_MAX];
	size_t ak_name_len;
	int ek_chained;		/* the EK certificate chained to a CA */
	int64_t expires_at;	/* void from then on */
};

/** db_challenge_put() - store (or replace) @machine_id's challenge. */
int db_challenge_put(struct db *db, const char *machine_id,
		     const struct db_challenge *c, struct imt_error *err);

/**
 * db_challenge_get() - read @machine_id's challenge.
 * @found: 1 when there is one (expired or not), else 0
 */
int db_challenge_get(struct db *db, const char *machine_id,
		     struct db_challenge *out, int *found,
		     struct imt_error *err);

/** db_challenge_delete() - void the challenge (a wrong proof). */
int db_challenge_delete(struct db *db, const char *machine_id,
			struct imt_error *err);

/**
 * db_machine_activate() - the proof was right: in one transaction, bind
 * the challenge's AK to the machine, mark it activated, drop the
 * challenge, write an "activated" event, and move the state to
 * "enrolling" when its EK chained or an operator approved it, else to
 * "pending".
 * @state: receives the new state (may be NULL)
 */
int db_machine_activate(struct db *db, const char *machine_id,
			const struct db_challenge *c, int64_t now,
			enum db_machine_state *state, struct imt_error *err);

/* ---- boots and records (db_boot.c) ------------------------------------ */

#define DB_PCR_SHA1_SIZE 20
#define DB_PCR_SHA256_SIZE 32

enum db_verdict {
	DB_VERDICT_KNOWN,
	DB_VERDICT_UNKNOWN,
	DB_VERDICT_MISMATCH,
	DB_VERDICT_VIOLATION,
	DB_VERDICT_EXCLUDED,
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
	uint8_t boot_aggregate[DB_DIGEST_MAX];
	size_t boot_aggregate_len;	/* 0 until known */
};

/* One measurement record; pointers borrowed. */
struct db_record {
	uint64_t index;		/* position in the boot's list */
	uint32_t pcr;
	const char *template;	/* "ima-ng", ... */
	const char *path;
	const char *digest_algo;
	const uint8_t *digest;
	size_t digest_len;
	enum db_verdict verdict;
};

/* A batch that moves a boot from @from_index to @to_index. */
struct db_boot_advance {
	int64_t boot_id;
	uint64_t from_index;	/* next_record_index the batch starts at */
	uint64_t to_index;	/* from_index + nrecords */
	const uint8_t *pcr10_sha1;	/* running values after the batch */
	const uint8_t *pcr10_sha256;
	const uint8_t *boot_aggregate;	/* NULL keeps the stored one */
	size_t boot_aggregate_len;
	const struct db_record *records;	/* indices from_index, ... */
	size_t nrecords;	/* at most DB_BATCH_MAX */
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
int db_boot_start(struct db *db, const char *machine_id,
		  uint32_t reset_count, uint32_t restart_count, int64_t now,
		  struct db_boot *out, struct imt_error *err);

/**
 * db_boot_current() - the machine's latest boot.
 * @found: receives 1 when it has one, else 0
 */
int db_boot_current(struct db *db, const char *machine_id,
		    struct db_boot *out, int *found, struct imt_error *err);

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
int db_boot_advance(struct db *db, const struct db_boot_advance *a,
		    int64_t now, struct imt_error *err);

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
	/* known, with a digest queued as withdrawn: found by digest (cheap
	 * while few are queued) */
	DB_KNOWN_WITHDRAWN,
	/* the same records, found by reading the boot's known records
	 * (cheaper once more digests are queued than the boot has records) */
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

/* ---- retention (db_retention.c) --------------------------------------- */

struct db_retention {
	unsigned int keep_boots;	/* boots kept per machine, >= 1 */
	unsigned int max_events;	/* events kept per machine, 0: no cap */
	unsigned int max_rows;		/* rows deleted per call, >= 1 */
};

/**
 * db_retention_run() - delete the records and events of each machine's
 * boots beyond the newest @keep_boots (then those boots), a machine's
 * oldest events beyond @max_events (a boot that lasts months still
 * flaps between trusted and stale), and nonces that are used or expired
 * at @now; at most @max_rows rows per call so the writer is never held
 * for long.
 * @deleted: receives the rows deleted (may be NULL)
 * @more: receives 1 when rows remain to delete: call again (may be NULL)
 */
int db_retention_run(struct db *db, const struct db_retention *r,
		     int64_t now, size_t *deleted, int *more,
		     struct imt_error *err);

/* ---- nonces (db_nonce.c) ---------------------------------------------- */

enum db_nonce_result {
	DB_NONCE_OK,		/* was valid; now used */
	DB_NONCE_UNKNOWN,	/* never issued (or purged) */
	DB_NONCE_USED,		/* already consumed */
	DB_NONCE_EXPIRED,	/* now >= expires_at */
	DB_NONCE_OTHER_MACHINE,	/* issued to another machine */
};

const char *db_nonce_result_name(enum db_nonce_result r);

/**
 * db_nonce_outstanding() - @machine_id's nonce while unused and unexpired.
 * @value: receives it (DB_NONCE_MAX bytes available)
 * @len: receives its length
 * @expires_at: receives its expiry
 * @found: receives 1 when there is one, else 0
 */
int db_nonce_outstanding(struct db *db, const char *machine_id, int64_t now,
			 uint8_t *value, size_t *len, int64_t *expires_at,
			 int *found, struct imt_error *err);

/**
 * db_nonce_issue() - store a fresh nonce for @machine_id, valid while
 * now < @expires_at, replacing its outstanding one: a machine has one
 * nonce at a time. The caller generates @value (RAND_bytes).
 */
int db_nonce_issue(struct db *db, const char *machine_id,
		   const uint8_t *value, size_t len, int64_t expires_at,
		   struct imt_error *err);

/**
 * db_nonce_consume() - use a nonce once: atomically marks it used when
 * it is unused, unexpired at @now and issued to @machine_id.
 * @res: DB_NONCE_OK only in that case; otherwise why not (nothing changes)
 */
int db_nonce_consume(struct db *db, const char *machine_id,
		     const uint8_t *value, size_t len, int64_t now,
		     enum db_nonce_result *res, struct imt_error *err);

/* ---- operator tokens (db_token.c) ------------------------------------- */

/**
 * db_token_add() - store the SHA-256 of @token under @name.
 * IMT_ERR_MISMATCH when @name exists; IMT_ERR_LIMIT past DB_TOKENS_MAX.
 */
int db_token_add(struct db *db, const char *name, const uint8_t *token,
		 size_t len, int64_t now, struct imt_error *err);

/** db_token_delete() - remove @name; *deleted = 0 or 1 (may be NULL). */
int db_token_delete(struct db *db, const char *name, int *deleted,
		    struct imt_error *err);

/**
 * db_token_check() - is @token one of the stored tokens?
 * @name: receives the matching token's name ("" when none)
 * @ok: receives 1 on a match, else 0
 *
 * Every stored hash is compared, in constant time, whatever matches. A
 * token of a size no stored token can have is simply not ok.
 */
int db_token_check(struct db *db, const uint8_t *token, size_t len,
		   char name[DB_NAME_MAX + 1], int *ok,
		   struct imt_error *err);

#endif /* IMATRUST_DB_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db.h - the verifier's storage: opening and closing it, read snapshots,
 * batches of calls, the schema version, and the limits every table family
 * shares. Each family has its own header, which includes this one:
 * db_ref.h (reference digests), db_efi.h, db_source.h, db_policy.h,
 * db_key.h, db_machine.h (machines and events), db_attest.h, db_enroll.h,
 * db_identity.h, db_audit.h, db_boot.h (boots, records, event logs,
 * baselines), db_evidence.h, db_retention.h, db_webhook.h, db_nonce.h,
 * db_token.h and db_cluster.h (several verifiers on one database).
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
#define DB_MACHINE_ID_MAX 128  /* bytes in a machine id, agent-chosen */
#define DB_PATH_MAX 4096       /* bytes in a file path (PATH_MAX) */
#define DB_NAME_MAX 255	       /* bytes in a source or token name */
#define DB_KEY_MAX 4096	       /* bytes in an EK/AK public area */
#define DB_CERT_MAX 16384      /* bytes in an EK certificate (DER) */
#define DB_AK_NAME_MAX 66      /* TPM2B_NAME: 2-byte alg + sha512 */
#define DB_REASON_MAX 8192     /* bytes in a state reason or event reason */
#define DB_TEMPLATE_MAX 32     /* bytes in an IMA template name */
#define DB_NONCE_MIN 16	       /* bytes in a nonce, at least */
#define DB_NONCE_MAX 64	       /* bytes in a nonce, at most (TPM2B) */
#define DB_TOKEN_MIN 16	       /* bytes in a token, at least */
#define DB_TOKEN_MAX_BYTES 512 /* bytes in a token, at most */
#define DB_TOKENS_MAX 64       /* operator tokens stored */
#define DB_BATCH_MAX 65536     /* records in one db_boot_advance() */
#define DB_LIST_MAX 10000      /* rows one list call may return */
#define DB_DIGEST_MAX 64       /* bytes in a digest: sha512 */
#define DB_SIG_MAX 65536       /* bytes in a record's ima-sig signature */

struct db;

/* ---- open / close (db.c) ---------------------------------------------- */

/**
 * db_open() - open (creating if needed) and migrate the database at @path.
 * @path: an SQLite file name (its directory must be writable: WAL needs
 *        -wal, -shm), or a PostgreSQL libpq URI, "postgresql://..." or
 *        "postgres://..." (db/README.md, "PostgreSQL")
 * @out: receives the handle on success, NULL on failure
 * @err: failure report, may be NULL
 *
 * Applies the pending migrations, each in its own transaction. A database
 * whose schema is newer than this binary knows is refused
 * (IMT_ERR_UNSUPPORTED) and left untouched.
 */
int db_open(const char *path, struct db **out, struct imt_error *err);

/**
 * db_open_reader() - a second, read-only connection to the database at
 * @path, which db_open() made and migrated (issue #33: reads beside the
 * writer). SQLite: the same file, which must exist and be private as
 * db_open() requires, opened read-only (query_only) in the WAL mode the
 * writer set, so a reader sees a committed snapshot and never waits for
 * the writer nor makes it wait. PostgreSQL: another session whose
 * transactions are all READ ONLY. The schema must be this binary's
 * version (IMT_ERR_UNSUPPORTED otherwise); nothing is migrated. Any write
 * through it fails (IMT_ERR_INTERNAL).
 */
int db_open_reader(const char *path, struct db **out, struct imt_error *err);

/**
 * db_read_begin() - one snapshot for several reads on a reader: BEGIN
 * (SQLite: deferred, a read lock only) or BEGIN ISOLATION LEVEL
 * REPEATABLE READ READ ONLY (PostgreSQL); end it with db_read_end().
 */
int db_read_begin(struct db *db, struct imt_error *err);
/** db_read_end() - end db_read_begin()'s snapshot; never fails. */
void db_read_end(struct db *db);

/** db_is_uri() - 1 when @path names a PostgreSQL database, not a file. */
int db_is_uri(const char *path);

/**
 * db_path_for_log() - @path as a log line may show it: a URI without its
 * password (user:PASSWORD@, password=...), a file name as it is.
 */
void db_path_for_log(const char *path, char *out, size_t n);

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

/**
 * db_durable_commits() - make the next commits durable against a power
 * loss (@on 1: synchronous = FULL, the WAL is synced at every commit),
 * or back to the default (@on 0: NORMAL, db_sqlite_open.c explains).
 * Outside a transaction only; a FULL commit also makes every earlier
 * commit in the WAL durable.
 */
int db_durable_commits(struct db *db, int on, struct imt_error *err);

#endif /* IMATRUST_DB_H */

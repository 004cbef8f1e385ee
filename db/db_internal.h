/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_internal.h - what the db/ files share and nothing else sees: the
 * connection, transactions, error helpers, and (through db_sql.h) the
 * statement interface the backend implements.
 *
 * Only the db/ sources and the db unit tests include this; the verifier
 * includes only db.h and the family headers (db_ref.h, db_machine.h, ...).
 */
#ifndef IMATRUST_DB_INTERNAL_H
#define IMATRUST_DB_INTERNAL_H

#include "db.h"
#include "db_audit.h"
#include "db_boot.h"
#include "db_identity.h"
#include "db_machine.h"
#include "db_ref.h"
#include "db_sql.h"

#define DB_STMT_CACHE_MAX 1024	/* per connection: db_backend.h */
#define DB_BUSY_TIMEOUT_MS 5000 /* wait for another process's lock */

struct db_migration {
	int version;	  /* the user_version it leaves behind */
	const char *name; /* "0001_initial" */
	const char *sql;  /* statements, ending with the user_version */
};

extern const struct db_migration db_migrations[];
extern const size_t db_migration_count;

/* A test hook: called at named points so tests can crash in between. */
typedef void (*db_hook_fn)(const char *point, void *arg);

/* The backend's connection and statement cache (db_backend.h). */
struct db_conn;

struct db {
	struct db_conn *conn;
	int batch_open; /* 1 from db_batch_begin to its end */
	/* The open reference import, between import_begin and commit/abort */
	int import_open;
	int64_t import_source;	   /* its sources.id */
	int64_t import_generation; /* the generation it stores */
	int import_replace;	   /* publishing hides older generations */
	enum db_source_kind import_kind;
	char import_name[DB_NAME_MAX + 1];
	db_hook_fn hook;
	void *hook_arg;
	/* db_webhook_on_queued(): who to tell of a commit that queued */
	void (*queued_fn)(void *arg);
	void *queued_arg;
	int queued;	       /* this transaction inserted outbox rows */
	int changed_elsewhere; /* db_changed_elsewhere() */
	/* counts transactions and savepoints begun: db_ref_cache.c */
	uint64_t tx_serial;
	struct db_ref_cache *ref_cache; /* NULL until the first lookup */
	/* db_ref_index.c: the references in memory, NULL until built */
	struct db_ref_index *ref_index;
	struct db_ref_bg *ref_bg;     /* background rebuilds, or NULL */
	int ref_index_off;	      /* tests: lookups go to the SQL */
	uint64_t ref_index_fallbacks; /* lookups to SQL since the last build */
	uint64_t ref_index_builds, ref_index_hits;
	uint64_t ref_index_rows; /* before the first build: a guess */
	int ref_index_sized;	 /* ref_index_rows was read */
	int reader; /* db_open_reader(): reads only, no migration */
	/* db_audit_on_commit(): the audit entries of the open transaction,
	 * told to @audit_fn once it commits (db_audit.c) */
	db_audit_committed_fn audit_fn;
	void *audit_arg;
	struct db_audit_held *audit_held; /* DB_AUDIT_HELD_MAX at most */
	size_t audit_cap;		  /* room in @audit_held */
	size_t audit_n;			  /* entries held */
	size_t audit_mark;		  /* held before the batch's call */
	int audit_lost;			  /* one did not fit */
};

/* A lookup's key: policy (or none), path, algo, digest (db_ref_cache.c). */
#define DB_REF_KEY_MAX \
	(1 + DB_NAME_MAX + 1 + DB_PATH_MAX + 1 + 16 + 1 + DB_DIGEST_MAX)
struct db_ref_key {
	uint64_t hash;
	size_t len; /* 0: not made (the cache could not serve) */
	char bytes[DB_REF_KEY_MAX];
};

/*
 * db_ref_cache_get() - the class of a lookup made earlier under the same
 * references: 1 and @cls when cached, 0 when not (look it up, then
 * db_ref_cache_put() with @key, which this filled), -1 when the
 * reference epoch cannot be read.
 */
int db_ref_cache_get(struct db *db, const char *policy, const char *path,
		     const char *algo, const uint8_t *digest, size_t digest_len,
		     struct db_ref_key *key, enum db_ref_class *cls,
		     struct imt_error *err);
/* db_ref_cache_put() - remember @cls for @key, a db_ref_cache_get() miss. */
void db_ref_cache_put(struct db *db, const struct db_ref_key *key,
		      enum db_ref_class cls);
/* db_ref_cache_free() - drop the cache and the index (db_close()). */
void db_ref_cache_free(struct db *db);
/* db_ref_epoch_read() - reference_epoch's value now, a statement each call. */
int db_ref_epoch_read(struct db *db, int64_t *epoch, struct imt_error *err);
/*
 * db_ref_epoch() - the reference epoch of this transaction, read once
 * per transaction (db_ref_cache.c): 1 and *@epoch, 0 when an import is
 * open (its writes are not committed), -1 when it cannot be read.
 */
int db_ref_epoch(struct db *db, int64_t *epoch, struct imt_error *err);
/*
 * db_ref_index_get() - the class from the references in memory
 * (db_ref_index.c): 1 and @cls when the index holds this transaction's
 * epoch (building it first when due), 0 when the SQL must answer, -1
 * when the epoch or a build's reads failed.
 */
int db_ref_index_get(struct db *db, const char *policy, const char *path,
		     const char *algo, const uint8_t *digest,
		     enum db_ref_class *cls, struct imt_error *err);
/* db_ref_index_free() - drop the index. */
void db_ref_index_free(struct db *db);

/*
 * db_reader_version_check() - a reader (db_open_reader()) reads only the
 * schema this build's writer migrates to (@version, as the backend keeps
 * it); else -1, saying to open the writer first.
 */
int db_reader_version_check(int64_t version, struct imt_error *err);

/*
 * The audit entries a transaction wrote, for db_audit_on_commit()
 * (db_audit.c): db_begin() marks where a call starts, db_commit() tells
 * them once the transaction (not a batch's savepoint) committed,
 * db_rollback() drops the call's (or all of them).
 */
void db_audit_held_mark(struct db *db);
void db_audit_held_flush(struct db *db);
void db_audit_held_drop(struct db *db, int all);
/* db_audit_held_free() - drop them and their room (db_close()). */
void db_audit_held_free(struct db *db);

/* db_err() - fill @err with @status and the message; returns -1. */
int db_err(struct imt_error *err, enum imt_result status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* db_bad() - the same with IMT_ERR_MALFORMED: an invalid argument. */
int db_bad(struct imt_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * db_begin() - start the transaction of one API call (db_tx.c): BEGIN
 * IMMEDIATE, which takes the write lock now rather than at the first
 * write, so two writers cannot deadlock upgrading read locks; inside a
 * batch, a savepoint. Fails with IMT_ERR_MISMATCH while a reference
 * import holds the transaction.
 */
int db_begin(struct db *db, struct imt_error *err);
/* db_commit() - commit (or release the savepoint); rolls back on failure */
int db_commit(struct db *db, struct imt_error *err);
/* db_rollback() - undo the call's writes, if any are open; never fails. */
void db_rollback(struct db *db);

/* db_step_done() - step a statement that returns no rows; 0 or -1. */
int db_step_done(struct db *db, struct db_stmt *st, struct imt_error *err,
		 const char *what);

/*
 * db_step_exists() - step the bound query @st once and reset it: 1 when it
 * has a row, 0 when not, -1 (@err names @what) on failure.
 */
int db_step_exists(struct db *db, struct db_stmt *st, struct imt_error *err,
		   const char *what);

/*
 * db_text_exists() - run @sql, a "SELECT 1 ... WHERE x = ?1" bound to
 * @key: 1 when it has a row, 0 when not, -1 (@err names @what) on failure.
 */
int db_text_exists(struct db *db, const char *sql, const char *key,
		   const char *what, struct imt_error *err);

/* Argument checks shared by the modules; each returns 0 or -1 + @err. */
int db_check_str(const char *s, size_t max, const char *what,
		 struct imt_error *err);
int db_check_blob(const uint8_t *p, size_t len, size_t min, size_t max,
		  const char *what, struct imt_error *err);
int db_check_id(const char *machine_id, struct imt_error *err);
int db_check_digest(const char *algo, const uint8_t *digest, size_t len,
		    struct imt_error *err);
int db_check_limit(unsigned int limit, struct imt_error *err);

/*
 * db_event_insert() - append an event inside the caller's transaction; the
 * boot is the machine's current one (db_machine.c).
 */
int db_event_insert(struct db *db, const char *id, int64_t now,
		    const char *kind, const char *from, const char *to,
		    const char *reason, struct imt_error *err);

/* db_state_set() - db_machine_set_state() inside the caller's transaction */
int db_state_set(struct db *db, const char *id, const char *to,
		 const char *reason, int64_t now, struct imt_error *err);

/*
 * db_machine_insert() - db_machine_create() inside the caller's
 * transaction, without its argument checks (db_machine.c).
 */
int db_machine_insert(struct db *db, const struct db_machine_new *m,
		      int64_t now, struct imt_error *err);

/* db_audit_insert() - db_audit_add() inside the caller's transaction. */
int db_audit_insert(struct db *db, const struct db_audit *a,
		    struct imt_error *err);

/*
 * db_json_text() - step @st, a bound "SELECT json_object(...)", and
 * return its text (malloc'ed; NULL and @err on failure). JSON is built by
 * the database, never by hand.
 */
char *db_json_text(struct db *db, struct db_stmt *st, struct imt_error *err);

/*
 * db_audit_insert_json() - db_audit_insert() of @a with, as its detail,
 * the text db_json_text() takes from @st.
 */
int db_audit_insert_json(struct db *db, const struct db_audit *a,
			 struct db_stmt *st, struct imt_error *err);

/* db_identity_get() - db_identity_check() without its argument checks. */
int db_identity_get(struct db *db, const char *id, const uint8_t *ek_fpr,
		    const uint8_t *ek_pub, size_t ek_pub_len,
		    struct db_identity *out, struct imt_error *err);

/*
 * db_log_columns() - a stored firmware log's columns in the row at @st:
 * its SHA-256 at @sha_col, its length at @len_col and, when @with_log, its
 * bytes at @len_col + 1 (malloc'ed into *@data). -1 and @err on a corrupt
 * row or no memory.
 */
int db_log_columns(struct db_stmt *st, int sha_col, int len_col, int with_log,
		   uint8_t sha256[DB_BOOT_LOG_SHA256_SIZE], size_t *len,
		   uint8_t **data, struct imt_error *err);

/*
 * db_nonce_columns() - a nonce's value at @col and its expiry at @col + 1
 * in the row at @st (@value has DB_NONCE_MAX bytes): 0; 1 when the value's
 * length is out of bounds. Such a row (an older schema took any length)
 * is no nonce: not outstanding, so the next db_nonce_issue() replaces it
 * and the machine is not shut out by an error on every request.
 */
int db_nonce_columns(struct db_stmt *st, int col, uint8_t *value, size_t *len,
		     int64_t *expires_at);

/*
 * A machine's columns (db_machine.c) and a boot's (db_boot.c), for the
 * queries that read them beside others (db_evidence.c). When the machine
 * was last seen: the later of machines.last_seen and its nonce row's
 * seen_at, where evidence leaves it (0014_nonce_seen.sql).
 */
#define DB_MACHINE_SEEN \
	"(CASE WHEN n.seen_at > coalesce(m.last_seen, 0) THEN n.seen_at " \
	"ELSE m.last_seen END)"
#define DB_MACHINE_SELECT \
	"m.id, m.ek_pub, m.ek_cert, m.ak_pub, m.ak_name, m.state, " \
	"m.state_reason, m.created_at, " DB_MACHINE_SEEN ", m.approved, " \
	"m.activated, m.bank, m.rejected_at, m.ek_fpr"
#define DB_MACHINE_FROM \
	"FROM machines m LEFT JOIN nonces n ON n.machine_id = m.id "
#define DB_MACHINE_COLS 14
#define DB_BOOT_SELECT \
	"b.id, b.reset_count, b.restart_count, b.started_at, " \
	"b.next_record_index, b.pcr10_sha1, b.pcr10_sha256, " \
	"b.boot_aggregate, coalesce(b.history_from, 0), " \
	"coalesce(b.history_to, 0), b.history_followed, b.pcr10_sha384, " \
	"b.pcr10_sha512"
#define DB_BOOT_COLS 13

/*
 * db_machine_from_row() - the machine in DB_MACHINE_SELECT's columns,
 * from column @base of the row at @st, with owned copies (release with
 * db_machine_release()); -1 on a corrupt row or no memory.
 */
int db_machine_from_row(struct db_stmt *st, int base, struct db_machine *m);

/*
 * db_boot_from_row() - the boot in DB_BOOT_SELECT's columns, from column
 * @base of the row at @st; -1 when a stored value is out of shape.
 */
int db_boot_from_row(struct db_stmt *st, int base, struct db_boot *b);

/*
 * db_records_store() - store @n records of boot @boot, in index order from
 * r[0].index, as chunks (db_records.c), inside the caller's transaction.
 */
int db_records_store(struct db *db, int64_t boot, const struct db_record *r,
		     size_t n, struct imt_error *err);

/*
 * db_records_to_chunks() - the C step of migration 0017: move every row
 * of the old records table into chunks, inside the migration's
 * transaction.
 */
int db_records_to_chunks(struct db *db, struct imt_error *err);

/*
 * db_migration_exec() - run migration @m's SQL on the open engine. A line
 * "-- imatrust-migration: step NAME" in it runs the C step NAME there,
 * between the statements before and after it.
 */
int db_migration_exec(struct db *db, const struct db_migration *m,
		      struct imt_error *err);

/* db_hook() - run the test hook for @point, if one is set. */
void db_hook(struct db *db, const char *point);

/* db_set_hook() - for tests only: install @fn (NULL removes it). */
void db_set_hook(struct db *db, db_hook_fn fn, void *arg);

#endif /* IMATRUST_DB_INTERNAL_H */

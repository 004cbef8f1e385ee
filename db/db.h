/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db.h - the verifier's storage: reference digests, machines, boots,
 * records, events, nonces, enrollment challenges, pre-registrations, the
 * audit trail and operator tokens.
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

/*
 * Several verifiers on one PostgreSQL database (db_cluster.c). On SQLite
 * one process owns the file: the locks are no-ops, and it leads.
 */

/* The channel a reference, policy or key change is announced on. */
#define DB_CHANGE_CHANNEL "imatrust_change"

/**
 * db_machine_lock() - hold machine @id's lock until the open transaction
 * (a batch) ends: take it first in every transaction that moves the
 * machine's state, and read the machine after it, so no instance writes
 * over what another committed meanwhile.
 */
int db_machine_lock(struct db *db, const char *id, struct imt_error *err);

/**
 * db_leader() - *@leader 1 when this connection holds (or now took) the
 * leader lock: the one instance that runs the housekeeping clock. It is
 * held until the connection ends; ask again at every tick.
 */
int db_leader(struct db *db, int *leader, struct imt_error *err);

/**
 * db_change_lock() - *@got 1 when this connection holds (or now took) the
 * lock of reference, policy and key changes, which one instance at a
 * time makes; db_change_unlock() gives it back.
 */
int db_change_lock(struct db *db, int *got, struct imt_error *err);
void db_change_unlock(struct db *db);

/**
 * db_change_announce() - tell the other instances that references,
 * policies or keys changed (NOTIFY on DB_CHANGE_CHANNEL, delivered when
 * the open transaction, if any, commits).
 */
int db_change_announce(struct db *db, struct imt_error *err);

/**
 * db_changed_elsewhere() - 1 once after another instance announced a
 * change, or after the connection was made again (announcements may
 * have been missed meanwhile); then 0 until the next. Read between
 * statements: the connection picks announcements up at its next call.
 */
int db_changed_elsewhere(struct db *db);

/* ---- reference digests (db_ref.c) ------------------------------------- */

enum db_source_kind {
	DB_SOURCE_DIR_TREE,    /* imatrust ref import-dir */
	DB_SOURCE_DEB,	       /* a Debian package's files */
	DB_SOURCE_GOLDEN_LIST, /* a golden machine's measurement list */
	DB_SOURCE_KEYLIME,     /* a Keylime runtime policy */
	DB_SOURCE_EFI,	       /* EFI applications' Authenticode digests */
};

/* "dir-tree", "deb", ...; NULL for a kind out of range. */
const char *db_source_kind_name(enum db_source_kind kind);
/* 0 and *@kind, or -1 for a name that is no kind. */
int db_source_kind_parse(const char *name, enum db_source_kind *kind);

/* What a source is beyond kind and name; every member may be NULL. */
struct db_source_meta {
	const char *package; /* Debian package, version, architecture */
	const char *version;
	const char *arch;
	const uint8_t *content_sha256; /* 32 bytes: SHA-256 of the input */
};

struct db_ref_source {
	enum db_source_kind kind;
	const char *name; /* e.g. "bash_5.2.15-2+b2_amd64" */
	/* stored by an import's begin; NULL leaves what is stored */
	const struct db_source_meta *meta;
};

/* One reference to store (db_ref_add_entry()). */
struct db_ref_entry {
	const char *path; /* absolute path, or an ima-buf name */
	const char *algo;
	const uint8_t *digest;
	size_t digest_len;
	int conffile; /* a Debian conffile */
};

/* Lookup classes, strongest first: see db_ref_lookup(). */
enum db_ref_class {
	DB_REF_KNOWN,		  /* this digest is listed for this path */
	DB_REF_MISMATCH,	  /* the path has digests, this is not one */
	DB_REF_KNOWN_ANY_PATH,	  /* path unlisted, digest is elsewhere */
	DB_REF_UNKNOWN_PATH,	  /* neither path nor digest is listed */
	DB_REF_MISMATCH_CONFFILE, /* MISMATCH, and the path is a conffile */
};

/* The source that vouches for a record (db_ref_origin()). */
struct db_ref_origin {
	enum db_source_kind kind;
	char name[DB_NAME_MAX + 1];
	char package[DB_NAME_MAX + 1]; /* "" when not a package */
	char version[DB_NAME_MAX + 1];
	char arch[32];
	int conffile;
	int other_path; /* vouched for another path (any_path) */
};

/* One reference as listed; pointers borrowed for the callback. */
struct db_ref {
	int64_t id; /* cursor for the next page */
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
	const char *path;		    /* exact path */
	const struct db_ref_source *source; /* one import */
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
/** db_ref_add_entry() - db_ref_add() of @e, with its conffile mark. */
int db_ref_add_entry(struct db *db, const struct db_ref_source *source,
		     const struct db_ref_entry *e, int64_t now,
		     struct imt_error *err);

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
/**
 * db_ref_import_commit() - commit the import's last (or only) transaction
 * and publish its generation in it: from this commit on what it stated
 * vouches, is listed and counted; before, none of it did (the source's
 * references of older generations vouch meanwhile). An import that never
 * gets here is dropped by the source's next import or db_ref_recover().
 */
int db_ref_import_commit(struct db *db, struct imt_error *err);
/**
 * db_ref_import_commit_chunk() - commit one chunk of an import without
 * publishing it: db_ref_import_continue() goes on, the last chunk ends
 * with db_ref_import_commit().
 */
int db_ref_import_commit_chunk(struct db *db, struct imt_error *err);
/**
 * db_ref_import_replace() - inside the open import: publishing it also
 * withdraws the source's older generations, in the same transaction (the
 * rows are deleted after, db_ref_withdraw() with stale_only).
 */
int db_ref_import_replace(struct db *db, struct imt_error *err);
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
 * db_ref_lookup_policy() - db_ref_lookup() counting only the references
 * of sources that policy @policy selects (its policy_selectors, KIND:NAME
 * globs); NULL counts every source. A path listed only as a conffile
 * in @algo that does not match gives DB_REF_MISMATCH_CONFFILE.
 */
int db_ref_lookup_policy(struct db *db, const char *policy, const char *path,
			 const char *algo, const uint8_t *digest,
			 size_t digest_len, enum db_ref_class *cls,
			 struct imt_error *err);

/*
 * Lookups are answered from memory when the same (policy, path, algo,
 * digest) was looked up under the same references (db_ref_cache.c): the
 * table holds DB_REF_CACHE_SLOTS keys, 20 MB at most.
 */
#define DB_REF_CACHE_SLOTS 65536
struct db_ref_cache_stats {
	uint64_t hits;	  /* lookups answered from memory */
	uint64_t misses;  /* lookups that ran the SQL */
	uint64_t flushes; /* times the references changed under it */
};
/** db_ref_cache_stats() - the counts since db_open(); zeros before use. */
void db_ref_cache_stats(struct db *db, struct db_ref_cache_stats *out);
/**
 * db_ref_origin() - which source of @policy vouches for (@path, @digest):
 * the newest one naming exactly that pair; when none does, with
 * @any_path one naming the digest for another path, with @conffile one
 * naming the path as a conffile (both: the newer source of the two).
 * *@found = 0 when none does. Every statement finds its rows by key.
 */
int db_ref_origin(struct db *db, const char *policy, const char *path,
		  const char *algo, const uint8_t *digest, size_t digest_len,
		  int any_path, int conffile, struct db_ref_origin *o,
		  int *found, struct imt_error *err);

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
 *              last reference. With 0 the first call hides the whole
 *              source at once: none of it vouches from that commit on.
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
 * db_ref_recover() - finish what a crash (or a failed request) left half
 * done, at most @limit references per call, one transaction each (call
 * again while *@more): an import that did not publish its generation
 * loses what it added (a source it made goes), and a withdrawal, whole or
 * of a replace's older generations, is completed. Neither vouched
 * meanwhile. Run it with no import or withdrawal running (the verifier
 * does at start, under the change lock).
 * @deleted: receives how many references went in this call
 */
int db_ref_recover(struct db *db, unsigned int limit, size_t *deleted,
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

/* ---- EFI application digests (db_efi.c) ------------------------------ */

/* One EFI file's digest in one bank, to store with db_efi_import(). */
struct db_efi_entry {
	const char *file_name; /* base name, e.g. "systemd-bootx64.efi" */
	const char *algo;      /* "sha256", "sha1", ... */
	const uint8_t *digest; /* the Authenticode digest */
	size_t digest_len;
};

/* Which 'efi' source holds a digest (db_efi_find()); copies. */
struct db_efi_hit {
	char source[DB_NAME_MAX + 1];
	char version[DB_NAME_MAX + 1]; /* "" when the import named none */
	char file_name[DB_NAME_MAX + 1];
};

/**
 * db_efi_import() - store @n digests as the 'efi' source @name.
 * @db: the database
 * @name: the source name (1 to DB_NAME_MAX bytes)
 * @version: stored as the source's version when not NULL
 * @entries: the digests
 * @n: number of @entries
 * @now: the source's imported_at when it is created
 * @added: set to the number of digests that were not stored before
 * @err: filled on failure
 *
 * One transaction: either every entry is stored or none. A digest the
 * source already holds is left as it is, so importing the same files
 * again changes nothing (*@added is 0).
 *
 * Return: 0, or -1 (bad argument, or the database failed).
 */
int db_efi_import(struct db *db, const char *name, const char *version,
		  const struct db_efi_entry *entries, size_t n, int64_t now,
		  size_t *added, struct imt_error *err);

/**
 * db_efi_find() - whether any 'efi' source holds (@algo, @digest).
 * @db: the database
 * @algo: the bank algorithm name
 * @digest: the digest bytes
 * @len: bytes in @digest
 * @hit: filled with the first such source (lowest id) when found
 * @err: filled on failure
 *
 * Return: 1 when found, 0 when no source holds it, -1 on failure.
 */
int db_efi_find(struct db *db, const char *algo, const uint8_t *digest,
		size_t len, struct db_efi_hit *hit, struct imt_error *err);

/* ---- sources: packages, retirement, rules (db_source.c) --------------- */

/* A source as stored; strings borrowed for the callback. */
struct db_source_info {
	int64_t id;
	enum db_source_kind kind;
	const char *name;
	const char *package; /* NULL unless a Debian package */
	const char *version;
	const char *arch;
	const uint8_t *content_sha256; /* NULL or 32 bytes */
	int64_t imported_at;
	int64_t retire_at; /* 0: not scheduled */
	int64_t refs;	   /* references it states */
};

typedef int (*db_source_cb)(const struct db_source_info *s, void *arg);

/**
 * db_source_get() - the stored source (@src's kind and name), to @cb.
 * @found: receives 1 when it exists, else 0
 */
int db_source_get(struct db *db, const struct db_ref_source *src,
		  db_source_cb cb, void *arg, int *found,
		  struct imt_error *err);

/** db_source_list() - every source, oldest first (@kind < 0: all kinds). */
int db_source_list(struct db *db, int kind, db_source_cb cb, void *arg,
		   struct imt_error *err);

/**
 * db_source_schedule_retire() - a newer version of @package for @arch
 * was imported as @keep: every other version of it without a date is to
 * be retired at @retire_at.
 * @n: receives how many were scheduled
 */
int db_source_schedule_retire(struct db *db, const char *package,
			      const char *arch, const char *keep,
			      int64_t retire_at, size_t *n,
			      struct imt_error *err);

/**
 * db_source_next_due() - a source whose retire_at is <= @now, if any:
 * its kind and name to @cb (the caller withdraws it).
 */
int db_source_next_due(struct db *db, int64_t now, db_source_cb cb, void *arg,
		       int *found, struct imt_error *err);

/**
 * db_source_rule_add() - an exclusion rule the open import's source
 * states (a Keylime policy's excludes); inside db_ref_import_begin().
 * @kind: "prefix", "glob" or "regex"
 */
int db_source_rule_add(struct db *db, const char *kind, const char *rule,
		       struct imt_error *err);

/* Return non-zero to stop early. */
typedef int (*db_rule_cb)(const char *kind, const char *rule,
			  const char *source, void *arg);

/**
 * db_policy_source_rules() - the rules of every source policy @policy
 * selects; @source is "KIND:NAME".
 */
int db_policy_source_rules(struct db *db, const char *policy, db_rule_cb cb,
			   void *arg, struct imt_error *err);

/* ---- named policies (db_policy.c) ------------------------------------- */

#define DB_POLICIES_MAX 256 /* policies, and selectors per policy */

/* A stored policy; strings borrowed for the callback. */
struct db_policy {
	const char *name;
	const char *body; /* JSON text, as verifier/policy/policy.c wrote it */
	int is_default;
	int64_t updated_at;
};

typedef int (*db_policy_cb)(const struct db_policy *p, void *arg);

/**
 * db_policy_put() - create or replace policy @name with its JSON @body
 * and its source @selectors (KIND:NAME globs), in one transaction. With
 * @is_default it becomes the default policy (the former one is not any
 * more). A new policy goes after the existing ones (machine patterns are
 * tried in that order); a replaced one keeps its place.
 * IMT_ERR_LIMIT past DB_POLICIES_MAX.
 */
int db_policy_put(struct db *db, const char *name, const char *body,
		  int is_default, const char *const *selectors, size_t n,
		  int64_t now, struct imt_error *err);

/** db_policy_list() - every policy, in order. */
int db_policy_list(struct db *db, db_policy_cb cb, void *arg,
		   struct imt_error *err);

/**
 * db_policy_delete() - forget policy @name. The default policy cannot be
 * deleted (IMT_ERR_MISMATCH): make another one the default first.
 * @found: receives 1 when it existed
 */
int db_policy_delete(struct db *db, const char *name, int *found,
		     struct imt_error *err);

/* ---- signature keys (db_key.c) ---------------------------------------- */

#define DB_KEY_DER_MAX 16384 /* bytes of a certificate */

struct db_key {
	int64_t id;
	const char *name;
	uint8_t keyid[4]; /* as IMA signatures name it */
	uint8_t fpr[32];  /* SHA-256 of the DER */
	const char *subject;
	const uint8_t *der;
	size_t der_len;
	const char *source; /* "key:NAME", or the import's "KIND:NAME" */
	int64_t added_at;
};

typedef int (*db_key_cb)(const struct db_key *k, void *arg);

/**
 * db_key_add() - import key @k on its own (source "key:NAME"); or, inside
 * db_ref_import_begin(), as part of that import (it goes with it).
 * IMT_ERR_MISMATCH when the name, or the same certificate on its own,
 * is there already.
 */
int db_key_add(struct db *db, const struct db_key *k, int64_t now,
	       struct imt_error *err);

/** db_key_list() - every key, oldest first. */
int db_key_list(struct db *db, db_key_cb cb, void *arg, struct imt_error *err);

/**
 * db_key_delete() - forget the key named @name (on its own only).
 * @found: receives 1 when it existed
 */
int db_key_delete(struct db *db, const char *name, int *found,
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

#define DB_FPR_SIZE 32 /* bytes in an EK fingerprint (SHA-256) */

/*
 * What a proven enrollment knows; pointers borrowed for the call.
 * @ek_fpr is the EK fingerprint: SHA-256 of the DER SubjectPublicKeyInfo
 * of the EK's key (enroll_fingerprint()), unique among machines.
 */
struct db_machine_new {
	const char *id;
	const uint8_t *ek_pub;
	size_t ek_pub_len;
	const uint8_t *ek_cert; /* NULL when the TPM has none */
	size_t ek_cert_len;
	const uint8_t *ek_fpr; /* DB_FPR_SIZE bytes */
	const uint8_t *ak_pub;
	size_t ak_pub_len;
	const uint8_t *ak_name;
	size_t ak_name_len;
	enum db_machine_state state; /* enrolling or pending */
	int activated;		     /* its TPM proved it holds EK and AK */
	int approved; /* an operator vouched for it (registered) */
};

/* A stored machine. From db_machine_get() the blobs and strings are owned
 * (db_machine_release() frees them); from db_machine_list() borrowed. */
struct db_machine {
	char id[DB_MACHINE_ID_MAX + 1];
	uint8_t *ek_pub;
	size_t ek_pub_len;
	uint8_t *ek_cert; /* NULL when none */
	size_t ek_cert_len;
	uint8_t *ak_pub;
	size_t ak_pub_len;
	uint8_t ak_name[DB_AK_NAME_MAX];
	size_t ak_name_len;
	enum db_machine_state state;
	char *state_reason; /* NULL when none */
	int64_t created_at;
	int64_t last_seen; /* 0 before the first evidence */
	int approved;
	int activated;	     /* its TPM proved it holds EK and AK */
	char bank[8];	     /* pinned quote bank; "" until the first */
	int64_t rejected_at; /* last "rejected" event, 0 when none */
	uint8_t ek_fpr[DB_FPR_SIZE];
	int has_ek_fpr; /* 0 for an older machine not yet filled */
};

struct db_event {
	int64_t id; /* cursor for the next page */
	const char *machine_id;
	int64_t boot_id; /* 0 when no boot was current */
	int64_t time;
	const char *kind;
	const char *from_state; /* NULL unless a state change */
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
 * Only a verified activation (db_challenge_activate()) makes machines;
 * this is its storage step, public for tests and benchmarks.
 * IMT_ERR_MISMATCH when a machine with that id, or with that EK
 * fingerprint, exists.
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

enum db_approve_result {
	DB_APPROVE_OK,	       /* approved (again: not an error) */
	DB_APPROVE_NO_MACHINE, /* no machine has that id */
	DB_APPROVE_WRONG_EK,   /* the fingerprint is not the machine's */
	DB_APPROVE_NO_FPR,     /* an older machine whose EK could not be
				 * fingerprinted: remove it instead */
};

/**
 * db_machine_approve() - operator approval of the machine whose EK has
 * fingerprint @ek_fpr: set approved; writes an "approved" event and an
 * audit entry naming @op_name (a token name), in one transaction. The
 * state change (pending -> enrolling) is the engine's, in the caller's
 * transaction (verifier/engine/engine_identity.c engine_approve()).
 * @ek_fpr: DB_FPR_SIZE bytes, the fingerprint the operator checked
 * @res: the outcome; nothing changes unless DB_APPROVE_OK
 */
int db_machine_approve(struct db *db, const char *id, const uint8_t *ek_fpr,
		       const char *op_name, int64_t now,
		       enum db_approve_result *res, struct imt_error *err);

/* What db_machine_remove() removed. */
struct db_removal {
	int machine;	  /* a machine was removed */
	int registration; /* a pre-registration was removed */
	uint8_t ek_fpr[DB_FPR_SIZE];
	int has_ek_fpr;
	char state[16]; /* the machine's last state, "" if none */
	int64_t boots;	/* rows removed with it */
	int64_t records;
	int64_t enrollments; /* open challenges for the id */
};

/**
 * db_machine_remove() - forget machine @id: its row with its boots,
 * records, events and nonces, the open challenges for its id and its
 * pre-registration, and write a "remove" audit entry naming @op_name
 * that outlives them, in one transaction.
 * @out: what was removed; out->machine and out->registration both 0
 *       when there was nothing (then nothing is written)
 */
int db_machine_remove(struct db *db, const char *id, const char *op_name,
		      int64_t now, struct db_removal *out,
		      struct imt_error *err);

/**
 * db_machine_next_unfingerprinted() - the next machine with rowid above
 * *@cursor whose ek_fpr is not filled yet (databases older than schema
 * 3), oldest first; *@cursor moves past it.
 * @out: filled when found; release with db_machine_release()
 * @found: 1 when there was one
 */
int db_machine_next_unfingerprinted(struct db *db, int64_t *cursor,
				    struct db_machine *out, int *found,
				    struct imt_error *err);

/**
 * db_machine_fill_fpr() - store @ek_fpr for machine @id (see above).
 * @holder: receives the id of the machine that already has this EK
 *          ("" when none): then nothing is stored, and a "duplicate-ek"
 *          audit entry names both ids
 */
int db_machine_fill_fpr(struct db *db, const char *id, const uint8_t *ek_fpr,
			int64_t now, char holder[DB_MACHINE_ID_MAX + 1],
			struct imt_error *err);

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
 * @limit (1..DB_LIST_MAX), oldest last_seen first. A machine's last_seen
 * is the later of its row's and its nonce row's (struct db_nonce_next);
 * first the recent ones of the nonce rows move into the machines' rows
 * (no value read changes), so that heartbeating machines are not listed
 * and passed over on every call.
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
			     int64_t interval, const char *reason, int *written,
			     struct imt_error *err);

/**
 * db_machine_transition() - write one row of the verifier's state table:
 * state @to with @reason and, when @kind is not NULL, an event of that
 * kind (with @from and @to when they differ). Only the engine calls it
 * (verifier/engine/engine.c); @from is the state the caller read.
 */
int db_machine_transition(struct db *db, const char *id, const char *from,
			  const char *to, const char *reason, const char *kind,
			  int64_t now, struct imt_error *err);

/* ---- enrollment (db_enroll.c) --------------------------------------- */

#define DB_SECRET_MIN 16      /* bytes in a credential secret, at least */
#define DB_SECRET_MAX 64      /* ... at most (TPM2B_DIGEST) */
#define DB_PROOF_HASH_SIZE 32 /* SHA-256 of the expected proof */

/*
 * An open credential challenge (proto/DESIGN.md §3): what one POST /v1/agents
 * asked for, kept until its proof arrives or it expires. Nothing of a
 * machine is created or changed by it: several may be open for one id
 * (a stranger's cannot cancel the real agent's), and a re-enrollment of
 * a known machine leaves its proven AK in force until this proof.
 */
struct db_challenge {
	int64_t id; /* row id, filled by db_challenge_find() */
	char machine_id[DB_MACHINE_ID_MAX + 1]; /* the id asked for */
	uint8_t proof_hash[DB_PROOF_HASH_SIZE]; /* lookup key of the proof */
	uint8_t ek_fpr[DB_FPR_SIZE];
	uint8_t ek_pub[DB_KEY_MAX];
	size_t ek_pub_len;
	uint8_t ek_cert[DB_CERT_MAX]; /* DER, with any chain sent */
	size_t ek_cert_len;	      /* 0 when none */
	int ek_chained;		      /* the EK certificate chained to a CA */
	uint8_t ak_pub[DB_KEY_MAX];
	size_t ak_pub_len;
	uint8_t ak_name[DB_AK_NAME_MAX];
	size_t ak_name_len;
	uint8_t secret[DB_SECRET_MAX];
	size_t secret_len;
	int64_t created_at;
	int64_t expires_at; /* void from then on */
};

/* Caps on open challenges (config keys of the same names). */
struct db_enroll_limits {
	unsigned int max_open;	 /* all EKs together, >= 1 */
	unsigned int max_per_ek; /* one EK, >= 1 */
};

enum db_open_result {
	DB_OPEN_OK,	 /* stored */
	DB_OPEN_EVICTED, /* stored in the place of the oldest
				 * challenge of an unvouched EK */
	DB_OPEN_FULL,	 /* max_open open: nothing stored */
	DB_OPEN_EK_FULL, /* max_per_ek open for this EK: nothing */
};

/**
 * db_challenge_open() - store challenge @c unless a cap is reached, in
 * one transaction that first drops the expired ones.
 * @vouched: the EK chained to a CA or is pre-registered: at the global
 *           cap it takes the place of the oldest challenge of an EK
 *           that is neither, so a flood of made-up EKs does not lock
 *           real machines out
 * @res: the outcome
 */
int db_challenge_open(struct db *db, const struct db_challenge *c, int vouched,
		      const struct db_enroll_limits *lim, int64_t now,
		      enum db_open_result *res, struct imt_error *err);

/**
 * db_challenge_find() - the open challenge for @machine_id whose proof
 * hashes to @proof_hash and that has not expired at @now.
 * @found: 1 when there is one
 */
int db_challenge_find(struct db *db, const char *machine_id,
		      const uint8_t proof_hash[DB_PROOF_HASH_SIZE], int64_t now,
		      struct db_challenge *out, int *found,
		      struct imt_error *err);

/** db_challenge_count() - challenges open (unexpired) at @now. */
int db_challenge_count(struct db *db, int64_t now, uint64_t *n,
		       struct imt_error *err);

/* What the verifier's policy asks of an activation. */
struct db_activate_opts {
	unsigned int max_pending;   /* pending machines at most */
	int registered_only;	    /* a new machine needs a pre-registration */
	const char *pending_reason; /* JSON state reason when it ends up
					 * pending (why the EK is not
					 * vouched for), or NULL */
	/* the states the verifier's table gives an activation (vouched: EK
	 * chained, pre-registered or approved; else unvouched) */
	enum db_machine_state to_vouched, to_unvouched;
};

enum db_activation {
	DB_ACT_CREATED,	       /* a new machine */
	DB_ACT_REPLACED,       /* a known machine (same EK): new AK */
	DB_ACT_ID_TAKEN,       /* the id is another EK's machine or
				 * pre-registration: nothing changed */
	DB_ACT_EK_TAKEN,       /* the EK is another id's: nothing changed */
	DB_ACT_PENDING_FULL,   /* it would be pending, max_pending are */
	DB_ACT_NOT_REGISTERED, /* registered_only, and it is not */
};

/**
 * db_challenge_activate() - the proof of @c verified: in one transaction
 * check the identity again (the id and the EK must still be free, or be
 * one machine), then create the machine (activated, "enrolled" and
 * "activated" events, an "enroll" audit entry) or bind the new AK to the
 * known one, and drop every open challenge of this EK. The state becomes
 * "enrolling" when the EK chained, is pre-registered for the id, or an
 * operator approved the machine; otherwise "pending".
 * @res: the outcome; nothing changes unless created or replaced
 * @state: receives the new state (may be NULL)
 */
int db_challenge_activate(struct db *db, const struct db_challenge *c,
			  const struct db_activate_opts *o, int64_t now,
			  enum db_activation *res, enum db_machine_state *state,
			  struct imt_error *err);

/* ---- identities: pre-registration (db_identity.c) --------------------- */

/* Who holds an id and an EK; all 0 when both are free. */
struct db_identity {
	int machine;		 /* a machine has the id */
	int machine_same_ek;	 /* ... and it has this EK */
	int ek_elsewhere;	 /* a machine of another id has this EK */
	int registered;		 /* (id, EK) is pre-registered */
	int id_registered_other; /* the id is registered for another EK */
	int ek_registered_other; /* the EK is registered for another id */
};

/**
 * db_identity_check() - who holds @id and the EK @ek_fpr (@ek_pub for
 * an older machine whose fingerprint is not filled yet).
 */
int db_identity_check(struct db *db, const char *id, const uint8_t *ek_fpr,
		      const uint8_t *ek_pub, size_t ek_pub_len,
		      struct db_identity *out, struct imt_error *err);

enum db_register_result {
	DB_REG_OK,	 /* stored */
	DB_REG_EXISTS,	 /* this very pair was there: unchanged */
	DB_REG_ID_TAKEN, /* the id has another EK (machine or
				 * registration) */
	DB_REG_EK_TAKEN, /* the EK is another id's */
};

struct db_registration {
	char machine_id[DB_MACHINE_ID_MAX + 1];
	uint8_t ek_fpr[DB_FPR_SIZE];
	char op_name[DB_NAME_MAX + 1];
	int64_t created_at;
};

/**
 * db_registration_add() - pre-register (@id, @ek_fpr) for @op_name,
 * with a "register" audit entry, in one transaction.
 * @res: the outcome; only DB_REG_OK writes anything
 */
int db_registration_add(struct db *db, const char *id, const uint8_t *ek_fpr,
			const char *op_name, int64_t now,
			enum db_register_result *res, struct imt_error *err);

/** db_registration_get() - @id's pre-registration; *found 0 or 1. */
int db_registration_get(struct db *db, const char *id,
			struct db_registration *out, int *found,
			struct imt_error *err);

/* ---- audit (db_audit.c) ------------------------------------------------ */

/*
 * An audit entry: what was done to an identity, by whom. Pointers are
 * borrowed; every one but @action may be NULL. Entries are never removed
 * with the machine they name.
 */
struct db_audit {
	int64_t id; /* cursor for the next page (listing) */
	int64_t time;
	const char *op_name; /* token name; NULL: the verifier itself */
	const char *action;  /* "approve", "register", "remove", ... */
	const char *machine_id;
	const uint8_t *ek_fpr; /* DB_FPR_SIZE bytes */
	const char *detail;    /* JSON text */
};

typedef int (*db_audit_cb)(const struct db_audit *a, void *arg);

/** db_audit_add() - append entry @a (its @id is ignored). */
int db_audit_add(struct db *db, const struct db_audit *a,
		 struct imt_error *err);

/**
 * db_audit_list() - call @cb for entries with id > @after, oldest first,
 * at most @limit (1..DB_LIST_MAX); only @machine_id's when not NULL.
 */
int db_audit_list(struct db *db, const char *machine_id, int64_t after,
		  unsigned int limit, db_audit_cb cb, void *arg,
		  struct imt_error *err);

/* ---- boots and records (db_boot.c) ------------------------------------ */

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

/* ---- what evidence reads of its machine (db_evidence.c) -------------- */

/*
 * A machine as the evidence path sees it, read by one statement: one
 * snapshot and, on PostgreSQL, one round trip instead of one a table.
 */
struct db_evidence_view {
	struct db_machine m; /* release with db_evidence_view_release() */
	int found;	     /* 0: no such machine, nothing else is set */
	struct db_boot boot; /* the current boot */
	int have_boot;
	struct db_boot_log log; /* the boot's firmware event log: digest and
				 * length, never its bytes (data NULL) */
	int have_log;
	uint8_t nonce[DB_NONCE_MAX]; /* outstanding: unused, unexpired */
	size_t nonce_len;
	int64_t nonce_expires;
	int have_nonce;
};

/**
 * db_evidence_view_get() - machine @id, its current boot, that boot's log
 * digest and its nonce outstanding at @now, as db_machine_get(),
 * db_boot_current(), db_boot_log_get() without the log and
 * db_nonce_outstanding() would read them, in one statement.
 * @out: filled; release with db_evidence_view_release() (also when not
 *       found)
 *
 * Return: 0 (see @out->found) or -1 with @err.
 */
int db_evidence_view_get(struct db *db, const char *id, int64_t now,
			 struct db_evidence_view *out, struct imt_error *err);

/** db_evidence_view_release() - what db_evidence_view_get() allocated. */
void db_evidence_view_release(struct db_evidence_view *v);

/* ---- retention (db_retention.c) --------------------------------------- */

struct db_retention {
	unsigned int keep_boots; /* boots kept per machine, >= 1 */
	unsigned int max_events; /* events kept per machine, 0: no cap */
	unsigned int max_rows;	 /* rows deleted per call, >= 1 */
	int64_t pending_expire;	 /* seconds a never approved pending
					 * machine is kept, 0: forever */
	int64_t webhook_keep;	 /* seconds a delivered webhook
					 * message is kept (0: deleted at
					 * the next pass) */
};

/**
 * db_retention_run() - delete the records and events of each machine's
 * boots beyond the newest @keep_boots (then those boots), a machine's
 * oldest events beyond @max_events (a boot that lasts months still
 * flaps between trusted and stale), nonces that are used or expired
 * at @now, expired enrollment challenges, and pending machines that were
 * never approved nor sent evidence, @pending_expire after their creation
 * (each with a "pending-expired" audit entry), and webhook messages
 * delivered @webhook_keep seconds ago or more; at most @max_rows rows per
 * call so the writer is never held for long.
 * @deleted: receives the rows deleted (may be NULL)
 * @more: receives 1 when rows remain to delete: call again (may be NULL)
 */
int db_retention_run(struct db *db, const struct db_retention *r, int64_t now,
		     size_t *deleted, int *more, struct imt_error *err);

/* ---- webhooks: endpoints and their outbox (db_webhook.c) ------------- */

#define DB_WEBHOOK_NAME_MAX 64	 /* bytes in an endpoint name */
#define DB_WEBHOOK_URL_MAX 2048	 /* bytes in its URL */
#define DB_WEBHOOK_SECRET_MIN 24 /* bytes of signing secret, at least */
#define DB_WEBHOOK_SECRET_MAX 64 /* ... at most */
#define DB_WEBHOOK_KEY_ID_MAX 64 /* bytes in a key id */
#define DB_WEBHOOK_ERROR_MAX 256 /* bytes of a delivery's last error */

/*
 * An endpoint to store; pointers borrowed. Every state-change event
 * (an event with a to_state) written while it is enabled queues one
 * message for it, in the event's transaction (schema 0010's trigger).
 */
struct db_webhook_new {
	const char *name; /* [A-Za-z0-9._-], the caller checks */
	const char *url;
	const char *ca_file;   /* NULL: the system's CA store */
	int allow_http;	       /* http:// to another host than loopback */
	const uint8_t *secret; /* the HMAC-SHA256 key */
	size_t secret_len;
	const char *key_id;	  /* names the secret (webhook-key-id) */
	int from_config;	  /* defined by the config file */
	unsigned int max_pending; /* undelivered messages kept, >= 1 */
};

/* An endpoint as listed, with its delivery figures; borrowed. */
struct db_webhook {
	const char *name;
	const char *url;
	const char *ca_file; /* NULL when none */
	const char *key_id;
	int allow_http;
	int from_config;
	int enabled;
	int64_t created_at;
	unsigned int max_pending;
	uint64_t delivered;	/* messages delivered */
	uint64_t failed;	/* attempts that failed */
	uint64_t dropped;	/* messages dropped: max_pending was reached */
	uint64_t pending;	/* messages not delivered yet */
	int64_t oldest_pending; /* created_at of the oldest, 0 when none */
	const char *last_error; /* of the newest failed attempt, or NULL */
};

/* A message due for delivery (db_webhook_due()); borrowed. */
struct db_webhook_message {
	int64_t seq;
	const char *id; /* "<endpoint>-<seq>", the body's "id" */
	const char *endpoint;
	const char *url;
	const char *ca_file; /* NULL when none */
	int allow_http;
	const char *key_id;
	const uint8_t *secret;
	size_t secret_len;
	const char *machine_id;
	const char *body;      /* JSON text, as signed and sent */
	unsigned int attempts; /* failed attempts so far */
};

typedef int (*db_webhook_cb)(const struct db_webhook *w, void *arg);
typedef int (*db_webhook_message_cb)(const struct db_webhook_message *m,
				     void *arg);

/**
 * db_webhook_add() - store a new endpoint, enabled.
 *
 * IMT_ERR_MISMATCH when an endpoint of that name exists.
 */
int db_webhook_add(struct db *db, const struct db_webhook_new *w, int64_t now,
		   struct imt_error *err);

/**
 * db_webhook_put() - db_webhook_add(), or, when @w->name exists, replace
 * its URL, CA, secret, key id and cap in place, keeping its queue and
 * figures (the config file's endpoints at every start).
 * @created: receives 1 when it was new (may be NULL)
 */
int db_webhook_put(struct db *db, const struct db_webhook_new *w, int64_t now,
		   int *created, struct imt_error *err);

/**
 * db_webhook_delete() - forget endpoint @name with its queue.
 * @found: receives 1 when it existed
 */
int db_webhook_delete(struct db *db, const char *name, int *found,
		      struct imt_error *err);

/**
 * db_webhook_cap() - set every endpoint's max_pending (the config file's
 * webhook_max_pending, at start); the cap is enforced at the next
 * message.
 */
int db_webhook_cap(struct db *db, unsigned int max_pending,
		   struct imt_error *err);

/** db_webhook_list() - call @cb for every endpoint, in name order. */
int db_webhook_list(struct db *db, db_webhook_cb cb, void *arg,
		    struct imt_error *err);

/**
 * db_webhook_set_tnc() - the TNC recommendation message bodies give for
 * @state (the verifier's state table says, at start).
 */
int db_webhook_set_tnc(struct db *db, enum db_machine_state state,
		       const char *tnc, struct imt_error *err);

/**
 * db_webhook_on_queued() - call @fn(@arg) when a transaction that queued
 * outbox messages (the schema's triggers) commits, so the delivery thread
 * need not poll for them. @fn runs inside the commit, on the committing
 * thread, before the commit is complete: it must only signal (a reader
 * that takes the same lock as the writer sees the commit). NULL removes.
 */
void db_webhook_on_queued(struct db *db, void (*fn)(void *arg), void *arg);

/**
 * db_webhook_due() - call @cb for at most @limit (1..DB_LIST_MAX)
 * messages to send at @now: undelivered, next attempt due, enabled
 * endpoint, and the oldest undelivered message of its (endpoint,
 * machine): a machine's messages go one at a time, in order, while
 * other machines' do not wait for them. Soonest due first.
 */
int db_webhook_due(struct db *db, int64_t now, unsigned int limit,
		   db_webhook_message_cb cb, void *arg, struct imt_error *err);

/**
 * db_webhook_delivered() - message @seq was accepted (2xx) at @now. A
 * message that is gone (its endpoint deleted) is not an error.
 */
int db_webhook_delivered(struct db *db, int64_t seq, int64_t now,
			 struct imt_error *err);

/**
 * db_webhook_failed() - an attempt at message @seq failed with @error
 * (truncated to DB_WEBHOOK_ERROR_MAX); try again at @next_attempt.
 */
int db_webhook_failed(struct db *db, int64_t seq, int64_t next_attempt,
		      const char *error, struct imt_error *err);

/* ---- nonces (db_nonce.c) ---------------------------------------------- */

enum db_nonce_result {
	DB_NONCE_OK,	  /* was valid; now used */
	DB_NONCE_UNKNOWN, /* not this machine's (never issued to it,
				 * replaced, purged, or another machine's) */
	DB_NONCE_USED,	  /* marked used (a row of verifiers before
				 * db_nonce_renew(), until purged) */
	DB_NONCE_EXPIRED, /* now >= expires_at */
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
int db_nonce_issue(struct db *db, const char *machine_id, const uint8_t *value,
		   size_t len, int64_t expires_at, struct imt_error *err);

/* What db_nonce_renew() leaves in the row. */
struct db_nonce_next {
	const uint8_t *value; /* the next nonce, DB_NONCE_MIN..MAX bytes */
	size_t len;
	int64_t expires; /* valid while now < expires */
	/*
	 * Not 0: the evidence counts as seen at this time (its records,
	 * or none, are stored at the boot's next index), kept in the row
	 * in place of machines.last_seen: see db_boot_advance.seen_in_nonce
	 */
	int64_t seen_at;
};

/**
 * db_nonce_renew() - use nonce @value once and issue @next in ONE UPDATE
 * of the machine's nonce row: what evidence does with its nonce. @value
 * must be unused, unexpired at @now and issued to @machine_id; the row
 * holds @next from then on, so @value is unknown.
 * @res: DB_NONCE_OK when renewed; otherwise why not (nothing changes)
 *
 * No savepoint in a batch: one statement, atomic on its own.
 */
int db_nonce_renew(struct db *db, const char *machine_id, const uint8_t *value,
		   size_t len, int64_t now, const struct db_nonce_next *next,
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
		   char name[DB_NAME_MAX + 1], int *ok, struct imt_error *err);

#endif /* IMATRUST_DB_H */

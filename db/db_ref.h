/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_ref.h - reference digests: sources' kinds, adding, imports in chunks,
 * lookups and their cache (db_ref_cache.c), origins, deletion, withdrawal,
 * recovery. The conventions every function follows, and the limits, are
 * db.h's.
 */
#ifndef IMATRUST_DB_REF_H
#define IMATRUST_DB_REF_H

#include "db.h"

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
	uint64_t hits;	  /* lookups answered from memory: cache or index */
	uint64_t misses;  /* lookups that ran the SQL */
	uint64_t flushes; /* times the references changed under it */
};
/** db_ref_cache_stats() - the counts since db_open(); zeros before use. */
void db_ref_cache_stats(struct db *db, struct db_ref_cache_stats *out);
/*
 * Every visible reference, in memory (db_ref_index.c): a lookup is
 * answered from it when it holds the references of the lookup's
 * transaction (the same reference epoch); else by the cache and SQL,
 * and the index is rebuilt on this connection when due.
 */
struct db_ref_index_stats {
	uint64_t hits;	 /* lookups answered from the index */
	uint64_t builds; /* builds tried since db_open() */
	size_t refs;	 /* references held */
	size_t bytes;	 /* memory held */
	int64_t epoch;	 /* the reference epoch it holds */
	int built;	 /* 0: none yet */
};
/** db_ref_index_stats() - the index's counts; zeros before the first build */
void db_ref_index_stats(struct db *db, struct db_ref_index_stats *out);
/**
 * db_ref_index_refresh() - build the index now from this connection's
 * view (at start, or after a notice that references changed), in the
 * open transaction if any. Keeps the previous index when a writer
 * committed meanwhile (the lookups then rebuild when due).
 */
int db_ref_index_refresh(struct db *db, struct imt_error *err);
/**
 * db_ref_index_background() - from now on rebuild the index on a reader
 * connection to @path (db_open_reader()) in a thread of its own, when
 * due, instead of in a lookup: the lookups meanwhile go to the cache and
 * SQL, and the first one after it finished takes it. db_close() waits
 * for a rebuild under way.
 */
int db_ref_index_background(struct db *db, const char *path,
			    struct imt_error *err);

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

#endif /* IMATRUST_DB_REF_H */

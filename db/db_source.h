/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_source.h - sources: what each is (package, version, architecture),
 * retirement, the exclusion rules an import brought (db_source.c). The
 * conventions every function follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_SOURCE_H
#define IMATRUST_DB_SOURCE_H

#include "db.h"
#include "db_ref.h"

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

#endif /* IMATRUST_DB_SOURCE_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_key.h - signature keys: certificates on their own or with an import
 * (db_key.c). The conventions every function follows, and the limits, are
 * db.h's.
 */
#ifndef IMATRUST_DB_KEY_H
#define IMATRUST_DB_KEY_H

#include "db.h"

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

#endif /* IMATRUST_DB_KEY_H */

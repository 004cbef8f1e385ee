/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * import_store.h - collect what an importer found (import.h), then store
 * it as one import of one source in ONE transaction: a bad input, or a
 * failure half way, stores nothing. Withdrawals (the rest of a replace,
 * a retired package) go in short transactions of their own.
 */
#ifndef IMATRUST_IMPORT_STORE_H
#define IMATRUST_IMPORT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "db_ref.h"
#include "import.h"
#include "rejudge.h"
#include "verifier.h"

#define IMPORT_REFS_MAX 2000000 /* references one import may state */
#define IMPORT_BATCH_ALGOS 16	/* algorithm names kept once (more: copied) */

struct import_rule {
	enum import_rule_kind kind;
	char *rule;
};

struct import_key {
	uint8_t *der;
	size_t len;
};

struct import_batch {
	struct db_ref_entry *refs; /* path and digest point into arena */
	size_t nrefs, cap;
	char **chunks; /* the arena: one block per 64 KiB */
	size_t nchunks, used;
	struct import_rule *rules;
	size_t nrules;
	struct import_key *keys;
	size_t nkeys;
	char *algos[IMPORT_BATCH_ALGOS]; /* the names, once (arena) */
	size_t nalgos;
};

/** import_batch_sink() - a sink that collects into @b (zeroed first). */
void import_batch_sink(struct import_batch *b, struct import_sink *sink);

void import_batch_free(struct import_batch *b);

/**
 * import_batch_store() - store @b as the new generation of @src in one
 * transaction under v->lock; with @replace, then withdraw what the
 * source said before and @b does not say again.
 * @added: receives how many references were stated
 * @withdrawn: receives how many went (may be NULL)
 *
 * Return: 0, or -1 with @err (nothing of @b is stored then).
 */
int import_batch_store(struct verifier *v, const struct db_ref_source *src,
		       const struct import_batch *b, int replace, int64_t now,
		       size_t *withdrawn, struct imt_error *err);

/**
 * import_withdraw() - withdraw @src's references (all of them and the
 * source, or only those of older generations), in short transactions.
 */
int import_withdraw(struct verifier *v, const struct db_ref_source *src,
		    int stale_only, size_t *withdrawn, struct imt_error *err);

/**
 * import_recover() - db_ref_recover() until done, the lock taken per
 * chunk: drop what unfinished imports added and complete interrupted
 * withdrawals (the digests withdrawn are queued for re-judging).
 * Under the change lock. @dropped: references deleted (may be NULL).
 */
int import_recover(struct verifier *v, size_t *dropped, struct imt_error *err);

/**
 * import_retire() - withdraw source @src entirely and re-judge every
 * machine both ways (a retired package version, a withdrawn list).
 * Call without v->lock, inside rejudge_change_begin()/end().
 * @op_name: who (the audit's word; "upgrade_window" for the clock)
 */
int import_retire(struct verifier *v, const struct db_ref_source *src,
		  const char *op_name, int64_t now, size_t *withdrawn,
		  struct rejudge_stats *st, struct imt_error *err);

/**
 * import_retire_due() - retire the package versions whose upgrade
 * window has ended (the housekeeping clock); skipped while another
 * change runs.
 */
void import_retire_due(struct verifier *v, int64_t now);

#endif /* IMATRUST_IMPORT_STORE_H */

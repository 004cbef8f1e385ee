/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_housekeeping.h - what the daemon's clock runs besides
 * engine_stale_tick() and import_retire_due(): bounded retention, and at
 * start the reference changes a crash or a kill left unfinished. Each
 * takes v->lock itself (issue #35).
 */
#ifndef IMATRUST_ENGINE_HOUSEKEEPING_H
#define IMATRUST_ENGINE_HOUSEKEEPING_H

#include <stdint.h>

#include "verifier.h"

#define ENGINE_RETENTION_ROWS 5000 /* rows deleted per pass */

/**
 * engine_retention() - one bounded retention pass at @now under the
 * configuration's keep_boots, max_events, pending_expire, webhook_keep,
 * audit_keep and event_keep (db_retention_run(), at most
 * ENGINE_RETENTION_ROWS rows). A failure is logged; what is left waits for the next pass.
 */
void engine_retention(struct verifier *v, int64_t now);

/**
 * engine_resume_changes() - before serving: drop or complete an import
 * or a withdrawal cut short (import_recover(): none of it was in effect
 * meanwhile), then judge the digests a withdrawal left queued, so nothing
 * withdrawn is still vouched for. Under the change lock, skipped while
 * another instance holds it (that change's re-judge empties the queue
 * itself). Failures are logged.
 */
void engine_resume_changes(struct verifier *v, int64_t now);

/**
 * engine_load_references() - before serving: every visible reference in
 * memory (db_ref_index_refresh()), so the first evidence is judged from
 * it, and later rebuilds in a thread on a connection of their own
 * (db_ref_index_background()). A failure is logged; lookups then go to
 * the database until the index is rebuilt when due.
 */
void engine_load_references(struct verifier *v);

#endif /* IMATRUST_ENGINE_HOUSEKEEPING_H */

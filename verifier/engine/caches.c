// SPDX-License-Identifier: GPL-2.0-only
/*
 * caches.c - the verifier's in-memory state beside its database, made
 * in one place for the daemon, the in-process bench and the fuzzer, so
 * that what they run is what the daemon runs.
 */
#include "ak_cache.h"
#include "backlog.h"
#include "boot_memo.h"
#include "verifier.h"

int verifier_caches_new(struct verifier *v)
{
	v->backlog = backlog_new(v->cfg.backlog_machine_max,
				 v->cfg.backlog_total_max);
	v->ak_cache = ak_cache_new();
	v->boot_memo = boot_memo_new();
	return v->backlog != NULL && v->ak_cache != NULL &&
			       v->boot_memo != NULL ?
		       0 :
		       -1;
}

void verifier_caches_free(struct verifier *v)
{
	backlog_free(v->backlog);
	ak_cache_free(v->ak_cache);
	boot_memo_free(v->boot_memo);
	v->backlog = NULL;
	v->ak_cache = NULL;
	v->boot_memo = NULL;
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_internal.h - what engine.c and the other engine_*.c share.
 */
#ifndef IMATRUST_ENGINE_INTERNAL_H
#define IMATRUST_ENGINE_INTERNAL_H

#include "db_machine.h"
#include "engine.h"

/* Set @ans to @status with a message. */
void engine_answer_set(struct engine_answer *ans, enum engine_status status,
		       const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Set @ans to the storage failure @err of @what: "WHAT: why", its kind
 * as the status (engine_storage_status()). */
void engine_answer_storage(struct engine_answer *ans, const char *what,
			   const struct imt_error *err);

/* Issue @id's next nonce (v->lock held); -1 with @ans filled. */
int engine_issue_nonce(struct verifier *v, const char *id, int64_t now,
		       uint8_t *nonce, size_t *len, uint64_t *expires,
		       struct engine_answer *ans);

/*
 * Is machine @id, read with @found, one evidence may come from: known and
 * activated? 0, or -1 with @ans filled (404 or 403). @m stays the caller's.
 */
int engine_usable(const char *id, const struct db_machine *m, int found,
		  struct engine_answer *ans);

/* Load an activated machine (v->lock held); -1 with @ans filled. */
int engine_load(struct verifier *v, const char *id, struct db_machine *m,
		struct engine_answer *ans);

#endif /* IMATRUST_ENGINE_INTERNAL_H */

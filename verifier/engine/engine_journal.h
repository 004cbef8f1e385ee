/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_journal.h - every audit entry the writer commits, also to the
 * systemd journal with structured fields, for a SIEM (engine_journal.c).
 */
#ifndef IMATRUST_ENGINE_JOURNAL_H
#define IMATRUST_ENGINE_JOURNAL_H

#include "verifier.h"

/* MESSAGE_ID of every audit entry: journalctl MESSAGE_ID=... finds them */
#define ENGINE_JOURNAL_AUDIT_ID "56d7833bceb94d8f80ac20ddf470e119"

/**
 * engine_journal_start() - from now on, each audit entry committed on the
 * writer's connection is sent to the journal once its transaction
 * committed (db_audit_on_commit()), none that rolled back. A journal that
 * cannot be reached is logged at the first failure and at the recovery;
 * the audit table keeps every entry either way. Takes v->lock.
 * @v: the verifier, database open
 */
void engine_journal_start(struct verifier *v);

#endif /* IMATRUST_ENGINE_JOURNAL_H */

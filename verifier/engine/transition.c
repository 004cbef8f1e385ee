// SPDX-License-Identifier: GPL-2.0-only
/*
 * transition.c - the machine state table (proto/DESIGN.md §5). Every
 * state change of the verifier is one row here; engine.c applies them.
 *
 * Two choices worth stating:
 *  - a failed machine does not go stale: its last word is TPM-signed
 *    evidence that is invalid, and "stale" would soften "no access" into
 *    "no recommendation" without any valid evidence;
 *  - a pending machine has no evidence rows: its evidence is refused
 *    until an operator approves it, and it expires instead (identity).
 * A row whose @to equals its @from only refreshes the stored reason; its
 * @kind says whether that is worth an event ("failure": yes).
 */
#include "db_machine.h"
#include "transition.h"

#define ROW(f, e, t, k) \
	{ \
		f, e, DB_STATE_##t, TNC_OF_##t, k \
	}
#define TNC_OF_ENROLLING TNC_NONE
#define TNC_OF_PENDING TNC_NONE
#define TNC_OF_TRUSTED TNC_ALLOW
#define TNC_OF_UNTRUSTED TNC_ISOLATE
#define TNC_OF_FAILED TNC_NO_ACCESS
#define TNC_OF_STALE TNC_NONE

#define NEW TRANSITION_NEW
#define ENROLLING DB_STATE_ENROLLING
#define PENDING DB_STATE_PENDING
#define TRUSTED DB_STATE_TRUSTED
#define UNTRUSTED DB_STATE_UNTRUSTED
#define FAILED DB_STATE_FAILED
#define STALE DB_STATE_STALE

/* Activation from any state: a re-enrollment starts over with the new AK. */
#define ACTIVATION_ROWS(f) \
	ROW(f, TR_ACTIVATED, ENROLLING, "activated"), \
		ROW(f, TR_ACTIVATED_UNVOUCHED, PENDING, "activated")

/* Evidence whose quote verified, from every state that may send it. */
#define EVIDENCE_ROWS(f, clean_kind, bad_kind, invalid_kind) \
	ROW(f, TR_EVIDENCE_CLEAN, TRUSTED, clean_kind), \
		ROW(f, TR_EVIDENCE_UNACCEPTABLE, UNTRUSTED, bad_kind), \
		ROW(f, TR_EVIDENCE_INVALID, FAILED, invalid_kind)

static const struct transition_row rows[] = {
	ACTIVATION_ROWS(NEW),
	ACTIVATION_ROWS(ENROLLING),
	ACTIVATION_ROWS(PENDING),
	ACTIVATION_ROWS(TRUSTED),
	ACTIVATION_ROWS(UNTRUSTED),
	ACTIVATION_ROWS(FAILED),
	ACTIVATION_ROWS(STALE),

	ROW(PENDING, TR_APPROVED, ENROLLING, "state"),

	EVIDENCE_ROWS(ENROLLING, "state", "state", "state"),
	EVIDENCE_ROWS(TRUSTED, NULL, "state", "state"),
	EVIDENCE_ROWS(UNTRUSTED, "state", NULL, "state"),
	EVIDENCE_ROWS(FAILED, "state", "state", "failure"),
	EVIDENCE_ROWS(STALE, "state", "state", "state"),

	ROW(UNTRUSTED, TR_REJUDGE_CLEAN, TRUSTED, "state"),
	ROW(TRUSTED, TR_REJUDGE_UNACCEPTABLE, UNTRUSTED, "state"),

	ROW(ENROLLING, TR_DEADLINE, STALE, "state"),
	ROW(TRUSTED, TR_DEADLINE, STALE, "state"),
	ROW(UNTRUSTED, TR_DEADLINE, STALE, "state"),
};

#define ROW_COUNT (sizeof(rows) / sizeof(rows[0]))

const struct transition_row *transition_find(int from,
					     enum transition_event event)
{
	size_t i;

	for (i = 0; i < ROW_COUNT; i++) {
		if (rows[i].from == from && rows[i].event == event)
			return &rows[i];
	}
	return NULL;
}

const struct transition_row *transition_table(size_t *n)
{
	*n = ROW_COUNT;
	return rows;
}

static const char *const event_names[TR_EVENT_COUNT] = {
	[TR_ACTIVATED] = "activated",
	[TR_ACTIVATED_UNVOUCHED] = "activated-unvouched",
	[TR_APPROVED] = "approved",
	[TR_EVIDENCE_CLEAN] = "evidence-clean",
	[TR_EVIDENCE_UNACCEPTABLE] = "evidence-unacceptable",
	[TR_EVIDENCE_INVALID] = "evidence-invalid",
	[TR_REJUDGE_CLEAN] = "rejudge-clean",
	[TR_REJUDGE_UNACCEPTABLE] = "rejudge-unacceptable",
	[TR_DEADLINE] = "deadline",
};

const char *transition_event_name(enum transition_event event)
{
	if ((unsigned int)event >= TR_EVENT_COUNT)
		return "invalid";
	return event_names[event];
}

static const char *const tnc_names[] = {
	[TNC_NONE] = "no_recommendation",
	[TNC_ALLOW] = "allow",
	[TNC_ISOLATE] = "isolate",
	[TNC_NO_ACCESS] = "no_access",
};

const char *transition_tnc_name(enum transition_tnc tnc)
{
	if ((unsigned int)tnc >= sizeof(tnc_names) / sizeof(tnc_names[0]))
		return tnc_names[TNC_NONE];
	return tnc_names[tnc];
}

static const enum transition_tnc state_tnc[] = {
	[DB_STATE_ENROLLING] = TNC_OF_ENROLLING,
	[DB_STATE_PENDING] = TNC_OF_PENDING,
	[DB_STATE_TRUSTED] = TNC_OF_TRUSTED,
	[DB_STATE_UNTRUSTED] = TNC_OF_UNTRUSTED,
	[DB_STATE_FAILED] = TNC_OF_FAILED,
	[DB_STATE_STALE] = TNC_OF_STALE,
};

enum transition_tnc transition_tnc_of(enum db_machine_state state)
{
	if ((unsigned int)state >= sizeof(state_tnc) / sizeof(state_tnc[0]))
		return TNC_NONE;
	return state_tnc[state];
}

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * transition.h - the machine state machine as one table (proto/DESIGN.md
 * §5): (state, event) -> (state, TNC recommendation, event kind).
 *
 * Pure: no database, no lock. engine.c looks a row up and writes what it
 * says; nothing else in the verifier changes a machine's state. An event
 * with no row for the current state changes nothing (a re-judge of a
 * pending machine, a deadline of a failed one).
 */
#ifndef IMATRUST_TRANSITION_H
#define IMATRUST_TRANSITION_H

#include <stddef.h>

#include "db_machine.h"

/* What happened to a machine. */
enum transition_event {
	TR_ACTIVATED,		/* proof verified, EK vouched or approved */
	TR_ACTIVATED_UNVOUCHED, /* proof verified, EK not vouched */
	TR_APPROVED,		/* an operator approved the EK fingerprint */
	TR_EVIDENCE_CLEAN,	/* verified evidence, every record acceptable */
	TR_EVIDENCE_UNACCEPTABLE, /* verified evidence, a record is not */
	TR_EVIDENCE_INVALID, /* signed and fresh, but replay, boot_aggregate,
				 * counters, bank or PCR do not hold */
	TR_REJUDGE_CLEAN,    /* references changed: all acceptable now */
	TR_REJUDGE_UNACCEPTABLE, /* references changed: a record is not */
	TR_DEADLINE,		 /* no valid evidence within stale_after */
	TR_EVENT_COUNT,
};

/* What a network access controller should do (TNC recommendations). */
enum transition_tnc {
	TNC_NONE, /* "no_recommendation" */
	TNC_ALLOW,
	TNC_ISOLATE,
	TNC_NO_ACCESS,
};

/* A machine that does not exist yet: the "from" of activation. */
#define TRANSITION_NEW (-1)

struct transition_row {
	int from; /* enum db_machine_state or _NEW */
	enum transition_event event;
	enum db_machine_state to;
	enum transition_tnc tnc; /* of @to, for the event's reason */
	const char *kind;	 /* the event row written ("state") */
};

/**
 * transition_find() - the row for @event in state @from.
 * @from: the machine's state, or TRANSITION_NEW
 * @event: what happened
 *
 * Return: the row, or NULL when @event changes nothing in @from.
 */
const struct transition_row *transition_find(int from,
					     enum transition_event event);

/**
 * transition_table() - every row, for tests and the documentation.
 * @n: receives the number of rows
 */
const struct transition_row *transition_table(size_t *n);

/** transition_event_name() - "evidence-clean", ...; "invalid" if unknown. */
const char *transition_event_name(enum transition_event event);

/** transition_tnc_name() - "allow", "isolate", "no_access", ... */
const char *transition_tnc_name(enum transition_tnc tnc);

/** transition_tnc_of() - the recommendation for a machine in @state. */
enum transition_tnc transition_tnc_of(enum db_machine_state state);

#endif /* IMATRUST_TRANSITION_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_machine.h - machines, their states, approval, removal, and their
 * events (db_machine.c). The conventions every function follows, and the
 * limits, are db.h's.
 */
#ifndef IMATRUST_DB_MACHINE_H
#define IMATRUST_DB_MACHINE_H

#include "db.h"

enum db_machine_state {
	DB_STATE_ENROLLING,
	DB_STATE_PENDING,
	DB_STATE_TRUSTED,
	DB_STATE_UNTRUSTED,
	DB_STATE_FAILED,
	DB_STATE_STALE,
};

#define DB_FPR_SIZE 32 /* bytes in an EK fingerprint (SHA-256) */

/*
 * What a proven enrollment knows; pointers borrowed for the call.
 * @ek_fpr is the EK fingerprint: SHA-256 of the DER SubjectPublicKeyInfo
 * of the EK's key (enroll_fingerprint()), unique among machines.
 */
struct db_machine_new {
	const char *id;
	const uint8_t *ek_pub;
	size_t ek_pub_len;
	const uint8_t *ek_cert; /* NULL when the TPM has none */
	size_t ek_cert_len;
	const uint8_t *ek_fpr; /* DB_FPR_SIZE bytes */
	const uint8_t *ak_pub;
	size_t ak_pub_len;
	const uint8_t *ak_name;
	size_t ak_name_len;
	enum db_machine_state state; /* enrolling or pending */
	int activated;		     /* its TPM proved it holds EK and AK */
	int approved; /* an operator vouched for it (registered) */
};

/* A stored machine. From db_machine_get() the blobs and strings are owned
 * (db_machine_release() frees them); from db_machine_list() borrowed. */
struct db_machine {
	char id[DB_MACHINE_ID_MAX + 1];
	uint8_t *ek_pub;
	size_t ek_pub_len;
	uint8_t *ek_cert; /* NULL when none */
	size_t ek_cert_len;
	uint8_t *ak_pub;
	size_t ak_pub_len;
	uint8_t ak_name[DB_AK_NAME_MAX];
	size_t ak_name_len;
	enum db_machine_state state;
	char *state_reason; /* NULL when none */
	int64_t created_at;
	int64_t last_seen; /* 0 before the first evidence */
	int approved;
	int activated;	     /* its TPM proved it holds EK and AK */
	char bank[8];	     /* pinned quote bank; "" until the first */
	int64_t rejected_at; /* last "rejected" event, 0 when none */
	uint8_t ek_fpr[DB_FPR_SIZE];
	int has_ek_fpr; /* 0 for an older machine not yet filled */
};

struct db_event {
	int64_t id; /* cursor for the next page */
	const char *machine_id;
	int64_t boot_id; /* 0 when no boot was current */
	int64_t time;
	const char *kind;
	const char *from_state; /* NULL unless a state change */
	const char *to_state;	/* NULL unless a state change */
	const char *reason;	/* JSON text, or NULL */
};

/*
 * The kinds of event db/ writes itself; an event's kind column holds the
 * name. The verifier's own kinds (verifier/engine/transition.c) come as
 * text, through db_event_add() and db_machine_transition().
 */
enum db_event_kind {
	DB_EVENT_ENROLLED,  /* a machine was created (db_machine_create()) */
	DB_EVENT_ACTIVATED, /* its TPM proved it holds EK and AK */
	DB_EVENT_STATE,	    /* the state changed (db_machine_set_state()) */
	DB_EVENT_APPROVED,  /* an operator approved it */
	DB_EVENT_REJECTED,  /* evidence was rejected (rate-limited) */
	DB_EVENT_REBOOT,    /* a new boot: db_boot_start()'s SQL writes it */
};

/** db_event_kind_name() - "enrolled", ...; NULL for a kind out of range. */
const char *db_event_kind_name(enum db_event_kind kind);

typedef int (*db_machine_cb)(const struct db_machine *m, void *arg);
typedef int (*db_event_cb)(const struct db_event *ev, void *arg);

/** db_machine_state_name() - "trusted", ...; "invalid" when out of range. */
const char *db_machine_state_name(enum db_machine_state state);
/** db_machine_state_parse() - inverse of the above; -1 when unknown. */
int db_machine_state_parse(const char *name, enum db_machine_state *state);

/**
 * db_machine_create() - store a new machine and an "enrolled" event.
 *
 * Only a verified activation (db_challenge_activate()) makes machines;
 * this is its storage step, public for tests and benchmarks.
 * IMT_ERR_MISMATCH when a machine with that id, or with that EK
 * fingerprint, exists.
 */
int db_machine_create(struct db *db, const struct db_machine_new *m,
		      int64_t now, struct imt_error *err);

/**
 * db_machine_get() - read one machine.
 * @out: filled when found; release with db_machine_release()
 * @found: receives 1 when the machine exists, else 0 (@out untouched)
 */
int db_machine_get(struct db *db, const char *id, struct db_machine *out,
		   int *found, struct imt_error *err);

/** db_machine_release() - free what db_machine_get() allocated in @m. */
void db_machine_release(struct db_machine *m);

/**
 * db_machine_set_state() - change the state and write the event, in one
 * transaction.
 * @reason: JSON text (which record, which check), or NULL
 *
 * An event ("state", from, to, reason) is written only when the state
 * changes; an unchanged state just updates the stored reason. Use
 * db_event_add() to record more about a state that holds.
 */
int db_machine_set_state(struct db *db, const char *id,
			 enum db_machine_state state, const char *reason,
			 int64_t now, struct imt_error *err);

enum db_approve_result {
	DB_APPROVE_OK,	       /* approved (again: not an error) */
	DB_APPROVE_NO_MACHINE, /* no machine has that id */
	DB_APPROVE_WRONG_EK,   /* the fingerprint is not the machine's */
	DB_APPROVE_NO_FPR,     /* an older machine whose EK could not be
				 * fingerprinted: remove it instead */
};

/**
 * db_machine_approve() - operator approval of the machine whose EK has
 * fingerprint @ek_fpr: set approved; writes an "approved" event and an
 * audit entry naming @op_name (a token name), in one transaction. The
 * state change (pending -> enrolling) is the engine's, in the caller's
 * transaction (verifier/engine/engine_identity.c engine_approve()).
 * @ek_fpr: DB_FPR_SIZE bytes, the fingerprint the operator checked
 * @res: the outcome; nothing changes unless DB_APPROVE_OK
 */
int db_machine_approve(struct db *db, const char *id, const uint8_t *ek_fpr,
		       const char *op_name, int64_t now,
		       enum db_approve_result *res, struct imt_error *err);

/* What db_machine_remove() removed. */
struct db_removal {
	int machine;	  /* a machine was removed */
	int registration; /* a pre-registration was removed */
	uint8_t ek_fpr[DB_FPR_SIZE];
	int has_ek_fpr;
	char state[16]; /* the machine's last state, "" if none */
	int64_t boots;	/* rows removed with it */
	int64_t records;
	int64_t enrollments; /* open challenges for the id */
};

/**
 * db_machine_remove() - forget machine @id: its row with its boots,
 * records, events and nonces, the open challenges for its id and its
 * pre-registration, and write a "remove" audit entry naming @op_name
 * that outlives them, in one transaction.
 * @out: what was removed; out->machine and out->registration both 0
 *       when there was nothing (then nothing is written)
 */
int db_machine_remove(struct db *db, const char *id, const char *op_name,
		      int64_t now, struct db_removal *out,
		      struct imt_error *err);

/**
 * db_machine_next_unfingerprinted() - the next machine with rowid above
 * *@cursor whose ek_fpr is not filled yet (databases older than schema
 * 3), oldest first; *@cursor moves past it.
 * @out: filled when found; release with db_machine_release()
 * @found: 1 when there was one
 */
int db_machine_next_unfingerprinted(struct db *db, int64_t *cursor,
				    struct db_machine *out, int *found,
				    struct imt_error *err);

/**
 * db_machine_fill_fpr() - store @ek_fpr for machine @id (see above).
 * @holder: receives the id of the machine that already has this EK
 *          ("" when none): then nothing is stored, and a "duplicate-ek"
 *          audit entry names both ids
 */
int db_machine_fill_fpr(struct db *db, const char *id, const uint8_t *ek_fpr,
			int64_t now, char holder[DB_MACHINE_ID_MAX + 1],
			struct imt_error *err);

/**
 * db_machine_list() - call @cb for machines with id > @after (NULL for
 * the first page), in id order, at most @limit (1..DB_LIST_MAX).
 */
int db_machine_list(struct db *db, const char *after, unsigned int limit,
		    db_machine_cb cb, void *arg, struct imt_error *err);

/**
 * db_machine_list_silent() - call @cb for machines that are enrolling,
 * trusted or untrusted and sent no evidence since @before (last_seen, or
 * created_at when none, < @before): the candidates for "stale". At most
 * @limit (1..DB_LIST_MAX), oldest last_seen first. A machine's last_seen
 * is the later of its row's and its nonce row's (struct db_nonce_next);
 * first the recent ones of the nonce rows move into the machines' rows
 * (no value read changes), so that heartbeating machines are not listed
 * and passed over on every call.
 */
int db_machine_list_silent(struct db *db, int64_t before, unsigned int limit,
			   db_machine_cb cb, void *arg, struct imt_error *err);

/**
 * db_event_add() - append an event that is not a state change.
 * @kind: short word ("reboot", "violation", ...)
 * @reason: JSON text or NULL
 */
int db_event_add(struct db *db, const char *machine_id, const char *kind,
		 const char *reason, int64_t now, struct imt_error *err);

/**
 * db_event_list() - call @cb for a machine's events with id > @after, in
 * order, at most @limit (1..DB_LIST_MAX).
 */
int db_event_list(struct db *db, const char *machine_id, int64_t after,
		  unsigned int limit, db_event_cb cb, void *arg,
		  struct imt_error *err);

#endif /* IMATRUST_DB_MACHINE_H */

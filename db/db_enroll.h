/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_enroll.h - enrollment: credential challenges and the activation that
 * makes a machine (db_enroll.c). The conventions every function follows,
 * and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_ENROLL_H
#define IMATRUST_DB_ENROLL_H

#include "db.h"
#include "db_machine.h"

#define DB_SECRET_MIN 16      /* bytes in a credential secret, at least */
#define DB_SECRET_MAX 64      /* ... at most (TPM2B_DIGEST) */
#define DB_PROOF_HASH_SIZE 32 /* SHA-256 of the expected proof */

/*
 * An open credential challenge (proto/DESIGN.md §3): what one POST /v1/agents
 * asked for, kept until its proof arrives or it expires. Nothing of a
 * machine is created or changed by it: several may be open for one id
 * (a stranger's cannot cancel the real agent's), and a re-enrollment of
 * a known machine leaves its proven AK in force until this proof.
 */
struct db_challenge {
	int64_t id; /* row id, filled by db_challenge_find() */
	char machine_id[DB_MACHINE_ID_MAX + 1]; /* the id asked for */
	uint8_t proof_hash[DB_PROOF_HASH_SIZE]; /* lookup key of the proof */
	uint8_t ek_fpr[DB_FPR_SIZE];
	uint8_t ek_pub[DB_KEY_MAX];
	size_t ek_pub_len;
	uint8_t ek_cert[DB_CERT_MAX]; /* DER, with any chain sent */
	size_t ek_cert_len;	      /* 0 when none */
	int ek_chained;		      /* the EK certificate chained to a CA */
	uint8_t ak_pub[DB_KEY_MAX];
	size_t ak_pub_len;
	uint8_t ak_name[DB_AK_NAME_MAX];
	size_t ak_name_len;
	uint8_t secret[DB_SECRET_MAX];
	size_t secret_len;
	int64_t created_at;
	int64_t expires_at; /* void from then on */
};

/* Caps on open challenges (config keys of the same names). */
struct db_enroll_limits {
	unsigned int max_open;	 /* all EKs together, >= 1 */
	unsigned int max_per_ek; /* one EK, >= 1 */
};

enum db_open_result {
	DB_OPEN_OK,	 /* stored */
	DB_OPEN_EVICTED, /* stored in the place of the oldest
				 * challenge of an unvouched EK */
	DB_OPEN_FULL,	 /* max_open open: nothing stored */
	DB_OPEN_EK_FULL, /* max_per_ek open for this EK: nothing */
};

/**
 * db_challenge_open() - store challenge @c unless a cap is reached, in
 * one transaction that first drops the expired ones.
 * @vouched: the EK chained to a CA or is pre-registered: at the global
 *           cap it takes the place of the oldest challenge of an EK
 *           that is neither, so a flood of made-up EKs does not lock
 *           real machines out
 * @res: the outcome
 */
int db_challenge_open(struct db *db, const struct db_challenge *c, int vouched,
		      const struct db_enroll_limits *lim, int64_t now,
		      enum db_open_result *res, struct imt_error *err);

/**
 * db_challenge_find() - the open challenge for @machine_id whose proof
 * hashes to @proof_hash and that has not expired at @now.
 * @found: 1 when there is one
 */
int db_challenge_find(struct db *db, const char *machine_id,
		      const uint8_t proof_hash[DB_PROOF_HASH_SIZE], int64_t now,
		      struct db_challenge *out, int *found,
		      struct imt_error *err);

/** db_challenge_count() - challenges open (unexpired) at @now. */
int db_challenge_count(struct db *db, int64_t now, uint64_t *n,
		       struct imt_error *err);

/* What the verifier's policy asks of an activation. */
struct db_activate_opts {
	unsigned int max_pending;   /* pending machines at most */
	int registered_only;	    /* a new machine needs a pre-registration */
	const char *pending_reason; /* JSON state reason when it ends up
					 * pending (why the EK is not
					 * vouched for), or NULL */
	/* the states the verifier's table gives an activation (vouched: EK
	 * chained, pre-registered or approved; else unvouched) */
	enum db_machine_state to_vouched, to_unvouched;
};

enum db_activation {
	DB_ACT_CREATED,	       /* a new machine */
	DB_ACT_REPLACED,       /* a known machine (same EK): new AK */
	DB_ACT_ID_TAKEN,       /* the id is another EK's machine or
				 * pre-registration: nothing changed */
	DB_ACT_EK_TAKEN,       /* the EK is another id's: nothing changed */
	DB_ACT_PENDING_FULL,   /* it would be pending, max_pending are */
	DB_ACT_NOT_REGISTERED, /* registered_only, and it is not */
};

/**
 * db_challenge_activate() - the proof of @c verified: in one transaction
 * check the identity again (the id and the EK must still be free, or be
 * one machine), then create the machine (activated, "enrolled" and
 * "activated" events, an "enroll" audit entry) or bind the new AK to the
 * known one, and drop every open challenge of this EK. The state becomes
 * "enrolling" when the EK chained, is pre-registered for the id, or an
 * operator approved the machine; otherwise "pending".
 * @res: the outcome; nothing changes unless created or replaced
 * @state: receives the new state (may be NULL)
 */
int db_challenge_activate(struct db *db, const struct db_challenge *c,
			  const struct db_activate_opts *o, int64_t now,
			  enum db_activation *res, enum db_machine_state *state,
			  struct imt_error *err);

#endif /* IMATRUST_DB_ENROLL_H */

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_identity.h - identities: who holds an id and an EK, pre-registrations
 * (db_identity.c). The conventions every function follows, and the limits,
 * are db.h's.
 */
#ifndef IMATRUST_DB_IDENTITY_H
#define IMATRUST_DB_IDENTITY_H

#include "db.h"
#include "db_machine.h"

/* Who holds an id and an EK; all 0 when both are free. */
struct db_identity {
	int machine;		 /* a machine has the id */
	int machine_same_ek;	 /* ... and it has this EK */
	int ek_elsewhere;	 /* a machine of another id has this EK */
	int registered;		 /* (id, EK) is pre-registered */
	int id_registered_other; /* the id is registered for another EK */
	int ek_registered_other; /* the EK is registered for another id */
};

/**
 * db_identity_check() - who holds @id and the EK @ek_fpr (@ek_pub for
 * an older machine whose fingerprint is not filled yet).
 */
int db_identity_check(struct db *db, const char *id, const uint8_t *ek_fpr,
		      const uint8_t *ek_pub, size_t ek_pub_len,
		      struct db_identity *out, struct imt_error *err);

enum db_register_result {
	DB_REG_OK,	 /* stored */
	DB_REG_EXISTS,	 /* this very pair was there: unchanged */
	DB_REG_ID_TAKEN, /* the id has another EK (machine or
				 * registration) */
	DB_REG_EK_TAKEN, /* the EK is another id's */
};

struct db_registration {
	char machine_id[DB_MACHINE_ID_MAX + 1];
	uint8_t ek_fpr[DB_FPR_SIZE];
	char op_name[DB_NAME_MAX + 1];
	int64_t created_at;
};

/**
 * db_registration_add() - pre-register (@id, @ek_fpr) for @op_name,
 * with a "register" audit entry, in one transaction.
 * @res: the outcome; only DB_REG_OK writes anything
 */
int db_registration_add(struct db *db, const char *id, const uint8_t *ek_fpr,
			const char *op_name, int64_t now,
			enum db_register_result *res, struct imt_error *err);

/** db_registration_get() - @id's pre-registration; *found 0 or 1. */
int db_registration_get(struct db *db, const char *id,
			struct db_registration *out, int *found,
			struct imt_error *err);

#endif /* IMATRUST_DB_IDENTITY_H */

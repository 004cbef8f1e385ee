// SPDX-License-Identifier: GPL-2.0-only
/*
 * engine_identity.c - what operators do to machine identities, the
 * engine's side: the approval of a pending machine's EK, a
 * pre-registration, a removal, each with its audit entry, under v->lock.
 * The routes (route_machines.c, route_identity.c) check the token, read
 * the body and encode the answer.
 */
#include <string.h>

#include "db_cluster.h"
#include "db_identity.h"
#include "engine.h"
#include "engine_internal.h"

/*
 * The approval, its audit entry and the table's row for TR_APPROVED, in
 * one transaction: 0 with the db's verdict in *@res, or -1 with @err.
 */
static int approve(struct verifier *v, const char *id, const uint8_t *ek_fpr,
		   const char *op_name, int64_t now,
		   enum db_approve_result *res, struct imt_error *err)
{
	struct db_machine m;
	int found = 0, rc = -1;

	pthread_mutex_lock(&v->lock);
	if (db_batch_begin(v->db, err) < 0)
		goto out;
	if (db_machine_lock(v->db, id, err) < 0 ||
	    db_machine_approve(v->db, id, ek_fpr, op_name, now, res, err) < 0 ||
	    (*res == DB_APPROVE_OK &&
	     db_machine_get(v->db, id, &m, &found, err) < 0))
		goto abort;
	if (found) {
		rc = engine_transition(v, id, m.state, TR_APPROVED,
				       "{\"check\":\"approved\"}", now, NULL,
				       err);
		db_machine_release(&m);
		if (rc < 0)
			goto abort;
	}
	rc = db_batch_commit(v->db, err);
	goto out;
abort:
	rc = -1;
	db_batch_abort(v->db);
out:
	pthread_mutex_unlock(&v->lock);
	return rc;
}

void engine_approve(struct verifier *v, const char *id, const uint8_t *ek_fpr,
		    const char *op_name, int64_t now, struct engine_answer *ans)
{
	enum db_approve_result r = DB_APPROVE_NO_MACHINE;
	struct imt_error err;

	memset(ans, 0, sizeof(*ans));
	if (approve(v, id, ek_fpr, op_name, now, &r, &err) < 0) {
		engine_answer_storage(ans, "approve", &err);
		return;
	}
	switch (r) {
	case DB_APPROVE_OK:
		ans->status = ENGINE_OK;
		break;
	case DB_APPROVE_WRONG_EK:
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "the EK of %s has another fingerprint: "
				  "approval refused",
				  id);
		break;
	case DB_APPROVE_NO_FPR:
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "%s has no EK fingerprint (its EK could "
				  "not be read): remove it instead",
				  id);
		break;
	default:
		engine_answer_set(ans, ENGINE_UNKNOWN, "no machine \"%s\"", id);
		break;
	}
}

void engine_machine_add(struct verifier *v, const char *id,
			const uint8_t *ek_fpr, const char *op_name, int64_t now,
			struct db_registration *reg, struct engine_answer *ans)
{
	enum db_register_result r = DB_REG_OK;
	struct imt_error err;
	int rc, found = 0;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_registration_add(v->db, id, ek_fpr, op_name, now, &r, &err);
	if (rc == 0 && (r == DB_REG_OK || r == DB_REG_EXISTS))
		rc = db_registration_get(v->db, id, reg, &found, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "pre-register", &err);
	else if (r == DB_REG_ID_TAKEN)
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "id %s has another EK (enrolled or "
				  "pre-registered): remove it first",
				  id);
	else if (r == DB_REG_EK_TAKEN)
		engine_answer_set(ans, ENGINE_CONFLICT,
				  "this EK is enrolled or pre-registered "
				  "under another id");
	else if (!found)
		engine_answer_set(ans, ENGINE_INTERNAL,
				  "pre-registration of %s vanished", id);
	else
		ans->status = r == DB_REG_OK ? ENGINE_CREATED : ENGINE_OK;
}

void engine_machine_remove(struct verifier *v, const char *id,
			   const char *op_name, int64_t now,
			   struct db_removal *out, struct engine_answer *ans)
{
	struct imt_error err;
	int rc;

	memset(ans, 0, sizeof(*ans));
	pthread_mutex_lock(&v->lock);
	rc = db_machine_remove(v->db, id, op_name, now, out, &err);
	pthread_mutex_unlock(&v->lock);
	if (rc < 0)
		engine_answer_storage(ans, "remove", &err);
	else if (!out->machine && !out->registration)
		engine_answer_set(ans, ENGINE_UNKNOWN,
				  "no machine or pre-registration \"%s\"", id);
	else
		ans->status = ENGINE_OK;
}

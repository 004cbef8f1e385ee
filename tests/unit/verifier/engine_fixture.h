/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * engine_fixture.h - a soft_machine.h machine talking to the trust engine
 * in-process, as its agent would: nonces, quoted evidence of what the
 * verifier has not stored, answers, and what the database then holds.
 * For test_engine.c and test_history.c (soft_ak.o linked, Makefile).
 */
#ifndef IMATRUST_TEST_ENGINE_FIXTURE_H
#define IMATRUST_TEST_ENGINE_FIXTURE_H

#include <sqlite3.h>

#include "db_machine.h"
#include "engine.h"
#include "soft_machine.h"

/* POST /nonce as the machine's agent would. */
static inline void sm_nonce(struct tv *t, struct sm *m, int64_t now)
{
	struct engine_answer ans;

	engine_nonce(&t->v, m->id, now, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	memcpy(m->nonce, ans.nonce.nonce, ans.nonce.nonce_len);
	m->nonce_len = ans.nonce.nonce_len;
}

/* Quote with @ak (the machine's own unless an attacker's) and build the
 * evidence of every record not yet stored. */
static inline struct wire_evidence *sm_evidence(struct sm *m,
						struct soft_ak *ak, int unsafe)
{
	struct soft_quote q = {
		.nonce = m->nonce,
		.nonce_len = m->nonce_len,
		.clock = ++m->clock,
		.reset_count = m->reset,
		.restart_count = m->restart,
		.pcrs = &m->pcrs,
		.unsafe = unsafe,
		.select = m->select,
	};
	size_t alen, slen;

	assert_int_equal(soft_ak_quote(ak != NULL ? ak : &m->ak, &q, m->attest,
				       &alen, m->sig, &slen),
			 0);
	memset(&m->ev, 0, sizeof(m->ev));
	snprintf(m->ev.agent, sizeof(m->ev.agent), "%s", m->id);
	memcpy(m->ev.nonce, m->nonce, m->nonce_len);
	m->ev.nonce_len = m->nonce_len;
	m->ev.bank = m->pcrs.algo;
	m->ev.quote = (struct wire_blob){ m->attest, alen };
	m->ev.signature = (struct wire_blob){ m->sig, slen };
	m->ev.pcrs = m->pcrs;
	m->ev.first_index = m->sent;
	m->ev.records = (struct wire_blob){ m->list + m->sent_bytes,
					    m->len - m->sent_bytes };
	return &m->ev;
}

/* Send @ev; on a verdict take its nonce and where the list stands. */
static inline enum engine_status sm_send(struct tv *t, struct sm *m,
					 const struct wire_evidence *ev,
					 int64_t now, struct engine_answer *ans)
{
	engine_evidence(&t->v, ev, now, ans);
	if (ans->status == ENGINE_OK) {
		memcpy(m->nonce, ans->verdict.nonce, ans->verdict.nonce_len);
		m->nonce_len = ans->verdict.nonce_len;
		if (ans->verdict.next_index == m->count) {
			m->sent = m->count;
			m->sent_bytes = m->len;
		}
	}
	return ans->status;
}

/* sm_send() that fails the test unless @ev is answered with a verdict. */
static inline void sm_send_ok(struct tv *t, struct sm *m,
			      const struct wire_evidence *ev, int64_t now,
			      struct engine_answer *ans)
{
	if (sm_send(t, m, ev, now, ans) != ENGINE_OK)
		fail_msg("%s: %u %s", m->id, ans->status, ans->message);
}

/* Machine @id's last_seen, as db_machine_get() reads it. */
static inline int64_t last_seen_of(struct tv *t, const char *id)
{
	struct db_machine m;
	struct imt_error err;
	int64_t seen;
	int found;

	if (db_machine_get(t->v.db, id, &m, &found, &err) < 0 || !found)
		fail_msg("db_machine_get %s: %s", id, err.msg);
	seen = m.last_seen;
	db_machine_release(&m);
	return seen;
}

/* The records stored for machine @id, every boot. */
static inline int64_t stored_of(struct tv *t, const char *id)
{
	return count_rows(t,
			  "SELECT coalesce(sum(length(c.verdicts)), 0) "
			  "FROM record_chunks c JOIN boots b "
			  "ON b.id = c.boot_id WHERE b.machine_id = ?1",
			  id);
}

/* The machine's state_reason, to free(). */
static inline char *reason_of(struct tv *t, const char *id)
{
	struct db_machine dm;
	struct imt_error err;
	char *r;
	int found;

	assert_int_equal(db_machine_get(t->v.db, id, &dm, &found, &err), 0);
	assert_true(found);
	r = strdup(dm.state_reason != NULL ? dm.state_reason : "");
	db_machine_release(&dm);
	return r;
}

#endif /* IMATRUST_TEST_ENGINE_FIXTURE_H */

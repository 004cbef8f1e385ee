// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_engine.c - the trust engine driven without HTTP: machines with
 * software AKs (tests/bench/soft_ak.c) and software PCRs send evidence
 * through engine_evidence(); two attackers, one with nothing and one with
 * a TPM (AK) of her own; every row of the state table walked.
 */
#include "db_machine.h"
#include "db_ref.h"
#include "verifier_test.h"

#include "backlog.h"
#include "boot_check.h"
#include "boot_memo.h"
#include "db_sqlite.h"
#include "engine_fixture.h"
#include "../../sql_count.h"
#include "ima_build.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "judge.h"
#include "rejudge.h"
#include "transition.h"

/* One honest round: fresh evidence of everything new, a verdict back. */
static const char *sm_round(struct tv *t, struct sm *m, int64_t now)
{
	static struct engine_answer ans;

	sm_send_ok(t, m, sm_evidence(m, NULL, 0), now, &ans);
	return ans.verdict.state;
}

#define EVENTS_OF(kind) \
	"SELECT count(*) FROM events WHERE machine_id = ?1 AND kind = '" kind \
	"'"

/* ---- verdicts ----------------------------------------------------------- */

static void test_clean_unknown_invalid(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;
	char *r;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	sm_measure(&m, "/usr/bin/ok", "ok");
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	assert_string_equal(sm_round(t, &m, TV_NOW + 1), "trusted");
	/* the TPM-signed quote over a list altered in transit: failed */
	sm_measure(&m, "/usr/bin/ok", "ok");
	sm_evidence(&m, NULL, 0);
	((uint8_t *)m.ev.records.data)[m.ev.records.len - 2] ^= 1;
	assert_int_equal(sm_send(t, &m, &m.ev, TV_NOW + 2, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "failed");
	assert_int_equal(ans.verdict.nonce_len, ENGINE_NONCE_SIZE);
	((uint8_t *)m.ev.records.data)[m.ev.records.len - 2] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 3), "trusted");
	/* an unknown binary: untrusted, the reason naming it */
	sm_measure(&m, "/tmp/evil", "evil");
	assert_string_equal(sm_round(t, &m, TV_NOW + 4), "untrusted");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "/tmp/evil"));
	assert_non_null(strstr(r, "\"verdict\":\"unknown\""));
	free(r);
	/* untrusted holds for the boot, heartbeats included */
	assert_string_equal(sm_round(t, &m, TV_NOW + 5), "untrusted");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- attacker 1: the network, with nothing ------------------------------ */

static void test_garbage_changes_nothing(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;
	int i;

	(void)state;
	sm_new(t, &m, "victim");
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	sm_evidence(&m, NULL, 0);
	m.sig[m.ev.signature.len - 1] ^= 0x55;
	for (i = 0; i < 100; i++) {
		engine_evidence(&t->v, &m.ev, TV_NOW + 1, &ans);
		assert_int_equal(ans.status, ENGINE_REJECTED);
		assert_int_equal(engine_http_status(ans.status), 403);
		assert_int_equal(ans.verdict.nonce_len, 0);
	}
	assert_int_equal(tv_state(t, "victim"), DB_STATE_TRUSTED);
	/* written down once a minute, counted every time */
	assert_int_equal(count_rows(t, EVENTS_OF("rejected"), "victim"), 1);
	engine_evidence(&t->v, &m.ev, TV_NOW + 1 + ENGINE_REJECTED_INTERVAL,
			&ans);
	assert_int_equal(count_rows(t, EVENTS_OF("rejected"), "victim"), 2);
	assert_int_equal(atomic_load(&t->v.metrics.evidence_rejected), 101);
	/* the honest agent's nonce was not burnt by any of it */
	m.sig[m.ev.signature.len - 1] ^= 0x55;
	assert_string_equal(sm_round(t, &m, TV_NOW + 2), "trusted");
	soft_ak_free(&m.ak);
	tv_free(t);
}

static int cmp_nonce(const void *a, const void *b)
{
	return memcmp(a, b, ENGINE_NONCE_SIZE);
}

static void test_nonce_rules(void **state)
{
	struct tv *t = tv_new();
	uint8_t(*seen)[ENGINE_NONCE_SIZE] = calloc(10000, ENGINE_NONCE_SIZE);
	struct engine_answer ans, again;
	struct wire_evidence old;
	struct sm m;
	size_t i, j;

	(void)state;
	sm_new(t, &m, "m1");
	/* a stranger's nonce requests hand out the outstanding one */
	engine_nonce(&t->v, "m1", TV_NOW, &ans);
	engine_nonce(&t->v, "m1", TV_NOW + 1, &again);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_memory_equal(ans.nonce.nonce, again.nonce.nonce,
			    ENGINE_NONCE_SIZE);
	assert_int_equal(again.nonce.nonce_ttl, t->v.cfg.nonce_ttl - 1);
	for (i = 0; i < 1000; i++)
		engine_nonce(&t->v, "m1", TV_NOW + 2, &again);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM nonces WHERE "
				    "machine_id = ?1",
				    "m1"),
			 1);
	assert_int_equal(atomic_load(&t->v.metrics.nonces_issued), 1);
	engine_nonce(&t->v, "ghost", TV_NOW, &again);
	assert_int_equal(again.status, ENGINE_UNKNOWN);
	/* a replayed genuine quote: refused, nothing changes */
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	old = m.ev;
	engine_evidence(&t->v, &old, TV_NOW + 1, &again);
	assert_int_equal(again.status, ENGINE_NONCE);
	/* an expired nonce: refused */
	sm_evidence(&m, NULL, 0);
	engine_evidence(&t->v, &m.ev, TV_NOW + 1 + t->v.cfg.nonce_ttl, &again);
	assert_int_equal(again.status, ENGINE_NONCE);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_TRUSTED);
	/* every nonce issued is fresh and full length: 10,000 of them */
	for (i = 0; i < 10000; i++) {
		engine_verdict(&t->v, "m1", TV_NOW, &again);
		assert_int_equal(again.status, ENGINE_OK);
		assert_int_equal(again.verdict.nonce_len, ENGINE_NONCE_SIZE);
		memcpy(seen[i], again.verdict.nonce, ENGINE_NONCE_SIZE);
	}
	qsort(seen, 10000, ENGINE_NONCE_SIZE, cmp_nonce);
	for (j = 1; j < 10000; j++)
		assert_memory_not_equal(seen[j - 1], seen[j],
					ENGINE_NONCE_SIZE);
	free(seen);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- what evidence writes ----------------------------------------------- */

/* Rows inserted, updated or deleted on the verifier's connection so far
 * (triggers' included): a row rewritten with what it held counts. */
static int64_t rows_written(struct tv *t)
{
	return sqlite3_total_changes64(db_sqlite_handle(t->v.db));
}

/*
 * A heartbeat that changes nothing writes one row: the nonce's, consumed,
 * renewed and marked seen in one UPDATE; not the boot's (unmoved), nor the
 * machine's, and it reads no row twice under the lock. The checks stay: the nonce it sent cannot be used again.
 */
static void test_heartbeat_rows(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct wire_evidence old;
	int64_t before;
	int stmts = 0;
	struct sm m;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	sm_measure(&m, "/usr/bin/ok", "ok");
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	before = rows_written(t);
	sql_count_start(db_sqlite_handle(t->v.db), &stmts);
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	sql_count_stop(db_sqlite_handle(t->v.db));
	assert_int_equal(rows_written(t) - before, 1);
	/* and runs five statements: the view, BEGIN IMMEDIATE, the nonce's
	 * UPDATE, the view again under the lock, COMMIT; the boot is judged
	 * unmoved from that second view, not read a third time */
	assert_int_equal(stmts, 5);
	assert_int_equal(atomic_load(&t->v.metrics.nonces_issued), 3);
	/* a later second: seen then, still the one row */
	before = rows_written(t);
	assert_string_equal(sm_round(t, &m, TV_NOW + 10), "trusted");
	assert_int_equal(rows_written(t) - before, 1);
	assert_int_equal(count_rows(t,
				    "SELECT seen_at FROM nonces "
				    "WHERE machine_id = ?1",
				    "m1"),
			 TV_NOW + 10);
	assert_int_equal(last_seen_of(t, "m1"), TV_NOW + 10);
	/* single use: the same evidence again is refused */
	old = m.ev;
	engine_evidence(&t->v, &old, TV_NOW + 10, &ans);
	assert_int_equal(ans.status, ENGINE_NONCE);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM nonces WHERE "
				    "machine_id = ?1",
				    "m1"),
			 1);
	/* a record: the nonce (seen), the boot and the record; the
	 * machine's row stays as it is (its reason has no record count) */
	sm_measure(&m, "/usr/bin/ok", "ok");
	before = rows_written(t);
	assert_string_equal(sm_round(t, &m, TV_NOW + 11), "trusted");
	assert_int_equal(rows_written(t) - before, 3);
	assert_int_equal(last_seen_of(t, "m1"), TV_NOW + 11);
	assert_int_equal(stored_of(t, "m1"), 3);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- attacker 2: a TPM of her own --------------------------------------- */

static void test_other_tpm_rejected(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m, mallory;

	(void)state;
	sm_new(t, &m, "victim");
	sm_new(t, &mallory, "mallory"); /* enrolled, activated, her own */
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	/* she learns victim's nonce (anyone can) and quotes it herself */
	sm_nonce(t, &m, TV_NOW + 1);
	sm_measure(&m, "/tmp/evil", "evil");
	engine_evidence(&t->v, sm_evidence(&m, &mallory.ak, 0), TV_NOW + 1,
			&ans);
	assert_int_equal(ans.status, ENGINE_REJECTED);
	assert_non_null(strstr(ans.message, "rejected"));
	assert_int_equal(tv_state(t, "victim"), DB_STATE_TRUSTED);
	assert_int_equal(stored_of(t, "victim"), 1);
	/* through the route: 403, and the failed check is charged to the
	 * sender's address (http_peers.h), a genuine verdict is not */
	{
		struct imt_error err;
		unsigned int status;
		char *body;
		json_t *j;

		sm_nonce(t, &m, time(NULL)); /* the route's clock */
		body = wire_encode(WIRE_EVIDENCE,
				   sm_evidence(&m, &mallory.ak, 0), &err);
		assert_non_null(body);
		j = tv_call(t, route_agents_evidence, "victim", body, NULL,
			    &status);
		assert_int_equal(status, 403);
		assert_int_equal(t->charged, 1);
		json_decref(j);
		free(body);
		body = wire_encode(WIRE_EVIDENCE, sm_evidence(&m, NULL, 0),
				   &err);
		j = tv_call(t, route_agents_evidence, "victim", body, NULL,
			    &status);
		assert_int_equal(status, 200);
		assert_int_equal(t->charged, 0);
		json_decref(j);
		free(body);
	}
	soft_ak_free(&m.ak);
	soft_ak_free(&mallory.ak);
	tv_free(t);
}

/* ---- the boot: counters ----------------------------------------------------- */

static void test_counters(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;
	char *r;

	(void)state;
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	/* clockInfo.safe cleared (an unorderly shutdown): no failure */
	assert_int_equal(sm_send(t, &m, sm_evidence(&m, NULL, 1), TV_NOW + 1,
				 &ans),
			 ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	/* a TPM Resume: restartCount moves, PCRs and list go on */
	m.restart++;
	sm_measure(&m, "/usr/bin/x", "x");
	assert_string_equal(sm_round(t, &m, TV_NOW + 2), "untrusted");
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM boots WHERE "
				    "machine_id = ?1",
				    "m1"),
			 1);
	/* a TPM Restart: restartCount moves, PCRs start over */
	m.restart++;
	sm_boot_fresh(&m);
	sm_measure(&m, NULL, NULL);
	assert_string_equal(sm_round(t, &m, TV_NOW + 3), "trusted");
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM boots WHERE "
				    "machine_id = ?1",
				    "m1"),
			 2);
	/* a reboot: resetCount moves */
	m.reset++;
	m.restart = 0;
	sm_boot_fresh(&m);
	sm_measure(&m, NULL, NULL);
	assert_string_equal(sm_round(t, &m, TV_NOW + 4), "trusted");
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM boots WHERE "
				    "machine_id = ?1",
				    "m1"),
			 3);
	/* counters going backwards, signed by the TPM: failed */
	m.reset--;
	assert_int_equal(sm_send(t, &m, sm_evidence(&m, NULL, 0), TV_NOW + 5,
				 &ans),
			 ENGINE_OK);
	assert_string_equal(ans.verdict.state, "failed");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"counters\""));
	free(r);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- proof before memory -------------------------------------------------- */

static void test_other_pcr_refused(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	uint8_t *copy;
	struct sm m;
	size_t last;

	(void)state;
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	/* a made-up PCR 11 record after a genuine one: PCR 10 proves both
	 * "covered", since PCR 11 leaves PCR 10 alone */
	last = m.len;
	sm_measure(&m, "/usr/bin/y", "y");
	copy = malloc(m.len - last);
	memcpy(copy, m.list + last, m.len - last);
	memcpy(m.list + m.len, copy, m.len - last);
	m.list[m.len] = 11;
	sm_evidence(&m, NULL, 0);
	m.ev.records.len += m.len - last;
	assert_int_equal(sm_send(t, &m, &m.ev, TV_NOW + 1, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "failed");
	assert_int_equal(ans.verdict.next_index, 1);
	free(copy);
	soft_ak_free(&m.ak);
	tv_free(t);
}

static void test_backlog_catches_up(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	size_t half_bytes = 0, i;
	struct sm m;

	(void)state;
	t->v.backlog = backlog_new(1u << 20, 4u << 20);
	sm_ref(t, "/usr/bin/b", "b");
	sm_new(t, &m, "m1");
	for (i = 0; i < 200; i++)
		sm_measure(&m, "/usr/bin/b", "b");
	sm_nonce(t, &m, TV_NOW);
	/* the first half, marked "more": held, nothing proven yet */
	sm_evidence(&m, NULL, 0);
	half_bytes = m.len / 2;
	{
		struct ima_list_parser p;
		struct ima_record rec;
		struct imt_error err;
		size_t pos = 0, n = 0;

		ima_list_parser_init(&p, NULL);
		while (pos < half_bytes &&
		       ima_list_next(&p, m.list + pos, m.len - pos, 1, &rec,
				     &err) == IMT_OK) {
			pos += rec.size;
			n++;
		}
		half_bytes = pos;
		m.ev.records.len = half_bytes;
		m.ev.more = 1;
		assert_int_equal(sm_send(t, &m, &m.ev, TV_NOW, &ans),
				 ENGINE_OK);
		assert_int_equal(ans.verdict.next_index, n);
		assert_string_equal(ans.verdict.state, "enrolling");
		m.sent = n;
		m.sent_bytes = half_bytes;
	}
	assert_true(backlog_bytes(t->v.backlog) > 0);
	/* the rest: the quote proves all 201 */
	assert_string_equal(sm_round(t, &m, TV_NOW + 1), "trusted");
	assert_int_equal(stored_of(t, "m1"), 201);
	assert_int_equal(backlog_bytes(t->v.backlog), 0);
	backlog_free(t->v.backlog);
	t->v.backlog = NULL;
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- re-judging ------------------------------------------------------------ */

static void test_withdrawal_rejudges(void **state)
{
	struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
				     .name = "test" };
	struct tv *t = tv_new();
	struct rejudge_stats st;
	struct imt_error err;
	uint8_t d[32];
	size_t gone = 0;
	struct sm m;
	char *r;

	(void)state;
	sm_ref(t, "/usr/bin/vuln", "v1");
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	sm_measure(&m, "/usr/bin/vuln", "v1");
	assert_string_equal(sm_round(t, &m, TV_NOW), "trusted");
	/* the binary is found vulnerable: its reference is withdrawn */
	EVP_Digest("v1", 2, d, NULL, EVP_sha256(), NULL);
	assert_int_equal(db_ref_delete(t->v.db, &src, "/usr/bin/vuln", "sha256",
				       d, 32, &gone, &err),
			 0);
	assert_int_equal(gone, 1);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_WITHDRAWN,
				     "{\"check\":\"rejudge\"}", TV_NOW + 1, &st,
				     &err),
			 0);
	assert_int_equal(st.now_untrusted, 1);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_UNTRUSTED);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "/usr/bin/vuln"));
	free(r);
	/* and its next heartbeat does not wash it back to trusted */
	assert_string_equal(sm_round(t, &m, TV_NOW + 2), "untrusted");
	/* the fixed version is vouched for: re-judged, still the old
	 * binary in this boot's list, so untrusted until reboot */
	sm_ref(t, "/usr/bin/vuln", "v2");
	assert_int_equal(rejudge_all(&t->v, REJUDGE_ADDED,
				     "{\"check\":\"rejudge\"}", TV_NOW + 3, &st,
				     &err),
			 0);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_UNTRUSTED);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- the clock ------------------------------------------------------------ */

/*
 * Attacker 2, on the machine: an agent that withholds a new record by
 * always naming another start gets authentic quotes answered with the
 * index to send from, and is not seen: the machine still goes stale.
 */
static void test_withholding_not_seen(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	int64_t when = TV_NOW + 10, after = (int64_t)t->v.cfg.stale_after;
	struct sm m;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, when), "trusted");
	sm_measure(&m, "/usr/bin/evil", "evil");
	for (int64_t now = when + 30; now < when + after + 60; now += 30) {
		sm_nonce(t, &m, now); /* keeps the time it was seen */
		sm_evidence(&m, NULL, 0)->first_index = m.sent + 1;
		sm_send_ok(t, &m, &m.ev, now, &ans);
		assert_int_equal(ans.verdict.next_index, m.sent);
	}
	assert_int_equal(count_rows(t,
				    "SELECT seen_at FROM nonces "
				    "WHERE machine_id = ?1",
				    "m1"),
			 when);
	assert_int_equal(engine_stale_tick(&t->v, when + after + 1), 1);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_STALE);
	soft_ak_free(&m.ak);
	tv_free(t);
}

static void test_stale_from_stored_times(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	sm_new(t, &m, "seen");
	tv_machine(t, "never", DB_STATE_ENROLLING);
	tv_machine(t, "broken", DB_STATE_FAILED);
	sm_nonce(t, &m, TV_NOW);
	assert_string_equal(sm_round(t, &m, TV_NOW + 10), "trusted");
	/* a verifier that was down past the deadline: stale at its start */
	assert_int_equal(engine_stale_tick(&t->v, TV_NOW + 10 +
							  (int64_t)t->v.cfg
								  .stale_after -
							  1),
			 1); /* "never" counts from its creation */
	assert_int_equal(tv_state(t, "seen"), DB_STATE_TRUSTED);
	assert_int_equal(engine_stale_tick(&t->v, TV_NOW + 11 +
							  (int64_t)t->v.cfg
								  .stale_after),
			 1);
	assert_int_equal(tv_state(t, "seen"), DB_STATE_STALE);
	assert_int_equal(tv_state(t, "never"), DB_STATE_STALE);
	/* failed keeps its "no access": it never softens to stale */
	assert_int_equal(tv_state(t, "broken"), DB_STATE_FAILED);
	/* valid evidence lifts stale */
	sm_nonce(t, &m, TV_NOW + 1000);
	assert_string_equal(sm_round(t, &m, TV_NOW + 1000), "trusted");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- the operator ---------------------------------------------------------- */

static void test_approval(void **state)
{
	struct engine_answer ans;
	uint8_t fpr[DB_FPR_SIZE];
	struct imt_error err;
	struct tv *t = tv_new();
	struct db_machine m;
	int found;

	(void)state;
	tv_machine(t, "p", DB_STATE_PENDING);
	assert_int_equal(db_machine_get(t->v.db, "p", &m, &found, &err), 0);
	memcpy(fpr, m.ek_fpr, DB_FPR_SIZE);
	db_machine_release(&m);
	fpr[0] ^= 1; /* another EK's fingerprint: nothing moves */
	engine_approve(&t->v, "p", fpr, "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_CONFLICT);
	assert_string_equal(ans.message, "the EK of p has another "
					 "fingerprint: approval refused");
	assert_int_equal(tv_state(t, "p"), DB_STATE_PENDING);
	fpr[0] ^= 1;
	engine_approve(&t->v, "p", fpr, "alice", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_OK);
	assert_int_equal(tv_state(t, "p"), DB_STATE_ENROLLING);
	assert_int_equal(count_rows(t, EVENTS_OF("approved"), "p"), 1);
	tv_free(t);
}

/* ---- the table ------------------------------------------------------------- */

static const enum db_machine_state all_states[] = {
	DB_STATE_ENROLLING, DB_STATE_PENDING, DB_STATE_TRUSTED,
	DB_STATE_UNTRUSTED, DB_STATE_FAILED,  DB_STATE_STALE,
};

/* Every (state, event): the row's target and event, or no change. */
static void test_every_row(void **state)
{
	size_t nrows, i, s, rows_seen = 0;
	const struct transition_row *rows = transition_table(&nrows);
	struct imt_error err;
	int e;

	(void)state;
	for (i = 0; i < nrows; i++)
		assert_ptr_equal(transition_find(rows[i].from, rows[i].event),
				 &rows[i]); /* no (from, event) twice */
	for (s = 0; s < sizeof(all_states) / sizeof(all_states[0]); s++) {
		for (e = 0; e < TR_EVENT_COUNT; e++) {
			const struct transition_row *row =
				transition_find((int)all_states[s], e);
			struct tv *t = tv_new();
			enum db_machine_state to;
			int64_t before, after;
			int rc;

			tv_machine(t, "m", all_states[s]);
			before = count_rows(t,
					    "SELECT count(*) FROM events "
					    "WHERE machine_id = ?1",
					    "m");
			pthread_mutex_lock(&t->v.lock);
			rc = engine_transition(&t->v, "m", all_states[s], e,
					       "{\"check\":\"walk\"}",
					       TV_NOW + 1, &to, &err);
			pthread_mutex_unlock(&t->v.lock);
			after = count_rows(t,
					   "SELECT count(*) FROM events "
					   "WHERE machine_id = ?1",
					   "m");
			if (row == NULL) {
				assert_int_equal(rc, 0);
				assert_int_equal(to, all_states[s]);
				assert_int_equal(after, before);
			} else {
				assert_int_equal(rc, 1);
				assert_int_equal(to, row->to);
				assert_int_equal(tv_state(t, "m"), row->to);
				assert_int_equal(after - before,
						 row->kind != NULL);
				assert_int_equal(row->tnc,
						 transition_tnc_of(row->to));
				rows_seen++;
			}
			tv_free(t);
		}
	}
	/* every row but activation from nothing was walked */
	for (i = 0; i < nrows; i++)
		rows_seen += rows[i].from == TRANSITION_NEW;
	assert_int_equal(rows_seen, nrows);
	assert_string_equal(transition_tnc_name(
				    transition_tnc_of(DB_STATE_FAILED)),
			    "no_access");
	assert_string_equal(transition_event_name(TR_DEADLINE), "deadline");
}

/* ---- the firmware event log (boot_check.h) ---------------------------- */

/*
 * The measured-boot check, wrapped at link time (Makefile): a "log" whose
 * first 32 bytes are the quoted PCR 0 passes. It records what it saw, so
 * the tests can tell the stored log from the sent one.
 */
static size_t boot_check_calls, boot_check_len;

enum imt_result __wrap_boot_check_evidence(const uint8_t *log, size_t len,
					   const struct pcr_set *quoted,
					   char *reason, size_t reason_len);
enum imt_result __wrap_boot_check_evidence(const uint8_t *log, size_t len,
					   const struct pcr_set *quoted,
					   char *reason, size_t reason_len)
{
	boot_check_calls++;
	boot_check_len = len;
	if (len >= 32 && memcmp(log, quoted->value[0], 32) == 0)
		return IMT_OK;
	snprintf(reason, reason_len, "PCR 0: the log does not replay");
	return IMT_ERR_MISMATCH;
}

/* Evidence of a v2 agent carrying @log (NULL: none). */
static struct wire_evidence *sm_v2(struct sm *m, uint8_t *log, size_t len)
{
	struct wire_evidence *ev = sm_evidence(m, NULL, 0);

	ev->version = 2;
	if (log != NULL)
		ev->boot_log = (struct wire_blob){ log, len };
	return ev;
}

static void test_boot_log(void **state)
{
	struct tv *t = tv_new();
	uint8_t log[40] = { 0 }, other[40] = { 0 };
	struct engine_answer ans;
	struct wire_evidence *ev;
	struct sm m;
	char *r;

	(void)state;
	memcpy(log + 32, "firmware", 8);
	memcpy(other + 32, "Firmware", 8);
	sm_new(t, &m, "m1");
	sm_nonce(t, &m, TV_NOW);
	/* a v1 agent: answered in v1, never asked for a log */
	ev = sm_evidence(&m, NULL, 0);
	ev->version = 1;
	assert_int_equal(sm_send(t, &m, ev, TV_NOW, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(ans.verdict.version, 1);
	assert_string_equal(ans.verdict.boot_log, "");
	assert_int_equal(boot_check_calls, 0);
	/* a v2 agent without a log: asked for it */
	ev = sm_v2(&m, NULL, 0);
	assert_int_equal(sm_send(t, &m, ev, TV_NOW + 1, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.boot_log, "wanted");
	/* it sends it: checked against the quote, stored, not asked again */
	ev = sm_v2(&m, log, sizeof(log));
	assert_int_equal(sm_send(t, &m, ev, TV_NOW + 2, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_string_equal(ans.verdict.boot_log, "");
	assert_int_equal(boot_check_calls, 1);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM boot_logs l JOIN "
				    "boots b ON b.id = l.boot_id WHERE "
				    "b.machine_id = ?1",
				    "m1"),
			 1);
	/* the same log again (an agent restart): a no-op */
	ev = sm_v2(&m, log, sizeof(log));
	assert_int_equal(sm_send(t, &m, ev, TV_NOW + 3, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	/* later evidence without it: checked against the stored log */
	sm_measure(&m, "/usr/bin/a", "a");
	sm_ref(t, "/usr/bin/a", "a");
	boot_check_len = 0;
	assert_string_equal(sm_round(t, &m, TV_NOW + 4), "trusted");
	assert_int_equal(boot_check_calls, 3);
	assert_int_equal(boot_check_len, sizeof(log));
	/* a quote whose PCR 0 disagrees with the stored log: failed */
	m.pcrs.value[0][0] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 5), "failed");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"boot log\""));
	assert_non_null(strstr(r, "PCR 0"));
	free(r);
	m.pcrs.value[0][0] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 6), "trusted");
	/* another log for the same boot: failed, the first one stays */
	ev = sm_v2(&m, other, sizeof(other));
	assert_int_equal(sm_send(t, &m, ev, TV_NOW + 7, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "failed");
	assert_string_equal(ans.verdict.boot_log, "");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "changed within one boot"));
	free(r);
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM boot_logs WHERE "
				    "substr(log, 33) = CAST(?1 AS BLOB)",
				    "firmware"),
			 1);
	/* a reboot: the new boot has no log, the v2 agent is asked again */
	m.reset++;
	sm_boot_fresh(&m);
	sm_measure(&m, NULL, NULL);
	ev = sm_v2(&m, NULL, 0);
	assert_int_equal(sm_send(t, &m, ev, TV_NOW + 8, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_string_equal(ans.verdict.boot_log, "wanted");
	/* and the old boot's log is not taken as this one's */
	ev = sm_v2(&m, other, sizeof(other));
	assert_int_equal(sm_send(t, &m, ev, TV_NOW + 9, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_string_equal(ans.verdict.boot_log, "");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * A heartbeat of a boot whose stored log passed against the same PCRs 0-9
 * is not replayed again (boot_memo.h); what the memo remembers vouches
 * for nothing else. Mallory holds her own TPM; a stranger holds nothing.
 */
static void test_boot_log_memo(void **state)
{
	struct tv *t = tv_new();
	uint8_t log[40] = { 0 }, forged[40] = { 0 };
	struct engine_answer ans;
	struct wire_evidence *ev;
	struct sm m, twin, mallory;
	size_t calls;
	char *r;

	(void)state;
	t->v.boot_memo = boot_memo_new();
	assert_non_null(t->v.boot_memo);
	memcpy(log + 32, "firmware", 8);
	sm_new(t, &m, "m1");
	sm_new(t, &mallory, "mallory");
	sm_nonce(t, &m, TV_NOW);
	ev = sm_v2(&m, log, sizeof(log));
	assert_int_equal(sm_send(t, &m, ev, TV_NOW, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	calls = boot_check_calls;
	/* heartbeats and records without the log: no replay */
	assert_string_equal(sm_round(t, &m, TV_NOW + 1), "trusted");
	sm_measure(&m, "/usr/bin/a", "a");
	sm_ref(t, "/usr/bin/a", "a");
	assert_string_equal(sm_round(t, &m, TV_NOW + 2), "trusted");
	assert_int_equal(boot_check_calls, calls);
	/* the TPM quotes another PCR 1: the memo's key covers it, so the
	 * stored log is replayed (the wrapped check looks at PCR 0 only) */
	m.pcrs.value[1][0] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 3), "trusted");
	assert_int_equal(boot_check_calls, calls + 1);
	m.pcrs.value[1][0] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 4), "trusted");
	assert_int_equal(boot_check_calls, calls + 1);
	/* another PCR 0: replayed and failed, every time (a failure is not
	 * remembered) */
	m.pcrs.value[0][0] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 5), "failed");
	assert_int_equal(boot_check_calls, calls + 2);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"boot log\""));
	free(r);
	assert_string_equal(sm_round(t, &m, TV_NOW + 6), "failed");
	assert_int_equal(boot_check_calls, calls + 3);
	m.pcrs.value[0][0] ^= 1;
	assert_string_equal(sm_round(t, &m, TV_NOW + 7), "trusted");
	assert_int_equal(boot_check_calls, calls + 3);
	/* Mallory quotes m1's nonce and another PCR 0 with her own TPM,
	 * and a stranger sends m1's evidence with a log made to pass it and
	 * a cut signature: both are refused before any check runs, so
	 * neither can make the memo vouch for that PCR 0 */
	sm_nonce(t, &m, TV_NOW + 8);
	m.pcrs.value[0][0] ^= 1;
	engine_evidence(&t->v, sm_evidence(&m, &mallory.ak, 0), TV_NOW + 8,
			&ans);
	assert_int_equal(ans.status, ENGINE_REJECTED);
	memcpy(forged, m.pcrs.value[0], 32);
	ev = sm_v2(&m, forged, sizeof(forged));
	ev->signature.len /= 2;
	engine_evidence(&t->v, ev, TV_NOW + 8, &ans);
	assert_true(ans.status != ENGINE_OK);
	assert_int_equal(boot_check_calls, calls + 3);
	/* m1's own TPM quoting that PCR 0 is replayed, and fails */
	assert_string_equal(sm_round(t, &m, TV_NOW + 9), "failed");
	assert_int_equal(boot_check_calls, calls + 4);
	m.pcrs.value[0][0] ^= 1;
	/* another machine with the same firmware log and PCRs: the pass is
	 * the log's and the PCRs', whichever machine (or verifier) made it */
	sm_new(t, &twin, "m2");
	sm_nonce(t, &twin, TV_NOW + 10);
	ev = sm_v2(&twin, log, sizeof(log));
	assert_int_equal(sm_send(t, &twin, ev, TV_NOW + 10, &ans), ENGINE_OK);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(boot_check_calls, calls + 5); /* a sent log */
	assert_string_equal(sm_round(t, &twin, TV_NOW + 11), "trusted");
	assert_int_equal(boot_check_calls, calls + 5);
	soft_ak_free(&m.ak);
	soft_ak_free(&twin.ak);
	soft_ak_free(&mallory.ak);
	boot_memo_free(t->v.boot_memo);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_unknown_invalid),
		cmocka_unit_test(test_garbage_changes_nothing),
		cmocka_unit_test(test_nonce_rules),
		cmocka_unit_test(test_heartbeat_rows),
		cmocka_unit_test(test_withholding_not_seen),
		cmocka_unit_test(test_other_tpm_rejected),
		cmocka_unit_test(test_counters),
		cmocka_unit_test(test_other_pcr_refused),
		cmocka_unit_test(test_backlog_catches_up),
		cmocka_unit_test(test_withdrawal_rejudges),
		cmocka_unit_test(test_stale_from_stored_times),
		cmocka_unit_test(test_approval),
		cmocka_unit_test(test_every_row),
		cmocka_unit_test(test_boot_log),
		cmocka_unit_test(test_boot_log_memo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

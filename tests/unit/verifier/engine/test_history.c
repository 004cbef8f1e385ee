// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_history.c - machines that delete their oldest measurement records
 * (verifier/engine/history.h): stored_records in every v3 answer (held records
 * not counted), "export" answers, a boot first seen past its deleted
 * records under "history_incomplete" refuse and accept, a gap in a boot
 * the verifier was following (untrusted under accept too), a wrong
 * list_start_pcr, and the two attackers: the network with nothing, and
 * an enrolled machine with a TPM of its own that claims a deletion.
 */
#include "db_machine.h"
#include "db_policy.h"
#include "verifier_test.h"

#include "backlog.h"
#include "engine_fixture.h"
#include "policies.h"
#include "rejudge.h"

/* v3 evidence of every record from the agent's ->sent on. */
static struct wire_evidence *sm_v3(struct sm *m, struct soft_ak *ak)
{
	struct wire_evidence *ev = sm_evidence(m, ak, 0);

	ev->version = 3;
	return ev;
}

/* The kernel deletes its records below ->sent: where the list starts. */
struct cut {
	uint64_t start;
	uint8_t pcr[32];
};

/* Measure @n records, remembering PCR 10 and the offset before them. */
static void measure_after_cut(struct sm *m, struct cut *c, size_t n)
{
	size_t i;

	c->start = m->count;
	memcpy(c->pcr, m->pcrs.value[10], 32);
	m->sent = m->count; /* the agent sends from its list start */
	m->sent_bytes = m->len;
	for (i = 0; i < n; i++)
		sm_measure(m, "/usr/bin/ok", "ok");
}

static void with_cut(struct sm *m, const struct cut *c)
{
	m->ev.list_start = c->start;
	memcpy(m->ev.list_start_pcr, c->pcr, 32);
	m->ev.list_start_pcr_len = 32;
}

/* Fresh v3 evidence, the list cut at @c unless NULL; a verdict back. */
static void round_v3(struct tv *t, struct sm *m, const struct cut *c,
		     int64_t now, struct engine_answer *ans)
{
	sm_v3(m, NULL);
	if (c != NULL)
		with_cut(m, c);
	sm_send_ok(t, m, &m->ev, now, ans);
}

static void put_policy(struct tv *t, const char *body)
{
	struct imt_error err;
	struct policy *p = policy_parse("default", body, strlen(body), &err);

	if (p == NULL)
		fail_msg("policy_parse: %s", err.msg);
	if (db_policy_put(t->v.db, "default", body, 1,
			  (const char *const *)p->sources, p->nsources, TV_NOW,
			  &err) < 0)
		fail_msg("db_policy_put: %s", err.msg);
	policy_free(p);
	policies_invalidate(&t->v);
}

#define ACCEPT \
	"{\"default\":true,\"sources\":[\"*\"]," \
	"\"history_incomplete\":\"accept\"}"
#define REFUSE "{\"default\":true,\"sources\":[\"*\"]}"

/* Machine m1 under @policy (NULL: as it is): /usr/bin/ok vouched for, its
 * list the boot_aggregate and one /usr/bin/ok record. */
static void machine_m1(struct tv *t, struct sm *m, const char *policy)
{
	if (policy != NULL)
		put_policy(t, policy);
	sm_ref(t, "/usr/bin/ok", "ok");
	sm_new(t, m, "m1");
	sm_measure(m, "/usr/bin/ok", "ok");
}

/* stored_records: in v3 answers only, never counting held records. */
static void test_stored_records(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	size_t i, pos = 0, n = 0;
	struct ima_list_parser p;
	struct ima_record rec;
	struct imt_error err;
	struct sm m;

	(void)state;
	t->v.backlog = backlog_new(1u << 20, 4u << 20);
	sm_ref(t, "/usr/bin/ok", "ok");
	sm_new(t, &m, "m1");
	for (i = 0; i < 9; i++)
		sm_measure(&m, "/usr/bin/ok", "ok");
	sm_nonce(t, &m, TV_NOW);
	/* five of the ten, marked "more": held, not stored */
	sm_v3(&m, NULL);
	ima_list_parser_init(&p, NULL);
	for (; n < 5; n++) {
		assert_int_equal(ima_list_next(&p, m.list + pos, m.len - pos, 1,
					       &rec, &err),
				 IMT_OK);
		pos += rec.size;
	}
	m.ev.records.len = pos;
	m.ev.more = 1;
	sm_send_ok(t, &m, &m.ev, TV_NOW, &ans);
	assert_int_equal(ans.verdict.next_index, 5);
	assert_true(ans.verdict.has_stored_records);
	assert_int_equal(ans.verdict.stored_records, 0);
	m.sent = 5;
	m.sent_bytes = pos;
	/* the rest: all ten proven and stored */
	round_v3(t, &m, NULL, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(ans.verdict.stored_records, 10);
	/* a v2 agent is never sent the field */
	sm_measure(&m, "/usr/bin/ok", "ok");
	sm_v3(&m, NULL);
	m.ev.version = 2;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 2, &ans);
	assert_int_equal(ans.verdict.version, 2);
	assert_false(ans.verdict.has_stored_records);
	/* a probe says how many are stored */
	sm_v3(&m, NULL);
	m.ev.first_index = WIRE_PROBE_INDEX;
	m.ev.records.len = 0;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 3, &ans);
	assert_int_equal(ans.verdict.stored_records, 11);
	assert_int_equal(ans.verdict.next_index, 11);
	backlog_free(t->v.backlog);
	t->v.backlog = NULL;
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* "export": the answer comes after a durable commit, and says so. */
static void test_export(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;

	(void)state;
	machine_m1(t, &m, NULL);
	sm_nonce(t, &m, TV_NOW);
	sm_v3(&m, NULL)->export_sync = 1;
	sm_send_ok(t, &m, &m.ev, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(ans.verdict.stored_records, 2);
	assert_int_equal(stored_of(t, "m1"), 2);
	/* nothing new, export again: still answered, the same count */
	sm_v3(&m, NULL)->export_sync = 1;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 1, &ans);
	assert_int_equal(ans.verdict.stored_records, 2);
	/* and evidence without it goes on as before */
	sm_measure(&m, "/usr/bin/ok", "ok");
	round_v3(t, &m, NULL, TV_NOW + 2, &ans);
	assert_int_equal(ans.verdict.stored_records, 3);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * Attacker 2: an enrolled machine (a TPM of its own) whose first evidence
 * says its records 0..3 were deleted, with the very PCR value that makes
 * its replay match. Refused by default; accepted with a note by a policy
 * that says so; the reason follows a re-judge either way.
 */
static void test_fresh_gap_policy(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct rejudge_stats st;
	struct imt_error err;
	struct cut c;
	struct sm m;
	char *r;

	(void)state;
	machine_m1(t, &m, NULL);
	sm_measure(&m, "/tmp/evil", "evil"); /* hidden by the deletion */
	sm_measure(&m, "/usr/bin/ok", "ok");
	measure_after_cut(&m, &c, 3);
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, &c, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	assert_int_equal(ans.verdict.next_index, 7);
	assert_int_equal(ans.verdict.stored_records, 7);
	assert_int_equal(stored_of(t, "m1"), 3); /* 4, 5, 6 */
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"history\""));
	assert_non_null(strstr(r, "history incomplete: records 0..3 of this "
				  "boot were deleted from the machine before "
				  "the verifier stored them"));
	assert_non_null(strstr(r, "\"history_incomplete\":\"refuse\""));
	free(r);
	/* heartbeats keep it untrusted */
	round_v3(t, &m, NULL, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");

	/* the policy accepts: a re-judge trusts it, the gap a note */
	put_policy(t, ACCEPT);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_POLICY,
				     "{\"check\":\"rejudge\"}", TV_NOW + 2, &st,
				     &err),
			 0);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_TRUSTED);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"history\":{\"check\":\"history\""));
	assert_non_null(strstr(r, "\"history_incomplete\":\"accept\""));
	free(r);
	sm_measure(&m, "/usr/bin/ok", "ok");
	round_v3(t, &m, NULL, TV_NOW + 3, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "history incomplete: records 0..3"));
	free(r);
	/* and back: refused again */
	put_policy(t, REFUSE);
	assert_int_equal(rejudge_all(&t->v, REJUDGE_POLICY,
				     "{\"check\":\"rejudge\"}", TV_NOW + 4, &st,
				     &err),
			 0);
	assert_int_equal(tv_state(t, "m1"), DB_STATE_UNTRUSTED);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "history incomplete"));
	free(r);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* Accepted from the first evidence of a new boot too; a bad record after
 * the gap is still untrusted. */
static void test_fresh_gap_accept(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct cut c;
	struct sm m;
	char *r;

	(void)state;
	put_policy(t, "{\"default\":true,\"sources\":[\"dir-tree:*\"],"
		      "\"history_incomplete\":\"accept\"}");
	machine_m1(t, &m, NULL);
	measure_after_cut(&m, &c, 2);
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, &c, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"evidence\""));
	assert_non_null(strstr(r, "records 0..1 of this boot were deleted"));
	free(r);
	sm_measure(&m, "/tmp/evil", "evil");
	round_v3(t, &m, &c, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "/tmp/evil"));
	free(r);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* A gap in a boot the verifier followed: untrusted under accept. */
static void test_followed_gap(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct cut c;
	struct sm m;
	char *r;

	(void)state;
	machine_m1(t, &m, ACCEPT);
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, NULL, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(ans.verdict.stored_records, 2);
	/* 2..4 measured, never sent, deleted; 5, 6 sent */
	sm_measure(&m, "/tmp/evil", "evil");
	sm_measure(&m, "/usr/bin/ok", "ok");
	sm_measure(&m, "/usr/bin/ok", "ok");
	measure_after_cut(&m, &c, 2);
	round_v3(t, &m, &c, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	assert_int_equal(ans.verdict.next_index, 7);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"followed\":true"));
	assert_non_null(strstr(r, "history gap: records 2..4 of this boot"));
	free(r);
	round_v3(t, &m, NULL, TV_NOW + 2, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* A list_start_pcr that is not PCR 10 at the cut: the replay fails. */
static void test_wrong_anchor(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct cut c;
	struct sm m;
	char *r;

	(void)state;
	machine_m1(t, &m, ACCEPT);
	measure_after_cut(&m, &c, 2);
	c.pcr[0] ^= 1;
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, &c, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "failed");
	assert_int_equal(ans.verdict.next_index, 2); /* >= list_start */
	assert_int_equal(ans.verdict.stored_records, 0);
	assert_int_equal(stored_of(t, "m1"), 0);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"replay\""));
	free(r);
	/* no list_start_pcr at all: nothing can be proven */
	sm_v3(&m, NULL)->list_start = c.start;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "failed");
	assert_int_equal(ans.verdict.next_index, 2);
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"history\""));
	assert_non_null(strstr(r, "no list_start_pcr"));
	free(r);
	/* the right one: accepted */
	c.pcr[0] ^= 1;
	round_v3(t, &m, &c, TV_NOW + 2, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* list_start at or below what is stored: nothing changes; at the stored
 * index the agent's PCR value must be the verifier's. */
static void test_deleted_what_was_stored(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct cut c;
	struct sm m;
	char *r;

	(void)state;
	machine_m1(t, &m, NULL);
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, NULL, TV_NOW, &ans);
	measure_after_cut(&m, &c, 1); /* deletes 0, 1: confirmed */
	round_v3(t, &m, &c, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(ans.verdict.stored_records, 3);
	r = reason_of(t, "m1");
	assert_null(strstr(r, "history"));
	free(r);
	/* below what is stored: its PCR value is not looked at */
	sm_v3(&m, NULL)->list_start = 1;
	memset(m.ev.list_start_pcr, 7, 32);
	m.ev.list_start_pcr_len = 32;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 2, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	/* at the stored index, a value that is not the verifier's */
	sm_measure(&m, "/usr/bin/ok", "ok");
	c.start = 3;
	memset(c.pcr, 7, 32);
	round_v3(t, &m, &c, TV_NOW + 3, &ans);
	assert_string_equal(ans.verdict.state, "failed");
	r = reason_of(t, "m1");
	assert_non_null(strstr(r, "\"check\":\"list_start_pcr\""));
	free(r);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * A machine with records staged (export) and nothing new: each heartbeat
 * is seen, or the stale clock turns a quiet exporting machine stale.
 */
static void test_export_heartbeat_seen(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct cut c;
	struct sm m;

	(void)state;
	machine_m1(t, &m, NULL);
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, NULL, TV_NOW, &ans);
	measure_after_cut(&m, &c, 2);
	round_v3(t, &m, &c, TV_NOW + 1, &ans);
	assert_int_equal(ans.verdict.stored_records, 4);
	assert_int_equal(last_seen_of(t, "m1"), TV_NOW + 1);
	sm_nonce(t, &m, TV_NOW + 30); /* the heartbeat's own */
	sm_v3(&m, NULL)->export_sync = 1;
	with_cut(&m, &c);
	sm_send_ok(t, &m, &m.ev, TV_NOW + 30, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(last_seen_of(t, "m1"), TV_NOW + 30);
	sm_nonce(t, &m, TV_NOW + 60);
	sm_v3(&m, NULL)->export_sync = 1;
	with_cut(&m, &c);
	sm_send_ok(t, &m, &m.ev, TV_NOW + 60, &ans);
	assert_int_equal(last_seen_of(t, "m1"), TV_NOW + 60);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* An untrusted machine's heartbeats are seen as well: stale is silence. */
static void test_untrusted_heartbeat_seen(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;

	(void)state;
	machine_m1(t, &m, NULL);
	sm_measure(&m, "/usr/bin/evil", "evil");
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, NULL, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	m.sent = m.count;
	m.sent_bytes = m.len;
	sm_nonce(t, &m, TV_NOW + 30);
	round_v3(t, &m, NULL, TV_NOW + 30, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	assert_int_equal(last_seen_of(t, "m1"), TV_NOW + 30);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* Attacker 1: list_start without the machine's quote changes nothing. */
static void test_network_attacker(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct soft_ak other;
	struct cut c;
	struct sm m;

	(void)state;
	put_policy(t, ACCEPT);
	sm_ref(t, "/usr/bin/ok", "ok");
	sm_new(t, &m, "victim");
	sm_nonce(t, &m, TV_NOW);
	round_v3(t, &m, NULL, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	measure_after_cut(&m, &c, 1);
	c.start = 100;
	assert_int_equal(soft_ak_new(&other), 0);
	/* a stranger's AK, then the machine's quote with a bad signature */
	with_cut(&m, (sm_v3(&m, &other), &c));
	engine_evidence(&t->v, &m.ev, TV_NOW + 1, &ans);
	assert_int_equal(ans.status, ENGINE_REJECTED);
	with_cut(&m, (sm_v3(&m, NULL), &c));
	m.sig[m.ev.signature.len - 1] ^= 0x55;
	engine_evidence(&t->v, &m.ev, TV_NOW + 1, &ans);
	assert_int_equal(ans.status, ENGINE_REJECTED);
	assert_int_equal(tv_state(t, "victim"), DB_STATE_TRUSTED);
	assert_int_equal(stored_of(t, "victim"), 1);
	/* the honest agent goes on where it was */
	m.sig[m.ev.signature.len - 1] ^= 0x55;
	m.sent = 1;
	m.sent_bytes = 0;
	{
		struct ima_list_parser p;
		struct ima_record rec;
		struct imt_error err;

		ima_list_parser_init(&p, NULL);
		assert_int_equal(ima_list_next(&p, m.list, m.len, 1, &rec,
					       &err),
				 IMT_OK);
		m.sent_bytes = rec.size;
	}
	round_v3(t, &m, NULL, TV_NOW + 2, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	soft_ak_free(&other);
	soft_ak_free(&m.ak);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stored_records),
		cmocka_unit_test(test_export),
		cmocka_unit_test(test_fresh_gap_policy),
		cmocka_unit_test(test_fresh_gap_accept),
		cmocka_unit_test(test_followed_gap),
		cmocka_unit_test(test_wrong_anchor),
		cmocka_unit_test(test_deleted_what_was_stored),
		cmocka_unit_test(test_network_attacker),
		cmocka_unit_test(test_export_heartbeat_seen),
		cmocka_unit_test(test_untrusted_heartbeat_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_attest.c - the checks of verifier/engine/attest.c, as the engine applies
 * them to the evidence of machines with software TPMs (soft_machine.h):
 * boot_aggregate, the counters, the replay against the quoted PCR 10,
 * the PCR selection and the bank, each told by the state and the reason
 * the machine gets. Each test kills mutants of tests/mutants/mutants.list
 * that every other test let live (issue 32).
 */
#include "db_boot.h"
#include "db_machine.h"
#include "db_policy.h"
#include "db_ref.h"
#include "verifier_test.h"

#include "../../fixture.h"
#include "backlog.h"
#include "boot_memo.h"
#include "engine_fixture.h"
#include "ima_build.h"
#include "ima_list.h"
#include "ima_replay.h"
#include "policy.h"
#include "tcg_log.h"
#include "transition.h"

/* A record of @path whose sha256 digest is that of @content. */
static void append_file(struct sm *m, const char *path, const char *content)
{
	uint8_t d[32];

	EVP_Digest(content, strlen(content), d, NULL, EVP_sha256(), NULL);
	sm_append(m, path, hash_algo_bank("sha256"), d);
}

/*
 * A new boot of @m in @bank: PCRs 0-9 hold @firmware (0: zeros), as the
 * firmware left them, and the list starts with @first (NULL:
 * "boot_aggregate") over them, as IMA computes it.
 */
static void boot(struct sm *m, const char *bank, uint8_t firmware,
		 const char *first)
{
	uint8_t ba[HASH_ALGO_MAX_SIZE];
	struct imt_error err;
	int i;

	pcr_set_init(&m->pcrs, hash_algo_bank(bank));
	m->pcrs.present = (1u << SOFT_AK_PCRS) - 1;
	for (i = 0; i < 10; i++)
		memset(m->pcrs.value[i], firmware, m->pcrs.algo->size);
	m->len = m->count = m->sent = m->sent_bytes = 0;
	assert_int_equal(pcr_set_boot_aggregate(&m->pcrs, ba, &err), IMT_OK);
	sm_append(m, first != NULL ? first : "boot_aggregate", m->pcrs.algo,
		  ba);
}

/*
 * A new boot of @m whose firmware wrote the event log of fixture @name
 * (tests/fixtures/eventlog/): the sha256 PCRs 0-9 (and 11-23) are its
 * replay, the quote selects 0-10 and every PCR the log extends (the
 * agent's rules_pcr_mask()), and record 0 is their boot_aggregate. The
 * log is returned, to free().
 */
static uint8_t *boot_with_log(struct sm *m, const char *name, size_t *len)
{
	uint8_t ba[HASH_ALGO_MAX_SIZE], *log;
	struct imt_error err;
	char rel[128];
	uint32_t extended;

	snprintf(rel, sizeof(rel), "eventlog/%s/binary_bios_measurements",
		 name);
	log = fixture_read(rel, len);
	pcr_set_init(&m->pcrs, hash_algo_bank("sha256"));
	if (tcg_log_replay(log, *len, &m->pcrs, 1, &err) != IMT_OK ||
	    tcg_log_extended(log, *len, &extended, &err) != IMT_OK)
		fail_msg("%s: %s", rel, err.msg);
	/* the agent quotes PCRs 0-10 and every other the log extends */
	m->select = ((1u << SOFT_AK_PCRS) - 1) | extended;
	m->pcrs.present = m->select;
	memset(m->pcrs.value[10], 0, sizeof(m->pcrs.value[10]));
	m->len = m->count = m->sent = m->sent_bytes = 0;
	assert_int_equal(pcr_set_boot_aggregate(&m->pcrs, ba, &err), IMT_OK);
	sm_append(m, "boot_aggregate", m->pcrs.algo, ba);
	return log;
}

/* Policy @name from JSON @body, in force at once. */
static void put_policy(struct tv *t, const char *name, const char *body)
{
	struct imt_error err;
	struct policy *p;

	p = policy_parse(name, body, strlen(body), &err);
	if (p == NULL)
		fail_msg("policy_parse: %s", err.msg);
	if (db_policy_put(t->v.db, name, body, p->is_default,
			  (const char *const *)p->sources, p->nsources, TV_NOW,
			  &err) < 0)
		fail_msg("db_policy_put: %s", err.msg);
	policy_free(p);
	policies_invalidate(&t->v);
}

/* Send what @m has not sent yet; the state it is answered with. */
static const char *round_of(struct tv *t, struct sm *m, int64_t now)
{
	static struct engine_answer ans;

	sm_send_ok(t, m, sm_evidence(m, NULL, 0), now, &ans);
	return ans.verdict.state;
}

/* Fail unless the state reason of machine @id holds @text. */
static void assert_reason(struct tv *t, const char *id, const char *text)
{
	char *r = reason_of(t, id);

	if (strstr(r, text) == NULL)
		fail_msg("%s: reason %s lacks %s", id, r, text);
	free(r);
}

static void machine(struct tv *t, struct sm *m, const char *id)
{
	sm_new(t, m, id);
	sm_nonce(t, m, TV_NOW);
}

/* ---- boot_aggregate ---------------------------------------------------- */

/*
 * Record 0 names the boot's PCRs 0-9 (IMA's boot_aggregate): one of
 * another boot, or of other firmware, is refused; the right one over
 * PCRs that are not all zero passes.
 */
static void test_boot_aggregate_of_another_boot(void **state)
{
	struct tv *t = tv_new();
	struct sm m, ok;

	(void)state;
	machine(t, &ok, "ok");
	boot(&ok, "sha256", 0x5a, NULL);
	assert_string_equal(round_of(t, &ok, TV_NOW), "trusted");
	machine(t, &m, "m1");
	boot(&m, "sha256", 0x5a, NULL);
	m.pcrs.value[4][0] ^= 1; /* the firmware measured another PCR 4 */
	assert_string_equal(round_of(t, &m, TV_NOW), "failed");
	assert_reason(t, "m1", "\"check\":\"boot_aggregate\"");
	assert_int_equal(stored_of(t, "m1"), 0);
	/* a reboot whose PCRs and record 0 agree: trusted again */
	m.reset++;
	boot(&m, "sha256", 0x11, NULL);
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "trusted");
	soft_ak_free(&ok.ak);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* Record 0 with the right digest under another name: not boot_aggregate. */
static void test_record0_not_boot_aggregate(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	machine(t, &m, "m1");
	boot(&m, "sha256", 0x5a, "/usr/bin/ok");
	assert_string_equal(round_of(t, &m, TV_NOW), "failed");
	assert_reason(t, "m1", "record 0 is not boot_aggregate");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* A sha1 boot_aggregate in a sha256 quote: the reason says so. */
static void test_boot_aggregate_other_bank(void **state)
{
	struct tv *t = tv_new();
	uint8_t sha1[20] = { 0 };
	struct sm m;

	(void)state;
	machine(t, &m, "m1");
	boot(&m, "sha256", 0, NULL);
	m.len = m.count = 0;
	memset(m.pcrs.value[10], 0, sizeof(m.pcrs.value[10]));
	sm_append(&m, "boot_aggregate", hash_algo_bank("sha1"), sha1);
	assert_string_equal(round_of(t, &m, TV_NOW), "failed");
	assert_reason(t, "m1", "record 0 is a sha1 digest");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* Only record 0 is checked against the PCRs: a later "boot_aggregate" is
 * a record like any other, judged against the references. */
static void test_later_boot_aggregate_judged(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	machine(t, &m, "m1");
	append_file(&m, "/usr/bin/ok", "ok");
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	append_file(&m, "boot_aggregate", "evil");
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "untrusted");
	assert_reason(t, "m1", "\"index\":2");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- the counters -------------------------------------------------------- */

/* restartCount going backwards within one resetCount: failed. */
static void test_restart_count_backwards(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	machine(t, &m, "m1");
	m.restart = 2;
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	m.restart = 1;
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "failed");
	assert_reason(t, "m1", "\"check\":\"counters\"");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * A TPM Restart (restartCount moved, PCRs reset) announced by evidence
 * that goes on from the stored index: the replay from the stored PCR 10
 * fails, so the boot starts over and the agent is asked for record 0;
 * nothing fails.
 */
static void test_restart_from_stored_index(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	machine(t, &m, "m1");
	append_file(&m, "/usr/bin/ok", "ok");
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	m.restart++;
	boot(&m, "sha256", 0, NULL);
	sm_evidence(&m, NULL, 0)->first_index = 2;
	m.ev.records.len = 0;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_int_equal(ans.verdict.next_index, 0);
	assert_string_equal(round_of(t, &m, TV_NOW + 2), "trusted");
	assert_int_equal(count_rows(t,
				    "SELECT count(*) FROM boots WHERE "
				    "machine_id = ?1",
				    "m1"),
			 2);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- the replay ------------------------------------------------------------ */

/*
 * Records the quoted PCR 10 does not prove, the agent not saying more
 * follows: failed, even with a backlog to hold pieces in.
 */
static void test_replay_mismatch_fails(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	t->v.backlog = backlog_new(1u << 20, 4u << 20);
	sm_ref(t, "/usr/bin/ok", "ok");
	machine(t, &m, "m1");
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	append_file(&m, "/usr/bin/ok", "ok");
	m.pcrs.value[10][0] ^= 1; /* PCR 10 extended with something else */
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "failed");
	assert_reason(t, "m1", "\"check\":\"replay\"");
	assert_int_equal(stored_of(t, "m1"), 1);
	assert_int_equal(backlog_bytes(t->v.backlog), 0);
	backlog_free(t->v.backlog);
	t->v.backlog = NULL;
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- PCR selection and bank --------------------------------------------- */

/* A quote that leaves out PCR 10 proves nothing about the list. */
static void test_pcr10_must_be_quoted(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	machine(t, &m, "m1");
	m.select = 0x3ff; /* PCRs 0-9 */
	append_file(&m, "/tmp/evil", "evil");
	assert_string_equal(round_of(t, &m, TV_NOW), "failed");
	assert_reason(t, "m1", "\"check\":\"pcr selection\"");
	assert_int_equal(stored_of(t, "m1"), 0);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * The bank of a machine's first stored evidence is pinned (bank_change =
 * deny, the default): a later boot quoted in sha1 fails; with "allow" it
 * passes. A sha1 machine from the start is fine.
 */
static void test_bank_pinned(void **state)
{
	struct tv *t = tv_new();
	struct sm m, s1;

	(void)state;
	assert_string_equal(t->v.cfg.bank_change, "deny");
	machine(t, &m, "m1");
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	m.reset++;
	boot(&m, "sha1", 0, NULL);
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "failed");
	assert_reason(t, "m1", "\"check\":\"bank\"");
	snprintf(t->v.cfg.bank_change, sizeof(t->v.cfg.bank_change), "allow");
	m.sent = m.sent_bytes = 0; /* the new boot from record 0 */
	assert_string_equal(round_of(t, &m, TV_NOW + 2), "trusted");
	snprintf(t->v.cfg.bank_change, sizeof(t->v.cfg.bank_change), "deny");
	machine(t, &s1, "s1");
	boot(&s1, "sha1", 0, NULL);
	assert_string_equal(round_of(t, &s1, TV_NOW), "trusted");
	s1.reset++;
	boot(&s1, "sha256", 0, NULL);
	assert_string_equal(round_of(t, &s1, TV_NOW + 1), "failed");
	assert_reason(t, "s1", "pinned to sha1");
	soft_ak_free(&m.ak);
	soft_ak_free(&s1.ak);
	tv_free(t);
}

/* ---- the wide banks: sha384, sha512 (issue 34) ---------------------------- */

/* A record of @path whose @algo digest is that of @content. */
static void append_algo(struct sm *m, const char *path, const char *algo,
			const char *content)
{
	const struct hash_algo *a = hash_algo_bank(algo);
	uint8_t d[HASH_ALGO_MAX_SIZE];

	EVP_Digest(content, strlen(content), d, NULL,
		   EVP_get_digestbyname(algo), NULL);
	sm_append(m, path, a, d);
}

/* A reference for @path with @content's @algo digest (source "test"). */
static void ref_algo(struct tv *t, const char *path, const char *algo,
		     const char *content)
{
	struct db_ref_source src = { .kind = DB_SOURCE_DIR_TREE,
				     .name = "test" };
	const struct hash_algo *a = hash_algo_bank(algo);
	uint8_t d[HASH_ALGO_MAX_SIZE];
	struct imt_error err;

	EVP_Digest(content, strlen(content), d, NULL,
		   EVP_get_digestbyname(algo), NULL);
	if (db_ref_add(t->v.db, &src, path, algo, d, a->size, TV_NOW, &err) < 0)
		fail_msg("db_ref_add: %s", err.msg);
}

/*
 * @m's TPM quotes @bank now, in the same boot: PCRs 0-9 zero, PCR 10 what
 * the kernel extended into that bank for the list so far.
 */
static void rebank(struct sm *m, const char *bank)
{
	struct ima_list_parser p;
	struct ima_replay *r;
	struct ima_record rec;
	struct imt_error err;
	size_t pos;

	pcr_set_init(&m->pcrs, hash_algo_bank(bank));
	m->pcrs.present = (1u << SOFT_AK_PCRS) - 1;
	r = ima_replay_new(m->pcrs.algo, &err);
	assert_non_null(r);
	ima_list_parser_init(&p, NULL);
	for (pos = 0; pos < m->len; pos += rec.size) {
		assert_int_equal(ima_list_next(&p, m->list + pos, m->len - pos,
					       1, &rec, &err),
				 IMT_OK);
		assert_int_equal(ima_replay_extend(r, &rec, &err), IMT_OK);
	}
	memcpy(m->pcrs.value[10], ima_replay_pcr(r, 10), m->pcrs.algo->size);
	ima_replay_free(r);
}

/* The current boot of @id, which must exist. */
static void boot_of(struct tv *t, const char *id, struct db_boot *b)
{
	struct imt_error err;
	int found;

	assert_int_equal(db_boot_current(t->v.db, id, b, &found, &err), 0);
	assert_true(found);
}

/* The bank machine @id is pinned to ("" before any). */
static void assert_pinned(struct tv *t, const char *id, const char *bank)
{
	struct db_machine m;
	struct imt_error err;
	int found;

	assert_int_equal(db_machine_get(t->v.db, id, &m, &found, &err), 0);
	assert_true(found);
	assert_string_equal(m.bank, bank);
	db_machine_release(&m);
}

/*
 * A machine whose TPM quotes its sha384 (or sha512) bank: the quote's
 * PCR digest covers 48-byte (64-byte) PCR values, boot_aggregate is of
 * that bank, the list is replayed in it from the stored running PCR 10
 * round after round, and the records are judged: files of sha256 and
 * sha384 digests known, an unknown one untrusted, named. The machine is
 * pinned to the bank and the boot keeps its running value.
 */
static void wide_bank_trusted(const char *bank)
{
	const struct hash_algo *algo = hash_algo_bank(bank);
	struct tv *t = tv_new();
	struct db_boot b;
	struct sm m;

	sm_ref(t, "/usr/bin/ok", "ok");
	ref_algo(t, "/usr/bin/wide", bank, "wide");
	machine(t, &m, "m1");
	boot(&m, bank, 0x5a, NULL);
	append_file(&m, "/usr/bin/ok", "ok");
	append_algo(&m, "/usr/bin/wide", bank, "wide");
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	assert_int_equal(stored_of(t, "m1"), 3);
	assert_pinned(t, "m1", bank);
	boot_of(t, "m1", &b);
	assert_true(algo == hash_algo_bank("sha384") ? b.have_sha384 :
						       b.have_sha512);
	assert_memory_equal(algo == hash_algo_bank("sha384") ? b.pcr10_sha384 :
							       b.pcr10_sha512,
			    m.pcrs.value[10], algo->size);
	/* the next round replays from the stored value */
	append_file(&m, "/usr/bin/ok", "ok");
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "trusted");
	append_algo(&m, "/tmp/evil", bank, "evil");
	assert_string_equal(round_of(t, &m, TV_NOW + 2), "untrusted");
	assert_reason(t, "m1", "/tmp/evil");
	assert_int_equal(stored_of(t, "m1"), 5);
	soft_ak_free(&m.ak);
	tv_free(t);
}

static void test_sha384_trusted(void **state)
{
	(void)state;
	wide_bank_trusted("sha384");
}

static void test_sha512_trusted(void **state)
{
	(void)state;
	wide_bank_trusted("sha512");
}

/*
 * A sha384 quote whose PCR 10 the list does not reach fails the replay;
 * one whose boot_aggregate is of the sha256 bank names the bank.
 */
static void test_sha384_replay_checked(void **state)
{
	struct tv *t = tv_new();
	struct sm m, s;

	(void)state;
	machine(t, &m, "m1");
	boot(&m, "sha384", 0, NULL);
	append_file(&m, "/usr/bin/ok", "ok");
	m.pcrs.value[10][47] ^= 1;
	assert_string_equal(round_of(t, &m, TV_NOW), "failed");
	assert_reason(t, "m1", "\"check\":\"replay\"");
	assert_int_equal(stored_of(t, "m1"), 0);
	machine(t, &s, "s1");
	boot(&s, "sha256", 0, NULL); /* record 0 in sha256 */
	rebank(&s, "sha384");
	assert_string_equal(round_of(t, &s, TV_NOW), "failed");
	assert_reason(t, "s1",
		      "record 0 is a sha256 digest but the quote is of the sha384 bank");
	soft_ak_free(&m.ak);
	soft_ak_free(&s.ak);
	tv_free(t);
}

/*
 * Pinned both ways: a machine of sha384 quotes fails a later boot quoted
 * in sha256, and one of sha256 a boot in sha384, unless bank_change =
 * allow; then the new bank is pinned.
 */
static void test_sha384_bank_pinned(void **state)
{
	struct tv *t = tv_new();
	struct sm w, n;

	(void)state;
	machine(t, &w, "w1");
	boot(&w, "sha384", 0, NULL);
	assert_string_equal(round_of(t, &w, TV_NOW), "trusted");
	assert_pinned(t, "w1", "sha384");
	w.reset++;
	boot(&w, "sha256", 0, NULL);
	assert_string_equal(round_of(t, &w, TV_NOW + 1), "failed");
	assert_reason(t, "w1",
		      "a quote of the sha256 bank; this machine is pinned to sha384");
	machine(t, &n, "n1");
	assert_string_equal(round_of(t, &n, TV_NOW), "trusted");
	assert_pinned(t, "n1", "sha256");
	n.reset++;
	boot(&n, "sha384", 0, NULL);
	assert_string_equal(round_of(t, &n, TV_NOW + 1), "failed");
	assert_reason(t, "n1",
		      "a quote of the sha384 bank; this machine is pinned to sha256");
	snprintf(t->v.cfg.bank_change, sizeof(t->v.cfg.bank_change), "allow");
	n.sent = n.sent_bytes = 0;
	assert_string_equal(round_of(t, &n, TV_NOW + 2), "trusted");
	assert_pinned(t, "n1", "sha384");
	w.sent = w.sent_bytes = 0;
	assert_string_equal(round_of(t, &w, TV_NOW + 2), "trusted");
	assert_pinned(t, "w1", "sha256");
	soft_ak_free(&w.ak);
	soft_ak_free(&n.ak);
	tv_free(t);
}

/*
 * bank_change = allow within one boot: a sha384 quote after sha256 ones
 * whose records are stored cannot be replayed (the boot's records were
 * not hashed in sha384) and fails, naming the next boot; that boot is
 * trusted in sha384. A sha256 quote after sha384 ones is replayed: sha256
 * is carried for every boot.
 */
static void test_wide_bank_from_next_boot(void **state)
{
	struct tv *t = tv_new();
	struct sm m;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	snprintf(t->v.cfg.bank_change, sizeof(t->v.cfg.bank_change), "allow");
	machine(t, &m, "m1");
	assert_string_equal(round_of(t, &m, TV_NOW), "trusted");
	append_file(&m, "/usr/bin/ok", "ok");
	rebank(&m, "sha384");
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "failed");
	assert_reason(t, "m1",
		      "records 0-0 of this boot were not replayed in sha384");
	assert_int_equal(stored_of(t, "m1"), 1);
	m.reset++;
	boot(&m, "sha384", 0, NULL);
	append_file(&m, "/usr/bin/ok", "ok");
	assert_string_equal(round_of(t, &m, TV_NOW + 2), "trusted");
	/* back to sha256 in this boot: replayed from its carried value */
	append_file(&m, "/usr/bin/new", "new");
	rebank(&m, "sha256");
	assert_string_equal(round_of(t, &m, TV_NOW + 3), "untrusted");
	assert_reason(t, "m1", "/usr/bin/new");
	assert_int_equal(stored_of(t, "m1"), 1 + 3);
	assert_pinned(t, "m1", "sha256");
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * The OVMF logs of the fixtures extend PCR 12 (systemd-boot's command
 * line). A quote that selects it is replayed and passes; one that leaves
 * it out is failed naming PCR 12: with the log sent, and with the stored
 * log when the evidence still sends PCR 12's value beside a quote that
 * does not prove it (the boot memo is keyed by the quote's selection).
 * The value of a quoted PCR 12 that the log does not give fails too.
 */
static void test_log_pcrs_must_be_quoted(void **state)
{
	struct tv *t = tv_new();
	struct wire_evidence *ev;
	struct engine_answer ans;
	uint32_t full;
	uint8_t *log;
	size_t len;
	struct sm m;

	(void)state;
	t->v.boot_memo = boot_memo_new();
	assert_non_null(t->v.boot_memo);
	machine(t, &m, "m1");
	log = boot_with_log(&m, "patched-sb", &len);
	full = m.select;
	assert_int_equal(full, 0x7ffu | 1u << 12);
	m.select = 0x7ff;
	ev = sm_evidence(&m, NULL, 0);
	ev->version = 2;
	ev->boot_log = (struct wire_blob){ log, len };
	sm_send_ok(t, &m, ev, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "failed");
	assert_reason(t, "m1",
		      "extends PCR 12, which the quote does not select");
	/* a new boot: quoted, then a heartbeat on the stored log */
	m.reset++;
	free(log);
	log = boot_with_log(&m, "patched-sb", &len);
	ev = sm_evidence(&m, NULL, 0);
	ev->version = 2;
	ev->boot_log = (struct wire_blob){ log, len };
	sm_send_ok(t, &m, ev, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	assert_string_equal(round_of(t, &m, TV_NOW + 2), "trusted");
	m.select = 0x7ff; /* m.pcrs still carries PCR 12, unquoted */
	assert_string_equal(round_of(t, &m, TV_NOW + 3), "failed");
	assert_reason(t, "m1",
		      "extends PCR 12, which the quote does not select");
	free(log);
	soft_ak_free(&m.ak);
	boot_memo_free(t->v.boot_memo);
	t->v.boot_memo = NULL;
	tv_free(t);
}

/* A quoted PCR 12 the stored log does not replay to: failed, named. */
static void test_log_pcr12_replayed(void **state)
{
	struct tv *t = tv_new();
	struct wire_evidence *ev;
	struct engine_answer ans;
	uint8_t *log;
	size_t len;
	struct sm m;

	(void)state;
	machine(t, &m, "m1");
	log = boot_with_log(&m, "patched-sb", &len);
	ev = sm_evidence(&m, NULL, 0);
	ev->version = 2;
	ev->boot_log = (struct wire_blob){ log, len };
	sm_send_ok(t, &m, ev, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	m.pcrs.value[12][0] ^= 1; /* extended past the log */
	assert_string_equal(round_of(t, &m, TV_NOW + 1), "failed");
	assert_reason(t, "m1", "PCR 12 (sha256): log replays to");
	free(log);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- the boot policy ----------------------------------------------------- */

/*
 * "baseline": "first-boot": the log of a machine's first boot is its
 * baseline; a new boot whose log differs (another kernel) is judged
 * against it when its evidence arrives, and is untrusted.
 */
static void test_new_boot_judged_by_boot_policy(void **state)
{
	struct tv *t = tv_new();
	struct wire_evidence *ev;
	struct engine_answer ans;
	uint8_t *first, *second;
	size_t first_len, second_len;
	struct sm m;

	(void)state;
	put_policy(t, "measured",
		   "{\"machines\":[\"*\"],\"sources\":[\"*\"],"
		   "\"boot\":{\"baseline\":\"first-boot\"}}");
	machine(t, &m, "m1");
	first = boot_with_log(&m, "patched-sb", &first_len);
	ev = sm_evidence(&m, NULL, 0);
	ev->version = 2;
	ev->boot_log = (struct wire_blob){ first, first_len };
	sm_send_ok(t, &m, ev, TV_NOW, &ans);
	assert_string_equal(ans.verdict.state, "trusted");
	m.reset++;
	second = boot_with_log(&m, "stock-sb", &second_len);
	ev = sm_evidence(&m, NULL, 0);
	ev->version = 2;
	ev->boot_log = (struct wire_blob){ second, second_len };
	sm_send_ok(t, &m, ev, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "untrusted");
	assert_reason(t, "m1", "\"rule\":\"baseline\"");
	free(first);
	free(second);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/* ---- the machine ----------------------------------------------------------- */

/* A pending machine's evidence is verified, but nothing is stored. */
static void test_pending_stores_nothing(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct imt_error err;
	struct sm m;

	(void)state;
	machine(t, &m, "p");
	pthread_mutex_lock(&t->v.lock);
	assert_int_equal(engine_transition(&t->v, "p", DB_STATE_ENROLLING,
					   TR_ACTIVATED_UNVOUCHED,
					   "{\"check\":\"test\"}", TV_NOW, NULL,
					   &err),
			 1);
	pthread_mutex_unlock(&t->v.lock);
	assert_int_equal(tv_state(t, "p"), DB_STATE_PENDING);
	assert_int_equal(sm_send(t, &m, sm_evidence(&m, NULL, 0), TV_NOW, &ans),
			 ENGINE_PENDING);
	assert_int_equal(ans.verdict.nonce_len, 0);
	assert_int_equal(tv_state(t, "p"), DB_STATE_PENDING);
	assert_int_equal(stored_of(t, "p"), 0);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * A machine whose row holds an AK but was never activated (its TPM never
 * proved it holds the EK): its quotes are refused, nothing is stored.
 */
static void test_not_activated_refused(void **state)
{
	struct tv *t = tv_new();
	struct db_machine_new n = { 0 };
	struct engine_answer ans;
	uint8_t fpr[DB_FPR_SIZE] = { 1 };
	struct imt_error err;
	struct sm m;

	(void)state;
	machine(t, &m, "m1");
	/* a second row with m1's AK, as enrollment left it: not activated */
	n = (struct db_machine_new){
		.id = "m2",
		.ek_pub = m.ak.pub,
		.ek_pub_len = m.ak.pub_len,
		.ek_fpr = fpr,
		.ak_pub = m.ak.pub,
		.ak_pub_len = m.ak.pub_len,
		.ak_name = m.ak.name,
		.ak_name_len = m.ak.name_len,
		.state = DB_STATE_ENROLLING,
	};
	if (db_machine_create(t->v.db, &n, TV_NOW, &err) < 0)
		fail_msg("m2: %s", err.msg);
	engine_nonce(&t->v, "m2", TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_NOT_ACTIVATED);
	snprintf(m.id, sizeof(m.id), "m2");
	engine_evidence(&t->v, sm_evidence(&m, NULL, 0), TV_NOW, &ans);
	assert_int_equal(ans.status, ENGINE_NOT_ACTIVATED);
	assert_int_equal(ans.verdict.nonce_len, 0);
	assert_int_equal(stored_of(t, "m2"), 0);
	assert_int_equal(tv_state(t, "m2"), DB_STATE_ENROLLING);
	soft_ak_free(&m.ak);
	tv_free(t);
}

/*
 * Failed evidence in an untrusted boot does not wash it: the next clean
 * evidence of the same boot finds the earlier unacceptable record and
 * the machine is untrusted, not trusted.
 */
static void test_failed_keeps_untrusted(void **state)
{
	struct tv *t = tv_new();
	struct engine_answer ans;
	struct sm m;

	(void)state;
	sm_ref(t, "/usr/bin/ok", "ok");
	machine(t, &m, "m1");
	append_file(&m, "/tmp/evil", "evil");
	assert_string_equal(round_of(t, &m, TV_NOW), "untrusted");
	/* the TPM-signed quote over a list altered in transit: failed */
	append_file(&m, "/usr/bin/ok", "ok");
	sm_evidence(&m, NULL, 0);
	((uint8_t *)m.ev.records.data)[m.ev.records.len - 2] ^= 1;
	sm_send_ok(t, &m, &m.ev, TV_NOW + 1, &ans);
	assert_string_equal(ans.verdict.state, "failed");
	((uint8_t *)m.ev.records.data)[m.ev.records.len - 2] ^= 1;
	assert_string_equal(round_of(t, &m, TV_NOW + 2), "untrusted");
	assert_reason(t, "m1", "/tmp/evil");
	soft_ak_free(&m.ak);
	tv_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_aggregate_of_another_boot),
		cmocka_unit_test(test_record0_not_boot_aggregate),
		cmocka_unit_test(test_boot_aggregate_other_bank),
		cmocka_unit_test(test_later_boot_aggregate_judged),
		cmocka_unit_test(test_restart_count_backwards),
		cmocka_unit_test(test_restart_from_stored_index),
		cmocka_unit_test(test_replay_mismatch_fails),
		cmocka_unit_test(test_pcr10_must_be_quoted),
		cmocka_unit_test(test_bank_pinned),
		cmocka_unit_test(test_sha384_trusted),
		cmocka_unit_test(test_sha512_trusted),
		cmocka_unit_test(test_sha384_replay_checked),
		cmocka_unit_test(test_sha384_bank_pinned),
		cmocka_unit_test(test_wide_bank_from_next_boot),
		cmocka_unit_test(test_new_boot_judged_by_boot_policy),
		cmocka_unit_test(test_pending_stores_nothing),
		cmocka_unit_test(test_not_activated_refused),
		cmocka_unit_test(test_failed_keeps_untrusted),
		cmocka_unit_test(test_log_pcrs_must_be_quoted),
		cmocka_unit_test(test_log_pcr12_replayed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_machine.c - machines, state changes and their events.
 */
#include "db_boot.h"
#include "db_machine.h"
#include "db_test.h"

#define MAX_EVENTS 16

struct events {
	int n;
	struct {
		char kind[32];
		char from[16];
		char to[16];
		char reason[256];
		int64_t boot_id;
	} ev[MAX_EVENTS];
};

static int events_cb(const struct db_event *ev, void *arg)
{
	struct events *e = arg;

	assert_true(e->n < MAX_EVENTS);
	snprintf(e->ev[e->n].kind, sizeof(e->ev[0].kind), "%s", ev->kind);
	snprintf(e->ev[e->n].from, sizeof(e->ev[0].from), "%s",
		 ev->from_state ? ev->from_state : "-");
	snprintf(e->ev[e->n].to, sizeof(e->ev[0].to), "%s",
		 ev->to_state ? ev->to_state : "-");
	snprintf(e->ev[e->n].reason, sizeof(e->ev[0].reason), "%s",
		 ev->reason ? ev->reason : "-");
	e->ev[e->n].boot_id = ev->boot_id;
	e->n++;
	return 0;
}

static void load_events(struct tdb *t, const char *id, struct events *e)
{
	struct imt_error err;

	memset(e, 0, sizeof(*e));
	if (db_event_list(t->db, id, 0, MAX_EVENTS, events_cb, e, &err) < 0)
		fail_msg("events: %s", err.msg);
}

static void test_create_get(void **state)
{
	static const uint8_t ek[300] = { 1, 2, 3 };
	static const uint8_t cert[1200] = { 0x30, 0x82 };
	static const uint8_t ak[280] = { 9 };
	static const uint8_t name[34] = { 0x00, 0x0b, 7 };
	uint8_t fpr[DB_FPR_SIZE] = { 0xaa, 1 };
	struct db_machine_new n = {
		.id = "host-1.example",
		.ek_pub = ek,
		.ek_pub_len = sizeof(ek),
		.ek_cert = cert,
		.ek_cert_len = sizeof(cert),
		.ek_fpr = fpr,
		.ak_pub = ak,
		.ak_pub_len = sizeof(ak),
		.ak_name = name,
		.ak_name_len = sizeof(name),
		.state = DB_STATE_ENROLLING,
	};
	struct imt_error err;
	struct db_machine m;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), 0);
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_non_null(strstr(err.msg, "exists"));

	assert_int_equal(db_machine_get(t.db, "host-1.example", &m, &found,
					&err),
			 0);
	assert_int_equal(found, 1);
	assert_string_equal(m.id, "host-1.example");
	assert_int_equal(m.ek_pub_len, sizeof(ek));
	assert_memory_equal(m.ek_pub, ek, sizeof(ek));
	assert_int_equal(m.ek_cert_len, sizeof(cert));
	assert_memory_equal(m.ek_cert, cert, sizeof(cert));
	assert_memory_equal(m.ak_pub, ak, sizeof(ak));
	assert_int_equal(m.ak_name_len, sizeof(name));
	assert_memory_equal(m.ak_name, name, sizeof(name));
	assert_int_equal(m.state, DB_STATE_ENROLLING);
	assert_null(m.state_reason);
	assert_int_equal(m.created_at, T_NOW);
	assert_int_equal(m.last_seen, 0);
	assert_int_equal(m.approved, 0);
	assert_int_equal(m.has_ek_fpr, 1);
	assert_memory_equal(m.ek_fpr, fpr, DB_FPR_SIZE);
	db_machine_release(&m);
	db_machine_release(&m); /* idempotent */

	assert_int_equal(db_machine_get(t.db, "nobody", &m, &found, &err), 0);
	assert_int_equal(found, 0);

	/* One EK, one id: the same EK under another id is refused. */
	n.id = "host-2";
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 1);

	/* No EK certificate is fine (pending path). */
	fpr[0] = 0xbb;
	n.ek_cert = NULL;
	n.state = DB_STATE_PENDING;
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), 0);
	assert_int_equal(db_machine_get(t.db, "host-2", &m, &found, &err), 0);
	assert_null(m.ek_cert);
	assert_int_equal(m.state, DB_STATE_PENDING);
	db_machine_release(&m);
	tdb_remove(&t);
}

static void test_create_bad_input(void **state)
{
	static char long_id[DB_MACHINE_ID_MAX + 2];
	static const uint8_t k[4] = { 1 };
	static uint8_t big_name[DB_AK_NAME_MAX + 1];
	static const uint8_t fpr[DB_FPR_SIZE] = { 1 };
	struct db_machine_new n = {
		.id = "x",
		.ek_pub = k,
		.ek_pub_len = 4,
		.ek_fpr = fpr,
		.ak_pub = k,
		.ak_pub_len = 4,
		.ak_name = k,
		.ak_name_len = 4,
		.state = (enum db_machine_state)42,
	};
	struct imt_error err;
	struct tdb t;

	(void)state;
	memset(long_id, 'i', sizeof(long_id) - 1);
	tdb_new(&t);
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	n.state = DB_STATE_ENROLLING;
	n.id = long_id;
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_LIMIT);
	n.id = "";
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	n.id = "x";
	n.ek_fpr = NULL; /* a fingerprint is required */
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	n.ek_fpr = fpr;
	n.ak_name = big_name;
	n.ak_name_len = sizeof(big_name);
	assert_int_equal(db_machine_create(t.db, &n, T_NOW, &err), -1);
	assert_int_equal(db_machine_create(t.db, NULL, T_NOW, &err), -1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines"), 0);
	tdb_remove(&t);
}

static void test_set_state_writes_event(void **state)
{
	static const char why[] = "{\"record\":17,\"path\":\"/tmp/x\"}";
	struct imt_error err;
	struct db_machine m;
	struct events e;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_TRUSTED,
					      NULL, T_NOW + 1, &err),
			 0);
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_UNTRUSTED,
					      why, T_NOW + 2, &err),
			 0);
	load_events(&t, "m1", &e);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.ev[0].kind, "enrolled");
	assert_string_equal(e.ev[0].to, "enrolling");
	assert_string_equal(e.ev[1].kind, "state");
	assert_string_equal(e.ev[1].from, "enrolling");
	assert_string_equal(e.ev[1].to, "trusted");
	assert_string_equal(e.ev[2].from, "trusted");
	assert_string_equal(e.ev[2].to, "untrusted");
	assert_string_equal(e.ev[2].reason, why);
	assert_int_equal(e.ev[2].boot_id, 0); /* no boot yet */

	/* Same state: the reason is updated, no event. */
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_UNTRUSTED,
					      "{\"record\":18}", T_NOW + 3,
					      &err),
			 0);
	load_events(&t, "m1", &e);
	assert_int_equal(e.n, 3);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_string_equal(m.state_reason, "{\"record\":18}");
	db_machine_release(&m);

	/* A reason that is not JSON fails the event insert after the state
	 * update; the transaction takes both back. */
	assert_int_equal(db_machine_set_state(t.db, "m1", DB_STATE_FAILED,
					      "not json", T_NOW + 4, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	assert_int_equal(db_machine_get(t.db, "m1", &m, &found, &err), 0);
	assert_int_equal(m.state, DB_STATE_UNTRUSTED);
	db_machine_release(&m);
	load_events(&t, "m1", &e);
	assert_int_equal(e.n, 3);

	assert_int_equal(db_machine_set_state(t.db, "nobody", DB_STATE_TRUSTED,
					      NULL, T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_machine_set_state(t.db, "m1",
					      (enum db_machine_state) - 1, NULL,
					      T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	tdb_remove(&t);
}

static void test_approve(void **state)
{
	enum db_approve_result r;
	uint8_t fpr[DB_FPR_SIZE], other[DB_FPR_SIZE];
	struct imt_error err;
	struct db_machine m;
	struct events e;
	struct tdb t;
	int found;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "p1", DB_STATE_PENDING);
	test_fpr_of("p1", fpr);
	test_fpr_of("p2", other);
	/* another EK's fingerprint approves nothing, writes nothing */
	assert_int_equal(db_machine_approve(t.db, "p1", other, "alice", T_NOW,
					    &r, &err),
			 0);
	assert_int_equal(r, DB_APPROVE_WRONG_EK);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM audit"), 0);
	assert_int_equal(db_machine_approve(t.db, "p1", fpr, "alice", T_NOW, &r,
					    &err),
			 0);
	assert_int_equal(r, DB_APPROVE_OK);
	assert_int_equal(db_machine_get(t.db, "p1", &m, &found, &err), 0);
	assert_int_equal(m.approved, 1);
	/* the state is the engine's to move (test_engine: approval) */
	assert_int_equal(m.state, DB_STATE_PENDING);
	db_machine_release(&m);
	load_events(&t, "p1", &e);
	assert_int_equal(e.n, 2);
	assert_string_equal(e.ev[1].kind, "approved");
	assert_string_equal(tdb_json(e.ev[1].reason),
			    "{\"operator\":\"alice\"}");
	/* the approval is audited, with the fingerprint */
	assert_int_equal(tdb_int(&t,
				 "SELECT count(*) FROM audit WHERE "
				 "action = 'approve' AND operator = 'alice' "
				 "AND length(ek_fpr) = 32"),
			 1);

	/* Quotes in an operator name end up as JSON, not broken JSON. */
	assert_int_equal(db_machine_approve(t.db, "p1", fpr, "bob\"}", T_NOW,
					    &r, &err),
			 0);
	load_events(&t, "p1", &e);
	assert_string_equal(tdb_json(e.ev[2].reason),
			    "{\"operator\":\"bob\\\"}\"}");

	assert_int_equal(db_machine_approve(t.db, "nobody", fpr, "alice", T_NOW,
					    &r, &err),
			 0);
	assert_int_equal(r, DB_APPROVE_NO_MACHINE);
	/* an older machine without fingerprint cannot be approved */
	tdb_machine(&t, "old", DB_STATE_PENDING);
	tdb_exec(&t, "UPDATE machines SET ek_fpr = NULL WHERE id = 'old'");
	test_fpr_of("old", fpr);
	assert_int_equal(db_machine_approve(t.db, "old", fpr, "alice", T_NOW,
					    &r, &err),
			 0);
	assert_int_equal(r, DB_APPROVE_NO_FPR);
	tdb_remove(&t);
}

struct ids {
	int n;
	int stop_after;
	char id[8][DB_MACHINE_ID_MAX + 1];
};

static int ids_cb(const struct db_machine *m, void *arg)
{
	struct ids *ids = arg;

	assert_true(ids->n < 8);
	strcpy(ids->id[ids->n++], m->id);
	return ids->stop_after != 0 && ids->n >= ids->stop_after;
}

static void test_list(void **state)
{
	struct imt_error err;
	struct ids ids;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "c", DB_STATE_ENROLLING);
	tdb_machine(&t, "a", DB_STATE_ENROLLING);
	tdb_machine(&t, "e", DB_STATE_ENROLLING);
	tdb_machine(&t, "b", DB_STATE_ENROLLING);
	tdb_machine(&t, "d", DB_STATE_ENROLLING);
	memset(&ids, 0, sizeof(ids));
	assert_int_equal(db_machine_list(t.db, NULL, 2, ids_cb, &ids, &err), 0);
	assert_int_equal(ids.n, 2);
	assert_string_equal(ids.id[0], "a");
	assert_string_equal(ids.id[1], "b");
	memset(&ids, 0, sizeof(ids));
	assert_int_equal(db_machine_list(t.db, "b", 8, ids_cb, &ids, &err), 0);
	assert_int_equal(ids.n, 3);
	assert_string_equal(ids.id[0], "c");
	assert_string_equal(ids.id[2], "e");
	memset(&ids, 0, sizeof(ids));
	ids.stop_after = 1;
	assert_int_equal(db_machine_list(t.db, NULL, 8, ids_cb, &ids, &err), 0);
	assert_int_equal(ids.n, 1);
	assert_int_equal(db_machine_list(t.db, NULL, 0, ids_cb, &ids, &err),
			 -1);
	tdb_remove(&t);
}

static void test_list_silent(void **state)
{
	struct imt_error err;
	struct ids ids;
	struct db_boot b;
	struct tdb t;
	uint8_t s1[20] = { 0 }, s256[32] = { 0 };
	struct db_boot_advance a = {
		.pcr10_sha1 = s1,
		.pcr10_sha256 = s256,
	};

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "quiet", DB_STATE_TRUSTED); /* never seen */
	tdb_machine(&t, "recent", DB_STATE_TRUSTED);
	tdb_machine(&t, "old", DB_STATE_UNTRUSTED);
	tdb_machine(&t, "broken", DB_STATE_FAILED);
	tdb_machine(&t, "new", DB_STATE_ENROLLING);
	assert_int_equal(db_boot_start(t.db, "recent", 1, 0, T_NOW, &b, &err),
			 0);
	a.boot_id = b.id;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW + 100, &err), 0);
	assert_int_equal(db_boot_start(t.db, "old", 1, 0, T_NOW, &b, &err), 0);
	a.boot_id = b.id;
	assert_int_equal(db_boot_advance(t.db, &a, T_NOW + 10, &err), 0);
	memset(&ids, 0, sizeof(ids));
	assert_int_equal(db_machine_list_silent(t.db, T_NOW + 50, 8, ids_cb,
						&ids, &err),
			 0);
	/* enrolling counts from its creation; failed never goes stale */
	assert_int_equal(ids.n, 3);
	assert_string_equal(ids.id[0], "new");
	assert_string_equal(ids.id[1], "quiet");
	assert_string_equal(ids.id[2], "old");
	tdb_remove(&t);
}

static void test_event_add(void **state)
{
	struct imt_error err;
	struct events e;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_event_add(t.db, "m1", "violation",
				      "{\"path\":\"/etc/shadow\"}", T_NOW,
				      &err),
			 0);
	assert_int_equal(db_event_add(t.db, "m1", "note", NULL, T_NOW, &err),
			 0);
	load_events(&t, "m1", &e);
	assert_int_equal(e.n, 3);
	assert_string_equal(e.ev[1].kind, "violation");
	assert_string_equal(e.ev[2].reason, "-");
	assert_int_equal(db_event_add(t.db, "ghost", "note", NULL, T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	assert_int_equal(db_event_add(t.db, "m1", "note", "{", T_NOW, &err),
			 -1);
	assert_int_equal(err.status, IMT_ERR_MALFORMED);
	tdb_remove(&t);
}

static void test_state_names(void **state)
{
	enum db_machine_state s;

	(void)state;
	assert_string_equal(db_machine_state_name(DB_STATE_STALE), "stale");
	assert_string_equal(db_machine_state_name((enum db_machine_state)99),
			    "invalid");
	assert_int_equal(db_machine_state_parse("failed", &s), 0);
	assert_int_equal(s, DB_STATE_FAILED);
	assert_int_equal(db_machine_state_parse("nope", &s), -1);
	assert_int_equal(db_machine_state_parse(NULL, &s), -1);
}

/* The names are stored text: each is what the events table always held. */
static void test_event_kind_names(void **state)
{
	static const char *const want[] = { "enrolled", "activated", "state",
					    "approved", "rejected",  "reboot" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(db_event_kind_name((enum db_event_kind)i),
				    want[i]);
	assert_null(db_event_kind_name((enum db_event_kind)i));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_get),
		cmocka_unit_test(test_create_bad_input),
		cmocka_unit_test(test_set_state_writes_event),
		cmocka_unit_test(test_approve),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_list_silent),
		cmocka_unit_test(test_event_add),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_event_kind_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * test_db_webhook.c - webhook endpoints and their outbox: a message per
 * state change in the change's own transaction, its facts (the body is
 * the verifier's: tests/unit/verifier/results/test_webhook_body.c), a
 * body queued before schema 0020 kept, the order per (endpoint,
 * machine), the cap, the figures and retention.
 */
#include <inttypes.h>

#include <jansson.h>

#include "db_attest.h"
#include "db_identity.h"
#include "db_machine.h"
#include "db_retention.h"
#include "db_test.h"
#include "db_webhook.h"

#define MAX_DUE 32

static const uint8_t secret[32] = { 0x5e, 0xc7, 0x12 };

static void add_endpoint(struct tdb *t, const char *name,
			 unsigned int max_pending)
{
	struct db_webhook_new w = {
		.name = name,
		.url = "https://nac.example/hook",
		.secret = secret,
		.secret_len = sizeof(secret),
		.key_id = "k1",
		.max_pending = max_pending,
	};
	struct imt_error err;

	if (db_webhook_add(t->db, &w, T_NOW, &err) < 0)
		fail_msg("db_webhook_add %s: %s", name, err.msg);
}

struct due {
	int n;
	struct {
		int64_t seq;
		char id[80];
		char endpoint[DB_WEBHOOK_NAME_MAX + 1];
		char machine[DB_MACHINE_ID_MAX + 1];
		char body[1024]; /* the stored body, or the facts */
		int stored;	 /* body is a stored one */
		unsigned int attempts;
	} m[MAX_DUE];
};

/* @m's facts as a JSON object, for the tests to read (not the body). */
static void facts_json(const struct db_webhook_message *m, char *buf, size_t n)
{
	json_t *o = json_object();
	char *text;

	json_object_set_new(o, "type", json_string(m->type));
	json_object_set_new(o, "machine", json_string(m->machine_id));
	json_object_set_new(o, "from",
			    m->from_state ? json_string(m->from_state) :
					    json_null());
	json_object_set_new(o, "to",
			    m->to_state ? json_string(m->to_state) :
					  json_null());
	json_object_set_new(o, "reason",
			    m->reason ? json_loads(m->reason, 0, NULL) :
					json_null());
	json_object_set_new(o, "action",
			    m->action ? json_string(m->action) : json_null());
	json_object_set_new(o, "operator",
			    m->op_name ? json_string(m->op_name) : json_null());
	json_object_set_new(o, "at", json_integer(m->at));
	json_object_set_new(o, "event", json_integer(m->event));
	json_object_set_new(o, "audit", json_integer(m->audit));
	text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_non_null(text);
	snprintf(buf, n, "%s", text);
	free(text);
	json_decref(o);
}

static int due_cb(const struct db_webhook_message *m, void *arg)
{
	struct due *d = arg;

	assert_true(d->n < MAX_DUE);
	assert_int_equal(m->secret_len, sizeof(secret));
	assert_memory_equal(m->secret, secret, sizeof(secret));
	d->m[d->n].seq = m->seq;
	snprintf(d->m[d->n].id, sizeof(d->m[0].id), "%s-%" PRId64, m->endpoint,
		 m->seq);
	snprintf(d->m[d->n].endpoint, sizeof(d->m[0].endpoint), "%s",
		 m->endpoint);
	snprintf(d->m[d->n].machine, sizeof(d->m[0].machine), "%s",
		 m->machine_id);
	if (m->body != NULL) /* queued before schema 0020 */
		snprintf(d->m[d->n].body, sizeof(d->m[0].body), "%s", m->body);
	else
		facts_json(m, d->m[d->n].body, sizeof(d->m[0].body));
	d->m[d->n].stored = m->body != NULL;
	d->m[d->n].attempts = m->attempts;
	d->n++;
	return 0;
}

static void load_due(struct tdb *t, int64_t now, struct due *d)
{
	struct imt_error err;

	memset(d, 0, sizeof(*d));
	if (db_webhook_due(t->db, now, MAX_DUE, due_cb, d, &err) < 0)
		fail_msg("due: %s", err.msg);
}

static void set_state(struct tdb *t, const char *id, enum db_machine_state s,
		      const char *reason)
{
	struct imt_error err;

	if (db_machine_set_state(t->db, id, s, reason, T_NOW + 1, &err) < 0)
		fail_msg("set_state %s: %s", id, err.msg);
}

static int64_t outbox_rows(struct tdb *t)
{
	return tdb_int(t, "SELECT count(*) FROM webhook_outbox");
}

static void delivered(struct tdb *t, int64_t seq)
{
	struct imt_error err;

	if (db_webhook_delivered(t->db, seq, T_NOW + 10, &err) < 0)
		fail_msg("delivered: %s", err.msg);
}

/* The facts of a state change: every field the body needs. */
static void test_body(void **state)
{
	struct tdb t;
	struct due d;
	json_t *b;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	set_state(&t, "m1", DB_STATE_UNTRUSTED,
		  "{\"path\":\"/usr/bin/evil\",\"verdict\":\"unknown\"}");
	load_due(&t, T_NOW + 1, &d);
	/* "enrolled" (null -> enrolling) is due; the second waits for it */
	assert_int_equal(d.n, 1);
	delivered(&t, d.m[0].seq);
	load_due(&t, T_NOW + 1, &d);
	assert_int_equal(d.n, 1);
	b = json_loads(d.m[0].body, 0, NULL);
	assert_non_null(b);
	assert_false(d.m[0].stored);
	assert_string_equal(d.m[0].id + 4, "2");
	assert_memory_equal(d.m[0].id, "nac-", 4);
	assert_string_equal(json_string_value(json_object_get(b, "type")),
			    "machine.state");
	assert_string_equal(json_string_value(json_object_get(b, "machine")),
			    "m1");
	assert_string_equal(json_string_value(json_object_get(b, "from")),
			    "enrolling");
	assert_string_equal(json_string_value(json_object_get(b, "to")),
			    "untrusted");
	assert_string_equal(json_string_value(
				    json_object_get(json_object_get(b, "reason"),
						    "path")),
			    "/usr/bin/evil");
	assert_int_equal(json_integer_value(json_object_get(b, "at")),
			 T_NOW + 1);
	assert_int_equal(json_integer_value(json_object_get(b, "event")),
			 tdb_int(&t, "SELECT max(id) FROM events"));
	json_decref(b);
	tdb_remove(&t);
}

/* A new machine's message has "from": null, and no reason. */
static void test_enrolled(void **state)
{
	struct tdb t;
	struct due d;
	json_t *b;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	tdb_machine(&t, "m1", DB_STATE_PENDING);
	load_due(&t, T_NOW, &d);
	assert_int_equal(d.n, 1);
	b = json_loads(d.m[0].body, 0, NULL);
	assert_true(json_is_null(json_object_get(b, "from")));
	assert_string_equal(json_string_value(json_object_get(b, "to")),
			    "pending");
	assert_true(json_is_null(json_object_get(b, "reason")));
	json_decref(b);
	tdb_remove(&t);
}

/* Does the database refuse @sql? */
static int refused(struct tdb *t, const char *sql)
{
	PGresult *res;
	int no;

	if (tdb_pg_uri() == NULL)
		return sqlite3_exec(db_sqlite_handle(t->db), sql, NULL, NULL,
				    NULL) != SQLITE_OK;
	res = PQexec(db_pg_handle(t->db), sql);
	no = PQresultStatus(res) != PGRES_COMMAND_OK;
	PQclear(res);
	return no;
}

/*
 * A message queued before schema 0020 carries its body (the triggers of
 * 0010/0011 wrote it): handed out as stored, byte for byte, the facts
 * empty. A row with neither a body nor a type is refused.
 */
static void test_stored_body(void **state)
{
	static const char body[] =
		"{\"id\":\"nac-7\",\"type\":\"machine.state\","
		"\"machine\":\"m1\",\"from\":null,\"to\":\"enrolling\","
		"\"tnc\":\"no_recommendation\",\"reason\":null,"
		"\"at\":1700000000,\"event\":1}";
	struct tdb t;
	struct due d;
	char sql[512];
	json_t *a, *b;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO webhook_outbox (seq, endpoint_id, event_id, "
		 "machine_id, body, created_at, next_attempt) VALUES (7, "
		 "(SELECT id FROM webhooks), 1, 'm1', '%s', %d, %d)",
		 body, T_NOW, T_NOW);
	tdb_exec(&t, sql);
	load_due(&t, T_NOW, &d);
	assert_int_equal(d.n, 1);
	assert_true(d.m[0].stored);
	assert_string_equal(d.m[0].id, "nac-7");
	if (tdb_pg_uri() == NULL) {
		assert_string_equal(d.m[0].body, body);
	} else { /* jsonb: its key order and spacing, as sent before 0020 */
		a = json_loads(d.m[0].body, 0, NULL);
		b = json_loads(body, 0, NULL);
		assert_true(json_equal(a, b));
		json_decref(a);
		json_decref(b);
	}
	assert_true(refused(&t, "INSERT INTO webhook_outbox (endpoint_id, "
				"event_id, machine_id, created_at, "
				"next_attempt) VALUES ((SELECT id FROM "
				"webhooks), 2, 'm1', 1, 1)"));
	tdb_remove(&t);
}

/* Only state changes queue; an unchanged state and other events do not. */
static void test_only_state_changes(void **state)
{
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(outbox_rows(&t), 0); /* no endpoint yet */
	add_endpoint(&t, "nac", 100);
	set_state(&t, "m1", DB_STATE_ENROLLING, NULL);
	assert_int_equal(db_event_add(t.db, "m1", "reboot", NULL, T_NOW, &err),
			 0);
	assert_int_equal(db_machine_transition(t.db, "m1", "enrolling",
					       "enrolling", NULL, "failure",
					       T_NOW, &err),
			 0);
	assert_int_equal(outbox_rows(&t), 0);
	assert_int_equal(db_machine_transition(t.db, "m1", "enrolling",
					       "trusted", NULL, "state", T_NOW,
					       &err),
			 0);
	assert_int_equal(outbox_rows(&t), 1);
	tdb_remove(&t);
}

/* A change rolled back takes its messages with it; one committed keeps. */
static void test_rollback_leaves_nothing(void **state)
{
	struct imt_error err;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	add_endpoint(&t, "pager", 100);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(outbox_rows(&t), 2); /* one per endpoint */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	set_state(&t, "m1", DB_STATE_TRUSTED, NULL);
	assert_int_equal(outbox_rows(&t), 4); /* inside the batch */
	db_batch_abort(t.db);
	assert_int_equal(outbox_rows(&t), 2);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM events "
				     "WHERE to_state = 'trusted'"),
			 0);
	/* the transition's own failure (no machine) rolls back too */
	assert_int_equal(db_machine_transition(t.db, "nobody", "trusted",
					       "untrusted", NULL, "state",
					       T_NOW, &err),
			 -1);
	assert_int_equal(outbox_rows(&t), 2);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	set_state(&t, "m1", DB_STATE_TRUSTED, NULL);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(outbox_rows(&t), 4);
	tdb_remove(&t);
}

/*
 * One machine's messages go one at a time and in order, retried in
 * place; another machine's do not wait for them.
 */
static void test_order_per_machine(void **state)
{
	struct imt_error err;
	struct tdb t;
	struct due d;
	int64_t first;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	tdb_machine(&t, "a", DB_STATE_ENROLLING);
	set_state(&t, "a", DB_STATE_TRUSTED, NULL);
	set_state(&t, "a", DB_STATE_UNTRUSTED, NULL);
	tdb_machine(&t, "b", DB_STATE_ENROLLING);
	load_due(&t, T_NOW + 1, &d);
	assert_int_equal(d.n, 2); /* a's first, b's first */
	assert_string_equal(d.m[0].machine, "a");
	assert_string_equal(d.m[1].machine, "b");
	first = d.m[0].seq;
	/* a's head fails: it is retried later, a's next still waits */
	assert_int_equal(db_webhook_failed(t.db, first, T_NOW + 60, "503",
					   &err),
			 0);
	load_due(&t, T_NOW + 1, &d);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.m[0].machine, "b");
	delivered(&t, d.m[0].seq);
	load_due(&t, T_NOW + 1, &d);
	assert_int_equal(d.n, 0);
	load_due(&t, T_NOW + 60, &d);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.m[0].seq, first);
	assert_int_equal(d.m[0].attempts, 1);
	delivered(&t, first);
	/* then a's second, then its third, in seq order */
	load_due(&t, T_NOW + 60, &d);
	assert_int_equal(d.n, 1);
	assert_true(d.m[0].seq > first);
	assert_true(strstr(tdb_json(d.m[0].body), "\"to\":\"trusted\"") !=
		    NULL);
	first = d.m[0].seq;
	delivered(&t, first);
	delivered(&t, first); /* twice: counted once */
	load_due(&t, T_NOW + 60, &d);
	assert_int_equal(d.n, 1);
	assert_true(strstr(tdb_json(d.m[0].body), "\"to\":\"untrusted\"") !=
		    NULL);
	assert_int_equal(tdb_int(&t, "SELECT delivered FROM webhooks"), 3);
	assert_int_equal(tdb_int(&t, "SELECT failed FROM webhooks"), 1);
	tdb_remove(&t);
}

struct listed {
	int n;
	uint64_t pending, dropped, delivered;
	int64_t oldest;
	char last_error[64];
};

static int list_cb(const struct db_webhook *w, void *arg)
{
	struct listed *l = arg;

	l->n++;
	l->pending = w->pending;
	l->dropped = w->dropped;
	l->delivered = w->delivered;
	l->oldest = w->oldest_pending;
	snprintf(l->last_error, sizeof(l->last_error), "%s",
		 w->last_error ? w->last_error : "-");
	return 0;
}

static void load_list(struct tdb *t, struct listed *l)
{
	struct imt_error err;

	memset(l, 0, sizeof(*l));
	if (db_webhook_list(t->db, list_cb, l, &err) < 0)
		fail_msg("list: %s", err.msg);
}

/* At max_pending the oldest undelivered go, counted; the newest stay. */
static void test_bounded(void **state)
{
	struct tdb t;
	struct due d;
	struct listed l;
	int i;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 3);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING); /* 1 */
	for (i = 0; i < 4; i++)			   /* 2..5 */
		set_state(&t, "m1",
			  i % 2 ? DB_STATE_TRUSTED : DB_STATE_UNTRUSTED, NULL);
	load_list(&t, &l);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.pending, 3);
	assert_int_equal(l.dropped, 2);
	assert_int_equal(l.oldest, T_NOW + 1);
	/* the head is now the third change: untrusted -> trusted */
	load_due(&t, T_NOW + 1, &d);
	assert_int_equal(d.n, 1);
	assert_true(strstr(tdb_json(d.m[0].body), "\"from\":\"untrusted\"") !=
		    NULL);
	assert_true(strstr(tdb_json(d.m[0].body), "\"to\":\"trusted\"") !=
		    NULL);
	assert_string_equal(d.m[0].id + 4, "3");
	delivered(&t, d.m[0].seq);
	/* delivered messages do not count against the cap */
	set_state(&t, "m1", DB_STATE_UNTRUSTED, NULL);
	load_list(&t, &l);
	assert_int_equal(l.pending, 3);
	assert_int_equal(l.dropped, 2);
	assert_int_equal(l.delivered, 1);
	tdb_remove(&t);
}

/* Delivered messages go after webhook_keep; undelivered ones stay. */
static void test_retention(void **state)
{
	struct db_retention r = { .keep_boots = 1,
				  .max_rows = 100,
				  .webhook_keep = 60 };
	struct imt_error err;
	struct tdb t;
	struct due d;
	size_t deleted;
	int more;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	tdb_machine(&t, "a", DB_STATE_ENROLLING);
	tdb_machine(&t, "b", DB_STATE_ENROLLING);
	load_due(&t, T_NOW, &d);
	assert_int_equal(d.n, 2);
	delivered(&t, d.m[0].seq); /* at T_NOW + 10 */
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 69, &deleted, &more,
					  &err),
			 0);
	assert_int_equal(outbox_rows(&t), 2);
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 70, &deleted, &more,
					  &err),
			 0);
	assert_int_equal(outbox_rows(&t), 1);
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 100000, &deleted,
					  &more, &err),
			 0);
	assert_int_equal(outbox_rows(&t), 1);
	tdb_remove(&t);
}

/* The body of the oldest undelivered message of machine @id. */
static json_t *head_of(struct tdb *t, const char *id)
{
	struct due d;
	int i;

	load_due(t, T_NOW + 1000, &d);
	for (i = 0; i < d.n; i++)
		if (strcmp(d.m[i].machine, id) == 0)
			return json_loads(d.m[i].body, 0, NULL);
	return NULL;
}

static void deliver_all_of(struct tdb *t, const char *id)
{
	json_t *b;
	struct due d;
	int i, again = 1;

	while (again) {
		again = 0;
		load_due(t, T_NOW + 1000, &d);
		for (i = 0; i < d.n; i++)
			if (strcmp(d.m[i].machine, id) == 0) {
				delivered(t, d.m[i].seq);
				again = 1;
			}
	}
	b = head_of(t, id);
	assert_null(b);
}

/*
 * A removed machine and an expired pending one send "machine.removed"
 * after their earlier changes, in the removal's transaction; removing a
 * pre-registration nobody enrolled with sends nothing.
 */
static void test_removed(void **state)
{
	struct db_retention r = { .keep_boots = 1,
				  .max_rows = 100,
				  .pending_expire = 60 };
	uint8_t fpr[DB_FPR_SIZE] = { 0x77 };
	enum db_register_result reg;
	struct db_removal rm;
	struct imt_error err;
	struct tdb t;
	size_t deleted;
	int more;
	json_t *b;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	set_state(&t, "m1", DB_STATE_TRUSTED, NULL);
	deliver_all_of(&t, "m1");
	assert_int_equal(db_machine_remove(t.db, "m1", "ops", T_NOW + 5, &rm,
					   &err),
			 0);
	b = head_of(&t, "m1");
	assert_non_null(b);
	assert_string_equal(json_string_value(json_object_get(b, "type")),
			    "machine.removed");
	assert_string_equal(json_string_value(json_object_get(b, "from")),
			    "trusted");
	assert_true(json_is_null(json_object_get(b, "to")));
	assert_string_equal(json_string_value(json_object_get(b, "action")),
			    "remove");
	assert_string_equal(json_string_value(json_object_get(b, "operator")),
			    "ops");
	assert_int_equal(json_integer_value(json_object_get(b, "event")), 0);
	assert_int_equal(json_integer_value(json_object_get(b, "at")),
			 T_NOW + 5);
	assert_int_equal(json_integer_value(json_object_get(b, "audit")),
			 tdb_int(&t, "SELECT max(id) FROM audit"));
	json_decref(b);

	/* a rolled back removal queues nothing */
	tdb_machine(&t, "m2", DB_STATE_ENROLLING);
	deliver_all_of(&t, "m2");
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	assert_int_equal(db_machine_remove(t.db, "m2", "ops", T_NOW, &rm, &err),
			 0);
	db_batch_abort(t.db);
	assert_null(head_of(&t, "m2"));

	/* a pre-registration alone: no receiver ever heard of it */
	assert_int_equal(db_registration_add(t.db, "m3", fpr, "ops", T_NOW,
					     &reg, &err),
			 0);
	assert_int_equal(db_machine_remove(t.db, "m3", "ops", T_NOW, &rm, &err),
			 0);
	assert_int_equal(rm.registration, 1);
	assert_null(head_of(&t, "m3"));

	/* a pending machine nobody approved expires */
	tdb_machine(&t, "p1", DB_STATE_PENDING);
	deliver_all_of(&t, "p1");
	assert_int_equal(db_retention_run(t.db, &r, T_NOW + 61, &deleted, &more,
					  &err),
			 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM machines "
				     "WHERE id = 'p1'"),
			 0);
	b = head_of(&t, "p1");
	assert_non_null(b);
	assert_string_equal(json_string_value(json_object_get(b, "type")),
			    "machine.removed");
	assert_string_equal(json_string_value(json_object_get(b, "from")),
			    "pending");
	assert_string_equal(json_string_value(json_object_get(b, "action")),
			    "pending-expired");
	assert_true(json_is_null(json_object_get(b, "operator")));
	json_decref(b);
	tdb_remove(&t);
}

static void count_kick(void *arg)
{
	(*(int *)arg)++;
}

/*
 * The delivery thread is told of a commit that queued messages, once per
 * commit, whichever trigger queued them; not of one rolled back, nor of
 * one that queued nothing.
 */
static void test_on_queued(void **state)
{
	struct db_removal rm;
	struct imt_error err;
	struct tdb t;
	int kicks = 0;

	(void)state;
	tdb_new(&t);
	db_webhook_on_queued(t.db, count_kick, &kicks);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(kicks, 0); /* no endpoint: nothing queued */
	add_endpoint(&t, "nac", 100);
	add_endpoint(&t, "pager", 100);
	assert_int_equal(kicks, 0);
	set_state(&t, "m1", DB_STATE_TRUSTED, NULL);
	assert_int_equal(kicks, 1); /* two rows, one commit */
	assert_int_equal(db_event_add(t.db, "m1", "reboot", NULL, T_NOW, &err),
			 0);
	assert_int_equal(kicks, 1); /* not a state change */
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	set_state(&t, "m1", DB_STATE_UNTRUSTED, NULL);
	db_batch_abort(t.db);
	assert_int_equal(kicks, 1);
	assert_int_equal(db_batch_begin(t.db, &err), 0);
	set_state(&t, "m1", DB_STATE_UNTRUSTED, NULL);
	set_state(&t, "m1", DB_STATE_TRUSTED, NULL);
	assert_int_equal(db_batch_commit(t.db, &err), 0);
	assert_int_equal(kicks, 2); /* one batch, one commit */
	assert_int_equal(db_machine_remove(t.db, "m1", "ops", T_NOW, &rm, &err),
			 0);
	assert_int_equal(kicks, 3); /* the audit trigger's */
	db_webhook_on_queued(t.db, NULL, NULL);
	tdb_machine(&t, "m2", DB_STATE_ENROLLING);
	assert_int_equal(kicks, 3);
	tdb_remove(&t);
}

/* Endpoints: names unique, put keeps the queue, delete takes it. */
static void test_endpoints(void **state)
{
	struct db_webhook_new w = {
		.name = "nac",
		.url = "https://other.example/",
		.secret = secret,
		.secret_len = sizeof(secret),
		.key_id = "k2",
		.max_pending = 10,
		.from_config = 1,
	};
	struct imt_error err;
	struct listed l;
	struct tdb t;
	int created = -1, found = -1;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	assert_int_equal(db_webhook_add(t.db, &w, T_NOW, &err), -1);
	assert_int_equal(err.status, IMT_ERR_MISMATCH);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	assert_int_equal(db_webhook_put(t.db, &w, T_NOW, &created, &err), 0);
	assert_int_equal(created, 0);
	load_list(&t, &l);
	assert_int_equal(l.pending, 1);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM webhooks WHERE "
				     "url = 'https://other.example/' AND "
				     "from_config = 1 AND max_pending = 10"),
			 1);
	w.secret_len = DB_WEBHOOK_SECRET_MIN - 1;
	assert_int_equal(db_webhook_put(t.db, &w, T_NOW, &created, &err), -1);
	assert_int_equal(db_webhook_delete(t.db, "nac", &found, &err), 0);
	assert_int_equal(found, 1);
	assert_int_equal(outbox_rows(&t), 0);
	assert_int_equal(db_webhook_delete(t.db, "nac", &found, &err), 0);
	assert_int_equal(found, 0);
	tdb_remove(&t);
}

/* What db_webhook_due() hands over of a rotation. */
struct rotated {
	int n;
	char key_id[DB_WEBHOOK_KEY_ID_MAX + 1];
	char previous_id[DB_WEBHOOK_KEY_ID_MAX + 1]; /* "-": none */
	uint8_t secret0;			     /* the current's first */
	uint8_t previous[DB_WEBHOOK_SECRET_MAX];
	size_t previous_len;
};

static int rotated_cb(const struct db_webhook_message *m, void *arg)
{
	struct rotated *r = arg;

	r->n++;
	snprintf(r->key_id, sizeof(r->key_id), "%s", m->key_id);
	snprintf(r->previous_id, sizeof(r->previous_id), "%s",
		 m->key_id_previous != NULL ? m->key_id_previous : "-");
	r->secret0 = m->secret[0];
	r->previous_len = m->secret_previous != NULL ? m->secret_previous_len :
						       0;
	assert_true(r->previous_len <= sizeof(r->previous));
	if (r->previous_len > 0)
		memcpy(r->previous, m->secret_previous, r->previous_len);
	return 0;
}

static void load_rotated(struct tdb *t, struct rotated *r)
{
	struct imt_error err;

	memset(r, 0, sizeof(*r));
	if (db_webhook_due(t->db, T_NOW + 100, MAX_DUE, rotated_cb, r, &err) <
	    0)
		fail_msg("due: %s", err.msg);
}

/* A rotation: both secrets handed over until it is finished. */
static void test_rotation(void **state)
{
	static const uint8_t fresh[32] = { 0xf2, 0x01 };
	struct db_webhook_new w = {
		.name = "cfg",
		.url = "https://cfg.example/",
		.secret = secret,
		.secret_len = sizeof(secret),
		.key_id = "kc",
		.secret_previous = fresh,
		.secret_previous_len = sizeof(fresh),
		.key_id_previous = "kp",
		.max_pending = 10,
		.from_config = 1,
	};
	enum db_webhook_rotation o;
	struct imt_error err;
	struct rotated r;
	struct tdb t;

	(void)state;
	tdb_new(&t);
	add_endpoint(&t, "nac", 100);
	tdb_machine(&t, "m1", DB_STATE_ENROLLING);
	load_rotated(&t, &r);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.previous_id, "-");
	assert_int_equal(r.previous_len, 0);

	assert_int_equal(db_webhook_rotate(t.db, "nac", fresh, sizeof(fresh),
					   "k2", &o, &err),
			 0);
	assert_int_equal(o, DB_WEBHOOK_ROTATED);
	load_rotated(&t, &r);
	assert_string_equal(r.key_id, "k2");
	assert_int_equal(r.secret0, 0xf2);
	assert_string_equal(r.previous_id, "k1");
	assert_int_equal(r.previous_len, sizeof(secret));
	assert_memory_equal(r.previous, secret, sizeof(secret));
	/* one at a time; an unknown endpoint */
	assert_int_equal(db_webhook_rotate(t.db, "nac", secret, sizeof(secret),
					   "k3", &o, &err),
			 0);
	assert_int_equal(o, DB_WEBHOOK_UNDER_WAY);
	assert_int_equal(db_webhook_rotate(t.db, "none", secret, sizeof(secret),
					   "k3", &o, &err),
			 0);
	assert_int_equal(o, DB_WEBHOOK_NO_ENDPOINT);
	assert_int_equal(tdb_int(&t,
				 "SELECT count(*) FROM webhooks WHERE "
				 "key_id = 'k2' AND key_id_previous = 'k1'"),
			 1);

	assert_int_equal(db_webhook_rotate_finish(t.db, "nac", &o, &err), 0);
	assert_int_equal(o, DB_WEBHOOK_ROTATED);
	load_rotated(&t, &r);
	assert_string_equal(r.key_id, "k2");
	assert_string_equal(r.previous_id, "-");
	assert_int_equal(r.previous_len, 0);
	assert_int_equal(db_webhook_rotate_finish(t.db, "nac", &o, &err), 0);
	assert_int_equal(o, DB_WEBHOOK_NOT_UNDER_WAY);

	/* the config file's: its previous secret from there, not rotated here */
	assert_int_equal(db_webhook_put(t.db, &w, T_NOW, NULL, &err), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM webhooks WHERE "
				     "name = 'cfg' AND key_id_previous = 'kp' "
				     "AND secret_previous IS NOT NULL"),
			 1);
	assert_int_equal(db_webhook_rotate(t.db, "cfg", fresh, sizeof(fresh),
					   "k4", &o, &err),
			 0);
	assert_int_equal(o, DB_WEBHOOK_FROM_CONFIG);
	assert_int_equal(db_webhook_rotate_finish(t.db, "cfg", &o, &err), 0);
	assert_int_equal(o, DB_WEBHOOK_FROM_CONFIG);
	w.secret_previous = NULL;
	w.key_id_previous = NULL;
	assert_int_equal(db_webhook_put(t.db, &w, T_NOW, NULL, &err), 0);
	assert_int_equal(tdb_int(&t, "SELECT count(*) FROM webhooks WHERE "
				     "name = 'cfg' AND key_id_previous IS NULL "
				     "AND secret_previous IS NULL"),
			 1);
	w.secret_previous = fresh;
	w.secret_previous_len = DB_WEBHOOK_SECRET_MIN - 1;
	w.key_id_previous = "kp";
	assert_int_equal(db_webhook_put(t.db, &w, T_NOW, NULL, &err), -1);
	tdb_remove(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_body),
		cmocka_unit_test(test_enrolled),
		cmocka_unit_test(test_stored_body),
		cmocka_unit_test(test_only_state_changes),
		cmocka_unit_test(test_rollback_leaves_nothing),
		cmocka_unit_test(test_order_per_machine),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_rotation),
		cmocka_unit_test(test_removed),
		cmocka_unit_test(test_on_queued),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_webhook.c - webhook endpoints and their outbox (0010_webhooks.sql).
 *
 * Messages are queued by the schema's triggers (events, audit), never
 * here, as the facts of each change (schema 0020): this file stores
 * endpoints, hands the delivery thread what is due (which writes the
 * bodies), notes what became of each attempt and tells it when a commit
 * queued more.
 */
#include <string.h>

#include "db_internal.h"
#include "db_machine.h"
#include "db_webhook.h"

/* The backend notes the outbox rows a transaction queued: db_sql.h. */
void db_webhook_on_queued(struct db *db, void (*fn)(void *arg), void *arg)
{
	db->queued_fn = fn;
	db->queued_arg = arg;
	db->queued = 0;
	db_conn_watch_outbox(db, fn != NULL);
}

static const char sql_insert[] =
	"INSERT INTO webhooks (name, url, ca_file, allow_http, key_id, "
	"secret, from_config, created_at, max_pending, key_id_previous, "
	"secret_previous) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
/* The config file's endpoints: replaced in place, queue and figures kept */
static const char sql_upsert[] =
	"INSERT INTO webhooks (name, url, ca_file, allow_http, key_id, "
	"secret, from_config, created_at, max_pending, key_id_previous, "
	"secret_previous) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) "
	"ON CONFLICT (name) DO UPDATE SET url = excluded.url, "
	"ca_file = excluded.ca_file, allow_http = excluded.allow_http, "
	"key_id = excluded.key_id, secret = excluded.secret, "
	"key_id_previous = excluded.key_id_previous, "
	"secret_previous = excluded.secret_previous, "
	"from_config = excluded.from_config, "
	"max_pending = excluded.max_pending, enabled = 1";
static const char sql_exists[] = "SELECT 1 FROM webhooks WHERE name = ?1";
/* A rotation: the current secret becomes the previous one. */
static const char sql_rotation_state[] =
	"SELECT from_config, CASE WHEN secret_previous IS NULL THEN 0 "
	"ELSE 1 END FROM webhooks WHERE name = ?1";
static const char sql_rotate[] =
	"UPDATE webhooks SET secret_previous = secret, "
	"key_id_previous = key_id, secret = ?2, key_id = ?3 WHERE name = ?1";
static const char sql_rotate_finish[] =
	"UPDATE webhooks SET secret_previous = NULL, key_id_previous = NULL "
	"WHERE name = ?1";
static const char sql_delete[] = "DELETE FROM webhooks WHERE name = ?1";
static const char sql_cap[] = "UPDATE webhooks SET max_pending = ?1";
static const char sql_list[] =
	"SELECT w.name, w.url, w.ca_file, w.key_id, w.allow_http, "
	"w.from_config, w.enabled, w.created_at, w.max_pending, w.delivered, "
	"w.failed, w.dropped, (SELECT count(*) FROM webhook_outbox o "
	"WHERE o.endpoint_id = w.id AND o.delivered_at IS NULL), "
	"(SELECT min(created_at) FROM webhook_outbox o "
	"WHERE o.endpoint_id = w.id AND o.delivered_at IS NULL), "
	"(SELECT last_error FROM webhook_outbox o WHERE o.endpoint_id = w.id "
	"AND o.last_error IS NOT NULL ORDER BY o.seq DESC LIMIT 1), "
	"w.key_id_previous FROM webhooks w ORDER BY w.name";
/* The head of each (endpoint, machine) queue, if it is due. */
static const char sql_due[] =
	"SELECT o.seq, w.name, w.url, w.ca_file, w.allow_http, w.key_id, "
	"w.secret, o.machine_id, o.body, o.attempts, o.type, o.from_state, "
	"o.to_state, o.reason, o.action, o.operator, o.created_at, "
	"o.event_id, w.key_id_previous, w.secret_previous "
	"FROM (SELECT min(seq) AS seq FROM webhook_outbox "
	"WHERE delivered_at IS NULL GROUP BY endpoint_id, machine_id) h "
	"JOIN webhook_outbox o ON o.seq = h.seq "
	"JOIN webhooks w ON w.id = o.endpoint_id "
	"WHERE o.next_attempt <= ?1 AND w.enabled = 1 "
	"ORDER BY o.next_attempt, o.seq LIMIT ?2";
static const char sql_delivered[] =
	"UPDATE webhook_outbox SET delivered_at = ?2, last_error = NULL "
	"WHERE seq = ?1 AND delivered_at IS NULL";
static const char sql_count_delivered[] =
	"UPDATE webhooks SET delivered = delivered + 1 WHERE id = "
	"(SELECT endpoint_id FROM webhook_outbox WHERE seq = ?1)";
static const char sql_failed[] =
	"UPDATE webhook_outbox SET attempts = attempts + 1, "
	"next_attempt = ?2, last_error = substr(?3, 1, ?4) "
	"WHERE seq = ?1 AND delivered_at IS NULL";
static const char sql_count_failed[] =
	"UPDATE webhooks SET failed = failed + 1 WHERE id = "
	"(SELECT endpoint_id FROM webhook_outbox WHERE seq = ?1)";

static int check_new(const struct db_webhook_new *w, struct imt_error *err)
{
	if (w == NULL)
		return db_bad(err, "webhook missing");
	if (db_check_str(w->name, DB_WEBHOOK_NAME_MAX, "webhook name", err) <
		    0 ||
	    db_check_str(w->url, DB_WEBHOOK_URL_MAX, "webhook url", err) < 0 ||
	    db_check_str(w->key_id, DB_WEBHOOK_KEY_ID_MAX, "webhook key id",
			 err) < 0 ||
	    db_check_blob(w->secret, w->secret_len, DB_WEBHOOK_SECRET_MIN,
			  DB_WEBHOOK_SECRET_MAX, "webhook secret", err) < 0)
		return -1;
	if ((w->secret_previous != NULL) != (w->key_id_previous != NULL))
		return db_bad(err, "webhook previous secret without key id");
	if (w->secret_previous != NULL &&
	    (db_check_str(w->key_id_previous, DB_WEBHOOK_KEY_ID_MAX,
			  "webhook previous key id", err) < 0 ||
	     db_check_blob(w->secret_previous, w->secret_previous_len,
			   DB_WEBHOOK_SECRET_MIN, DB_WEBHOOK_SECRET_MAX,
			   "webhook previous secret", err) < 0))
		return -1;
	if (w->ca_file != NULL &&
	    db_check_str(w->ca_file, DB_PATH_MAX, "webhook ca", err) < 0)
		return -1;
	if (w->max_pending < 1)
		return db_bad(err, "webhook max_pending must be at least 1");
	return 0;
}

/* Bind @w to the insert or upsert @st and run it. */
static int store(struct db *db, const char *sql, const struct db_webhook_new *w,
		 int64_t now, struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql, err);

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, w->name);
	db_bind_text(st, 2, w->url);
	if (w->ca_file != NULL)
		db_bind_text(st, 3, w->ca_file);
	db_bind_int(st, 4, w->allow_http ? 1 : 0);
	db_bind_text(st, 5, w->key_id);
	db_bind_blob(st, 6, w->secret, w->secret_len);
	db_bind_int(st, 7, w->from_config ? 1 : 0);
	db_bind_int64(st, 8, now);
	db_bind_int64(st, 9, w->max_pending);
	if (w->secret_previous != NULL) {
		db_bind_text(st, 10, w->key_id_previous);
		db_bind_blob(st, 11, w->secret_previous,
			     w->secret_previous_len);
	}
	if (db_step_done(db, st, err, "webhook") < 0) {
		if (err != NULL && err->status == IMT_ERR_MISMATCH)
			db_err(err, IMT_ERR_MISMATCH, "webhook %s exists",
			       w->name);
		return -1;
	}
	return 0;
}

int db_webhook_add(struct db *db, const struct db_webhook_new *w, int64_t now,
		   struct imt_error *err)
{
	if (db == NULL)
		return db_bad(err, "no database");
	if (check_new(w, err) < 0 || db_begin(db, err) < 0)
		return -1;
	if (store(db, sql_insert, w, now, err) < 0) {
		db_rollback(db);
		return -1;
	}
	return db_commit(db, err);
}

int db_webhook_put(struct db *db, const struct db_webhook_new *w, int64_t now,
		   int *created, struct imt_error *err)
{
	int had;

	if (db == NULL)
		return db_bad(err, "no database");
	if (check_new(w, err) < 0 || db_begin(db, err) < 0)
		return -1;
	had = db_text_exists(db, sql_exists, w->name, "webhook", err);
	if (had < 0 || store(db, sql_upsert, w, now, err) < 0) {
		db_rollback(db);
		return -1;
	}
	if (created != NULL)
		*created = !had;
	return db_commit(db, err);
}

/*
 * Why @name cannot have @finish (0: begin, 1: finish) done to it, into
 * @outcome; DB_WEBHOOK_ROTATED when it can. In the caller's transaction.
 */
static int rotation_state(struct db *db, const char *name, int finish,
			  enum db_webhook_rotation *outcome,
			  struct imt_error *err)
{
	struct db_stmt *st = db_stmt(db, sql_rotation_state, err);
	int step, under_way;

	if (st == NULL)
		return -1;
	db_bind_text(st, 1, name);
	step = db_step(st);
	if (step == DB_ROW) {
		under_way = db_col_int(st, 1);
		if (db_col_int(st, 0))
			*outcome = DB_WEBHOOK_FROM_CONFIG;
		else if (!finish && under_way)
			*outcome = DB_WEBHOOK_UNDER_WAY;
		else if (finish && !under_way)
			*outcome = DB_WEBHOOK_NOT_UNDER_WAY;
		else
			*outcome = DB_WEBHOOK_ROTATED;
	} else {
		*outcome = DB_WEBHOOK_NO_ENDPOINT;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "webhook rotation");
	return 0;
}

/* Begin (@secret set) or finish (NULL) a rotation of @name. */
static int rotation(struct db *db, const char *name, const uint8_t *secret,
		    size_t secret_len, const char *key_id,
		    enum db_webhook_rotation *outcome, struct imt_error *err)
{
	struct db_stmt *st;

	if (db_begin(db, err) < 0)
		return -1;
	if (rotation_state(db, name, secret == NULL, outcome, err) < 0)
		goto fail;
	if (*outcome != DB_WEBHOOK_ROTATED)
		return db_commit(db, err);
	st = db_stmt(db, secret != NULL ? sql_rotate : sql_rotate_finish, err);
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, name);
	if (secret != NULL) {
		db_bind_blob(st, 2, secret, secret_len);
		db_bind_text(st, 3, key_id);
	}
	if (db_step_done(db, st, err, "webhook rotation") < 0)
		goto fail;
	return db_commit(db, err);
fail:
	db_rollback(db);
	return -1;
}

int db_webhook_rotate(struct db *db, const char *name, const uint8_t *secret,
		      size_t secret_len, const char *key_id,
		      enum db_webhook_rotation *outcome, struct imt_error *err)
{
	if (db == NULL || outcome == NULL || secret == NULL)
		return db_bad(err, "no database, secret or result");
	if (db_check_str(name, DB_WEBHOOK_NAME_MAX, "webhook name", err) < 0 ||
	    db_check_str(key_id, DB_WEBHOOK_KEY_ID_MAX, "webhook key id", err) <
		    0 ||
	    db_check_blob(secret, secret_len, DB_WEBHOOK_SECRET_MIN,
			  DB_WEBHOOK_SECRET_MAX, "webhook secret", err) < 0)
		return -1;
	return rotation(db, name, secret, secret_len, key_id, outcome, err);
}

int db_webhook_rotate_finish(struct db *db, const char *name,
			     enum db_webhook_rotation *outcome,
			     struct imt_error *err)
{
	if (db == NULL || outcome == NULL)
		return db_bad(err, "no database or result");
	if (db_check_str(name, DB_WEBHOOK_NAME_MAX, "webhook name", err) < 0)
		return -1;
	return rotation(db, name, NULL, 0, NULL, outcome, err);
}

int db_webhook_delete(struct db *db, const char *name, int *found,
		      struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || found == NULL)
		return db_bad(err, "no database or result");
	*found = 0;
	if (db_check_str(name, DB_WEBHOOK_NAME_MAX, "webhook name", err) < 0 ||
	    db_begin(db, err) < 0)
		return -1;
	st = db_stmt(db, sql_delete, err);
	if (st == NULL)
		goto fail;
	db_bind_text(st, 1, name);
	if (db_step_done(db, st, err, "delete webhook") < 0)
		goto fail;
	*found = db_changes(db) > 0;
	return db_commit(db, err);
fail:
	db_rollback(db);
	return -1;
}

int db_webhook_cap(struct db *db, unsigned int max_pending,
		   struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL || max_pending < 1)
		return db_bad(err, "no database, or a cap below 1");
	if (db_begin(db, err) < 0)
		return -1;
	st = db_stmt(db, sql_cap, err);
	if (st == NULL)
		goto fail;
	db_bind_int64(st, 1, max_pending);
	if (db_step_done(db, st, err, "webhook cap") < 0)
		goto fail;
	return db_commit(db, err);
fail:
	db_rollback(db);
	return -1;
}

static const char *text_or_null(struct db_stmt *st, int col)
{
	return db_col_text(st, col);
}

int db_webhook_list(struct db *db, db_webhook_cb cb, void *arg,
		    struct imt_error *err)
{
	struct db_stmt *st;
	struct db_webhook w;
	int step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	st = db_stmt(db, sql_list, err);
	if (st == NULL)
		return -1;
	while ((step = db_step(st)) == DB_ROW) {
		w.name = text_or_null(st, 0);
		w.url = text_or_null(st, 1);
		w.ca_file = text_or_null(st, 2);
		w.key_id = text_or_null(st, 3);
		w.allow_http = db_col_int(st, 4);
		w.from_config = db_col_int(st, 5);
		w.enabled = db_col_int(st, 6);
		w.created_at = db_col_int64(st, 7);
		w.max_pending = (unsigned int)db_col_int64(st, 8);
		w.delivered = (uint64_t)db_col_int64(st, 9);
		w.failed = (uint64_t)db_col_int64(st, 10);
		w.dropped = (uint64_t)db_col_int64(st, 11);
		w.pending = (uint64_t)db_col_int64(st, 12);
		w.oldest_pending = db_col_int64(st, 13);
		w.last_error = text_or_null(st, 14);
		w.key_id_previous = text_or_null(st, 15);
		if (cb(&w, arg) != 0)
			break;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "list webhooks");
	return 0;
}

/* The due row at @st into @m. */
static void due_row(struct db_stmt *st, struct db_webhook_message *m)
{
	int64_t event_id;

	m->seq = db_col_int64(st, 0);
	m->endpoint = db_col_text(st, 1);
	m->url = db_col_text(st, 2);
	m->ca_file = db_col_text(st, 3);
	m->allow_http = db_col_int(st, 4);
	m->key_id = db_col_text(st, 5);
	m->secret = db_col_blob(st, 6);
	m->secret_len = (size_t)db_col_bytes(st, 6);
	m->machine_id = db_col_text(st, 7);
	m->body = db_col_text(st, 8);
	m->attempts = (unsigned int)db_col_int64(st, 9);
	m->type = db_col_text(st, 10);
	m->from_state = db_col_text(st, 11);
	m->to_state = db_col_text(st, 12);
	m->reason = db_col_text(st, 13);
	m->action = db_col_text(st, 14);
	m->op_name = db_col_text(st, 15);
	m->at = db_col_int64(st, 16);
	event_id = db_col_int64(st, 17);
	/* a removal's audit id is stored negated (schema 0011) */
	m->event = event_id > 0 ? event_id : 0;
	m->audit = event_id < 0 ? -event_id : 0;
	m->key_id_previous = db_col_text(st, 18);
	m->secret_previous = db_col_is_null(st, 19) ? NULL :
						      db_col_blob(st, 19);
	m->secret_previous_len =
		m->secret_previous != NULL ? (size_t)db_col_bytes(st, 19) : 0;
}

int db_webhook_due(struct db *db, int64_t now, unsigned int limit,
		   db_webhook_message_cb cb, void *arg, struct imt_error *err)
{
	struct db_webhook_message m;
	struct db_stmt *st;
	int step;

	if (db == NULL || cb == NULL)
		return db_bad(err, "no database or callback");
	if (db_check_limit(limit, err) < 0)
		return -1;
	st = db_stmt(db, sql_due, err);
	if (st == NULL)
		return -1;
	db_bind_int64(st, 1, now);
	db_bind_int64(st, 2, limit);
	while ((step = db_step(st)) == DB_ROW) {
		due_row(st, &m);
		if (m.body == NULL && m.type == NULL)
			continue; /* the schema's CHECK names every row */
		if (cb(&m, arg) != 0)
			break;
	}
	db_reset(st);
	if (step != DB_ROW && step != DB_DONE)
		return db_fail(db, err, "due webhooks");
	return 0;
}

/*
 * Run @mark (bound to @seq, @t and for a failure @error) and, when it
 * changed the
 * row, @count: the message's state and its endpoint's figure move
 * together, in one transaction.
 */
static int note(struct db *db, const char *mark, const char *count, int64_t seq,
		int64_t t, const char *error, struct imt_error *err)
{
	struct db_stmt *st;

	if (db == NULL)
		return db_bad(err, "no database");
	if (db_begin(db, err) < 0)
		return -1;
	st = db_stmt(db, mark, err);
	if (st == NULL)
		goto fail;
	db_bind_int64(st, 1, seq);
	db_bind_int64(st, 2, t);
	if (mark == sql_failed) {
		db_bind_text(st, 3, error != NULL ? error : "failed");
		db_bind_int(st, 4, DB_WEBHOOK_ERROR_MAX);
	}
	if (db_step_done(db, st, err, "webhook attempt") < 0)
		goto fail;
	if (db_changes(db) == 1) {
		st = db_stmt(db, count, err);
		if (st == NULL)
			goto fail;
		db_bind_int64(st, 1, seq);
		if (db_step_done(db, st, err, "webhook figures") < 0)
			goto fail;
	}
	return db_commit(db, err);
fail:
	db_rollback(db);
	return -1;
}

int db_webhook_delivered(struct db *db, int64_t seq, int64_t now,
			 struct imt_error *err)
{
	return note(db, sql_delivered, sql_count_delivered, seq, now, NULL,
		    err);
}

int db_webhook_failed(struct db *db, int64_t seq, int64_t next_attempt,
		      const char *error, struct imt_error *err)
{
	return note(db, sql_failed, sql_count_failed, seq, next_attempt, error,
		    err);
}

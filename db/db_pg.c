// SPDX-License-Identifier: GPL-2.0-only
/*
 * db_pg.c - the PostgreSQL (libpq) backend of db_sql.h: the statement
 * cache, binders, steps, columns, error mapping, reconnection, and the
 * NOTIFY behind the webhook "queued" notification.
 *
 * A statement is prepared once per connection (PQprepare, named after its
 * cache slot) with its ?N rewritten to $N, and described once
 * (PQdescribePrepared) for the parameter types the server inferred: text
 * goes in text format except into a bytea parameter (a path: raw bytes,
 * whatever they are), blobs in binary format, integers as decimal text.
 * It runs at its first step (PQexecPrepared) and its rows are read from
 * the PGresult, all columns in binary format: the only allocation of a
 * run is libpq's result.
 *
 * With db_pg_open.c this is the only place that includes <libpq-fe.h>.
 */
#include <endian.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_backend.h"
#include "db_cluster.h"
#include "db_pg.h"

/* Type OIDs of the columns and parameters we meet (pg_type.dat). */
#define PG_BOOL 16
#define PG_BYTEA 17
#define PG_INT8 20
#define PG_INT2 21
#define PG_INT4 23
#define PG_OID 26
#define PG_FLOAT8 701
#define PG_NUMERIC 1700
#define PG_JSONB 3802

#define PG_INT_TEXT 24 /* an int64 in decimal, with its NUL */
#define PG_TEXT 25
#define PG_PARAMS_MAX 100 /* ?1 .. ?99 */

struct pg_conn;

/* One prepared statement, keyed by the address of its static SQL text. */
struct pg_stmt {
	struct db_stmt head; /* first: db_sql.c's view */
	struct pg_conn *c;
	char *text;    /* sql with $N for ?N */
	Oid *declared; /* text for an N the text skips, else 0 */
	int ndeclared;
	char name[16]; /* prepared as "imt<slot>" */
	int prepared;  /* on the current connection */
	int nparams;
	Oid *types;	     /* the parameters', as the server inferred */
	const char **values; /* borrowed (db_sql.h), or num[] */
	int *lengths;
	int *formats;
	char (*num)[PG_INT_TEXT];
	PGresult *res; /* the run's rows, until the next reset */
	int ran;       /* executed since the last reset */
	int row, nrows;
	char scratch[PG_INT_TEXT]; /* an integer column read as text */
};

struct pg_conn {
	struct db_conn head; /* first: db_sql.c's view */
	struct db *db;
	PGconn *pg;
	struct db_stmt_cache stmts;
	int64_t changes; /* of the last INSERT, UPDATE or DELETE */
	int64_t last_id; /* its RETURNING id, when has_last_id */
	int has_last_id;
	int watch;	  /* db_conn_watch_outbox() */
	int durable;	  /* db_conn_durable(), again on reconnect */
	char sqlstate[6]; /* of the last error; "" after a success */
	char msg[200];
};

static struct pg_conn *pgc(struct db *db)
{
	return (struct pg_conn *)db->conn;
}

static struct pg_stmt *pst(struct db_stmt *st)
{
	return (struct pg_stmt *)st;
}

PGconn *db_pg_handle(struct db *db)
{
	if (db->conn == NULL || db->conn->be != &db_pg_backend)
		return NULL;
	return pgc(db)->pg;
}

/* libpq prints notices (and RAISE NOTICE) on stderr otherwise. */
static void pg_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

int db_pg_conn_new(struct db *db, PGconn *pg)
{
	struct pg_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return -1;
	c->head.be = &db_pg_backend;
	c->db = db;
	c->pg = pg;
	PQsetNoticeProcessor(pg, pg_notice, NULL);
	db->conn = &c->head;
	return 0;
}

/* Note the error of @res (or of the connection) for db_fail(). */
static void note_error(struct pg_conn *c, const PGresult *res)
{
	const char *state = NULL, *msg = NULL;
	size_t n;

	if (res != NULL) {
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
	}
	if (msg == NULL)
		msg = PQerrorMessage(c->pg);
	snprintf(c->sqlstate, sizeof(c->sqlstate), "%s",
		 state != NULL ? state : "");
	snprintf(c->msg, sizeof(c->msg), "%s", msg);
	/* libpq's own messages have lines (and end with a newline) */
	for (n = 0; c->msg[n] != '\0'; n++) {
		if (c->msg[n] == '\n' || c->msg[n] == '\t')
			c->msg[n] = ' ';
	}
	while (n > 0 && c->msg[n - 1] == ' ')
		c->msg[--n] = '\0';
}

static void note_success(struct pg_conn *c)
{
	c->sqlstate[0] = '\0';
	c->msg[0] = '\0';
}

int db_pg_result(struct db *db, PGresult *res, ExecStatusType want,
		 const char *what, struct imt_error *err)
{
	struct pg_conn *c = pgc(db);
	int ok = PQresultStatus(res) == want;

	if (ok)
		note_success(c);
	else
		note_error(c, res);
	PQclear(res);
	if (ok)
		return 0;
	if (err != NULL)
		db_pg_backend.fail(db, err, what);
	return -1;
}

/* Forget a statement's run: its rows and that it ran. */
static void stmt_clear_run(struct pg_stmt *s)
{
	PQclear(s->res);
	s->res = NULL;
	s->ran = 0;
	s->row = -1;
	s->nrows = 0;
}

/* Free @st and all it holds (each statement is allocated alone). */
static void stmt_free(struct db_stmt *st)
{
	struct pg_stmt *s = pst(st);

	stmt_clear_run(s);
	free(s->text);
	free(s->declared);
	free(s->types);
	free(s->values);
	free(s->lengths);
	free(s->formats);
	free(s->num);
	free(s);
}

static void pg_close(struct db *db)
{
	struct pg_conn *c = pgc(db);

	db_stmt_cache_release(&c->stmts, stmt_free);
	PQfinish(c->pg);
	free(c);
	db->conn = NULL;
}

/*
 * The server answers notifications of committed transactions with the
 * commit: a LISTENing session gets those of its own transactions too.
 * Outbox rows queued by any instance wake the delivery thread, since the
 * leader delivers every instance's messages (db_leader()). A change
 * announced by another instance (db_change_announce()) is noted for
 * db_changed_elsewhere(); this instance's own it knows already.
 */
static void take_notifies(struct pg_conn *c)
{
	PGnotify *n;
	int queued = 0, pid = PQbackendPID(c->pg);

	while ((n = PQnotifies(c->pg)) != NULL) {
		if (strcmp(n->relname, DB_CHANGE_CHANNEL) != 0)
			queued = 1;
		else if (n->be_pid != pid)
			c->db->changed_elsewhere = 1;
		PQfreemem(n);
	}
	if (queued && c->watch && c->db->queued_fn != NULL)
		c->db->queued_fn(c->db->queued_arg);
}

static const char sql_listen[] = "LISTEN imatrust_webhook";
static const char sql_unlisten[] = "UNLISTEN imatrust_webhook";

static void pg_watch_outbox(struct db *db, int on)
{
	struct pg_conn *c = pgc(db);

	c->watch = on;
	db_pg_result(db, PQexec(c->pg, on ? sql_listen : sql_unlisten),
		     PGRES_COMMAND_OK, "listen", NULL);
}

/*
 * synchronous_commit: db_pg_open.c's comment on sql_settings says why off
 * is the default, db_conn_durable() why on is asked for.
 */
static const char sql_sync_on[] = "SET synchronous_commit = on";
static const char sql_sync_off[] = "SET synchronous_commit = off";

static int pg_durable(struct db *db, int on, struct imt_error *err)
{
	struct pg_conn *c = pgc(db);

	c->durable = on;
	return db_pg_result(db, PQexec(c->pg, on ? sql_sync_on : sql_sync_off),
			    PGRES_COMMAND_OK, "synchronous_commit", err);
}

/*
 * A connection that died (the server restarted, a network cut) is made
 * again when no transaction was open on it: every prepared statement is
 * gone with the old session, so each is prepared again at its next use,
 * and the session's settings are applied again. Inside a transaction the
 * loss is the transaction's failure; its rollback finds none open, and
 * the next call reconnects.
 */
static int reconnect(struct pg_conn *c, struct imt_error *err)
{
	size_t i;

	PQreset(c->pg);
	if (PQstatus(c->pg) != CONNECTION_OK) {
		note_error(c, NULL);
		return db_err(err, IMT_ERR_INTERNAL,
			      "database connection lost: %s", c->msg);
	}
	for (i = 0; i < c->stmts.n; i++) {
		stmt_clear_run(pst(c->stmts.slots[i].st));
		pst(c->stmts.slots[i].st)->prepared = 0;
	}
	/* what was announced while the session was gone is unknown */
	c->db->changed_elsewhere = 1;
	if (db_pg_settings(c->db, err) < 0 ||
	    (c->durable && pg_durable(c->db, 1, err) < 0))
		return -1;
	if (c->watch)
		pg_watch_outbox(c->db, 1);
	return 0;
}

/* 1 when the connection's socket has something to read (or its end). */
static int readable(PGconn *pg)
{
	struct pollfd p = { .fd = PQsocket(pg), .events = POLLIN };

	return p.fd >= 0 && poll(&p, 1, 0) == 1;
}

/*
 * Between transactions: read what the server sent, a notification or its
 * goodbye (a restart sends a FATAL message, then closes), and reconnect
 * when it had closed the connection. The goodbye and the end of the
 * stream may come in two reads: read while there is something.
 */
static int check_alive(struct pg_conn *c, struct imt_error *err)
{
	int reads = 0;

	while (PQtransactionStatus(c->pg) == PQTRANS_IDLE && reads++ < 4 &&
	       readable(c->pg)) {
		if (!PQconsumeInput(c->pg))
			break;
		take_notifies(c);
	}
	if (PQstatus(c->pg) == CONNECTION_OK)
		return 0;
	return reconnect(c, err);
}

/*
 * ?N to $N, outside quoted literals and identifiers: the same length, so
 * the copy is the text with some bytes changed. Notes in @used which N
 * the text names (N < PG_PARAMS_MAX).
 */
static char *rewrite_params(const char *sql, unsigned char *used)
{
	char *t = strdup(sql), quote = 0;
	size_t i;
	long n;

	for (i = 0; t != NULL && t[i] != '\0'; i++) {
		if (quote != 0) {
			if (t[i] == quote)
				quote = 0;
		} else if (t[i] == '\'' || t[i] == '"') {
			quote = t[i];
		} else if (t[i] == '?' && t[i + 1] >= '1' && t[i + 1] <= '9') {
			t[i] = '$';
			n = strtol(t + i + 1, NULL, 10);
			if (n < PG_PARAMS_MAX)
				used[n] = 1;
		}
	}
	return t;
}

/* The arrays of a statement with @n parameters. */
static int stmt_arrays(struct pg_stmt *s, int n)
{
	size_t k = n > 0 ? (size_t)n : 1;

	s->nparams = n;
	s->types = calloc(k, sizeof(*s->types));
	s->values = calloc(k, sizeof(*s->values));
	s->lengths = calloc(k, sizeof(*s->lengths));
	s->formats = calloc(k, sizeof(*s->formats));
	s->num = calloc(k, sizeof(*s->num));
	if (s->types == NULL || s->values == NULL || s->lengths == NULL ||
	    s->formats == NULL || s->num == NULL)
		return -1;
	return 0;
}

/* Prepare @s on the current connection; describe it the first time. */
static int stmt_prepare(struct pg_conn *c, struct pg_stmt *s,
			struct imt_error *err)
{
	PGresult *res;
	int i;

	res = PQprepare(c->pg, s->name, s->text, s->ndeclared, s->declared);
	if (db_pg_result(c->db, res, PGRES_COMMAND_OK, "prepare", err) < 0)
		return -1;
	if (s->types == NULL) {
		res = PQdescribePrepared(c->pg, s->name);
		if (PQresultStatus(res) != PGRES_COMMAND_OK)
			return db_pg_result(c->db, res, PGRES_COMMAND_OK,
					    "describe", err);
		if (stmt_arrays(s, PQnparams(res)) < 0) {
			PQclear(res);
			return db_err(err, IMT_ERR_INTERNAL, "out of memory");
		}
		for (i = 0; i < s->nparams; i++)
			s->types[i] = PQparamtype(res, i);
		PQclear(res);
	}
	s->prepared = 1;
	return 0;
}

/*
 * A statement may skip a parameter its callers bind (sql_list_source of
 * db_ref.c has ?4 and ?5 but no ?3), and PostgreSQL cannot infer the type
 * of one it never sees: declare those text, leave the others (0) to it.
 */
static int declare_skipped(struct pg_stmt *s, const unsigned char *used)
{
	int n, max = 0;

	for (n = 1; n < PG_PARAMS_MAX; n++) {
		if (used[n])
			max = n;
	}
	for (n = 1; n < max && used[n]; n++)
		;
	if (n >= max)
		return 0; /* none skipped: nothing to declare */
	s->declared = calloc((size_t)max, sizeof(*s->declared));
	if (s->declared == NULL)
		return -1;
	for (n = 1; n <= max; n++)
		s->declared[n - 1] = used[n] ? 0 : PG_TEXT;
	s->ndeclared = max;
	return 0;
}

static struct pg_stmt *stmt_new(struct pg_conn *c, const char *sql,
				struct imt_error *err)
{
	unsigned char used[PG_PARAMS_MAX] = { 0 };
	struct pg_stmt *s = calloc(1, sizeof(*s));

	if (s == NULL) {
		db_err(err, IMT_ERR_INTERNAL, "out of memory");
		return NULL;
	}
	s->head.be = &db_pg_backend;
	s->c = c;
	s->row = -1;
	snprintf(s->name, sizeof(s->name), "imt%zu", c->stmts.n);
	s->text = rewrite_params(sql, used);
	if (s->text == NULL || declare_skipped(s, used) < 0) {
		db_err(err, IMT_ERR_INTERNAL, "out of memory");
		stmt_free(&s->head);
		return NULL;
	}
	if (db_stmt_cache_add(&c->stmts, sql, &s->head, err) < 0) {
		stmt_free(&s->head);
		return NULL;
	}
	return s;
}

static struct db_stmt *pg_stmt(struct db *db, const char *sql,
			       struct imt_error *err)
{
	struct pg_conn *c = pgc(db);
	struct pg_stmt *s;
	size_t i;

	if (check_alive(c, err) < 0)
		return NULL;
	s = pst(db_stmt_cache_find(&c->stmts, sql));
	if (s == NULL && (s = stmt_new(c, sql, err)) == NULL)
		return NULL;
	if (!s->prepared && stmt_prepare(c, s, err) < 0)
		return NULL;
	stmt_clear_run(s);
	for (i = 0; i < (size_t)s->nparams; i++)
		s->values[i] = NULL;
	return &s->head;
}

/* Parameters past the statement's are ignored, as SQLite ignores them. */
static int param(struct pg_stmt *s, int i)
{
	return i >= 1 && i <= s->nparams ? i - 1 : -1;
}

static void pg_bind_int64(struct db_stmt *st, int i, int64_t v)
{
	struct pg_stmt *s = pst(st);
	int k = param(s, i);

	if (k < 0)
		return;
	snprintf(s->num[k], sizeof(s->num[k]), "%lld", (long long)v);
	s->values[k] = s->num[k];
	s->formats[k] = 0;
}

/* Text goes as text, but as bytes into bytea (the paths: not UTF-8). */
static void pg_bind_text(struct db_stmt *st, int i, const char *v)
{
	struct pg_stmt *s = pst(st);
	int k = param(s, i);

	if (k < 0)
		return;
	s->values[k] = v;
	s->formats[k] = v != NULL && s->types[k] == PG_BYTEA;
	s->lengths[k] = s->formats[k] ? (int)strlen(v) : 0;
}

static void pg_bind_blob(struct db_stmt *st, int i, const void *p, size_t len)
{
	struct pg_stmt *s = pst(st);
	int k = param(s, i);

	if (k < 0)
		return;
	/* libpq sends a zero-length binary value for "" (not NULL) */
	s->values[k] = p != NULL ? (len > 0 ? p : "") : NULL;
	s->lengths[k] = (int)len;
	s->formats[k] = 1;
}

static void pg_bind_null(struct db_stmt *st, int i)
{
	struct pg_stmt *s = pst(st);
	int k = param(s, i);

	if (k >= 0)
		s->values[k] = NULL;
}

/* The rows an INSERT, UPDATE or DELETE changed; its RETURNING id. */
static void note_changes(struct pg_conn *c, PGresult *res)
{
	const char *tag = PQcmdStatus(res);
	int is_insert = strncmp(tag, "INSERT", 6) == 0;

	if (!is_insert && strncmp(tag, "UPDATE", 6) != 0 &&
	    strncmp(tag, "DELETE", 6) != 0)
		return;
	c->changes = strtoll(PQcmdTuples(res), NULL, 10);
	if (!is_insert)
		return;
	c->has_last_id = PQresultStatus(res) == PGRES_TUPLES_OK &&
			 PQntuples(res) == 1 && PQnfields(res) >= 1 &&
			 PQftype(res, 0) == PG_INT8 &&
			 strcmp(PQfname(res, 0), "id") == 0;
	if (c->has_last_id)
		c->last_id = (int64_t)be64toh(
			*(const uint64_t *)PQgetvalue(res, 0, 0));
}

/*
 * A COMMIT of a transaction an error had aborted succeeds as a ROLLBACK
 * (its tag says so): that is the commit's failure, or a batch that lost
 * everything would be answered as stored.
 */
static int commit_rolled_back(struct pg_conn *c, const char *sql, PGresult *res)
{
	if (strncmp(sql, "COMMIT", 6) != 0 ||
	    PQresultStatus(res) != PGRES_COMMAND_OK ||
	    strcmp(PQcmdStatus(res), "ROLLBACK") != 0)
		return 0;
	snprintf(c->sqlstate, sizeof(c->sqlstate), "25P02");
	snprintf(c->msg, sizeof(c->msg),
		 "the transaction was rolled back "
		 "by an earlier error");
	return 1;
}

static enum db_step_result stmt_run(struct pg_stmt *s)
{
	struct pg_conn *c = s->c;
	PGresult *res;

	s->ran = 1;
	res = PQexecPrepared(c->pg, s->name, s->nparams, s->values, s->lengths,
			     s->formats, 1);
	if (commit_rolled_back(c, s->text, res)) {
		PQclear(res);
		return DB_ERROR;
	}
	switch (PQresultStatus(res)) {
	case PGRES_COMMAND_OK:
	case PGRES_TUPLES_OK:
		note_success(c);
		note_changes(c, res);
		s->res = res;
		s->nrows = PQntuples(res);
		if (PQtransactionStatus(c->pg) == PQTRANS_IDLE)
			take_notifies(c);
		return DB_DONE;
	default:
		note_error(c, res);
		PQclear(res);
		return DB_ERROR;
	}
}

static enum db_step_result pg_step(struct db_stmt *st)
{
	struct pg_stmt *s = pst(st);

	if (!s->ran && stmt_run(s) == DB_ERROR)
		return DB_ERROR;
	if (s->row < s->nrows)
		s->row++;
	return s->row < s->nrows ? DB_ROW : DB_DONE;
}

static void pg_reset(struct db_stmt *st)
{
	stmt_clear_run(pst(st));
}

/* The value of @col in the current row, NULL for SQL NULL. */
static const char *value(struct pg_stmt *s, int col, int *len)
{
	*len = 0;
	if (s->res == NULL || s->row < 0 || s->row >= s->nrows || col < 0 ||
	    col >= PQnfields(s->res) || PQgetisnull(s->res, s->row, col))
		return NULL;
	*len = PQgetlength(s->res, s->row, col);
	return PQgetvalue(s->res, s->row, col);
}

static uint64_t be(const char *v, int len)
{
	uint64_t x = 0;
	int i;

	for (i = 0; i < len; i++)
		x = x << 8 | (uint8_t)v[i];
	return x;
}

/* The integer part of a binary numeric (sum() of bigints is one). */
static int64_t numeric(const char *v, int len)
{
	int ndigits, weight, sign, i;
	int64_t x = 0;

	if (len < 8)
		return 0;
	ndigits = (int16_t)be(v, 2);
	weight = (int16_t)be(v + 2, 2);
	sign = (int)be(v + 4, 2);
	if (len < 8 + 2 * ndigits)
		return 0;
	for (i = 0; i <= weight; i++)
		x = x * 10000 +
		    (i < ndigits ? (int16_t)be(v + 8 + 2 * i, 2) : 0);
	return sign == 0x4000 ? -x : x;
}

static int64_t pg_col_int64(struct db_stmt *st, int col)
{
	struct pg_stmt *s = pst(st);
	const char *v;
	double d;
	int len;

	v = value(s, col, &len);
	if (v == NULL)
		return 0;
	switch (PQftype(s->res, col)) {
	case PG_INT8:
	case PG_INT4:
	case PG_INT2:
	case PG_BOOL:
		/* sign-extend from the type's width */
		return len == 8 ? (int64_t)be(v, 8) :
		       len == 4 ? (int32_t)be(v, 4) :
		       len == 2 ? (int16_t)be(v, 2) :
				  (int8_t)be(v, 1);
	case PG_OID:
		return (uint32_t)be(v, 4);
	case PG_NUMERIC:
		return numeric(v, len);
	case PG_FLOAT8: {
		uint64_t bits = be(v, 8);

		memcpy(&d, &bits, sizeof(d));
		return (int64_t)d;
	}
	default:
		/* text: its leading integer, as SQLite reads it */
		return strtoll(v, NULL, 10);
	}
}

/* Binary jsonb starts with its format version (1), then the text. */
static int jsonb_skip(struct pg_stmt *s, int col, int len)
{
	return PQftype(s->res, col) == PG_JSONB && len > 0 ? 1 : 0;
}

static int is_integer(Oid type)
{
	return type == PG_INT8 || type == PG_INT4 || type == PG_INT2 ||
	       type == PG_BOOL || type == PG_NUMERIC || type == PG_OID;
}

/* libpq ends every value with a NUL, binary ones too. */
static const char *pg_col_text(struct db_stmt *st, int col)
{
	struct pg_stmt *s = pst(st);
	const char *v;
	int len;

	v = value(s, col, &len);
	if (v == NULL)
		return NULL;
	if (is_integer(PQftype(s->res, col))) {
		/* one at a time: a second such column overwrites it */
		snprintf(s->scratch, sizeof(s->scratch), "%lld",
			 (long long)pg_col_int64(st, col));
		return s->scratch;
	}
	return v + jsonb_skip(s, col, len);
}

static const void *pg_col_blob(struct db_stmt *st, int col)
{
	struct pg_stmt *s = pst(st);
	const char *v;
	int len;

	v = value(s, col, &len);
	return v != NULL ? v + jsonb_skip(s, col, len) : NULL;
}

static int pg_col_bytes(struct db_stmt *st, int col)
{
	struct pg_stmt *s = pst(st);
	const char *v;
	int len;

	v = value(s, col, &len);
	if (v == NULL)
		return 0;
	if (is_integer(PQftype(s->res, col)))
		return (int)strlen(pg_col_text(st, col));
	return len - jsonb_skip(s, col, len);
}

static int pg_col_is_null(struct db_stmt *st, int col)
{
	struct pg_stmt *s = pst(st);
	int len;

	return value(s, col, &len) == NULL;
}

static int64_t pg_changes(struct db *db)
{
	return pgc(db)->changes;
}

static const char sql_lastval[] = "SELECT lastval()";

/*
 * The id a RETURNING id of the last INSERT gave, else lastval(): the
 * sequence the last INSERT advanced, right when no trigger of it inserted
 * into a table with an identity of its own (boots, files, digests).
 */
static int64_t pg_last_insert_id(struct db *db)
{
	struct pg_conn *c = pgc(db);
	PGresult *res;
	int64_t id = 0;

	if (c->has_last_id)
		return c->last_id;
	res = PQexec(c->pg, sql_lastval);
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1)
		id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return id;
}

static int pg_in_transaction(struct db *db)
{
	switch (PQtransactionStatus(pgc(db)->pg)) {
	case PQTRANS_INTRANS:
	case PQTRANS_INERROR:
	case PQTRANS_ACTIVE:
		return 1;
	default:
		return 0;
	}
}

static int pg_exec(struct db *db, const char *sql, const char *what,
		   struct imt_error *err)
{
	struct pg_conn *c = pgc(db);
	PGresult *res;

	if (check_alive(c, err) < 0)
		return -1;
	res = PQexec(c->pg, sql);
	if (PQresultStatus(res) == PGRES_TUPLES_OK) {
		PQclear(res);
		note_success(c);
		return 0;
	}
	return db_pg_result(db, res, PGRES_COMMAND_OK, what, err);
}

/* Which imt_result an SQLSTATE becomes (class: its first two chars). */
static const struct {
	const char *state;
	enum imt_result status;
} pg_states[] = {
	{ "23505", IMT_ERR_MISMATCH },	/* unique_violation */
	{ "23503", IMT_ERR_MISMATCH },	/* foreign_key_violation */
	{ "23514", IMT_ERR_MALFORMED }, /* check_violation */
	{ "23502", IMT_ERR_MALFORMED }, /* not_null_violation */
	{ "22", IMT_ERR_MALFORMED },	/* data exception (class) */
	{ "54", IMT_ERR_LIMIT },	/* program limit exceeded (class) */
};

static enum imt_result pg_status(const char *state)
{
	size_t i;

	for (i = 0; i < sizeof(pg_states) / sizeof(pg_states[0]); i++) {
		if (strncmp(state, pg_states[i].state,
			    strlen(pg_states[i].state)) == 0)
			return pg_states[i].status;
	}
	return IMT_ERR_INTERNAL;
}

static int pg_failed_retryable(struct db *db)
{
	const char *state = pgc(db)->sqlstate;

	return strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0;
}

/*
 * A lost connection has no SQLSTATE of its own (libpq's "server closed
 * the connection unexpectedly"), or the server's shutdown ones (57P01..3):
 * say so, the verifier answers 503 and the next call reconnects.
 */
static int pg_fail(struct db *db, struct imt_error *err, const char *what)
{
	struct pg_conn *c = pgc(db);

	if (PQstatus(c->pg) != CONNECTION_OK ||
	    strncmp(c->sqlstate, "57P0", 4) == 0 ||
	    strncmp(c->sqlstate, "08", 2) == 0)
		return db_err(err, IMT_ERR_INTERNAL,
			      "%s: database connection lost: %s", what, c->msg);
	if (pg_failed_retryable(db))
		return db_err(err, IMT_ERR_INTERNAL,
			      "%s: %s (SQLSTATE %s: try again)", what, c->msg,
			      c->sqlstate);
	return db_err(err, pg_status(c->sqlstate), "%s: %s", what,
		      c->msg[0] != '\0' ? c->msg : "not an error");
}

static int pg_failed_unique(struct db *db)
{
	return strcmp(pgc(db)->sqlstate, "23505") == 0;
}

const struct db_backend db_pg_backend = {
	.name = "postgresql",
	.dialect = DB_DIALECT_PG,
	.open = db_pg_open,
	.close = pg_close,
	.durable = pg_durable,
	.watch_outbox = pg_watch_outbox,
	.stmt = pg_stmt,
	.bind_int64 = pg_bind_int64,
	.bind_text = pg_bind_text,
	.bind_blob = pg_bind_blob,
	.bind_null = pg_bind_null,
	.step = pg_step,
	.reset = pg_reset,
	.col_int64 = pg_col_int64,
	.col_text = pg_col_text,
	.col_blob = pg_col_blob,
	.col_bytes = pg_col_bytes,
	.col_is_null = pg_col_is_null,
	.changes = pg_changes,
	.last_insert_id = pg_last_insert_id,
	.in_transaction = pg_in_transaction,
	.exec = pg_exec,
	.fail = pg_fail,
	.failed_unique = pg_failed_unique,
	.failed_retryable = pg_failed_retryable,
};

/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * db_webhook.h - webhooks: endpoints and their outbox (db_webhook.c). The
 * conventions every function follows, and the limits, are db.h's.
 */
#ifndef IMATRUST_DB_WEBHOOK_H
#define IMATRUST_DB_WEBHOOK_H

#include "db.h"
#include "db_machine.h"

#define DB_WEBHOOK_NAME_MAX 64	 /* bytes in an endpoint name */
#define DB_WEBHOOK_URL_MAX 2048	 /* bytes in its URL */
#define DB_WEBHOOK_SECRET_MIN 24 /* bytes of signing secret, at least */
#define DB_WEBHOOK_SECRET_MAX 64 /* ... at most */
#define DB_WEBHOOK_KEY_ID_MAX 64 /* bytes in a key id */
#define DB_WEBHOOK_ERROR_MAX 256 /* bytes of a delivery's last error */

/*
 * An endpoint to store; pointers borrowed. Every state-change event
 * (an event with a to_state) written while it is enabled queues one
 * message for it, in the event's transaction (schema 0010's trigger).
 */
struct db_webhook_new {
	const char *name; /* [A-Za-z0-9._-], the caller checks */
	const char *url;
	const char *ca_file;   /* NULL: the system's CA store */
	int allow_http;	       /* http:// to another host than loopback */
	const uint8_t *secret; /* the HMAC-SHA256 key */
	size_t secret_len;
	const char *key_id; /* names the secret (webhook-key-id) */
	/* the secret a rotation replaced, still signing (schema 0022):
	 * NULL when none */
	const uint8_t *secret_previous;
	size_t secret_previous_len;
	const char *key_id_previous; /* NULL when none */
	int from_config;	     /* defined by the config file */
	unsigned int max_pending;    /* undelivered messages kept, >= 1 */
};

/* An endpoint as listed, with its delivery figures; borrowed. */
struct db_webhook {
	const char *name;
	const char *url;
	const char *ca_file; /* NULL when none */
	const char *key_id;
	const char *key_id_previous; /* a rotation under way, or NULL */
	int allow_http;
	int from_config;
	int enabled;
	int64_t created_at;
	unsigned int max_pending;
	uint64_t delivered;	/* messages delivered */
	uint64_t failed;	/* attempts that failed */
	uint64_t dropped;	/* messages dropped: max_pending was reached */
	uint64_t pending;	/* messages not delivered yet */
	int64_t oldest_pending; /* created_at of the oldest, 0 when none */
	const char *last_error; /* of the newest failed attempt, or NULL */
};

/*
 * A message due for delivery (db_webhook_due()); borrowed. The schema's
 * triggers queue a change's facts; the body is written from them at
 * delivery (results/webhook_body.c). A message queued before schema 0020
 * carries its body instead, sent as stored.
 */
struct db_webhook_message {
	int64_t seq;
	const char *endpoint;
	const char *url;
	const char *ca_file; /* NULL when none */
	int allow_http;
	const char *key_id;
	const uint8_t *secret;
	size_t secret_len;
	const char *key_id_previous;	/* NULL when no rotation is under way */
	const uint8_t *secret_previous; /* NULL likewise */
	size_t secret_previous_len;
	const char *machine_id;
	const char *body;      /* JSON text as stored, or NULL: the facts */
	unsigned int attempts; /* failed attempts so far */
	/* the facts, when body is NULL */
	const char *type;	/* "machine.state" or "machine.removed" */
	const char *from_state; /* NULL for a new machine */
	const char *to_state;	/* NULL in machine.removed */
	const char *reason;	/* the event's reason, JSON text, or NULL */
	const char *action;	/* machine.removed: the audit row's */
	const char *op_name;	/* machine.removed: NULL for an expiry */
	int64_t at;		/* the change's time */
	int64_t event;		/* machine.state: the event's id */
	int64_t audit;		/* machine.removed: the audit row's id */
};

typedef int (*db_webhook_cb)(const struct db_webhook *w, void *arg);
typedef int (*db_webhook_message_cb)(const struct db_webhook_message *m,
				     void *arg);

/**
 * db_webhook_add() - store a new endpoint, enabled.
 *
 * IMT_ERR_MISMATCH when an endpoint of that name exists.
 */
int db_webhook_add(struct db *db, const struct db_webhook_new *w, int64_t now,
		   struct imt_error *err);

/**
 * db_webhook_put() - db_webhook_add(), or, when @w->name exists, replace
 * its URL, CA, secret, key id and cap in place, keeping its queue and
 * figures (the config file's endpoints at every start).
 * @created: receives 1 when it was new (may be NULL)
 */
int db_webhook_put(struct db *db, const struct db_webhook_new *w, int64_t now,
		   int *created, struct imt_error *err);

/* What db_webhook_rotate() and db_webhook_rotate_finish() did. */
enum db_webhook_rotation {
	DB_WEBHOOK_ROTATED = 0,	 /* done */
	DB_WEBHOOK_NO_ENDPOINT,	 /* no endpoint of that name */
	DB_WEBHOOK_FROM_CONFIG,	 /* the config file's: its secrets are there */
	DB_WEBHOOK_UNDER_WAY,	 /* rotate: a rotation is under way already */
	DB_WEBHOOK_NOT_UNDER_WAY /* finish: no rotation is under way */
};

/**
 * db_webhook_rotate() - begin a rotation of endpoint @name's secret: its
 * secret and key id become the previous ones, @secret and @key_id the
 * current; both sign until db_webhook_rotate_finish().
 * @db: the database
 * @name: the endpoint
 * @secret: the new secret, DB_WEBHOOK_SECRET_MIN to _MAX bytes
 * @secret_len: its length
 * @key_id: its key id
 * @outcome: receives what was done (DB_WEBHOOK_ROTATED, or why not)
 * @err: the error, on failure
 *
 * Only an endpoint added through the API (the config file's endpoints
 * take secret= and secret_previous= there), one rotation at a time.
 *
 * Return: 0 (see @outcome), or -1.
 */
int db_webhook_rotate(struct db *db, const char *name, const uint8_t *secret,
		      size_t secret_len, const char *key_id,
		      enum db_webhook_rotation *outcome, struct imt_error *err);

/**
 * db_webhook_rotate_finish() - end the rotation of endpoint @name: the
 * previous secret is forgotten, only the current one signs.
 * @db: the database
 * @name: the endpoint
 * @outcome: receives DB_WEBHOOK_ROTATED, or why not
 * @err: the error, on failure
 *
 * Return: 0 (see @outcome), or -1.
 */
int db_webhook_rotate_finish(struct db *db, const char *name,
			     enum db_webhook_rotation *outcome,
			     struct imt_error *err);

/**
 * db_webhook_delete() - forget endpoint @name with its queue.
 * @found: receives 1 when it existed
 */
int db_webhook_delete(struct db *db, const char *name, int *found,
		      struct imt_error *err);

/**
 * db_webhook_cap() - set every endpoint's max_pending (the config file's
 * webhook_max_pending, at start); the cap is enforced at the next
 * message.
 */
int db_webhook_cap(struct db *db, unsigned int max_pending,
		   struct imt_error *err);

/** db_webhook_list() - call @cb for every endpoint, in name order. */
int db_webhook_list(struct db *db, db_webhook_cb cb, void *arg,
		    struct imt_error *err);

/**
 * db_webhook_on_queued() - call @fn(@arg) when a transaction that queued
 * outbox messages (the schema's triggers) commits, so the delivery thread
 * need not poll for them. @fn runs inside the commit, on the committing
 * thread, before the commit is complete: it must only signal (a reader
 * that takes the same lock as the writer sees the commit). NULL removes.
 */
void db_webhook_on_queued(struct db *db, void (*fn)(void *arg), void *arg);

/**
 * db_webhook_due() - call @cb for at most @limit (1..DB_LIST_MAX)
 * messages to send at @now: undelivered, next attempt due, enabled
 * endpoint, and the oldest undelivered message of its (endpoint,
 * machine): a machine's messages go one at a time, in order, while
 * other machines' do not wait for them. Soonest due first.
 */
int db_webhook_due(struct db *db, int64_t now, unsigned int limit,
		   db_webhook_message_cb cb, void *arg, struct imt_error *err);

/**
 * db_webhook_delivered() - message @seq was accepted (2xx) at @now. A
 * message that is gone (its endpoint deleted) is not an error.
 */
int db_webhook_delivered(struct db *db, int64_t seq, int64_t now,
			 struct imt_error *err);

/**
 * db_webhook_failed() - an attempt at message @seq failed with @error
 * (truncated to DB_WEBHOOK_ERROR_MAX); try again at @next_attempt.
 */
int db_webhook_failed(struct db *db, int64_t seq, int64_t next_attempt,
		      const char *error, struct imt_error *err);

#endif /* IMATRUST_DB_WEBHOOK_H */

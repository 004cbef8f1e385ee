-- 0020_webhook_facts.sql - the triggers queue the facts of a message, the
-- verifier writes its body (issue #35).
--
-- Until now the triggers of 0010 and 0011 composed each message's JSON
-- body (json_object(), then json_set() of its "id"), and state_tnc held
-- a copy of the state table's TNC recommendations for them. The triggers
-- keep what must be in the change's transaction: one outbox row per
-- enabled endpoint, and max_pending. The row carries the change's facts
-- in columns; the delivery thread builds the body from them
-- (verifier/results/webhook_body.c, checked against openapi.json's
-- WebhookMessage), the TNC recommendation from the state table itself.
--
-- type: 'machine.state' or 'machine.removed'; NULL for a row queued
--   before this migration, whose body is sent as it is stored.
-- from_state, to_state: the change's; a removal's from_state is the
--   state the machine had, to_state NULL.
-- reason: the event's reason, JSON text as the event holds it, or NULL.
-- action, operator: a removal's audit row's ("remove" or
--   "pending-expired"; operator NULL for the expiry).
-- created_at is the change's time ("at"); event_id the event's id, or a
-- removal's audit id negated (0011), as before.
--
-- SQLite cannot drop body's NOT NULL in place: the table is rebuilt, its
-- columns in their order and the new ones after them, with its indexes.
-- seq must never repeat ("<endpoint>-<seq>" is a message id for good),
-- so the new table takes the old one's AUTOINCREMENT counter, which a
-- copy of the rows alone would lower when the newest were delivered and
-- pruned.
DROP TRIGGER events_webhook;
DROP TRIGGER audit_webhook;
DROP TRIGGER webhook_outbox_queued;

CREATE TABLE webhook_outbox_facts (
	seq		INTEGER PRIMARY KEY AUTOINCREMENT,
	endpoint_id	INTEGER NOT NULL REFERENCES webhooks(id)
			ON DELETE CASCADE,
	event_id	INTEGER NOT NULL,
	machine_id	TEXT NOT NULL,
	body		TEXT CHECK (body IS NULL OR json_valid(body)),
	created_at	INTEGER NOT NULL,
	attempts	INTEGER NOT NULL DEFAULT 0,
	next_attempt	INTEGER NOT NULL,
	delivered_at	INTEGER,
	last_error	TEXT,
	type		TEXT CHECK (type IN ('machine.state',
					     'machine.removed')),
	from_state	TEXT,
	to_state	TEXT,
	reason		TEXT,
	action		TEXT,
	operator	TEXT,
	CHECK ((body IS NULL) <> (type IS NULL))
) STRICT;
INSERT INTO webhook_outbox_facts (seq, endpoint_id, event_id, machine_id,
	body, created_at, attempts, next_attempt, delivered_at, last_error)
	SELECT seq, endpoint_id, event_id, machine_id, body, created_at,
	attempts, next_attempt, delivered_at, last_error FROM webhook_outbox;
DELETE FROM sqlite_sequence WHERE name = 'webhook_outbox_facts';
INSERT INTO sqlite_sequence (name, seq) SELECT 'webhook_outbox_facts', seq
	FROM sqlite_sequence WHERE name = 'webhook_outbox';
DROP TABLE webhook_outbox;
ALTER TABLE webhook_outbox_facts RENAME TO webhook_outbox;
CREATE INDEX webhook_pending ON webhook_outbox(endpoint_id, machine_id, seq)
	WHERE delivered_at IS NULL;
CREATE INDEX webhook_delivered ON webhook_outbox(delivered_at)
	WHERE delivered_at IS NOT NULL;

DROP TABLE state_tnc;

-- A state change, for every enabled endpoint.
CREATE TRIGGER events_webhook AFTER INSERT ON events
WHEN NEW.to_state IS NOT NULL
BEGIN
	INSERT INTO webhook_outbox (endpoint_id, event_id, machine_id,
				    created_at, next_attempt, type,
				    from_state, to_state, reason)
	SELECT w.id, NEW.id, NEW.machine_id, NEW.time, NEW.time,
	       'machine.state', NEW.from_state, NEW.to_state, NEW.reason
	FROM webhooks w WHERE w.enabled = 1;
END;

-- An operator's removal (detail.state the state it had; null when only a
-- pre-registration went, which no receiver heard of) and the expiry of a
-- pending machine, for every enabled endpoint.
CREATE TRIGGER audit_webhook AFTER INSERT ON audit
WHEN NEW.machine_id IS NOT NULL AND
     ((NEW.action = 'remove' AND
       json_extract(NEW.detail, '$.state') IS NOT NULL) OR
      NEW.action = 'pending-expired')
BEGIN
	INSERT INTO webhook_outbox (endpoint_id, event_id, machine_id,
				    created_at, next_attempt, type,
				    from_state, action, operator)
	SELECT w.id, -NEW.id, NEW.machine_id, NEW.time, NEW.time,
	       'machine.removed',
	       CASE NEW.action WHEN 'remove'
		    THEN json_extract(NEW.detail, '$.state')
		    ELSE 'pending' END,
	       NEW.action, NEW.operator
	FROM webhooks w WHERE w.enabled = 1;
END;

-- Every queued message: keep its endpoint within max_pending by dropping
-- the oldest undelivered rows, counted in webhooks.dropped.
CREATE TRIGGER webhook_outbox_queued AFTER INSERT ON webhook_outbox
BEGIN
	UPDATE webhooks SET dropped = dropped + (SELECT count(*)
		FROM webhook_outbox o WHERE o.endpoint_id = NEW.endpoint_id
		AND o.delivered_at IS NULL) - max_pending
	WHERE id = NEW.endpoint_id AND (SELECT count(*) FROM webhook_outbox o
		WHERE o.endpoint_id = NEW.endpoint_id
		AND o.delivered_at IS NULL) > max_pending;
	DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM
		(SELECT o.seq, row_number() OVER (ORDER BY o.seq DESC) AS r
		 FROM webhook_outbox o
		 WHERE o.endpoint_id = NEW.endpoint_id
		       AND o.delivered_at IS NULL)
		WHERE r > (SELECT max_pending FROM webhooks
			   WHERE id = NEW.endpoint_id));
END;

PRAGMA user_version = 20;

-- 0010_webhooks.sql - webhook endpoints and their outbox: every machine
-- state change, pushed to the systems that act on verdicts
-- (verifier/README.md "Webhooks").
--
-- The outbox row of a change is written by a trigger on events, in the
-- statement (so the transaction) that writes the change's event: a
-- change and its outbox rows commit or roll back together, whichever
-- writer made it. A crash loses no event and invents none.
CREATE TABLE webhooks (
	id		INTEGER PRIMARY KEY,
	name		TEXT NOT NULL UNIQUE,
	url		TEXT NOT NULL,
	ca_file		TEXT,		-- NULL: the system's CA store
	allow_http	INTEGER NOT NULL DEFAULT 0 CHECK (allow_http IN (0, 1)),
	key_id		TEXT NOT NULL,
	secret		BLOB NOT NULL CHECK (length(secret) BETWEEN 24 AND 64),
	from_config	INTEGER NOT NULL DEFAULT 0 CHECK (from_config IN (0, 1)),
	created_at	INTEGER NOT NULL,
	enabled		INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
	-- undelivered rows kept at most; past it the oldest are dropped
	max_pending	INTEGER NOT NULL DEFAULT 10000 CHECK (max_pending >= 1),
	delivered	INTEGER NOT NULL DEFAULT 0,	-- rows delivered
	failed		INTEGER NOT NULL DEFAULT 0,	-- attempts that failed
	dropped		INTEGER NOT NULL DEFAULT 0	-- rows dropped when full
) STRICT;

-- One row per (endpoint, state-change event). seq never repeats
-- (AUTOINCREMENT), so "<endpoint>-<seq>" is a message id for good.
-- No foreign key to events or machines: the message outlives both
-- (retention, a removed machine).
CREATE TABLE webhook_outbox (
	seq		INTEGER PRIMARY KEY AUTOINCREMENT,
	endpoint_id	INTEGER NOT NULL REFERENCES webhooks(id)
			ON DELETE CASCADE,
	event_id	INTEGER NOT NULL,
	machine_id	TEXT NOT NULL,
	body		TEXT NOT NULL CHECK (json_valid(body)),
	created_at	INTEGER NOT NULL,
	attempts	INTEGER NOT NULL DEFAULT 0,
	next_attempt	INTEGER NOT NULL,
	delivered_at	INTEGER,
	last_error	TEXT
) STRICT;
-- the head of each (endpoint, machine) queue, and the counts per endpoint
CREATE INDEX webhook_pending ON webhook_outbox(endpoint_id, machine_id, seq)
	WHERE delivered_at IS NULL;
-- retention of what was delivered
CREATE INDEX webhook_delivered ON webhook_outbox(delivered_at)
	WHERE delivered_at IS NOT NULL;

-- The TNC recommendation of each state, for the message body. The
-- verifier rewrites it at start from its state table
-- (verifier/transition.c), the one place that decides it.
CREATE TABLE state_tnc (
	state		TEXT PRIMARY KEY,
	tnc		TEXT NOT NULL
) STRICT;
INSERT INTO state_tnc VALUES ('enrolling', 'no_recommendation'),
	('pending', 'no_recommendation'), ('trusted', 'allow'),
	('untrusted', 'isolate'), ('failed', 'no_access'),
	('stale', 'no_recommendation');

-- An event with a to_state is a state change (a new machine's "enrolled"
-- has no from_state). Queue it for every enabled endpoint, name the
-- message by its row, then keep each endpoint within max_pending by
-- dropping its oldest undelivered rows, counted in webhooks.dropped.
CREATE TRIGGER events_webhook AFTER INSERT ON events
WHEN NEW.to_state IS NOT NULL
BEGIN
	INSERT INTO webhook_outbox (endpoint_id, event_id, machine_id, body,
				    created_at, next_attempt)
	SELECT w.id, NEW.id, NEW.machine_id,
	       json_object('id', NULL, 'type', 'machine.state',
			   'machine', NEW.machine_id,
			   'from', NEW.from_state, 'to', NEW.to_state,
			   'tnc', (SELECT tnc FROM state_tnc
				   WHERE state = NEW.to_state),
			   'reason', json(NEW.reason), 'at', NEW.time,
			   'event', NEW.id),
	       NEW.time, NEW.time
	FROM webhooks w WHERE w.enabled = 1;
	UPDATE webhook_outbox SET body = json_set(body, '$.id',
		(SELECT name FROM webhooks WHERE id = endpoint_id) || '-' || seq)
	WHERE event_id = NEW.id AND delivered_at IS NULL
	      AND json_extract(body, '$.id') IS NULL;
	UPDATE webhooks SET dropped = dropped + (SELECT count(*)
		FROM webhook_outbox o WHERE o.endpoint_id = webhooks.id
		AND o.delivered_at IS NULL) - max_pending
	WHERE enabled = 1 AND (SELECT count(*) FROM webhook_outbox o
		WHERE o.endpoint_id = webhooks.id
		AND o.delivered_at IS NULL) > max_pending;
	DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM
		(SELECT o.seq, w.max_pending AS m, row_number() OVER
			(PARTITION BY o.endpoint_id ORDER BY o.seq DESC) AS r
		 FROM webhook_outbox o JOIN webhooks w ON w.id = o.endpoint_id
		 WHERE o.delivered_at IS NULL AND w.enabled = 1)
		WHERE r > m);
END;

PRAGMA user_version = 10;

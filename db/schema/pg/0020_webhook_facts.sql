-- 0020_webhook_facts.sql - as schema/0020_webhook_facts.sql: the triggers
-- queue a message's facts in columns (type, from_state, to_state, reason,
-- action, operator), the verifier builds its body at delivery; body stays
-- for the rows queued before, sent as stored; state_tnc goes (the state
-- table says). An identity never goes back, so seq needs no care here.
-- The trimming to max_pending and the NOTIFY stay in
-- webhook_outbox_queued.
ALTER TABLE webhook_outbox ALTER COLUMN body DROP NOT NULL;
ALTER TABLE webhook_outbox ADD COLUMN type text
	CHECK (type IN ('machine.state', 'machine.removed'));
ALTER TABLE webhook_outbox ADD COLUMN from_state text;
ALTER TABLE webhook_outbox ADD COLUMN to_state text;
ALTER TABLE webhook_outbox ADD COLUMN reason text;
ALTER TABLE webhook_outbox ADD COLUMN action text;
ALTER TABLE webhook_outbox ADD COLUMN operator text;
ALTER TABLE webhook_outbox ADD CHECK ((body IS NULL) <> (type IS NULL));

DROP TABLE state_tnc;

CREATE OR REPLACE FUNCTION events_webhook() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO webhook_outbox (endpoint_id, event_id, machine_id,
				    created_at, next_attempt, type,
				    from_state, to_state, reason)
	SELECT w.id, NEW.id, NEW.machine_id, NEW.time, NEW.time,
	       'machine.state', NEW.from_state, NEW.to_state, NEW.reason::text
	FROM webhooks w WHERE w.enabled = 1 ORDER BY w.id;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION audit_webhook() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO webhook_outbox (endpoint_id, event_id, machine_id,
				    created_at, next_attempt, type,
				    from_state, action, operator)
	SELECT w.id, -NEW.id, NEW.machine_id, NEW.time, NEW.time,
	       'machine.removed',
	       CASE NEW.action WHEN 'remove' THEN NEW.detail ->> 'state'
		    ELSE 'pending' END,
	       NEW.action, NEW.operator
	FROM webhooks w WHERE w.enabled = 1 ORDER BY w.id;
	RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION webhook_outbox_queued() RETURNS trigger
LANGUAGE plpgsql AS $$
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
		       AND o.delivered_at IS NULL) ranked
		WHERE r > (SELECT max_pending FROM webhooks
			   WHERE id = NEW.endpoint_id));
	PERFORM pg_notify('imatrust_webhook', NEW.endpoint_id::text);
	RETURN NULL;
END
$$;

UPDATE schema_version SET version = 20;

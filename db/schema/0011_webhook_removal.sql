-- 0011_webhook_removal.sql - a machine that goes away is a change its
-- receivers must hear of too (verifier/README.md "Webhooks").
--
-- Until 0010 only events queued messages, and removing a machine or
-- expiring a pending one writes no event (the machine's events go with
-- it): a network access controller kept allowing a machine the verifier
-- had forgotten. Both write an audit row in their own transaction, so a
-- trigger on audit queues "machine.removed" exactly as events queue
-- "machine.state": committed or rolled back with the removal.
--
-- Naming a message and keeping an endpoint within max_pending move to a
-- trigger on the outbox itself, so both kinds of message share them.

DROP TRIGGER events_webhook;

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
END;

-- An operator's removal (action "remove", detail.state the state it had;
-- null when only a pre-registration went, which no receiver heard of)
-- and the expiry of a pending machine. event_id is the audit row's id,
-- negated: the column never names one kind of row as the other.
CREATE TRIGGER audit_webhook AFTER INSERT ON audit
WHEN NEW.machine_id IS NOT NULL AND
     ((NEW.action = 'remove' AND
       json_extract(NEW.detail, '$.state') IS NOT NULL) OR
      NEW.action = 'pending-expired')
BEGIN
	INSERT INTO webhook_outbox (endpoint_id, event_id, machine_id, body,
				    created_at, next_attempt)
	SELECT w.id, -NEW.id, NEW.machine_id,
	       json_object('id', NULL, 'type', 'machine.removed',
			   'machine', NEW.machine_id,
			   'from', CASE NEW.action WHEN 'remove'
				   THEN json_extract(NEW.detail, '$.state')
				   ELSE 'pending' END,
			   'to', NULL, 'tnc', 'no_recommendation',
			   'reason', json_object('action', NEW.action,
						 'operator', NEW.operator),
			   'at', NEW.time, 'event', NULL, 'audit', NEW.id),
	       NEW.time, NEW.time
	FROM webhooks w WHERE w.enabled = 1;
END;

-- Every queued message: name it "<endpoint>-<seq>", then keep its
-- endpoint within max_pending by dropping the oldest undelivered rows,
-- counted in webhooks.dropped.
CREATE TRIGGER webhook_outbox_queued AFTER INSERT ON webhook_outbox
BEGIN
	UPDATE webhook_outbox SET body = json_set(body, '$.id',
		(SELECT name FROM webhooks WHERE id = NEW.endpoint_id) || '-' ||
		NEW.seq)
	WHERE seq = NEW.seq;
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

PRAGMA user_version = 11;

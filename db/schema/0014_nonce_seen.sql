-- 0014_nonce_seen.sql - when evidence last counted as seen, kept in the
-- machine's nonce row, so that a heartbeat writes one row.
--
-- Evidence consumes the machine's nonce and stores the next one in one
-- UPDATE of its nonce row (db_nonce_renew()); evidence that counts as
-- seen (proto/PROTOCOL.md) sets seen_at in that same UPDATE instead of
-- writing machines.last_seen, a second row. A machine's last seen time is
-- the later of machines.last_seen and its nonce's seen_at (db_machine.c
-- reads both). The stale clock folds seen_at into machines.last_seen for
-- machines it would otherwise examine (db_machine_seen_fold()), and a
-- nonce row that goes (retention, a purge) hands its seen_at on first.
ALTER TABLE nonces ADD COLUMN seen_at INTEGER;

CREATE TRIGGER nonces_seen_kept AFTER DELETE ON nonces
WHEN OLD.seen_at IS NOT NULL
BEGIN
	UPDATE machines SET last_seen = OLD.seen_at
	WHERE id = OLD.machine_id AND coalesce(last_seen, 0) < OLD.seen_at;
END;

-- The stale listing and the fold visit only machines whose own row is
-- older than the deadline: heartbeating machines leave that range once
-- folded, so a tick does not scan the fleet.
CREATE INDEX machines_silent ON machines(state, coalesce(last_seen, created_at));

PRAGMA user_version = 14;

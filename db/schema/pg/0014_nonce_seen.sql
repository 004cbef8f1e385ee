-- 0014_nonce_seen.sql - as schema/0014_nonce_seen.sql: when evidence last
-- counted as seen, in the machine's nonce row; a nonce row that goes
-- hands it on to machines.last_seen.
ALTER TABLE nonces ADD COLUMN seen_at bigint;

CREATE FUNCTION nonces_seen_kept() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE machines SET last_seen = OLD.seen_at
	WHERE id = OLD.machine_id AND coalesce(last_seen, 0) < OLD.seen_at;
	RETURN NULL;
END
$$;
CREATE TRIGGER nonces_seen_kept AFTER DELETE ON nonces
	FOR EACH ROW WHEN (OLD.seen_at IS NOT NULL)
	EXECUTE FUNCTION nonces_seen_kept();

-- the stale listing's range, as in SQLite
CREATE INDEX machines_silent ON machines (state, (coalesce(last_seen, created_at)));

UPDATE schema_version SET version = 14;

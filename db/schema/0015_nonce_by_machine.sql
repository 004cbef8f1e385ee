-- 0015_nonce_by_machine.sql - a machine's nonce row is found by its
-- machine, so that a heartbeat rewrites one page.
--
-- Until now the nonce value was the row's key, and two more indexes held
-- the machine and the expiry. Every renewal (db_nonce_renew()) changes
-- the value and the expiry: the row moved within its b-tree and both
-- indexes changed, at least 3 pages (3 WAL frames of 4 KiB) per
-- heartbeat. Keyed by the machine, with no other index, the renewal
-- rewrites its row where it is: one page.
--
-- Nothing looks a nonce up by its value alone any more: evidence names
-- its machine, and a nonce that is not that machine's is unknown to it.
-- The purge of used and expired nonces (db_retention.c) reads the whole
-- table, one row per machine, once per retention pass.
-- (the columns in their old order, as PostgreSQL's table keeps them)
CREATE TABLE nonces_by_machine (
	value		BLOB NOT NULL,
	machine_id	TEXT NOT NULL PRIMARY KEY
			REFERENCES machines(id) ON DELETE CASCADE,
	expires_at	INTEGER NOT NULL,
	used		INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1)),
	seen_at		INTEGER
) STRICT, WITHOUT ROWID;
INSERT INTO nonces_by_machine (value, machine_id, expires_at, used, seen_at)
	SELECT value, machine_id, expires_at, used, seen_at FROM nonces;
-- DROP TABLE drops the table's triggers before its rows: no row's
-- seen_at is handed on (it is kept above)
DROP TABLE nonces;
ALTER TABLE nonces_by_machine RENAME TO nonces;

CREATE TRIGGER nonces_seen_kept AFTER DELETE ON nonces
WHEN OLD.seen_at IS NOT NULL
BEGIN
	UPDATE machines SET last_seen = OLD.seen_at
	WHERE id = OLD.machine_id AND coalesce(last_seen, 0) < OLD.seen_at;
END;

PRAGMA user_version = 15;

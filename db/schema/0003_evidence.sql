-- 0003_evidence.sql - only the enrolled TPM changes a machine's state
-- (proto/DESIGN.md §4).
--
-- bank: the PCR bank of the machine's first verified quote; a later quote
-- of another bank is refused as failed (no downgrade to sha1 at will).
-- rejected_at: when evidence that did not verify (a stranger's, or a
-- replayed quote) was last written down as an event; such evidence
-- changes nothing, and is recorded at most once a minute per machine.
ALTER TABLE machines ADD COLUMN bank TEXT
	CHECK (bank IS NULL OR bank IN ('sha1', 'sha256'));
ALTER TABLE machines ADD COLUMN rejected_at INTEGER NOT NULL DEFAULT 0;

-- One outstanding nonce per machine: POST /nonce hands out the current
-- one while it is unused and unexpired, so a flood of nonce requests
-- writes at most one row per machine and nonce_ttl. Nonces issued before
-- this migration are void; agents ask again.
DELETE FROM nonces;
CREATE UNIQUE INDEX nonces_machine ON nonces(machine_id);

PRAGMA user_version = 3;

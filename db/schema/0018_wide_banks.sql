-- 0018_wide_banks.sql - quotes of the sha384 and sha512 banks (issue 34).
--
-- machines.bank may pin a machine to sha384 or sha512. SQLite cannot
-- change a CHECK in place: the table is rebuilt (foreign keys off, then
-- checked), its columns in their order, with its indexes.
--
-- boots.pcr10_sha384, pcr10_sha512: the running PCR 10 of those banks
-- after the boot's stored records, NULL when the boot's records were not
-- replayed in that bank. sha1 and sha256 are carried for every boot, as
-- before; a wide bank only from the boot's first quote in it, since
-- hashing every record in four banks would double the verifier's work
-- for the sha256 machines that never quote them. A quote of a wide bank
-- the boot does not carry, once records are stored, cannot be replayed
-- (verifier/attest.c says so); the next boot carries it.
-- imatrust-migration: foreign_keys off
-- (the one trigger naming machines goes while machines is away: SQLite's
-- RENAME refuses a schema with a trigger on a missing table)
DROP TRIGGER nonces_seen_kept;
CREATE TABLE machines_banks (
	id		TEXT PRIMARY KEY,
	ek_pub		BLOB NOT NULL,
	ek_cert		BLOB,
	ak_pub		BLOB NOT NULL,
	ak_name		BLOB NOT NULL,
	state		TEXT NOT NULL CHECK (state IN ('enrolling', 'pending',
			'trusted', 'untrusted', 'failed', 'stale')),
	state_reason	TEXT,
	created_at	INTEGER NOT NULL,
	last_seen	INTEGER,
	approved	INTEGER NOT NULL DEFAULT 0 CHECK (approved IN (0, 1)),
	activated	INTEGER NOT NULL DEFAULT 0 CHECK (activated IN (0, 1)),
	bank		TEXT CHECK (bank IS NULL OR bank IN ('sha1', 'sha256',
			'sha384', 'sha512')),
	rejected_at	INTEGER NOT NULL DEFAULT 0,
	ek_fpr		BLOB CHECK (ek_fpr IS NULL OR length(ek_fpr) = 32)
) STRICT;
INSERT INTO machines_banks (id, ek_pub, ek_cert, ak_pub, ak_name, state,
	state_reason, created_at, last_seen, approved, activated, bank,
	rejected_at, ek_fpr)
	SELECT id, ek_pub, ek_cert, ak_pub, ak_name, state, state_reason,
	created_at, last_seen, approved, activated, bank, rejected_at, ek_fpr
	FROM machines;
DROP TABLE machines;
ALTER TABLE machines_banks RENAME TO machines;
CREATE INDEX machines_state ON machines(state, last_seen);
CREATE UNIQUE INDEX machines_ek_fpr ON machines(ek_fpr);
CREATE INDEX machines_silent ON machines(state, coalesce(last_seen, created_at));
-- as 0015_nonce_by_machine.sql
CREATE TRIGGER nonces_seen_kept AFTER DELETE ON nonces
WHEN OLD.seen_at IS NOT NULL
BEGIN
	UPDATE machines SET last_seen = OLD.seen_at
	WHERE id = OLD.machine_id AND coalesce(last_seen, 0) < OLD.seen_at;
END;

ALTER TABLE boots ADD COLUMN pcr10_sha384 BLOB
	CHECK (pcr10_sha384 IS NULL OR length(pcr10_sha384) = 48);
ALTER TABLE boots ADD COLUMN pcr10_sha512 BLOB
	CHECK (pcr10_sha512 IS NULL OR length(pcr10_sha512) = 64);

PRAGMA user_version = 18;

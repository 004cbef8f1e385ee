-- 0017_record_chunks.sql - a boot's records are stored by the chunk: one
-- row holds up to 256 consecutive records, one letter per record for its
-- verdict and the rest packed in one body (db/db_record_chunk.h has the
-- format).
--
-- A row per record cost the verifier more than everything else it did
-- for a record: 2.5 us of the 5.9 us a stored record took was the row
-- insert, 1.2 us more the WAL pages the rows dirtied (proto/DESIGN.md
-- §6). A chunk is one row for a typical batch of evidence.
--
-- The letters: k known, u unknown, m mismatch, v violation, x excluded,
-- s signed, b bad-signature. A chunk with a u, m or b is in
-- record_chunks_rejudge, as such records were in records_rejudge: the
-- question "anything unaccepted?" reads that index alone.
CREATE TABLE record_chunks (
	boot_id		INTEGER NOT NULL,
	first_idx	INTEGER NOT NULL CHECK (first_idx >= 0),
	verdicts	TEXT NOT NULL CHECK (length(verdicts) BETWEEN 1 AND 256
			AND verdicts NOT GLOB '*[^kumvxsb]*'),
	body		BLOB NOT NULL,
	PRIMARY KEY (boot_id, first_idx)
) STRICT, WITHOUT ROWID;
CREATE INDEX record_chunks_rejudge ON record_chunks(boot_id, first_idx)
	WHERE verdicts GLOB '*[umb]*';

-- as boots_records_delete did (0016_records_unreferenced.sql)
DROP TRIGGER boots_records_delete;
CREATE TRIGGER boots_record_chunks_delete AFTER DELETE ON boots
BEGIN
	DELETE FROM record_chunks WHERE boot_id = OLD.id;
END;

-- The stored records move into chunks, by C (db_records_to_chunks()):
-- SQL cannot pack them on SQLite.
-- imatrust-migration: step records_to_chunks
DROP TABLE records;

PRAGMA user_version = 17;

-- 0016_records_unreferenced.sql - records lose their foreign key to
-- boots; a trigger deletes a boot's records with the boot instead.
--
-- The key checked every inserted record against boots. Nothing needs
-- that check: records are written by db_boot_advance() alone, in the
-- transaction that first moves the boot's row from the batch's start
-- (and refuses the batch when no row moved), so the boot exists and
-- stays locked until the records commit. On PostgreSQL the check is a
-- trigger per row, a query with a row lock: 1.6 to 1.9 times the
-- server's work per 50-record transaction (pgbench, proto/DESIGN.md §6).
-- What the key also did, ON DELETE CASCADE, the trigger below does: a
-- boot removed by retention or with its machine takes its records.
-- SQLite cannot drop a foreign key: the table is rebuilt.
CREATE TABLE records_new (
	boot_id		INTEGER NOT NULL,
	idx		INTEGER NOT NULL CHECK (idx >= 0),
	pcr		INTEGER NOT NULL,
	template	TEXT NOT NULL,
	path		TEXT NOT NULL,
	digest_algo	TEXT NOT NULL,
	digest		BLOB NOT NULL,
	-- comparisons, not IN (...): 0006_policies.sql
	verdict		TEXT NOT NULL CHECK (verdict = 'known' OR
			verdict = 'unknown' OR verdict = 'mismatch' OR
			verdict = 'violation' OR verdict = 'excluded' OR
			verdict = 'signed' OR verdict = 'bad-signature'),
	sig		BLOB,
	PRIMARY KEY (boot_id, idx)
) STRICT, WITHOUT ROWID;
INSERT INTO records_new (boot_id, idx, pcr, template, path, digest_algo,
			 digest, verdict, sig)
	SELECT boot_id, idx, pcr, template, path, digest_algo, digest,
	       verdict, sig
	FROM records;
DROP TABLE records;
ALTER TABLE records_new RENAME TO records;
CREATE INDEX records_rejudge ON records(boot_id, idx)
	WHERE verdict = 'unknown' OR verdict = 'mismatch' OR
	verdict = 'bad-signature';

-- also when the boot goes by its machine's ON DELETE CASCADE
CREATE TRIGGER boots_records_delete AFTER DELETE ON boots
BEGIN
	DELETE FROM records WHERE boot_id = OLD.id;
END;

PRAGMA user_version = 16;

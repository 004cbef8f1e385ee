-- 0004_rejudge.sql - re-judging stored records when references are
-- withdrawn, and imports stored in chunks.
--
-- A withdrawn reference may have vouched for records judged known. The
-- digests of withdrawn references are queued here by a trigger, in the
-- same transaction as the withdrawal, so a crash between the withdrawal
-- and the re-judge loses nothing: the next re-judge finds them still
-- queued. The re-judge that went over every machine after them empties
-- the queue.
CREATE TABLE rejudge_digests (
	algo		TEXT NOT NULL,
	value		BLOB NOT NULL,
	PRIMARY KEY (algo, value)
) STRICT, WITHOUT ROWID;

-- No index of known records by digest: every stored record would pay for
-- it (it halved the rate of stored evidence), and a withdrawal, which is
-- rare, reads each current boot once instead (db_record_list_known()).

-- A withdrawn reference queues its digest, then takes the path and the
-- digest with it when no other reference names them (this replaces the
-- sweeps over all files and digests a withdrawal did before).
CREATE TRIGGER refs_withdrawn AFTER DELETE ON refs
BEGIN
	INSERT OR IGNORE INTO rejudge_digests (algo, value)
		SELECT algo, value FROM digests WHERE id = OLD.digest_id;
	DELETE FROM files WHERE id = OLD.file_id AND NOT EXISTS
		(SELECT 1 FROM refs WHERE file_id = OLD.file_id);
	DELETE FROM digests WHERE id = OLD.digest_id AND NOT EXISTS
		(SELECT 1 FROM refs WHERE digest_id = OLD.digest_id);
END;

-- An import stored in chunks is one generation of its source: every
-- reference it states (again) carries the generation, and a replace
-- withdraws, after the last chunk, the source's references of older
-- generations. So a replace never leaves a gap: until it is complete,
-- the old references still vouch next to the new.
ALTER TABLE sources ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refs ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;
CREATE INDEX refs_source_generation ON refs(source_id, generation);
DROP INDEX refs_source;

PRAGMA user_version = 4;

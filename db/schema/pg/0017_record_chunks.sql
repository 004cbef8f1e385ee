-- 0017_record_chunks.sql - as schema/0017_record_chunks.sql: a boot's
-- records are stored by the chunk, up to 256 consecutive records in one
-- row, a verdict letter each and the rest packed in one body.
CREATE TABLE record_chunks (
	boot_id		bigint NOT NULL,
	first_idx	bigint NOT NULL CHECK (first_idx >= 0),
	verdicts	text NOT NULL CHECK (length(verdicts) BETWEEN 1 AND 256
			AND verdicts ~ '^[kumvxsb]+$'),
	body		bytea NOT NULL,
	PRIMARY KEY (boot_id, first_idx)
);
CREATE INDEX record_chunks_rejudge ON record_chunks(boot_id, first_idx)
	WHERE verdicts ~ '[umb]';

DROP TRIGGER boots_records_delete ON boots;
DROP FUNCTION boots_records_delete();
CREATE FUNCTION boots_record_chunks_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM record_chunks WHERE boot_id = OLD.id;
	RETURN NULL;
END
$$;
CREATE TRIGGER boots_record_chunks_delete AFTER DELETE ON boots
	FOR EACH ROW EXECUTE FUNCTION boots_record_chunks_delete();

-- imatrust-migration: step records_to_chunks
DROP TABLE records;

UPDATE schema_version SET version = 17;

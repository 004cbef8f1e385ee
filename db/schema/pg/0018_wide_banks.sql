-- 0018_wide_banks.sql - as schema/0018_wide_banks.sql: machines may be
-- pinned to sha384 or sha512, and a boot keeps its running PCR 10 of
-- those banks (NULL: not replayed in that bank).
ALTER TABLE machines DROP CONSTRAINT machines_bank_check;
ALTER TABLE machines ADD CONSTRAINT machines_bank_check
	CHECK (bank IS NULL OR bank IN ('sha1', 'sha256', 'sha384', 'sha512'));

ALTER TABLE boots ADD COLUMN pcr10_sha384 bytea
	CHECK (pcr10_sha384 IS NULL OR octet_length(pcr10_sha384) = 48);
ALTER TABLE boots ADD COLUMN pcr10_sha512 bytea
	CHECK (pcr10_sha512 IS NULL OR octet_length(pcr10_sha512) = 64);

UPDATE schema_version SET version = 18;

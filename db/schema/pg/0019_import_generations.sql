-- 0019_import_generations.sql - as schema/0019_import_generations.sql: an
-- import's references vouch once its last chunk committed (refs.since <=
-- sources.published), and a withdrawal hides the whole source or the
-- replaced generations at once (sources.withdrawn_below).
ALTER TABLE sources ADD COLUMN published bigint NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN withdrawn_below bigint NOT NULL DEFAULT 0;
ALTER TABLE refs ADD COLUMN since bigint NOT NULL DEFAULT 0;
UPDATE sources SET published = generation;

UPDATE schema_version SET version = 19;

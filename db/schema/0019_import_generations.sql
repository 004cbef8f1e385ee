-- 0019_import_generations.sql - an import or a withdrawal of references is
-- seen whole or not at all, across a crash (issue 33).
--
-- An import is stored in chunks (one transaction each, so evidence is
-- answered between them) as one generation of its source. Until its last
-- chunk commits, what it added must not vouch, and a crash must not leave
-- part of it looking like the whole:
--
-- refs.since: the generation of the import that first stated the row (0:
--   added on its own, or before this migration). A reference counts for
--   judging, listing and counting only when since <= its source's
--   published generation.
-- sources.published: the last generation whose import completed; an
--   import's last chunk sets it to the generation, in its transaction.
-- sources.withdrawn_below: references of an older generation are
--   withdrawn, though perhaps not deleted yet: a replace sets it to the
--   new generation when that is published, and withdrawing a whole source
--   to its generation + 1, in one transaction, before the rows are
--   deleted in chunks.
--
-- What an unfinished import added (since > published) and what a
-- withdrawal left (generation < withdrawn_below) is deleted when the
-- verifier starts (db_ref_recover()) and by the source's next import.
ALTER TABLE sources ADD COLUMN published INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sources ADD COLUMN withdrawn_below INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refs ADD COLUMN since INTEGER NOT NULL DEFAULT 0;
UPDATE sources SET published = generation;

PRAGMA user_version = 19;

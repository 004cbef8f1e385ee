-- 0012_history_gap.sql - a boot whose oldest records were deleted from
-- the machine's kernel before the verifier stored them (proto/PROTOCOL.md
-- "Deleted records"; verifier/README.md "History incomplete").
--
-- The kernel can delete its oldest measurement records; PCR 10 still
-- aggregates them. When evidence says its list starts at L (list_start)
-- past the verifier's next index S of the boot, records [S, L) are gone
-- for good: the boot goes on at L, replayed from the PCR 10 value the
-- agent sent for that point (history_anchor, of the quoted bank), and
-- the gap is kept so every judgement of the boot (evidence, re-judge)
-- names it. history_followed: the verifier had stored records of the
-- boot (S > 0) before the gap, which no honest agent causes.
-- NULL history_from: the boot's history is complete.
ALTER TABLE boots ADD COLUMN history_from INTEGER;
ALTER TABLE boots ADD COLUMN history_to INTEGER;
ALTER TABLE boots ADD COLUMN history_followed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE boots ADD COLUMN history_anchor BLOB;

PRAGMA user_version = 12;

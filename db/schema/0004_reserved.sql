-- 0004_reserved.sql - a placeholder on the re-judging branch only.
--
-- Another branch adds migration 4; migrations must be numbered without a
-- gap, so this stands in for it until the branches merge. At the merge,
-- DELETE THIS FILE (keep the other branch's 0004_*.sql) and run
-- db/gen-migrations.sh > db/migrations.c.

PRAGMA user_version = 4;

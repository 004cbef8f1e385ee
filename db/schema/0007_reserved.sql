-- 0007_reserved.sql - placeholder on branch w12-pe for the migration
-- another branch adds as 0007 (boot_logs); dropped when they merge.
PRAGMA user_version = 7;

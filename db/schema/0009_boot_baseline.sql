-- 0009_boot_baseline.sql - a machine's boot baseline: the firmware event
-- log its boots are compared with when its policy says
-- "baseline": "first-boot" (proto/DESIGN.md §12).
--
-- The first log a machine sends becomes its baseline (approved_by NULL:
-- taken on first use); an operator's approval replaces it with the
-- current boot's log and names who approved it. The bytes are the
-- machine's own copy: the boot they came from may be gone (retention).
CREATE TABLE boot_baselines (
	machine_id	TEXT PRIMARY KEY
			REFERENCES machines(id) ON DELETE CASCADE,
	log		BLOB NOT NULL,
	sha256		BLOB NOT NULL CHECK (length(sha256) = 32),
	set_at		INTEGER NOT NULL,
	approved_by	TEXT,
	approved_at	INTEGER
) STRICT;

PRAGMA user_version = 9;

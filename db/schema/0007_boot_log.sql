-- 0007_boot_log.sql - the firmware event log of a boot (TCG PC Client
-- crypto-agile, as the agent read binary_bios_measurements), so the
-- verifier can replay PCRs 0-9 of every quote of that boot against it.
--
-- One log per boot, stored once: the same bytes again are a no-op, other
-- bytes for the same boot are refused (the firmware log cannot change
-- within a boot). It goes with its boot (retention deletes boots).
CREATE TABLE boot_logs (
	boot_id		INTEGER PRIMARY KEY
			REFERENCES boots(id) ON DELETE CASCADE,
	log		BLOB NOT NULL,
	sha256		BLOB NOT NULL CHECK (length(sha256) = 32),
	received_at	INTEGER NOT NULL
);

PRAGMA user_version = 7;

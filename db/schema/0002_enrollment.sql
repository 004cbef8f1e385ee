-- 0002_enrollment.sql - credential activation (proto/DESIGN.md §3).
--
-- A machine is activated once its agent proved, by TPM2_ActivateCredential,
-- that one TPM holds both its EK and its AK. Until then the challenge's
-- secret waits here with the AK it was made for; a re-enrollment of a
-- known machine leaves machines.ak_pub (the proven AK) in force until the
-- new AK is proven too. The row goes away with the proof.

ALTER TABLE machines ADD COLUMN activated INTEGER NOT NULL DEFAULT 0
	CHECK (activated IN (0, 1));

CREATE TABLE challenges (
	machine_id	TEXT PRIMARY KEY
			REFERENCES machines(id) ON DELETE CASCADE,
	secret		BLOB NOT NULL
			CHECK (length(secret) BETWEEN 16 AND 64),
	ak_pub		BLOB NOT NULL,
	ak_name		BLOB NOT NULL,
	ek_chained	INTEGER NOT NULL CHECK (ek_chained IN (0, 1)),
	expires_at	INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

PRAGMA user_version = 2;

-- 0005_identity.sql - machine identities bound to EKs.
--
-- The EK fingerprint (ek_fpr) is the SHA-256 of the DER
-- SubjectPublicKeyInfo of the EK's public key: the key an EK certificate
-- certifies, whatever TPMT_PUBLIC template carried it. One EK has at most
-- one machine id (UNIQUE). SQL cannot compute it: the verifier fills it
-- for the machines of older databases at start, the first enrolled
-- (lowest rowid) keeping it when two ids share an EK.
--
-- Nothing of a machine exists before its TPM proved, by
-- TPM2_ActivateCredential, that it holds the EK: an enrollment only
-- leaves a row in enrollments, keyed by the digest of the proof it
-- expects, and the machine row is created (or its AK replaced) by the
-- activation.

ALTER TABLE machines ADD COLUMN ek_fpr BLOB
	CHECK (ek_fpr IS NULL OR length(ek_fpr) = 32);
CREATE UNIQUE INDEX machines_ek_fpr ON machines(ek_fpr);

-- What operators and the verifier did to identities. No foreign key: an
-- entry outlives the machine it names (a removal is written here).
-- operator is the token name, NULL for the verifier itself.
CREATE TABLE audit (
	id		INTEGER PRIMARY KEY,
	time		INTEGER NOT NULL,
	operator	TEXT,
	action		TEXT NOT NULL,
	machine_id	TEXT,
	ek_fpr		BLOB CHECK (ek_fpr IS NULL OR length(ek_fpr) = 32),
	detail		TEXT CHECK (detail IS NULL OR json_valid(detail))
) STRICT;
CREATE INDEX audit_machine ON audit(machine_id, id);

-- Machines that never proved a TPM were made by POST /v1/agents before
-- this schema: they squat their ids. Free them, with an audit entry.
INSERT INTO audit (time, operator, action, machine_id, detail)
	SELECT CAST(strftime('%s', 'now') AS INTEGER), NULL,
		'migration-removed', id,
		json_object('state', state, 'why', 'never activated')
	FROM machines m WHERE activated = 0 AND NOT EXISTS
		(SELECT 1 FROM boots b WHERE b.machine_id = m.id);
DELETE FROM machines WHERE activated = 0 AND NOT EXISTS
	(SELECT 1 FROM boots b WHERE b.machine_id = machines.id);

-- Open challenges move to enrollments: several per id may be open (a
-- stranger's cannot cancel the real agent's). The old ones are void.
DROP TABLE challenges;

-- An open credential challenge. machine_id is the id asked for, not a
-- reference: no machine exists for it yet, or the known one keeps its
-- proven AK until this proof arrives. proof_hash is SHA-256 of the
-- expected proof HMAC-SHA256(secret, machine_id).
CREATE TABLE enrollments (
	id		INTEGER PRIMARY KEY,
	proof_hash	BLOB NOT NULL UNIQUE CHECK (length(proof_hash) = 32),
	machine_id	TEXT NOT NULL,
	ek_fpr		BLOB NOT NULL CHECK (length(ek_fpr) = 32),
	ek_pub		BLOB NOT NULL,
	ek_cert		BLOB,
	ek_chained	INTEGER NOT NULL CHECK (ek_chained IN (0, 1)),
	ak_pub		BLOB NOT NULL,
	ak_name		BLOB NOT NULL,
	secret		BLOB NOT NULL
			CHECK (length(secret) BETWEEN 16 AND 64),
	created_at	INTEGER NOT NULL,
	expires_at	INTEGER NOT NULL
) STRICT;
CREATE INDEX enrollments_ek ON enrollments(ek_fpr);
CREATE INDEX enrollments_machine ON enrollments(machine_id);
CREATE INDEX enrollments_expiry ON enrollments(expires_at);

-- Pre-registration (imatrust machine add ID --ek FPR): the id can only
-- be taken by that EK, and under enroll = registered only such pairs
-- are admitted.
CREATE TABLE registrations (
	machine_id	TEXT PRIMARY KEY,
	ek_fpr		BLOB NOT NULL UNIQUE CHECK (length(ek_fpr) = 32),
	operator	TEXT NOT NULL,
	created_at	INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

PRAGMA user_version = 5;

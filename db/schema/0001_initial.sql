-- 0001_initial.sql - the first imatrust verifier schema.
--
-- Times are seconds since the epoch (UTC) supplied by the caller; digests,
-- keys and PCR values are raw bytes (BLOB), never hex. Every table is
-- STRICT so a wrong type is an error instead of a silent conversion.

PRAGMA application_id = 1768776052;	-- "imat"

-- Reference digests: what an import (a directory tree, a Debian package, a
-- golden machine's list, a Keylime runtime policy) says a path may hash to.
CREATE TABLE sources (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL CHECK (kind IN
			('dir-tree', 'deb', 'golden-list', 'keylime')),
	name		TEXT NOT NULL,
	imported_at	INTEGER NOT NULL,
	UNIQUE (kind, name)
) STRICT;

CREATE TABLE files (
	id		INTEGER PRIMARY KEY,
	path		TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE digests (
	id		INTEGER PRIMARY KEY,
	algo		TEXT NOT NULL,
	value		BLOB NOT NULL,
	UNIQUE (algo, value)
) STRICT;

-- One row per (path, digest, source): a pair vouched for by two imports
-- has two rows, so deleting one import leaves the other's word standing.
CREATE TABLE refs (
	id		INTEGER PRIMARY KEY,
	file_id		INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
	digest_id	INTEGER NOT NULL
			REFERENCES digests(id) ON DELETE CASCADE,
	source_id	INTEGER NOT NULL
			REFERENCES sources(id) ON DELETE CASCADE,
	UNIQUE (file_id, digest_id, source_id)
) STRICT;
CREATE INDEX refs_digest ON refs(digest_id);
CREATE INDEX refs_source ON refs(source_id);

-- Machines, keyed by the id their agent chose at enrollment.
CREATE TABLE machines (
	id		TEXT PRIMARY KEY,
	ek_pub		BLOB NOT NULL,
	ek_cert		BLOB,
	ak_pub		BLOB NOT NULL,
	ak_name		BLOB NOT NULL,
	state		TEXT NOT NULL CHECK (state IN ('enrolling', 'pending',
			'trusted', 'untrusted', 'failed', 'stale')),
	state_reason	TEXT,
	created_at	INTEGER NOT NULL,
	last_seen	INTEGER,
	approved	INTEGER NOT NULL DEFAULT 0 CHECK (approved IN (0, 1))
) STRICT;
CREATE INDEX machines_state ON machines(state, last_seen);

-- One row per TPM boot (resetCount, restartCount from the quote's
-- clockInfo). next_record_index and the running PCR 10 values describe
-- the state after the records stored for this boot; they change only
-- together with those records.
CREATE TABLE boots (
	id		INTEGER PRIMARY KEY,
	machine_id	TEXT NOT NULL REFERENCES machines(id) ON DELETE CASCADE,
	reset_count	INTEGER NOT NULL CHECK (reset_count >= 0),
	restart_count	INTEGER NOT NULL CHECK (restart_count >= 0),
	started_at	INTEGER NOT NULL,
	next_record_index INTEGER NOT NULL DEFAULT 0
			CHECK (next_record_index >= 0),
	pcr10_sha1	BLOB NOT NULL CHECK (length(pcr10_sha1) = 20),
	pcr10_sha256	BLOB NOT NULL CHECK (length(pcr10_sha256) = 32),
	boot_aggregate	BLOB
) STRICT;
CREATE INDEX boots_machine ON boots(machine_id, id);

-- The measurement records of a boot, in list order, with their verdict.
CREATE TABLE records (
	boot_id		INTEGER NOT NULL REFERENCES boots(id) ON DELETE CASCADE,
	idx		INTEGER NOT NULL CHECK (idx >= 0),
	pcr		INTEGER NOT NULL,
	template	TEXT NOT NULL,
	path		TEXT NOT NULL,
	digest_algo	TEXT NOT NULL,
	digest		BLOB NOT NULL,
	verdict		TEXT NOT NULL CHECK (verdict IN ('known', 'unknown',
			'mismatch', 'violation', 'excluded')),
	PRIMARY KEY (boot_id, idx)
) STRICT, WITHOUT ROWID;
-- Only the records an added reference could change are indexed.
CREATE INDEX records_rejudge ON records(boot_id, idx)
	WHERE verdict IN ('unknown', 'mismatch');

-- What happened to a machine, oldest first. boot_id is the boot that was
-- current when the event was written (NULL before the first quote).
CREATE TABLE events (
	id		INTEGER PRIMARY KEY,
	machine_id	TEXT NOT NULL REFERENCES machines(id) ON DELETE CASCADE,
	boot_id		INTEGER REFERENCES boots(id) ON DELETE CASCADE,
	time		INTEGER NOT NULL,
	kind		TEXT NOT NULL,
	from_state	TEXT,
	to_state	TEXT,
	reason		TEXT CHECK (reason IS NULL OR json_valid(reason))
) STRICT;
CREATE INDEX events_machine ON events(machine_id, id);
CREATE INDEX events_boot ON events(boot_id);

-- Quote nonces: single use, bound to one machine, valid while
-- now < expires_at.
CREATE TABLE nonces (
	value		BLOB PRIMARY KEY,
	machine_id	TEXT NOT NULL REFERENCES machines(id) ON DELETE CASCADE,
	expires_at	INTEGER NOT NULL,
	used		INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1))
) STRICT, WITHOUT ROWID;
CREATE INDEX nonces_expiry ON nonces(expires_at);

-- Operator bearer tokens: only the SHA-256 of the token is kept.
CREATE TABLE tokens (
	name		TEXT PRIMARY KEY,
	hash		BLOB NOT NULL CHECK (length(hash) = 32),
	created_at	INTEGER NOT NULL
) STRICT;

PRAGMA user_version = 1;

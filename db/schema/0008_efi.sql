-- 0008_efi.sql - EFI applications as references: sources of kind 'efi'
-- (imatrust ref import-efi) hold the Authenticode digests of boot
-- loaders, kernels and UKIs, by file name, in efi_digests. They are apart
-- from refs: firmware measures an image hash, not a file hash of a path,
-- so an IMA record can never be "known" through them.
--
-- sources is rebuilt to widen its kind CHECK, which SQLite cannot alter
-- (its twelve-step procedure). The marker below makes db.c run this with
-- foreign keys off, so dropping the old table cascades nowhere, and check
-- them before the commit; refs, keys and source_rules keep their source
-- ids, which are copied unchanged.
-- imatrust-migration: foreign_keys off
CREATE TABLE sources_new (
	id		INTEGER PRIMARY KEY,
	kind		TEXT NOT NULL CHECK (kind IN
			('dir-tree', 'deb', 'golden-list', 'keylime', 'efi')),
	name		TEXT NOT NULL,
	imported_at	INTEGER NOT NULL,
	generation	INTEGER NOT NULL DEFAULT 0,
	package		TEXT,
	version		TEXT,
	arch		TEXT,
	content_sha256	BLOB,
	retire_at	INTEGER,
	UNIQUE (kind, name)
) STRICT;
INSERT INTO sources_new (id, kind, name, imported_at, generation, package,
			 version, arch, content_sha256, retire_at)
	SELECT id, kind, name, imported_at, generation, package, version,
	       arch, content_sha256, retire_at FROM sources;
DROP TABLE sources;
ALTER TABLE sources_new RENAME TO sources;
CREATE INDEX sources_package ON sources(package, arch) WHERE package IS NOT NULL;
CREATE INDEX sources_retire ON sources(retire_at) WHERE retire_at IS NOT NULL;

-- One digest of one EFI file of an 'efi' source, per bank algorithm.
CREATE TABLE efi_digests (
	source_id	INTEGER NOT NULL REFERENCES sources(id)
			ON DELETE CASCADE,
	algo		TEXT NOT NULL,
	digest		BLOB NOT NULL,
	file_name	TEXT NOT NULL,
	PRIMARY KEY (source_id, algo, digest)
) STRICT, WITHOUT ROWID;
CREATE INDEX efi_digests_digest ON efi_digests(algo, digest);

PRAGMA user_version = 8;

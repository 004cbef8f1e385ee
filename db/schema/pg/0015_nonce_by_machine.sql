-- 0015_nonce_by_machine.sql - as schema/0015_nonce_by_machine.sql: a
-- machine's nonce row is keyed by its machine, and no index holds the
-- value or the expiry. A renewal then changes no indexed column, so
-- PostgreSQL makes it a heap-only (HOT) update: no index entry is
-- written, and the fill factor leaves room on the page for the new row
-- version.
ALTER TABLE nonces DROP CONSTRAINT nonces_pkey;
DROP INDEX nonces_machine;
DROP INDEX nonces_expiry;
ALTER TABLE nonces ADD PRIMARY KEY (machine_id);
ALTER TABLE nonces SET (fillfactor = 70);

UPDATE schema_version SET version = 15;

-- 0013_reference_epoch.sql - a value that changes with every write to
-- what a reference lookup reads (db/db_ref_cache.c).
--
-- The verifier keeps the classes of recent reference lookups in memory.
-- A lookup's class depends on refs, sources and policy_selectors (files
-- and digests only name what refs point at). Every write to those three
-- tables, by this verifier, another one or the command line, sets
-- reference_epoch.value to a new random number in the same transaction,
-- so a reader's snapshot holds the epoch of exactly the references it
-- sees. A reader that finds another value than its cache was filled
-- under empties the cache. Random rather than counted: a write that is
-- rolled back must not leave a value that a later write could repeat.
CREATE TABLE reference_epoch (
	id		INTEGER PRIMARY KEY CHECK (id = 1),
	value		INTEGER NOT NULL
);
INSERT INTO reference_epoch VALUES (1, 0);

CREATE TRIGGER refs_epoch_insert AFTER INSERT ON refs
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER refs_epoch_update AFTER UPDATE ON refs
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER refs_epoch_delete AFTER DELETE ON refs
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER sources_epoch_insert AFTER INSERT ON sources
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER sources_epoch_update AFTER UPDATE ON sources
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER sources_epoch_delete AFTER DELETE ON sources
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER policy_selectors_epoch_insert AFTER INSERT ON policy_selectors
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER policy_selectors_epoch_update AFTER UPDATE ON policy_selectors
BEGIN UPDATE reference_epoch SET value = random(); END;
CREATE TRIGGER policy_selectors_epoch_delete AFTER DELETE ON policy_selectors
BEGIN UPDATE reference_epoch SET value = random(); END;

PRAGMA user_version = 13;

-- 0013_reference_epoch.sql - as schema/0013_reference_epoch.sql: a value
-- that changes with every write to refs, sources or policy_selectors.
--
-- Here the value is the writing transaction's id, set once per
-- transaction: after the first statement the row holds our own id and
-- the WHERE leaves it alone. A row updated once per inserted reference
-- would pile up a dead version per row until the import commits. The id
-- of a transaction that rolls back is never reused, as SQLite's random
-- value is not repeated.
CREATE TABLE reference_epoch (
	id		bigint PRIMARY KEY CHECK (id = 1),
	value		bigint NOT NULL
);
INSERT INTO reference_epoch VALUES (1, 0);

CREATE FUNCTION reference_epoch_bump() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	UPDATE reference_epoch SET value = txid_current()
		WHERE value <> txid_current();
	RETURN NULL;
END
$$;
CREATE TRIGGER refs_epoch_insert AFTER INSERT ON refs
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER refs_epoch_update AFTER UPDATE ON refs
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER refs_epoch_delete AFTER DELETE ON refs
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER sources_epoch_insert AFTER INSERT ON sources
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER sources_epoch_update AFTER UPDATE ON sources
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER sources_epoch_delete AFTER DELETE ON sources
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER policy_selectors_epoch_insert AFTER INSERT ON policy_selectors
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER policy_selectors_epoch_update AFTER UPDATE ON policy_selectors
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();
CREATE TRIGGER policy_selectors_epoch_delete AFTER DELETE ON policy_selectors
	FOR EACH STATEMENT EXECUTE FUNCTION reference_epoch_bump();

UPDATE schema_version SET version = 13;

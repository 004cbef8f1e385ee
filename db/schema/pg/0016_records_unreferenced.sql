-- 0016_records_unreferenced.sql - as schema/0016_records_unreferenced.sql:
-- records lose their foreign key to boots, whose RI trigger ran a query
-- with a row lock for every inserted record; a trigger on boots deletes
-- a boot's records with it, as ON DELETE CASCADE did.
ALTER TABLE records DROP CONSTRAINT records_boot_id_fkey;

CREATE FUNCTION boots_records_delete() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM records WHERE boot_id = OLD.id;
	RETURN NULL;
END
$$;
CREATE TRIGGER boots_records_delete AFTER DELETE ON boots
	FOR EACH ROW EXECUTE FUNCTION boots_records_delete();

UPDATE schema_version SET version = 16;

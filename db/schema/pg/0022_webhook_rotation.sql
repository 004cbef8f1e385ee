-- 0022_webhook_rotation.sql - as schema/0022_webhook_rotation.sql: the
-- previous secret of a webhook endpoint and its key id, kept while a
-- rotation is under way (both secrets sign).
ALTER TABLE webhooks ADD COLUMN secret_previous bytea
	CHECK (secret_previous IS NULL OR
	       octet_length(secret_previous) BETWEEN 24 AND 64);
ALTER TABLE webhooks ADD COLUMN key_id_previous text;

UPDATE schema_version SET version = 22;

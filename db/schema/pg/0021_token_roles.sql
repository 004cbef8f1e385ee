-- 0021_token_roles.sql - as schema/0021_token_roles.sql: a token's role
-- (existing tokens become admin), its expiry and its last use, and the
-- role beside the operator's name in the audit.
ALTER TABLE tokens ADD COLUMN role text NOT NULL DEFAULT 'admin'
	CHECK (role IN ('reader', 'operator', 'admin'));
ALTER TABLE tokens ADD COLUMN expires_at bigint;
ALTER TABLE tokens ADD COLUMN last_used bigint;
ALTER TABLE audit ADD COLUMN role text
	CHECK (role IS NULL OR role IN ('reader', 'operator', 'admin'));

UPDATE schema_version SET version = 21;

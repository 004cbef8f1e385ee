-- 0021_token_roles.sql - scoped, expiring operator tokens (issue 36).
--
-- tokens.role: what the token may do. reader: GET (and the one-shot
--   POST /v1/verify, which stores nothing); operator: besides, the
--   references, policies, approvals, removals and imports; admin:
--   besides, keys and webhooks. Which role each route needs is one
--   column of the route table (verifier/api/routes.c). The tokens made
--   before this migration could do everything, so they become admin:
--   nothing an operator did stops working.
-- tokens.expires_at: the second from which the token is refused (401);
--   NULL: never.
-- tokens.last_used: when the token last passed a check, to the minute
--   (the verifier writes it at most once a minute a token); NULL: never.
-- audit.role: the role of the token whose name is audit.operator when
--   the change was made; NULL for the verifier's own entries and the
--   entries written before this migration.
ALTER TABLE tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'admin'
	CHECK (role IN ('reader', 'operator', 'admin'));
ALTER TABLE tokens ADD COLUMN expires_at INTEGER;
ALTER TABLE tokens ADD COLUMN last_used INTEGER;
ALTER TABLE audit ADD COLUMN role TEXT
	CHECK (role IS NULL OR role IN ('reader', 'operator', 'admin'));

PRAGMA user_version = 21;

-- 0022_webhook_rotation.sql - a webhook endpoint's secret rotated
-- without a gap (issue 36).
--
-- webhooks.secret_previous, key_id_previous: the secret (and its key
--   id) a rotation replaced, kept until the rotation is finished: while
--   it is set, every message carries two signatures (the current
--   secret's, then this one's) in webhook-signature, so a receiver still
--   holding the old secret and one already holding the new one both
--   accept it. NULL: no rotation under way, one signature.
ALTER TABLE webhooks ADD COLUMN secret_previous BLOB
	CHECK (secret_previous IS NULL OR
	       length(secret_previous) BETWEEN 24 AND 64);
ALTER TABLE webhooks ADD COLUMN key_id_previous TEXT;

PRAGMA user_version = 22;

-- Second factors (package auth): one per user; the TOTP seed inside data
-- is sealed, the recovery codes are digests.
CREATE TABLE auth_mfa (
	user_id text PRIMARY KEY,
	data    jsonb NOT NULL
);

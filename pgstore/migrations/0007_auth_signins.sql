-- Sign-ins in progress (package auth): single sign-on's state while the
-- browser is at the identity provider, so that any instance finishes a
-- sign-in another one began. The key is a digest, data is sealed.
CREATE TABLE auth_signins (
	digest     bytea PRIMARY KEY,
	expires_at timestamptz NOT NULL,
	data       jsonb NOT NULL
);
CREATE INDEX auth_signins_expiry ON auth_signins (expires_at);

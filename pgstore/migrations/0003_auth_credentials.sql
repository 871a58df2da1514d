-- A user's one credential per account is package auth's rule (it removes
-- the previous credential when it stores a new one): the table only
-- indexes the credentials of a user.
ALTER TABLE auth_service_credentials DROP CONSTRAINT auth_service_credentials_account_id_user_id_key;
CREATE INDEX auth_service_credentials_user ON auth_service_credentials (account_id, user_id);

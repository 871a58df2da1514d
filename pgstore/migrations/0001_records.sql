-- Records of every scoping type: attributes and relationships as JSONB,
-- timestamps as TimeFormat text (they sort as times do). Ids are numbered
-- per type by one sequence each (created at open), so ids the store gives
-- are unique across accounts; a record given an explicit id may share it
-- with its counterpart in another account (a user's membership records).
CREATE TABLE records (
	type       text   NOT NULL,
	account_id text   NOT NULL,
	id         bigint NOT NULL,
	attrs      jsonb  NOT NULL DEFAULT '{}',
	rels       jsonb  NOT NULL DEFAULT '{}',
	created_at text   NOT NULL,
	updated_at text   NOT NULL,
	PRIMARY KEY (type, account_id, id)
);

-- sk_text is the canonical text of an attribute value, as the engine
-- matches it (scoping.Record.FieldValues): strings, numbers and booleans
-- as their JSON text, arrays as their scalar elements joined by commas,
-- objects and nulls as no value.
CREATE FUNCTION sk_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE jsonb_typeof(v)
		WHEN 'string' THEN v #>> '{}'
		WHEN 'number' THEN v #>> '{}'
		WHEN 'boolean' THEN v #>> '{}'
		WHEN 'array' THEN coalesce((SELECT string_agg(e #>> '{}', ',' ORDER BY i)
			FROM jsonb_array_elements(v) WITH ORDINALITY AS x(e, i)
			WHERE jsonb_typeof(e) IN ('string', 'number', 'boolean')), '')
	END
$$;

-- sk_num is a text as a number for numeric sorts; NULL when it is not one.
CREATE FUNCTION sk_num(t text) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT CASE WHEN t ~ '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]{1,4})?$' THEN t::numeric END
$$;

-- The webhook outbox in due order: Due claims from the front of it.
CREATE INDEX records_due ON records (((attrs ->> 'next-attempt-at') COLLATE "C"), id)
	WHERE type = 'webhook-deliveries';

-- The auth store: clients, password hashes, tokens and codes, secrets as
-- digests only (package auth hashes them before they reach a store).
CREATE TABLE auth_applications (
	client_id  text PRIMARY KEY,
	account_id text  NOT NULL,
	data       jsonb NOT NULL
);
CREATE TABLE auth_service_credentials (
	client_id  text PRIMARY KEY,
	account_id text  NOT NULL,
	user_id    text  NOT NULL,
	data       jsonb NOT NULL,
	UNIQUE (account_id, user_id)
);
CREATE TABLE auth_passwords (
	user_id text PRIMARY KEY,
	hash    bytea NOT NULL
);
CREATE TABLE auth_tokens (
	digest bytea PRIMARY KEY,
	data   jsonb NOT NULL
);
CREATE TABLE auth_codes (
	digest     bytea PRIMARY KEY,
	expires_at timestamptz NOT NULL,
	data       jsonb NOT NULL
);
CREATE INDEX auth_codes_expiry ON auth_codes (expires_at);

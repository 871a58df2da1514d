-- Records are partitioned by type. With every type's indexes on one
-- table, each insert or update opened, locked and checked the partial
-- indexes of every type (hundreds) and planning a query weighed them all;
-- now a write touches its own type's indexes and a query, which names its
-- type, reads one partition. The server creates the partition of each
-- declared type at start (with its indexes); records of types not
-- declared live in records_default. Partition names are 'records:' and
-- the type (its md5 when that is too long for an identifier).
ALTER TABLE records RENAME TO records_old;
ALTER TABLE records_old RENAME CONSTRAINT records_pkey TO records_old_pkey;
DROP INDEX IF EXISTS records_due;

CREATE TABLE records (
	type       text   NOT NULL,
	account_id text   NOT NULL,
	id         bigint NOT NULL,
	attrs      jsonb  NOT NULL DEFAULT '{}',
	rels       jsonb  NOT NULL DEFAULT '{}',
	created_at text   NOT NULL,
	updated_at text   NOT NULL,
	PRIMARY KEY (type, account_id, id)
) PARTITION BY LIST (type);
CREATE TABLE records_default PARTITION OF records DEFAULT;

DO $$ DECLARE t text; BEGIN
	FOR t IN SELECT DISTINCT type FROM records_old LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF records FOR VALUES IN (%L)',
			CASE WHEN octet_length(t) <= 54 THEN 'records:' || t ELSE 'records:' || md5(t) END, t);
	END LOOP;
END $$;

INSERT INTO records SELECT type, account_id, id, attrs, rels, created_at, updated_at FROM records_old;
DROP TABLE records_old;

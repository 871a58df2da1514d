-- sk_text as an expression PostgreSQL inlines into the queries that use
-- it: a SQL function holding a sub-select is not inlined, and is parsed
-- and planned again at every execution of a query that calls it (most of
-- the cost of a list). Only arrays now call a function of their own. The
-- results are the same, so the indexes on sk_text stay valid. The helper
-- is named with its schema, which the maintenance commands of newer
-- servers do not have on their search path.
CREATE FUNCTION sk_array_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT coalesce((SELECT string_agg(e #>> '{}', ',' ORDER BY i)
		FROM jsonb_array_elements(v) WITH ORDINALITY AS x(e, i)
		WHERE jsonb_typeof(e) IN ('string', 'number', 'boolean')), '')
$$;

DO $do$ BEGIN
	EXECUTE format($f$
		CREATE OR REPLACE FUNCTION sk_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
			SELECT CASE jsonb_typeof(v)
				WHEN 'string' THEN v #>> '{}'
				WHEN 'number' THEN v #>> '{}'
				WHEN 'boolean' THEN v #>> '{}'
				WHEN 'array' THEN %I.sk_array_text(v)
			END
		$$
	$f$, current_schema());
END $do$;

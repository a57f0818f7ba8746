-- Are two user_features Gold tables equal, row for row? ${a} and ${b}: the tables' folders (the
-- project's lakehouse table, DuckDB's output). Prints the rows of each missing from the other
-- and both row counts; bench/run.sh fails when the first two are not 0.
SET TimeZone = 'UTC';
CREATE MACRO gold(dir) AS TABLE
SELECT user_id, CAST(last_event_timestamp AS TIMESTAMP) AS last_event_timestamp, last_event_type,
       click_count, purchase_count, view_count, add_to_cart_count, event_count,
       CAST(first_event_timestamp AS TIMESTAMP) AS first_event_timestamp, days_since_last_event,
       last_feature_hash, CAST(as_of_date AS VARCHAR) AS as_of_date
FROM read_parquet(dir || '/**/*.parquet', hive_partitioning = true, union_by_name = true);
SELECT (SELECT count(*) FROM (FROM gold('${a}') EXCEPT ALL FROM gold('${b}'))) AS only_in_a,
       (SELECT count(*) FROM (FROM gold('${b}') EXCEPT ALL FROM gold('${a}'))) AS only_in_b,
       (SELECT count(*) FROM gold('${a}')) AS rows_a,
       (SELECT count(*) FROM gold('${b}')) AS rows_b;

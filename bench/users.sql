-- The benchmark's anchor: the batch user-features pipeline's three tables done by hand in DuckDB,
-- from the rules in the README (not from the Java code). Run by bench/run.sh through RunSql:
--   ${input}    NDJSON file(s) (a glob)        ${out}  an empty folder for the tables
--   ${threads}  DuckDB's worker threads
-- Bronze keeps every JSON-object line with its file, line number and ingest time; other lines are
-- Bronze dead letters. Silver checks the keys (user_id, event_type: non-blank strings;
-- event_timestamp: ISO-8601 with Z or an offset, or epoch milliseconds; at most 30 days after
-- ingest), quarantines the rest with a reason, and keeps the first copy (ingest time, file, line)
-- of each (user_id, instant). Gold: one row per user as of the latest event date, with the SHA-256
-- feature hash. Every table is written as Parquet partitioned like the project's.
-- Known differences from the project: a blank line is skipped by DuckDB's reader (the project
-- keeps it as an empty_line dead letter), and a JSON object with a repeated key is accepted.
SET threads = ${threads};
SET preserve_insertion_order = false;
CREATE TABLE run AS SELECT epoch_ms(now()) AS ingest_ms;

CREATE TABLE lines AS
SELECT filename AS source_file, ordinality AS ord, raw_line
FROM read_csv('${input}', columns = {'raw_line': 'VARCHAR'}, header = false, delim = chr(1),
              quote = '', escape = '', filename = true, auto_detect = false) WITH ORDINALITY;

-- Bronze: the raw line kept verbatim, the key fields typed where they are of the right type.
CREATE TABLE bronze AS
WITH objects AS (
  SELECT source_file, ord - min(ord) OVER (PARTITION BY source_file) + 1 AS line_number, raw_line,
         json_extract(raw_line, ['$.event_id', '$.user_id', '$.event_type', '$.event_timestamp',
                                 '$.session_id', '$.product_id', '$.price', '$.device',
                                 '$.country']) AS f
  FROM lines
  WHERE CASE WHEN json_valid(raw_line) THEN json_type(raw_line) = 'OBJECT' ELSE false END
), typed AS (
  SELECT *,
    CASE json_type(f[4])
      WHEN 'UBIGINT' THEN (f[4] ->> '$')::BIGINT
      WHEN 'BIGINT' THEN (f[4] ->> '$')::BIGINT
      WHEN 'VARCHAR' THEN CASE WHEN regexp_full_match(f[4] ->> '$',
          '\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})')
        THEN epoch_ms(try_cast(f[4] ->> '$' AS TIMESTAMPTZ)) END
    END AS ts_ms
  FROM objects
)
SELECT
  CASE WHEN json_type(f[2]) = 'VARCHAR' THEN f[2] ->> '$' END AS user_id,
  CASE WHEN json_type(f[3]) = 'VARCHAR' THEN f[3] ->> '$' END AS event_type,
  CASE WHEN ts_ms >= 0 AND ts_ms < 253402300800000 THEN make_timestamp(ts_ms * 1000) END
    AS event_timestamp,
  raw_line,
  'file:' || source_file || '#' || line_number AS source,
  source_file,
  line_number,
  make_timestamp(ingest_ms * 1000) AS ingest_ts,
  strftime(make_timestamp(ingest_ms * 1000), '%Y-%m-%d') AS ingest_date,
  CASE WHEN json_type(f[1]) = 'VARCHAR' THEN f[1] ->> '$' END AS event_id,
  CASE WHEN json_type(f[5]) = 'VARCHAR' THEN f[5] ->> '$' END AS session_id,
  CASE WHEN json_type(f[6]) = 'VARCHAR' THEN f[6] ->> '$' END AS product_id,
  CASE WHEN json_type(f[7]) IN ('DOUBLE', 'BIGINT', 'UBIGINT') THEN (f[7] ->> '$')::DOUBLE END
    AS price,
  CASE WHEN json_type(f[7]) NOT IN ('DOUBLE', 'BIGINT', 'UBIGINT', 'NULL') THEN 'price' END
    AS invalid_fields,
  CASE WHEN json_type(f[8]) = 'VARCHAR' THEN f[8] ->> '$' END AS device,
  CASE WHEN json_type(f[9]) = 'VARCHAR' THEN f[9] ->> '$' END AS country
FROM typed, run;

CREATE TABLE dead AS
SELECT 'bronze' AS stage, 'not_json' AS reason, raw_line AS original_payload,
       'file:' || source_file || '#' || (ord - min(ord) OVER (PARTITION BY source_file) + 1)
         AS source
FROM lines
WHERE NOT CASE WHEN json_valid(raw_line) THEN json_type(raw_line) = 'OBJECT' ELSE false END;

-- Silver: key checks (quarantine with the first failing key's reason), then the first copy.
CREATE TABLE checked AS
SELECT *,
  CASE
    WHEN user_id IS NULL OR trim(user_id) = '' THEN 'missing_user_id'
    WHEN event_type IS NULL OR trim(event_type) = '' THEN 'missing_event_type'
    WHEN event_timestamp IS NULL THEN 'missing_event_timestamp'
    WHEN event_timestamp > ingest_ts + INTERVAL 30 DAY THEN 'future_event_timestamp'
  END AS reason
FROM bronze;

CREATE TABLE silver AS
SELECT event_id, user_id, event_type, event_timestamp,
       strftime(event_timestamp, '%Y-%m-%d') AS event_date, session_id, product_id, price, device,
       country, invalid_fields, raw_line, source, source_file, line_number, ingest_ts,
       row_number() OVER (PARTITION BY user_id, event_timestamp
                          ORDER BY ingest_ts, source_file, line_number) AS copy
FROM checked
WHERE reason IS NULL;

INSERT INTO dead
SELECT 'silver', reason, raw_line, source FROM checked WHERE reason IS NOT NULL
UNION ALL
SELECT 'silver', 'duplicate', raw_line, source FROM silver WHERE copy > 1;

-- Gold: one row per user as of the latest event date.
CREATE TABLE gold AS
WITH as_of AS (SELECT max(event_date) AS d FROM silver WHERE copy = 1),
per_user AS (
  SELECT user_id,
         max(event_timestamp) AS last_event_timestamp,
         arg_max(event_type, event_timestamp) AS last_event_type,
         count(*) FILTER (WHERE event_type = 'click') AS click_count,
         count(*) FILTER (WHERE event_type = 'purchase') AS purchase_count,
         count(*) FILTER (WHERE event_type = 'view') AS view_count,
         count(*) FILTER (WHERE event_type = 'add_to_cart') AS add_to_cart_count,
         count(*) AS event_count,
         min(event_timestamp) AS first_event_timestamp
  FROM silver, as_of
  WHERE copy = 1 AND event_date <= as_of.d
  GROUP BY user_id
)
SELECT per_user.*,
       date_diff('day', CAST(last_event_timestamp AS DATE), CAST(as_of.d AS DATE))
         AS days_since_last_event,
       sha256(user_id || '|' || click_count || '|' || purchase_count || '|' || last_event_type
              || '|' || strftime(last_event_timestamp, '%Y-%m-%dT%H:%M:%S.%gZ'))
         AS last_feature_hash,
       as_of.d AS as_of_date
FROM per_user, as_of;

COPY bronze TO '${out}/bronze' (FORMAT parquet, PARTITION_BY (ingest_date));
COPY (SELECT * EXCLUDE (copy) FROM silver WHERE copy = 1)
  TO '${out}/silver' (FORMAT parquet, PARTITION_BY (event_date));
COPY dead TO '${out}/quarantine' (FORMAT parquet, PARTITION_BY (stage));
COPY gold TO '${out}/gold' (FORMAT parquet, PARTITION_BY (as_of_date));

-- The counts, as the project's summary prints them.
SELECT (SELECT count(*) FROM lines) AS lines,
       (SELECT count(*) FROM bronze) AS bronze,
       (SELECT count(*) FROM dead WHERE stage = 'bronze') AS bronze_dead,
       (SELECT count(*) FROM silver WHERE copy = 1) AS silver,
       (SELECT count(*) FROM checked WHERE reason IS NOT NULL) AS quarantined,
       (SELECT count(*) FROM silver WHERE copy > 1) AS duplicates,
       (SELECT count(*) FROM gold) AS gold;

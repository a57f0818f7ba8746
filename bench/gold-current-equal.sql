-- Do two IoT lakehouses (${a}, ${b}) hold the same current Gold: the newest pane of each
-- device-minute and site-minute? For runs that fired their windows in different panes (a Kafka
-- stage in streaming against the same records read bounded). Without the columns that say when
-- and in which pane a row was written; averages rounded to 9 decimals (the runners add in
-- different orders). Prints the rows of each side missing from the other, then the row counts.
CREATE MACRO device_minute(lake) AS TABLE
SELECT * EXCLUDE (written_at, pane_index, pane_timing, temperature_avg, humidity_avg, pressure_avg,
                  rssi_dbm_avg),
       round(temperature_avg, 9), round(humidity_avg, 9), round(pressure_avg, 9),
       round(rssi_dbm_avg, 9)
FROM read_parquet(lake || '/gold/device_minute/**/*.parquet', hive_partitioning = false)
QUALIFY row_number() OVER (PARTITION BY device_id, window_start ORDER BY written_at DESC) = 1;
CREATE MACRO site_minute(lake) AS TABLE
SELECT * EXCLUDE (written_at, pane_index, pane_timing, temperature_avg, humidity_avg, pressure_avg,
                  rssi_dbm_avg),
       round(temperature_avg, 9), round(humidity_avg, 9), round(pressure_avg, 9),
       round(rssi_dbm_avg, 9)
FROM read_parquet(lake || '/gold/site_minute/**/*.parquet', hive_partitioning = false)
QUALIFY row_number() OVER (PARTITION BY site, window_start ORDER BY written_at DESC) = 1;
SELECT (SELECT count(*) FROM (FROM device_minute('${a}') EXCEPT ALL FROM device_minute('${b}'))),
       (SELECT count(*) FROM (FROM device_minute('${b}') EXCEPT ALL FROM device_minute('${a}'))),
       (SELECT count(*) FROM (FROM site_minute('${a}') EXCEPT ALL FROM site_minute('${b}'))),
       (SELECT count(*) FROM (FROM site_minute('${b}') EXCEPT ALL FROM site_minute('${a}'))),
       (SELECT count(*) FROM device_minute('${a}')), (SELECT count(*) FROM device_minute('${b}'));

-- Do two IoT lakehouses (${a}, ${b}: e.g. a DirectRunner and a SparkRunner replay of one file) hold
-- the same Gold? Compares device_minute and site_minute row for row, without the columns that say
-- when and in which pane a row was written, and with averages rounded to 9 decimals (the runners
-- add in different orders). Prints the rows of each table missing from the other, then row counts.
CREATE MACRO device_minute(lake) AS TABLE
SELECT * EXCLUDE (written_at, pane_index, pane_timing, temperature_avg, humidity_avg, pressure_avg,
                  rssi_dbm_avg),
       round(temperature_avg, 9), round(humidity_avg, 9), round(pressure_avg, 9),
       round(rssi_dbm_avg, 9)
FROM read_parquet(lake || '/gold/device_minute/**/*.parquet', hive_partitioning = false);
CREATE MACRO site_minute(lake) AS TABLE
SELECT * EXCLUDE (written_at, pane_index, pane_timing, temperature_avg, humidity_avg, pressure_avg,
                  rssi_dbm_avg),
       round(temperature_avg, 9), round(humidity_avg, 9), round(pressure_avg, 9),
       round(rssi_dbm_avg, 9)
FROM read_parquet(lake || '/gold/site_minute/**/*.parquet', hive_partitioning = false);
SELECT (SELECT count(*) FROM (FROM device_minute('${a}') EXCEPT ALL FROM device_minute('${b}'))),
       (SELECT count(*) FROM (FROM device_minute('${b}') EXCEPT ALL FROM device_minute('${a}'))),
       (SELECT count(*) FROM (FROM site_minute('${a}') EXCEPT ALL FROM site_minute('${b}'))),
       (SELECT count(*) FROM (FROM site_minute('${b}') EXCEPT ALL FROM site_minute('${a}'))),
       (SELECT count(*) FROM device_minute('${a}')),
       (SELECT count(*) FROM site_minute('${a}'));

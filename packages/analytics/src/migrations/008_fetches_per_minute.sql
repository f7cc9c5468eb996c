-- Per-minute rollups for the stats series (GET /v1/stats/series) of the 1 h, 6 h and 24 h
-- windows, whose buckets (60, 300, 900 s) are whole minutes: a 24 h window reads ~1,440 minutes
-- of rollup rows instead of scanning (and FINAL-merging) every fetch of the day.
--
-- fetches_per_minute: one row per (minute, error_code) once merged; what the buckets show
-- (attempts, bytes, status classes, errors, exact duplicates, error codes) as sums, and the
-- fetch-time t-digest as a state that merges across minutes. robots.txt refusals are not
-- attempts and are left out, as in the raw query.
--
-- fetch_simhashes_per_minute: one row per (minute, SimHash) once merged, for near duplicates
-- (a SimHash seen with more than one body in the window): the lowest and highest cityHash64 of
-- the bodies (they differ iff the SimHash had two different bodies; min/max compose across
-- minutes exactly), and the attempts that were not exact duplicates. The SimHash is kept as
-- its 64 bits (`fetches` holds 16 hex digits, checked at ingest), which halves the time of
-- the query's GROUP BY / IN. SimHashes rarely repeat within a minute, so this table has about
-- one row per fetch with a SimHash; what it saves is width and reading the window in order.
--
-- Replays: the ingest is at least once, and a crash between an insert and its acknowledgement
-- replays that batch. `fetches` collapses the replayed rows (ReplacingMergeTree, reads use
-- FINAL), but a materialized view sees every insert, so the sums here count a replayed batch
-- twice: the series may over-count the minutes of a replayed batch (the raw near-duplicate
-- count, read without FINAL, already did; the min/max bodies are not affected). Replays need a
-- coordinator crash mid-batch, so this is rare and bounded by the unacknowledged batches (two
-- in flight). GET /v1/stats and everything else read FINAL tables and stay exact.
--
-- Fed by the views on every insert into `fetches`, then backfilled from the rows already there
-- (as 004/005/007 do; `fetches_per_minute` from `fetches` FINAL, so old replays count once). The
-- backfill only fills minutes the rollup does not have yet, so running it again adds nothing.
-- The coordinator migrates before its ingest starts, so the views and the backfill see disjoint
-- rows; if another coordinator ingests into the same server during the migration, the minutes
-- it writes then keep only the rows written through the views (older rows of those same
-- minutes are left out rather than counted twice).
CREATE TABLE IF NOT EXISTS fetches_per_minute
(
    minute DateTime('UTC'),
    error_code LowCardinality(String),
    pages SimpleAggregateFunction(sum, UInt64),
    bytes SimpleAggregateFunction(sum, UInt64),
    s2xx SimpleAggregateFunction(sum, UInt64),
    s3xx SimpleAggregateFunction(sum, UInt64),
    s4xx SimpleAggregateFunction(sum, UInt64),
    s5xx SimpleAggregateFunction(sum, UInt64),
    errors SimpleAggregateFunction(sum, UInt64),
    duplicates SimpleAggregateFunction(sum, UInt64),
    fetch_ms_q AggregateFunction(quantilesTDigest(0.5, 0.95, 0.99), UInt32)
)
ENGINE = AggregatingMergeTree
PARTITION BY toDate(minute)
ORDER BY (minute, error_code);

CREATE MATERIALIZED VIEW IF NOT EXISTS fetches_per_minute_mv TO fetches_per_minute AS
SELECT toStartOfMinute(toDateTime(fetched_at, 'UTC')) AS minute, error_code,
       count() AS pages, sum(toUInt64(bytes)) AS bytes,
       countIf(status BETWEEN 200 AND 299) AS s2xx, countIf(status BETWEEN 300 AND 399) AS s3xx,
       countIf(status BETWEEN 400 AND 499) AS s4xx, countIf(status BETWEEN 500 AND 599) AS s5xx,
       countIf(status = 0 OR status >= 500) AS errors,
       countIf(duplicate_of != '') AS duplicates,
       quantilesTDigestState(0.5, 0.95, 0.99)(fetch_ms) AS fetch_ms_q
FROM fetches
WHERE error_code != 'robots_denied'
GROUP BY minute, error_code;

CREATE TABLE IF NOT EXISTS fetch_simhashes_per_minute
(
    minute DateTime('UTC'),
    simhash_bits UInt64,
    originals SimpleAggregateFunction(sum, UInt64),
    min_body SimpleAggregateFunction(min, UInt64),
    max_body SimpleAggregateFunction(max, UInt64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toDate(minute)
ORDER BY (minute, simhash_bits);

CREATE MATERIALIZED VIEW IF NOT EXISTS fetch_simhashes_per_minute_mv TO fetch_simhashes_per_minute AS
SELECT toStartOfMinute(toDateTime(fetched_at, 'UTC')) AS minute,
       reinterpretAsUInt64(reverse(unhex(simhash))) AS simhash_bits,
       countIf(duplicate_of = '') AS originals,
       min(cityHash64(content_hash)) AS min_body, max(cityHash64(content_hash)) AS max_body
FROM fetches
WHERE error_code != 'robots_denied' AND simhash != ''
GROUP BY minute, simhash_bits;

INSERT INTO fetches_per_minute
SELECT toStartOfMinute(toDateTime(fetched_at, 'UTC')) AS minute, error_code,
       count() AS pages, sum(toUInt64(bytes)) AS bytes,
       countIf(status BETWEEN 200 AND 299) AS s2xx, countIf(status BETWEEN 300 AND 399) AS s3xx,
       countIf(status BETWEEN 400 AND 499) AS s4xx, countIf(status BETWEEN 500 AND 599) AS s5xx,
       countIf(status = 0 OR status >= 500) AS errors,
       countIf(duplicate_of != '') AS duplicates,
       quantilesTDigestState(0.5, 0.95, 0.99)(fetch_ms) AS fetch_ms_q
FROM fetches FINAL
WHERE error_code != 'robots_denied'
  AND toStartOfMinute(toDateTime(fetched_at, 'UTC')) NOT IN (SELECT minute FROM fetches_per_minute)
GROUP BY minute, error_code;

INSERT INTO fetch_simhashes_per_minute
SELECT toStartOfMinute(toDateTime(fetched_at, 'UTC')) AS minute,
       reinterpretAsUInt64(reverse(unhex(simhash))) AS simhash_bits,
       countIf(duplicate_of = '') AS originals,
       min(cityHash64(content_hash)) AS min_body, max(cityHash64(content_hash)) AS max_body
FROM fetches
WHERE error_code != 'robots_denied' AND simhash != ''
  AND toStartOfMinute(toDateTime(fetched_at, 'UTC'))
      NOT IN (SELECT minute FROM fetch_simhashes_per_minute)
GROUP BY minute, simhash_bits

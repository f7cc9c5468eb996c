-- Every fetch in time order, with the fields the short recent windows read: the 15 min stats
-- series (15 s buckets: attempts, bytes, status classes, fetch-time quantiles, exact and near
-- duplicates, error codes) and the agents' pages per second over the last minute. `fetches`
-- is sorted by host first, so a time range there prunes only by partition (a day): the 15 min
-- series read and FINAL-merged the whole day so far, twice. Here the same range is a few
-- granules. Rows are not rolled up, so the answers are those of `fetches`: same identity
-- (url_fp, fetched_at), same partitions, so FINAL collapses a replayed row exactly as it does
-- there (reads that count use FINAL; the near-duplicate and agent-rate reads did not, and do
-- not). The body is kept as cityHash64(content_hash): near duplicates only compare bodies for
-- equality within a SimHash (as migration 008 does), and 8 bytes instead of 64 keep it narrow.
--
-- Fed by fetch_timeline_mv on every insert into `fetches`, then backfilled from the rows
-- already there (as 004/005/007 do), but only those whose identity the table does not have yet:
-- a row the view wrote meanwhile is not copied again, and a second run of the backfill adds
-- nothing (the rows of `fetches` are copied as they are, replays not yet merged included, so
-- the reads without FINAL see what they saw in `fetches`).
CREATE TABLE IF NOT EXISTS fetch_timeline
(
    fetched_at DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    url_fp String CODEC(ZSTD(1)),
    status UInt16,
    bytes UInt32,
    fetch_ms UInt32,
    error_code LowCardinality(String),
    duplicate Bool,
    simhash String CODEC(ZSTD(1)),
    body UInt64,
    agent_id LowCardinality(String)
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(fetched_at)
ORDER BY (fetched_at, url_fp);

CREATE MATERIALIZED VIEW IF NOT EXISTS fetch_timeline_mv TO fetch_timeline AS
SELECT fetched_at, url_fp, status, bytes, fetch_ms, error_code, duplicate_of != '' AS duplicate,
       simhash, cityHash64(content_hash) AS body, agent_id
FROM fetches;

INSERT INTO fetch_timeline
SELECT fetched_at, url_fp, status, bytes, fetch_ms, error_code, duplicate_of != '' AS duplicate,
       simhash, cityHash64(content_hash) AS body, agent_id
FROM fetches
WHERE (fetched_at, url_fp) NOT IN (SELECT fetched_at, url_fp FROM fetch_timeline)

-- One row per fetch attempt (telemetry). Ingest is at-least-once (Redis stream -> batch insert),
-- so a replayed row must collapse: ReplacingMergeTree whose sorting key contains the identity
-- (url_fp, fetched_at); host is a function of the URL, so it never splits a duplicate pair.
-- Reads that count use FINAL. Partitioned by day so old telemetry drops partition by partition.
CREATE TABLE IF NOT EXISTS fetches
(
    url_fp String CODEC(ZSTD(1)),
    url String CODEC(ZSTD(3)),
    host LowCardinality(String),
    fetched_at DateTime64(3, 'UTC') CODEC(Delta, ZSTD(1)),
    status UInt16,
    error_code LowCardinality(String),
    bytes UInt32,
    fetch_ms UInt32,
    content_type LowCardinality(String),
    content_hash String CODEC(ZSTD(1)),
    depth UInt16,
    agent_id LowCardinality(String),
    warc_key LowCardinality(String),
    warc_offset UInt64,
    warc_length UInt32,
    redirect_to String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree
PARTITION BY toDate(fetched_at)
ORDER BY (host, fetched_at, url_fp)

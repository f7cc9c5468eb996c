-- The CDX index: one row per fetch that wrote a WARC record (a response, or a revisit pointing at
-- an earlier identical capture), so a raw response can be re-read without fetching again. Keyed
-- by (url_fp, fetched_at), the identity of a fetch: a replay collapses (reads use FINAL).
-- Fed from `fetches` by captures_mv, then backfilled once from the rows already there. Default
-- (LZ4) codecs: most fetches are written here too, so insert speed matters more than size.
CREATE TABLE IF NOT EXISTS captures
(
    url_fp String,
    url String,
    fetched_at DateTime64(3, 'UTC'),
    status UInt16,
    content_type LowCardinality(String),
    record_type LowCardinality(String),
    record_id String,
    payload_digest String,
    content_hash String,
    warc_key LowCardinality(String),
    warc_offset UInt64,
    warc_length UInt32,
    duplicate_of String
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(fetched_at)
ORDER BY (url_fp, fetched_at);

CREATE MATERIALIZED VIEW IF NOT EXISTS captures_mv TO captures AS
SELECT url_fp, url, fetched_at, status, content_type, record_type, record_id,
       payload_digest, content_hash, warc_key, warc_offset, warc_length, duplicate_of
FROM fetches
WHERE warc_key != '';

INSERT INTO captures
SELECT url_fp, url, fetched_at, status, content_type, record_type, record_id,
       payload_digest, content_hash, warc_key, warc_offset, warc_length, duplicate_of
FROM fetches
WHERE warc_key != ''

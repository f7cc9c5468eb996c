-- The latest state of every URL: one row per url_fp once merged (reads use FINAL), the newest
-- fetch attempt winning (version fetched_at; a replayed fetch carries the same version and the
-- same values, so replays are harmless). Fed from `fetches` by urls_mv on every insert, then
-- backfilled once from the rows already there (rows the view also wrote collapse the same way).
-- Not partitioned: ReplacingMergeTree only collapses rows within one partition. Default (LZ4)
-- codecs: every fetch is written here too, so insert speed matters more than size.
CREATE TABLE IF NOT EXISTS urls
(
    url_fp String,
    url String,
    host LowCardinality(String),
    fetched_at DateTime64(3, 'UTC'),
    status UInt16,
    error_code LowCardinality(String),
    content_type LowCardinality(String),
    content_hash String,
    simhash String,
    etag String,
    last_modified String,
    change LowCardinality(String),
    redirect_to String,
    record_type LowCardinality(String),
    record_id String,
    payload_digest String,
    warc_key LowCardinality(String),
    warc_offset UInt64,
    warc_length UInt32
)
ENGINE = ReplacingMergeTree(fetched_at)
ORDER BY url_fp;

CREATE MATERIALIZED VIEW IF NOT EXISTS urls_mv TO urls AS
SELECT url_fp, url, host, fetched_at, status, error_code, content_type, content_hash, simhash,
       etag, last_modified, change, redirect_to, record_type, record_id,
       payload_digest, warc_key, warc_offset, warc_length
FROM fetches;

INSERT INTO urls
SELECT url_fp, url, host, fetched_at, status, error_code, content_type, content_hash, simhash,
       etag, last_modified, change, redirect_to, record_type, record_id,
       payload_digest, warc_key, warc_offset, warc_length
FROM fetches

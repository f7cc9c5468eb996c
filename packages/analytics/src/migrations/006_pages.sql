-- Parsed pages from the `pages.parsed` feed (title, text or a reference to it, links, hashes),
-- one row per capture, keyed by (url_fp, fetched_at): the feed is ingested at least once, and a
-- replayed message collapses (reads use FINAL). Long texts stay in object storage (text_ref).
CREATE TABLE IF NOT EXISTS pages
(
    url_fp String CODEC(ZSTD(1)),
    url String CODEC(ZSTD(3)),
    host LowCardinality(String),
    fetched_at DateTime64(3, 'UTC'),
    status UInt16,
    content_type LowCardinality(String),
    charset LowCardinality(String),
    title String CODEC(ZSTD(3)),
    description String CODEC(ZSTD(3)),
    lang LowCardinality(String),
    text String CODEC(ZSTD(3)),
    text_ref String CODEC(ZSTD(1)),
    text_bytes UInt32,
    canonical String CODEC(ZSTD(3)),
    noindex Bool,
    nofollow Bool,
    links_count UInt16,
    out_links Array(String) CODEC(ZSTD(3)),
    out_links_nofollow Array(Bool) CODEC(ZSTD(1)),
    simhash String CODEC(ZSTD(1)),
    content_hash String CODEC(ZSTD(1)),
    change LowCardinality(String),
    warc_key LowCardinality(String),
    warc_offset UInt64,
    warc_length UInt32,
    record_id String CODEC(ZSTD(1)),
    depth UInt16,
    agent_id LowCardinality(String)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(fetched_at)
ORDER BY (url_fp, fetched_at)

-- What each fetch archived and how it compares with the URL's previous capture: the WARC record
-- the CDX row points at (response or revisit), the validators for the next conditional GET, the
-- change verdict, the URL an exact duplicate refers to, and the SimHash for near duplicates.
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS record_type LowCardinality(String) DEFAULT '';
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS record_id String DEFAULT '' CODEC(ZSTD(1));
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS payload_digest String DEFAULT '' CODEC(ZSTD(1));
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS etag String DEFAULT '' CODEC(ZSTD(1));
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS last_modified String DEFAULT '' CODEC(ZSTD(1));
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS change LowCardinality(String) DEFAULT '';
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS duplicate_of String DEFAULT '' CODEC(ZSTD(3));
ALTER TABLE fetches ADD COLUMN IF NOT EXISTS simhash String DEFAULT '' CODEC(ZSTD(1))

// Capacity on paper: what a crawl of N pages a day over M queued URLs needs, each figure a
// product of the load, the measured per-unit costs (docs/BENCHMARKS.md) and the configuration.
// Pure arithmetic, so its test can check it on small inputs.
import type { Config } from '@crawler/domain/config';
import type { CapacityAssumptions, CapacityLoad } from './capacity-options';
import type { UnitCostName } from './unit-costs';

/** The configuration the model reads (defaults, or the environment's). */
export type CapacityConfig = Pick<
  Config,
  | 'FRONTIER_SHARDS'
  | 'FRONTIER_BLOOM_BITS_PER_URL'
  | 'FRONTIER_BLOOM_HASHES'
  | 'FRONTIER_RECRAWL_SHARE'
  | 'CRAWLER_DEFAULT_GAP_MS'
  | 'AGENT_MAX_HOSTS'
  | 'RECRAWL_MAX_URLS'
  | 'RECRAWL_MAX_INTERVAL_MS'
  | 'DEDUPE_CONTENT_MAX_BODIES'
  | 'DEDUPE_NEAR_BUCKET_SIZE'
  | 'DEDUPE_NEAR_MAX_RECORDS'
  | 'FEED_MAX_BYTES'
>;

const DAY_S = 86_400;
/** A Bloom filter is one Redis string per shard: at most 2^32 bits (resources.ts caps it). */
const MAX_BLOOM_BITS_PER_SHARD = 2 ** 32 - 1;
/** Near-duplicate buckets: SimHash-64 in four 16-bit bands (near-dup-index.ts). */
const NEAR_DUP_BUCKETS = 4 * 2 ** 16;

/** Every figure of a capacity report. */
export interface CapacityReport {
  pages_per_day: number;
  pages_per_s: number;
  urls_queued: number;
  known_urls: number;
  recrawl_urls: number;
  // Redis, today: every queued URL in Redis.
  redis_queue_bytes_per_url: number;
  redis_queue_bytes: number;
  bloom_bits_per_url: number;
  bloom_hashes: number;
  bloom_bits_per_shard: number;
  bloom_capped: boolean;
  bloom_fp_theory: number;
  redis_bloom_bytes: number;
  redis_recrawl_bytes: number;
  recrawl_fetches_per_day: number;
  recrawl_interval_days: number | null;
  recrawl_over_max_urls: boolean;
  recrawl_interval_over_max: boolean;
  redis_bounded_bytes: number;
  redis_bytes_today: number;
  redis_bytes_today_provisioned: number;
  redis_dominant: string;
  // With the spill store (FRONTIER_HEAD_MAX at the bench's bound): heads in Redis, rest spilled.
  hosts: number;
  spill_head_max: number;
  spilled_urls: number;
  redis_queue_bytes_with_spill: number;
  redis_bytes_with_spill: number;
  redis_bytes_with_spill_provisioned: number;
  redis_dominant_with_spill: string;
  spill_store_bytes: number;
  // ClickHouse.
  clickhouse_fetch_rows_per_day: number;
  clickhouse_page_rows_per_day: number;
  clickhouse_fetch_bytes_per_day: number;
  clickhouse_page_bytes_per_day: number;
  clickhouse_bytes_per_day: number;
  ingest_rows_per_s: number;
  ingest_consumers: number;
  ingest_cores: number;
  // WARC.
  warc_bytes_per_page: number;
  warc_bytes_per_day: number;
  // Agents.
  agent_cores: number;
  agents_by_cpu: number;
  hosts_in_flight: number;
  agents_by_leases: number;
  agents: number;
  cores: number;
  // What it was computed from.
  assumptions: {
    avg_page_bytes: number;
    warc_compression: number;
    recrawl_share: number;
    headroom: number;
    host_interval_s: number;
  };
  unit_costs: Record<UnitCostName, number>;
  config: CapacityConfig;
}

/** The report for `load`, from measured `costs`, `config` and `assumptions`. */
export function computeCapacity(
  load: CapacityLoad,
  assumptions: CapacityAssumptions,
  costs: Record<UnitCostName, number>,
  config: CapacityConfig,
): CapacityReport {
  const h = assumptions.headroom;
  const pagesPerS = load.pagesPerDay / DAY_S;
  const known = load.knownUrls ?? load.urlsQueued;
  const recrawlUrls = load.recrawlUrls ?? known;
  const recrawlShare = assumptions.recrawlShare ?? config.FRONTIER_RECRAWL_SHARE;
  const hostIntervalS = assumptions.hostIntervalS ?? config.CRAWLER_DEFAULT_GAP_MS / 1000;

  // Redis, every queued URL in RAM. The frontier bench's figure includes its Bloom filters
  // (sized for its own URLs), which are counted here over the known URLs instead.
  const queuePerUrl =
    costs.redis_bytes_per_queued_url - costs.frontier_bench_bloom_bits_per_url / 8;
  const redisQueue = load.urlsQueued * queuePerUrl;
  const bloom = bloomFor(known, config);
  const redisRecrawl = recrawlUrls * costs.recrawl_bytes_per_url;
  const recrawlPerDay = load.pagesPerDay * recrawlShare;
  const bounded =
    config.DEDUPE_CONTENT_MAX_BODIES * costs.content_index_bytes_per_body +
    NEAR_DUP_BUCKETS *
      config.DEDUPE_NEAR_BUCKET_SIZE *
      (costs.near_dup_bytes_per_full_bucket_of_16 / 16) +
    config.DEDUPE_NEAR_MAX_RECORDS * costs.near_dup_bytes_per_verdict +
    config.FEED_MAX_BYTES;
  const parts: Record<string, number> = {
    'queued URLs': redisQueue,
    'Bloom filters': bloom.bytes,
    're-crawl schedule': redisRecrawl,
    'bounded structures': bounded,
  };
  const redisToday = redisQueue + bloom.bytes + redisRecrawl + bounded;

  // With the spill store: the bounded-head figure already holds the heads and the seen set of
  // the queued URLs, so only the known URLs beyond them add Bloom bits. Spilled: what does not
  // fit in the heads, one tier a host holding at least a full head (as in the bench).
  const hosts =
    load.hosts ?? Math.max(1, Math.round(load.urlsQueued / costs.spill_bench_urls_per_host));
  const head = costs.spill_bench_head_max;
  const spilled = Math.max(0, load.urlsQueued - hosts * head);
  const redisSpillQueue =
    load.urlsQueued * costs.redis_bytes_per_queued_url_bounded +
    (Math.max(0, known - load.urlsQueued) * config.FRONTIER_BLOOM_BITS_PER_URL) / 8;
  const spillParts: Record<string, number> = {
    'queued URLs': redisSpillQueue,
    're-crawl schedule': redisRecrawl,
    'bounded structures': bounded,
  };
  const redisWithSpill = redisSpillQueue + redisRecrawl + bounded;

  // ClickHouse and the telemetry ingest.
  const fetchRows = load.pagesPerDay * costs.fetch_rows_per_page;
  const pageRows = load.pagesPerDay;
  const ingestRowsPerS = fetchRows / DAY_S;

  // Agents: CPU-bound, or lease-bound (a host gives one page per interval, an agent holds at
  // most AGENT_MAX_HOSTS hosts).
  const hostsInFlight = pagesPerS * hostIntervalS;
  const agentsByCpu = Math.ceil((pagesPerS * h) / costs.agent_pages_per_s_per_process);
  const agentsByLeases = Math.ceil((hostsInFlight * h) / config.AGENT_MAX_HOSTS);
  const agentCores = ((pagesPerS * costs.agent_cpu_ms_per_page) / 1000) * h;
  const ingestCores = ((ingestRowsPerS * costs.ingest_cpu_us_per_row) / 1e6) * h;
  const warcPerPage =
    assumptions.avgPageBytes * assumptions.warcCompression + costs.warc_record_overhead_bytes;

  return {
    pages_per_day: load.pagesPerDay,
    pages_per_s: round(pagesPerS, 1),
    urls_queued: load.urlsQueued,
    known_urls: known,
    recrawl_urls: recrawlUrls,
    redis_queue_bytes_per_url: round(queuePerUrl, 2),
    redis_queue_bytes: Math.round(redisQueue),
    bloom_bits_per_url: round(bloom.bitsPerUrl, 2),
    bloom_hashes: config.FRONTIER_BLOOM_HASHES,
    bloom_bits_per_shard: bloom.bitsPerShard,
    bloom_capped: bloom.capped,
    bloom_fp_theory: round(bloom.fp, 5),
    redis_bloom_bytes: Math.round(bloom.bytes),
    redis_recrawl_bytes: Math.round(redisRecrawl),
    recrawl_fetches_per_day: Math.round(recrawlPerDay),
    recrawl_interval_days: recrawlPerDay > 0 ? round(recrawlUrls / recrawlPerDay, 1) : null,
    recrawl_over_max_urls: recrawlUrls > config.RECRAWL_MAX_URLS,
    recrawl_interval_over_max:
      recrawlUrls > (recrawlPerDay * config.RECRAWL_MAX_INTERVAL_MS) / 86_400_000,
    redis_bounded_bytes: Math.round(bounded),
    redis_bytes_today: Math.round(redisToday),
    redis_bytes_today_provisioned: Math.round(redisToday * h),
    redis_dominant: dominant(parts),
    hosts,
    spill_head_max: head,
    spilled_urls: spilled,
    redis_queue_bytes_with_spill: Math.round(redisSpillQueue),
    redis_bytes_with_spill: Math.round(redisWithSpill),
    redis_bytes_with_spill_provisioned: Math.round(redisWithSpill * h),
    redis_dominant_with_spill: dominant(spillParts),
    spill_store_bytes: Math.round(spilled * costs.spill_bytes_per_url),
    clickhouse_fetch_rows_per_day: Math.round(fetchRows),
    clickhouse_page_rows_per_day: Math.round(pageRows),
    clickhouse_fetch_bytes_per_day: Math.round(fetchRows * costs.clickhouse_bytes_per_fetch_row),
    clickhouse_page_bytes_per_day: Math.round(pageRows * costs.clickhouse_bytes_per_page_row),
    clickhouse_bytes_per_day: Math.round(
      fetchRows * costs.clickhouse_bytes_per_fetch_row +
        pageRows * costs.clickhouse_bytes_per_page_row,
    ),
    ingest_rows_per_s: round(ingestRowsPerS, 1),
    ingest_consumers: Math.ceil((ingestRowsPerS * h) / costs.ingest_rows_per_s_per_consumer),
    ingest_cores: round(ingestCores, 1),
    warc_bytes_per_page: Math.round(warcPerPage),
    warc_bytes_per_day: Math.round(load.pagesPerDay * warcPerPage),
    agent_cores: round(agentCores, 1),
    agents_by_cpu: agentsByCpu,
    hosts_in_flight: Math.round(hostsInFlight),
    agents_by_leases: agentsByLeases,
    agents: Math.max(agentsByCpu, agentsByLeases),
    cores: Math.ceil(agentCores + ingestCores),
    assumptions: {
      avg_page_bytes: assumptions.avgPageBytes,
      warc_compression: assumptions.warcCompression,
      recrawl_share: recrawlShare,
      headroom: h,
      host_interval_s: hostIntervalS,
    },
    unit_costs: costs,
    config: pickConfig(config),
  };
}

/**
 * The seen set sized for `known` URLs (FRONTIER_EXPECTED_URLS = known): per shard
 * ⌈known × b / shards⌉ bits, at most 2^32 − 1; false positives (1 − e^(−k/b'))^k at the bits per
 * URL b' that the cap leaves.
 */
export function bloomFor(
  known: number,
  config: Pick<
    CapacityConfig,
    'FRONTIER_SHARDS' | 'FRONTIER_BLOOM_BITS_PER_URL' | 'FRONTIER_BLOOM_HASHES'
  >,
): { bitsPerShard: number; bytes: number; bitsPerUrl: number; capped: boolean; fp: number } {
  const shards = config.FRONTIER_SHARDS;
  const wanted = Math.ceil((known * config.FRONTIER_BLOOM_BITS_PER_URL) / shards);
  const bitsPerShard = Math.min(MAX_BLOOM_BITS_PER_SHARD, wanted);
  const bitsPerUrl =
    known > 0 ? (bitsPerShard * shards) / known : config.FRONTIER_BLOOM_BITS_PER_URL;
  const k = config.FRONTIER_BLOOM_HASHES;
  return {
    bitsPerShard,
    bytes: (bitsPerShard * shards) / 8,
    bitsPerUrl,
    capped: wanted > MAX_BLOOM_BITS_PER_SHARD,
    fp: (1 - Math.exp(-k / bitsPerUrl)) ** k,
  };
}

const CONFIG_KEYS = [
  'FRONTIER_SHARDS',
  'FRONTIER_BLOOM_BITS_PER_URL',
  'FRONTIER_BLOOM_HASHES',
  'FRONTIER_RECRAWL_SHARE',
  'CRAWLER_DEFAULT_GAP_MS',
  'AGENT_MAX_HOSTS',
  'RECRAWL_MAX_URLS',
  'RECRAWL_MAX_INTERVAL_MS',
  'DEDUPE_CONTENT_MAX_BODIES',
  'DEDUPE_NEAR_BUCKET_SIZE',
  'DEDUPE_NEAR_MAX_RECORDS',
  'FEED_MAX_BYTES',
] as const satisfies ReadonlyArray<keyof CapacityConfig>;

/** Only the keys the model reads (a whole Config would print secrets' defaults too). */
function pickConfig(c: CapacityConfig): CapacityConfig {
  return Object.fromEntries(CONFIG_KEYS.map((k) => [k, c[k]])) as CapacityConfig;
}

function dominant(parts: Record<string, number>): string {
  return Object.entries(parts).sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

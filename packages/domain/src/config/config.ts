import { CrawlerError } from '../errors';
import { z } from 'zod';
import { TRPC_CONSOLE_BATCH_ITEMS } from '../api';
import { userAgentOf } from '../messages/crawl-settings';
import { bool, int } from './env-fields';
import { qualityEnv } from './quality-env';

/**
 * The one configuration of every process, read from environment variables and validated at boot.
 * Each variable has a documented default that serves a single machine with only Postgres and
 * Redis running. A wrong value stops start-up with a message naming the variable.
 */
const cidrList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(
    z.array(
      z
        .string()
        .refine(
          (c) => z.cidrv4().safeParse(c).success || z.cidrv6().safeParse(c).success,
          'expected CIDR like 127.0.0.0/8',
        ),
    ),
  );

export const envSchema = z.object({
  /** Postgres for seeds, host policies and settings. */
  DATABASE_URL: z.url().default('postgresql://postgres@127.0.0.1:5432/crawler'),
  /** Redis (single node or a cluster seed node) holding the frontier and streams. */
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  /** Set to 1 when REDIS_URL points at a Redis Cluster node. */
  REDIS_CLUSTER: bool.default(false),
  /**
   * Lets the coordinator and agents run on a Redis that persists nothing (no AOF, no RDB save
   * points) or evicts keys (maxmemory-policy other than noeviction). Redis holds the frontier,
   * so they refuse such a Redis unless this is true: tests, benches, the demo, throw-away crawls.
   */
  REDIS_VOLATILE_OK: bool.default(false),
  /** Prefix of every Redis key of this installation; tests use a unique one per run. */
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,40}$/)
    .default('crawl'),
  /**
   * The redis-server the one-shot `crawler crawl` starts for its crawl state (in `<out>/redis`,
   * with an append-only file): a name looked up on PATH, or a path to the binary.
   */
  REDIS_SERVER_BIN: z.string().min(1).default('redis-server'),
  /** Logical frontier shards (fixed per installation). */
  FRONTIER_SHARDS: int(1, 4096).default(64),
  /** Root folder for WARC files and the embedded ClickHouse. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** ClickHouse server URL; empty = embedded chdb under DATA_DIR/clickhouse. */
  CLICKHOUSE_URL: z.string().default(''),
  /** Coordinator HTTP API (REST /v1 and /trpc). */
  COORDINATOR_HOST: z.string().default('127.0.0.1'),
  COORDINATOR_PORT: int(0, 65535).default(4000),
  /**
   * Port of the coordinator's Prometheus /metrics endpoint (0 = off). Below the agents' ports:
   * `npm start` gives agent n the port AGENT_METRICS_PORT + n − 1 (9464, 9465, …).
   */
  COORDINATOR_METRICS_PORT: int(0, 65535).default(9463),
  /** Address the coordinator's metrics endpoint listens on (0.0.0.0 in containers). */
  COORDINATOR_METRICS_HOST: z.string().default('127.0.0.1'),
  /** Where agents, the CLI and the console reach the coordinator. */
  COORDINATOR_URL: z.url().default('http://127.0.0.1:4000'),
  CONSOLE_PORT: int(1, 65535).default(3000),
  /** The robots.txt product token: the first word of the User-Agent. */
  CRAWLER_UA_TOKEN: z
    .string()
    .regex(/^[A-Za-z_-]+$/, 'letters, "-" and "_" only')
    .default('crawlerbot'),
  /** A page that tells webmasters who runs the crawler; sent in the User-Agent. */
  CRAWLER_CONTACT_URL: z.url().default('https://github.com/open-crawler/crawler'),
  /** Default per-host gap between requests, in ms (1,000 = 1 request/s). */
  CRAWLER_DEFAULT_GAP_MS: int(0, 3_600_000).default(1000),
  /** Links are followed up to this many hops from a seed. */
  CRAWLER_MAX_DEPTH: int(0, 1000).default(8),
  /** Same-host links are followed up to this many hops from a page another host links to. */
  CRAWLER_MAX_HOPS: int(0, 1000).default(3),
  /** Crawl quality (quality-env.ts). */
  ...qualityEnv,
  /** Private/loopback networks the fetcher may connect to (CIDR list). Default none. */
  CRAWLER_NETWORK_ALLOW: cidrList.default([]),
  /** Optional JSON file mapping host names to IPv4 addresses (test webs). */
  CRAWLER_DNS_MAP: z.string().default(''),
  /** Seen set: 'bloom' (10 bits/URL, <1% false positives at capacity) or 'set' (exact). */
  FRONTIER_SEEN: z.enum(['bloom', 'set']).default('bloom'),
  /** URLs the Bloom filters are sized for, across all shards (fixed per installation). */
  FRONTIER_EXPECTED_URLS: int(1000, 100_000_000_000).default(10_000_000),
  FRONTIER_BLOOM_BITS_PER_URL: int(1, 64).default(10),
  FRONTIER_BLOOM_HASHES: int(1, 30).default(7),
  /** Seen-set false-positive bound past any sizing (default: the geometry's rate at its sizing). */
  FRONTIER_SEEN_FP_TARGET: z.coerce.number().gt(0).lt(0.5).optional(),
  /** Maybe-seen discoveries kept (all shards) for the coordinator to confirm; 0 = none. */
  FRONTIER_SEEN_CONFIRM_MAX: int(0, 100_000_000).default(0),
  FRONTIER_SEEN_CONFIRM_EVERY_MS: int(100, 3_600_000).default(5000),
  /**
   * Weights of URL priority tiers 0–9 in a host's batches: each tier with URLs waiting gets its
   * weight's share of the slots among the waiting tiers' (0 = only when no other tier waits).
   */
  FRONTIER_TIER_WEIGHTS: z
    .string()
    .regex(/^\d{1,4}(,\d{1,4}){9}$/, 'ten weights, tiers 0–9, like 512,256,128,64,32,16,8,4,2,1')
    .default('512,256,128,64,32,16,8,4,2,1')
    .transform((s) => s.split(',').map(Number)),
  /** Share of capacity reserved for re-crawls when both kinds wait (0–1). */
  FRONTIER_RECRAWL_SHARE: z.coerce.number().min(0).max(1).default(0.6),
  /** Attempts before a failing URL is parked in the dead letters. */
  FRONTIER_MAX_ATTEMPTS: int(1, 100).default(3),
  /** Host backoff after errors: base × 2^(errors-1), capped. */
  FRONTIER_BACKOFF_BASE_MS: int(10, 86_400_000).default(30_000),
  FRONTIER_BACKOFF_MAX_MS: int(10, 7 * 86_400_000).default(3_600_000),
  /** Pages per host per UTC day unless its policy says otherwise (0 = no limit). */
  HOST_DAILY_BUDGET: int(0, 100_000_000).default(50_000),
  /** Pause between two leases of hosts that share an IP address (ms). */
  FRONTIER_IP_GAP_MS: int(0, 3_600_000).default(0),
  /**
   * URLs per host and priority tier kept in Redis (the head); the rest spill to Postgres
   * (frontier_spill) and come back as the head runs low. 0 = no bound, every URL in Redis.
   * Raised to LEASE_MAX_URLS when smaller: a head always holds a full batch.
   */
  FRONTIER_HEAD_MAX: int(0, 1_000_000).default(0),
  /**
   * Bytes of dead letters kept in Redis, the whole frontier (each shard keeps its share); past
   * it a dead letter is dropped and counted (`dead_dropped` in the shard stats). Default 256 MiB.
   */
  FRONTIER_DEAD_LETTER_MAX_BYTES: int(1024, 1_000_000_000_000).default(256 * 1024 * 1024),
  /** Pause between two rounds of the coordinator's spiller/refiller when idle (ms). */
  FRONTIER_SPILL_EVERY_MS: int(10, 60_000).default(250),
  /**
   * Most hosts one agent works on at once (each with at most one connection). Within
   * [AGENT_MIN_HOSTS, AGENT_MAX_HOSTS] the agent holds as many as its event loop keeps up with:
   * fewer while the loop runs over 50 ms late, more while it is idle and uses what it holds.
   */
  AGENT_MAX_HOSTS: int(1, 100_000).default(256),
  /** Fewest hosts an overloaded agent comes down to (AGENT_MAX_HOSTS when larger; = pins it). */
  AGENT_MIN_HOSTS: int(1, 100_000).default(64),
  /**
   * How fast a fresh agent ramps up: the leases it may hold grow by this many a second (from
   * this many) up to AGENT_MAX_HOSTS, instead of opening every host's connection and robots.txt
   * fetch in the same second. Once ramped up, ended leases are replaced at once.
   */
  AGENT_LEASE_RAMP_PER_S: int(1, 1_000_000).default(1000),
  /**
   * How long a drain (SIGTERM) waits for page requests in flight (ms); those still running then
   * are abandoned, their URLs not done (fetched again by their next lease), so a stop is not held
   * up by a slow server for FETCH_TOTAL_TIMEOUT_MS.
   */
  AGENT_DRAIN_GRACE_MS: int(0, 600_000).default(2000),
  /**
   * Profiling: each parse thread writes a V8 CPU profile (`.cpuprofile`) into this folder when
   * it exits (the agent's own thread is profiled with `node --cpu-prof`). Unset: none.
   */
  AGENT_PARSE_CPU_PROFILE_DIR: z.string().min(1).optional(),
  /** Threads parsing HTML off the event loop (0 = cores − 1, at least 1). */
  AGENT_PARSE_THREADS: int(0, 64).default(0),
  /**
   * Decoded response bodies one agent holds at once, bytes (64 MiB): reserved as bytes arrive
   * and released once the page is archived and parsed; a request waits (socket paused) for room.
   * The oldest request never waits, so one body may overdraw it by up to FETCH_MAX_BODY_BYTES.
   * Costs up to ~2× in RSS (measured: the final copy of a body, freed chunks the allocator keeps).
   */
  AGENT_BODY_BUDGET_BYTES: int(1024 * 1024, 64 * 1024 ** 3).default(64 * 1024 * 1024),
  /** Compiled robots.txt rules one agent keeps in memory, bytes (32 MiB; LRU; Redis keeps all). */
  AGENT_ROBOTS_CACHE_BYTES: int(64 * 1024, 64 * 1024 ** 3).default(32 * 1024 * 1024),
  /** Port of the agent's Prometheus /metrics endpoint (0 = off). */
  AGENT_METRICS_PORT: int(0, 65535).default(9464),
  /** Address the metrics endpoint listens on (0.0.0.0 in containers). */
  AGENT_METRICS_HOST: z.string().default('127.0.0.1'),
  /**
   * Agent processes `npm start` / `npm run demo` run on this machine, each with its own id
   * (`<AGENT_ID or hostname>-<n>`), metrics port (AGENT_METRICS_PORT + n − 1) and share of the
   * parse threads. Default: half the cores, at least 1 (one agent at full speed keeps ~1.5 cores
   * busy).
   * Read by scripts/start.mjs, which checks it the same way, and by the one-shot `crawler crawl`
   * (unless `--agents` says); agents ignore it.
   */
  AGENT_PROCESSES: int(1, 256).optional(),
  /**
   * The coordinator's name in the Redis stream consumer groups (telemetry, feed ingest): stable
   * across restarts, so a restarted coordinator first re-reads what it had read and not yet
   * stored. Default: the host name. Give each coordinator of one installation its own.
   */
  COORDINATOR_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
    .optional(),
  /** Agent id; default hostname-pid. */
  AGENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/)
    .optional(),
  /** Longest an agent works one host lease, in ms (sizes the lease's batch of URLs). */
  LEASE_MS: int(1000, 3_600_000).default(300_000),
  /**
   * A lease's time to live unless its agent renews it (agents renew every ~2 s): a dead agent's
   * hosts come back, with its unfinished URLs, within this. Default: 15 s, or
   * FETCH_TOTAL_TIMEOUT_MS + 5 s when that is longer (a request must fit inside it).
   */
  LEASE_TTL_MS: int(2000, 3_600_000).optional(),
  /** URLs handed out per host lease at most. */
  LEASE_MAX_URLS: int(1, 1000).default(50),
  FETCH_CONNECT_TIMEOUT_MS: int(100, 120_000).default(3000),
  FETCH_FIRST_BYTE_TIMEOUT_MS: int(100, 120_000).default(5000),
  FETCH_TOTAL_TIMEOUT_MS: int(100, 600_000).default(10_000),
  /** Body cap counted after decompression. */
  FETCH_MAX_BODY_BYTES: int(1024, 1_073_741_824).default(10 * 1024 * 1024),
  FETCH_MAX_REDIRECTS: int(0, 20).default(5),
  /**
   * PEM file of CA certificates the agent trusts besides Node's own roots (a private CA, or the
   * benches' and tests' test CA); '' = Node's roots only. Certificates are always verified.
   */
  FETCH_CA_FILE: z.string().default(''),
  /** Most bytes of a page's body the parser reads (the archive keeps the whole body). */
  PARSE_MAX_BYTES: int(64 * 1024, 1_073_741_824).default(2 * 1024 * 1024),
  /**
   * Minimum transfer speed in bytes/s, averaged over FETCH_MIN_SPEED_WINDOW_MS once the body
   * has started: a slower response is cut off as `too_slow` (0 = off).
   */
  FETCH_MIN_SPEED_BYTES_PER_S: int(0, 1_073_741_824).default(1024),
  FETCH_MIN_SPEED_WINDOW_MS: int(100, 600_000).default(3000),
  /** Minimum time a DNS answer is cached, whatever its TTL. */
  DNS_MIN_TTL_MS: int(0, 86_400_000).default(300_000),
  /** How long a failed lookup (NXDOMAIN, no address) is remembered. */
  DNS_NEGATIVE_TTL_MS: int(0, 86_400_000).default(3_600_000),
  /**
   * Exact-duplicate detection: a body whose SHA-256 was already archived is stored as a WARC
   * revisit pointing at the first capture.
   */
  DEDUPE_EXACT: bool.default(true),
  /** Near-duplicate threshold: SimHash Hamming distance at most this is a near duplicate. */
  DEDUPE_NEAR_DISTANCE: int(0, 3).default(3),
  /**
   * Distinct bodies the exact-duplicate index (SHA-256 → first capture, Redis) remembers at most;
   * the least recently seen go first (two generations per shard). ~340 bytes of Redis each.
   */
  DEDUPE_CONTENT_MAX_BODIES: int(512, 2_000_000_000).default(3_000_000),
  /**
   * Pages kept per SimHash band bucket of the near-duplicate index (the most recent; 262,144
   * buckets in all, a page sits in four). Bounds the index at ~buckets × size × 100 bytes.
   */
  DEDUPE_NEAR_BUCKET_SIZE: int(1, 1024).default(16),
  /** Near-duplicate verdicts (page → the page it copies) kept at most, most recent first. */
  DEDUPE_NEAR_MAX_RECORDS: int(512, 2_000_000_000).default(1_000_000),
  /** robots.txt failures (5xx/unreachable) before a host's URLs are dead-lettered. */
  ROBOTS_MAX_FAILURES: int(1, 100).default(4),
  /** First retry delay after a failed robots.txt, doubled each time. */
  ROBOTS_RETRY_BASE_MS: int(100, 86_400_000).default(60_000),
  WARC_MAX_FILE_BYTES: int(1024 * 1024, 100 * 1024 * 1024 * 1024).default(1024 * 1024 * 1024),
  /**
   * A WARC file is closed (and shipped) once its first record is this old, ms, even when it is
   * far from WARC_MAX_FILE_BYTES: a quiet agent's records still reach storage within this time.
   */
  WARC_MAX_FILE_AGE_MS: int(1000, 7 * 86_400_000).default(900_000),
  /** S3-compatible storage for closed WARC files; unset keeps them in DATA_DIR/warc. */
  S3_BUCKET: z.string().default(''),
  /** Service URL for MinIO, Ceph…; unset means AWS S3 in S3_REGION. */
  S3_ENDPOINT: z.string().default(''),
  S3_REGION: z.string().default(''),
  S3_ACCESS_KEY_ID: z.string().default(''),
  S3_SECRET_ACCESS_KEY: z.string().default(''),
  /** Keep a local copy of each WARC file after it reached S3. */
  WARC_KEEP_LOCAL: bool.default(false),
  /**
   * Re-crawl model (BRIEF): after each fetch the URL's interval halves if the content changed and
   * grows 1.5× if not, within [min, max]; a new URL starts at the initial interval.
   */
  RECRAWL_MIN_INTERVAL_MS: int(1000, 365 * 86_400_000).default(3_600_000),
  RECRAWL_MAX_INTERVAL_MS: int(1000, 365 * 86_400_000).default(60 * 86_400_000),
  RECRAWL_INITIAL_INTERVAL_MS: int(1000, 365 * 86_400_000).default(86_400_000),
  /** How often the coordinator sweeps for due URLs (a BullMQ job scheduler; 0 = off). */
  RECRAWL_SWEEP_EVERY_MS: int(0, 86_400_000).default(60_000),
  /** Due URLs one sweep enqueues at most (the frontier's recrawl share paces them further). */
  RECRAWL_SWEEP_MAX: int(1, 10_000_000).default(20_000),
  /**
   * URLs the re-crawl schedule holds at most (all shards); past it, the URLs due furthest ahead
   * (those that change least) leave the schedule. ~570 bytes of Redis each.
   */
  RECRAWL_MAX_URLS: int(1000, 2_000_000_000).default(2_000_000),
  /** Partitions (Redis streams) of the `pages.parsed` feed; fixed for the life of a crawl. */
  FEED_PARTITIONS: int(1, 1024).default(8),
  /**
   * Entries each feed partition keeps at most: older ones are trimmed once every consumer group
   * has read them (FEED_OVERFLOW says what happens when the unread ones pass it).
   */
  FEED_MAX_LEN: int(1000, 100_000_000).default(100_000),
  /** Longest page text carried inline in the feed (UTF-8 bytes); longer goes to object storage. */
  FEED_INLINE_TEXT_BYTES: int(0, 16 * 1024 * 1024).default(64 * 1024),
  /**
   * Bytes the `pages.parsed` feed keeps, all partitions together (1 GiB): each partition is
   * trimmed to the entries that fit its share at the measured bytes per entry (and to
   * FEED_MAX_LEN). Only entries every consumer group has read are trimmed.
   */
  FEED_MAX_BYTES: int(1024 * 1024, 1024 ** 4).default(1024 ** 3),
  /**
   * When the pages some consumer group has not read reach 90% of FEED_MAX_BYTES (or of
   * FEED_MAX_LEN in a partition): `hold` — agents take no new lease until the group reads on,
   * so no page is lost; `drop` — the oldest are trimmed anyway, counted per group as dropped.
   */
  FEED_OVERFLOW: z.enum(['hold', 'drop']).default('hold'),
  /**
   * Bytes of telemetry the coordinator has not stored yet that the Redis stream may hold (512
   * MiB): agents take no new lease at 90% of it (a coordinator down stops the crawl; no row is
   * trimmed unread).
   */
  TELEMETRY_MAX_BYTES: int(1024 * 1024, 1024 ** 4).default(512 * 1024 * 1024),
  /**
   * Share of Redis's maxmemory at which agents take no new lease (0.9), so that Redis never
   * refuses a frontier write (`noeviction`); no bound without maxmemory.
   */
  REDIS_MEMORY_HOLD_RATIO: z.coerce.number().min(0.1).max(1).default(0.9),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  // Control plane: authentication of the coordinator API.
  /** First admin, created at coordinator start only while the users table is empty. */
  ADMIN_EMAIL: z.email().optional(),
  /** Password of ADMIN_EMAIL (both or neither); not read again once the admin exists. */
  ADMIN_PASSWORD: z.string().min(8, 'at least 8 characters').max(1024).optional(),
  /** An admin API token stored at start if no such token exists yet (automation, tests). */
  ADMIN_TOKEN: z
    .string()
    .regex(/^crw_[A-Za-z0-9_-]{24,200}$/, 'crw_ followed by at least 24 base64url characters')
    .optional(),
  /** Mark the session cookie Secure (set it when the API is served over HTTPS). */
  COOKIE_SECURE: bool.default(false),
  /** Console sessions end this long after login. */
  SESSION_TTL_MS: int(60_000, 90 * 86_400_000).default(12 * 3_600_000),
  /**
   * scrypt cost of new password hashes, log2(N) with r = 8, p = 1: 17 (128 MiB, a few hundred
   * ms) is OWASP's recommendation. Lower only in tests. Older hashes are rehashed at login.
   */
  PASSWORD_SCRYPT_LOG2_N: int(12, 20).default(17),
  /** Login attempts one account may make in a burst; a failed one spends one (0 = no limit). */
  LOGIN_ACCOUNT_BURST: int(0, 10_000).default(10),
  /** An account regains one spent login attempt this often, ms. */
  LOGIN_ACCOUNT_REFILL_MS: int(100, 86_400_000).default(60_000),
  /**
   * Login attempts one client address may make in a burst (0 = no limit); an IPv6 address counts
   * by its LOGIN_IPV6_PREFIX.
   */
  LOGIN_ADDRESS_BURST: int(0, 100_000).default(30),
  /** A client address regains one spent login attempt this often, ms. */
  LOGIN_ADDRESS_REFILL_MS: int(100, 86_400_000).default(6_000),
  /**
   * Failed logins the whole installation takes in a burst, whatever the account and address
   * (0 = no limit): a flood from many addresses is refused (429) instead of keeping the
   * password hashes busy.
   */
  LOGIN_GLOBAL_BURST: int(0, 1_000_000).default(100),
  /** The installation regains one spent login attempt this often, ms (100: 10 a second). */
  LOGIN_GLOBAL_REFILL_MS: int(1, 86_400_000).default(100),
  /**
   * IPv6 clients count as one per prefix of this many bits in the login limits (and share a
   * turn in the password-hash queue): a subscriber commonly gets a /56 (or /48, /64) of its own.
   */
  LOGIN_IPV6_PREFIX: int(16, 128).default(56),
  /**
   * Logins that may wait for a password hash (2 run at once), per coordinator. Beyond it a
   * login is answered 429 LOGIN_BUSY at once instead of waiting past its client's timeout.
   */
  LOGIN_HASH_QUEUE_MAX: int(1, 1000).default(8),
  /**
   * Most procedure calls in one tRPC batch request (`/trpc/a,b,c?batch=1`); a larger batch is
   * refused with 413 BATCH_TOO_LARGE. At least the console's batch size.
   */
  TRPC_MAX_BATCH_SIZE: int(TRPC_CONSOLE_BATCH_ITEMS, 10_000).default(20),
  /**
   * The console's credential to the coordinator (both read it): only a request carrying it may
   * name the browser's address (`x-crawler-client-address`). Unset: the header is ignored.
   */
  CONSOLE_SECRET: z
    .string()
    .regex(/^[\x21-\x7e]{32,256}$/, '32 to 256 printable ASCII characters')
    .optional(),
  /** Console only: CIDRs of reverse proxies in front of it, whose X-Forwarded-For it believes. */
  CONSOLE_TRUSTED_PROXIES: cidrList.default([]),
  /** The CLI's API token (sent as `Authorization: Bearer`); unset: DATA_DIR/admin.json. */
  CRAWLER_API_TOKEN: z.string().optional(),
});

/** Variables whose values never appear in error messages. */
const SECRET_VARS = new Set([
  'ADMIN_PASSWORD',
  'ADMIN_TOKEN',
  'CRAWLER_API_TOKEN',
  'CONSOLE_SECRET',
  'S3_SECRET_ACCESS_KEY',
]);

export type Config = Omit<z.infer<typeof envSchema>, 'LEASE_TTL_MS'> & {
  /** Resolved: set, or its default from FETCH_TOTAL_TIMEOUT_MS. */
  LEASE_TTL_MS: number;
  userAgent: string;
  agentId: string;
  /** COORDINATOR_ID, or the host name. */
  coordinatorId: string;
};

/** Raised when the environment does not validate; the message names every bad variable. */
export class ConfigError extends CrawlerError {
  readonly code = 'CONFIG_INVALID';
  readonly retry = 'give_up';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Parses the environment (default `process.env`); empty strings count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? '?');
        const value = SECRET_VARS.has(name) ? '***' : (cleaned[name] ?? '');
        return `${name}=${JSON.stringify(value)}: ${i.message}`;
      }),
    );
  }
  const c = parsed.data;
  // A lease must leave room for at least one request: agents stop starting requests
  // 2 × FETCH_TOTAL_TIMEOUT_MS + 2 s before their lease ends.
  if (c.LEASE_MS < 2 * c.FETCH_TOTAL_TIMEOUT_MS + 5000) {
    throw new ConfigError([
      `LEASE_MS=${c.LEASE_MS}: must be at least 2 × FETCH_TOTAL_TIMEOUT_MS + 5000 (${2 * c.FETCH_TOTAL_TIMEOUT_MS + 5000})`,
    ]);
  }
  // A request starts only while the lease's confirmed life has FETCH_TOTAL_TIMEOUT_MS + 1 s
  // left, and renewals come every ~2 s: the TTL needs room for both.
  const leaseTtlMs = c.LEASE_TTL_MS ?? Math.max(15_000, c.FETCH_TOTAL_TIMEOUT_MS + 5000);
  if (leaseTtlMs < c.FETCH_TOTAL_TIMEOUT_MS + 3000) {
    throw new ConfigError([
      `LEASE_TTL_MS=${leaseTtlMs}: must be at least FETCH_TOTAL_TIMEOUT_MS + 3000 (${c.FETCH_TOTAL_TIMEOUT_MS + 3000})`,
    ]);
  }
  return {
    ...c,
    LEASE_TTL_MS: leaseTtlMs,
    userAgent: userAgentOf(c.CRAWLER_UA_TOKEN, c.CRAWLER_CONTACT_URL),
    agentId: c.AGENT_ID ?? `${hostnameSafe()}-${process.pid}`,
    coordinatorId: c.COORDINATOR_ID ?? hostnameSafe(),
  };
}

function hostnameSafe(): string {
  return (process.env.HOSTNAME ?? 'agent').replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40) || 'agent';
}

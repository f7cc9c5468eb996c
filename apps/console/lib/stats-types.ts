// The shape of the coordinator's `GET /v1/stats` answer, and the error body that the console's
// own `/api/stats` proxy returns when it cannot get one. The guard is deliberately small: it
// checks every field the page reads, so a coordinator of a different version fails loudly
// (as a clear error box) instead of rendering NaN tiles.

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'error'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];
export type StatusMix = Record<StatusClass, number>;

export interface FrontierStats {
  shards: number;
  hosts: number;
  readyHosts: number;
  queuedUrls: number;
  openLeases: number;
  seenUrls: number;
  deadLetters: number;
}

export interface FetchStats {
  total: number;
  ok: number;
  errors: number;
  bytes: number;
  pagesPerSecond: number;
  statusMix: StatusMix;
}

export interface CrawlStats {
  frontier: FrontierStats;
  fetches: FetchStats;
  seeds: { total: number };
  agents: { alive: number };
  /** ISO 8601 timestamp of when the coordinator computed these numbers. */
  generatedAt: string;
}

/** Body of a non-2xx answer from the console's `/api/stats` route. */
export interface StatsErrorBody {
  error: {
    code:
      | 'coordinator_unreachable'
      | 'coordinator_timeout'
      | 'coordinator_error'
      | 'bad_response'
      | 'misconfigured';
    message: string;
    /** What the operator should do about it. */
    hint: string;
    /** HTTP status the coordinator answered with, when it answered. */
    upstreamStatus?: number;
  };
}

const FRONTIER_KEYS = [
  'shards',
  'hosts',
  'readyHosts',
  'queuedUrls',
  'openLeases',
  'seenUrls',
  'deadLetters',
] as const satisfies readonly (keyof FrontierStats)[];

const FETCH_KEYS = [
  'total',
  'ok',
  'errors',
  'bytes',
  'pagesPerSecond',
] as const satisfies readonly (keyof Omit<FetchStats, 'statusMix'>)[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function hasCounts(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  return isRecord(value) && keys.every((key) => isCount(value[key]));
}

/** Runtime guard for the `/v1/stats` JSON. Extra fields are allowed; missing or non-numeric ones are not. */
export function isCrawlStats(value: unknown): value is CrawlStats {
  if (!isRecord(value)) return false;
  const { frontier, fetches, seeds, agents, generatedAt } = value;
  return (
    hasCounts(frontier, FRONTIER_KEYS) &&
    hasCounts(fetches, FETCH_KEYS) &&
    hasCounts(fetches.statusMix, STATUS_CLASSES) &&
    hasCounts(seeds, ['total']) &&
    hasCounts(agents, ['alive']) &&
    typeof generatedAt === 'string' &&
    !Number.isNaN(Date.parse(generatedAt))
  );
}

export function isStatsErrorBody(value: unknown): value is StatsErrorBody {
  if (!isRecord(value) || !isRecord(value.error)) return false;
  const { code, message, hint } = value.error;
  return typeof code === 'string' && typeof message === 'string' && typeof hint === 'string';
}

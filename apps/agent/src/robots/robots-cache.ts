import { z } from 'zod';
import { parseRobots, robotsVerdict, type RobotsRules } from '@crawler/shared/robots';
import type { RedisClient } from '@crawler/shared/redis';

/** What the crawler may do on an origin, from its robots.txt (RFC 9309). */
export type RobotsState =
  | { kind: 'rules'; rules: RobotsRules }
  | { kind: 'allow_all' }
  /** 5xx, timeout or unreachable: fetch nothing; `failures` counts consecutive failures. */
  | { kind: 'disallow_all'; failures: number };

/** One robots.txt fetch as the cache stores it (JSON in Redis, validated when read). */
const storedSchema = z.object({
  status: z.number().int(),
  body: z.string().default(''),
  error: z.enum(['timeout', 'network', 'too_many_redirects']).optional(),
  failures: z.number().int().min(0).default(0),
  fetchedAt: z.number(),
});
export type StoredRobots = z.infer<typeof storedSchema>;

const ROBOTS_BODY_CAP = 500 * 1024;
const TTL_MS = 24 * 3600 * 1000;

/**
 * robots.txt per origin, shared by all agents through Redis (24 h) and kept parsed in a bounded
 * in-process map. A failed fetch (5xx, timeout) is remembered only to count failures: the next
 * lease of the host fetches robots.txt again before anything else.
 */
export class RobotsCache {
  private readonly local = new Map<
    string,
    { state: RobotsState; expiresAt: number; stored: StoredRobots }
  >();

  constructor(
    private readonly redis: RedisClient,
    /** Redis key of an origin's robots.txt (built by the frontier's key builder: same shard as the host). */
    private readonly keyOf: (origin: string) => string,
    private readonly productToken: string,
    private readonly maxEntries = 20_000,
  ) {}

  /** The robots state of an origin, or null when it must be fetched (missing, expired or failed). */
  async cached(origin: string): Promise<{ state: RobotsState; failures: number } | null> {
    const now = Date.now();
    const hit = this.local.get(origin);
    if (hit && hit.expiresAt > now)
      return hit.state.kind === 'disallow_all' ? null : { state: hit.state, failures: 0 };
    const raw = await this.redis.get(this.keyOf(origin));
    if (!raw) return null;
    const stored = storedSchema.safeParse(JSON.parse(raw));
    if (!stored.success || stored.data.fetchedAt + TTL_MS < now) return null;
    const state = this.toState(origin, stored.data);
    if (state.kind === 'disallow_all') return null;
    this.remember(origin, state, stored.data);
    return { state, failures: 0 };
  }

  /** Previous consecutive failures of an origin (0 when none). */
  async failures(origin: string): Promise<number> {
    const raw = await this.redis.get(this.keyOf(origin));
    if (!raw) return 0;
    const stored = storedSchema.safeParse(JSON.parse(raw));
    return stored.success ? stored.data.failures : 0;
  }

  /** Records a fetch outcome and returns the resulting state. */
  async record(
    origin: string,
    outcome:
      { status: number; body: string } | { error: 'timeout' | 'network' | 'too_many_redirects' },
  ): Promise<RobotsState> {
    const prevFailures = await this.failures(origin);
    const verdict = robotsVerdict(
      'error' in outcome ? { error: outcome.error } : { status: outcome.status },
    );
    const stored: StoredRobots = {
      status: 'status' in outcome ? outcome.status : 0,
      body:
        'body' in outcome && verdict.kind === 'rules' ? outcome.body.slice(0, ROBOTS_BODY_CAP) : '',
      ...('error' in outcome ? { error: outcome.error } : {}),
      failures: verdict.kind === 'disallow_all' ? prevFailures + 1 : 0,
      fetchedAt: Date.now(),
    };
    await this.redis.set(this.keyOf(origin), JSON.stringify(stored), 'PX', TTL_MS);
    const state = this.toState(origin, stored);
    this.remember(origin, state, stored);
    return state;
  }

  private toState(origin: string, s: StoredRobots): RobotsState {
    const verdict = robotsVerdict(s.error ? { error: s.error } : { status: s.status });
    if (verdict.kind === 'allow_all') return { kind: 'allow_all' };
    if (verdict.kind === 'disallow_all') return { kind: 'disallow_all', failures: s.failures };
    return { kind: 'rules', rules: parseRobots(s.body, `${origin}/robots.txt`, this.productToken) };
  }

  private remember(origin: string, state: RobotsState, stored: StoredRobots): void {
    if (this.local.size >= this.maxEntries) {
      const oldest = this.local.keys().next().value;
      if (oldest !== undefined) this.local.delete(oldest);
    }
    this.local.set(origin, { state, stored, expiresAt: stored.fetchedAt + TTL_MS });
  }
}

/** Whether a URL may be fetched under a robots state. */
export function robotsAllows(state: RobotsState, url: string): boolean {
  if (state.kind === 'allow_all') return true;
  if (state.kind === 'disallow_all') return false;
  return state.rules.isAllowed(url);
}

/** Crawl-delay in ms from the robots state, or 0. */
export function crawlDelayMs(state: RobotsState): number {
  return state.kind === 'rules' && state.rules.crawlDelayS !== null
    ? state.rules.crawlDelayS * 1000
    : 0;
}

import {
  decodeStoredRobots,
  encodeStoredRobots,
  robotsRulesOf,
  robotsVerdict,
  type RobotsRules,
  type StoredRobots,
  type StoredRobotsMeta,
} from '@crawler/domain/robots';
import type { RedisClient } from '@crawler/adapters/redis';
import { readRobotsHere, type RobotsReader } from './robots-reader';

/** What the crawler may do on an origin, from its robots.txt (RFC 9309). */
export type RobotsState =
  | { kind: 'rules'; rules: RobotsRules }
  | { kind: 'allow_all' }
  /** 5xx, timeout or unreachable: fetch nothing; `failures` counts consecutive failures. */
  | { kind: 'disallow_all'; failures: number };

const ROBOTS_BODY_CAP = 500 * 1024;
const EMPTY = new Uint8Array(0);
const TTL_MS = 24 * 3600 * 1000;
/** What one cached origin costs beside its rules: the map entry, its key and state (bytes). */
const ENTRY_BYTES = 200;

/** Default of {@link RobotsCache}'s byte budget (AGENT_ROBOTS_CACHE_BYTES): 32 MiB. */
export const DEFAULT_ROBOTS_CACHE_BYTES = 32 * 1024 * 1024;

interface LocalEntry {
  state: RobotsState;
  expiresAt: number;
  /** Estimated heap bytes (rules' `approxBytes` plus the entry itself). */
  bytes: number;
}

/**
 * robots.txt per origin, shared by all agents through Redis (24 h) and kept compiled in a
 * process-local LRU bounded by bytes: each origin is counted at its compiled rules' estimated
 * heap size (`RobotsRules.approxBytes`, ~230 bytes + 2 × pattern length a rule, calibrated
 * against measured heap) plus a fixed entry cost. Typical files (a few rules) cost 1–5 KB, so
 * the default 32 MiB holds ~7,000–30,000 origins, while a 500 KiB file of ~17,000 rules costs ~4 MB;
 * one larger than the whole budget is not kept (each lease reads and compiles it again).
 * A failed fetch (5xx, timeout) is remembered only to count failures: the next lease of the host
 * fetches robots.txt again before anything else.
 */
export class RobotsCache {
  /** origin → entry, least recently used first (a hit moves its entry to the end). */
  private readonly local = new Map<string, LocalEntry>();
  private localBytes = 0;

  constructor(
    private readonly redis: RedisClient,
    /** Redis key of an origin's robots.txt (built by the frontier's key builder: same shard as the host). */
    private readonly keyOf: (origin: string) => string,
    private readonly productToken: string,
    /** Byte budget of the compiled rules kept in this process (AGENT_ROBOTS_CACHE_BYTES). */
    private readonly maxBytes = DEFAULT_ROBOTS_CACHE_BYTES,
    /** Reads a body into its rules (default: on this thread; the agent's sends large ones to its parse pool). */
    private readonly read: RobotsReader = readRobotsHere,
  ) {}

  /** Origins held in process and their estimated bytes (at most `maxBytes`). */
  get size(): { entries: number; bytes: number } {
    return { entries: this.local.size, bytes: this.localBytes };
  }

  /** The robots state of an origin, or null when it must be fetched (missing, expired or failed). */
  async cached(origin: string): Promise<{ state: RobotsState; failures: number } | null> {
    const now = Date.now();
    const hit = this.local.get(origin);
    if (hit && hit.expiresAt > now) {
      this.local.delete(origin);
      this.local.set(origin, hit);
      return hit.state.kind === 'disallow_all' ? null : { state: hit.state, failures: 0 };
    }
    const raw = await this.redis.get(this.keyOf(origin));
    if (!raw) return null;
    const stored = decodeStoredRobots(raw);
    if (!stored || stored.fetchedAt + TTL_MS < now) return null;
    const state = await this.toState(origin, stored);
    if (state.kind === 'disallow_all') return null;
    this.remember(origin, state, stored.fetchedAt);
    return { state, failures: 0 };
  }

  /** Previous consecutive failures of an origin (0 when none). */
  async failures(origin: string): Promise<number> {
    const raw = await this.redis.get(this.keyOf(origin));
    return (raw && decodeStoredRobots(raw)?.failures) || 0;
  }

  /**
   * Records a fetch outcome and returns the resulting state. The body (bytes as fetched, or
   * text) is kept up to 500 KiB — what RFC 9309 asks a crawler to read — and compiled before it
   * is stored, so the text is garbage by the time the Redis write is awaited.
   */
  async record(
    origin: string,
    outcome:
      | { status: number; body: string | Uint8Array }
      | { error: 'timeout' | 'network' | 'too_many_redirects' },
  ): Promise<RobotsState> {
    const verdict = robotsVerdict(
      'error' in outcome ? { error: outcome.error } : { status: outcome.status },
    );
    // Only a failure counts on from the previous one (reading it back costs a whole body).
    const prevFailures = verdict.kind === 'disallow_all' ? await this.failures(origin) : 0;
    const meta: StoredRobotsMeta = {
      status: 'status' in outcome ? outcome.status : 0,
      ...('error' in outcome ? { error: outcome.error } : {}),
      failures: verdict.kind === 'disallow_all' ? prevFailures + 1 : 0,
      fetchedAt: Date.now(),
    };
    let body: Uint8Array = EMPTY;
    if ('body' in outcome && verdict.kind === 'rules') {
      const bytes = typeof outcome.body === 'string' ? Buffer.from(outcome.body) : outcome.body;
      body = bytes.length > ROBOTS_BODY_CAP ? bytes.subarray(0, ROBOTS_BODY_CAP) : bytes;
    }
    const text = Buffer.from(body.buffer, body.byteOffset, body.length).toString('utf8');
    const state = await this.toState(origin, { ...meta, body: text });
    await this.redis.set(this.keyOf(origin), encodeStoredRobots(meta, body), 'PX', TTL_MS);
    this.remember(origin, state, meta.fetchedAt);
    return state;
  }

  private async toState(origin: string, s: StoredRobots): Promise<RobotsState> {
    const verdict = robotsVerdict(s.error ? { error: s.error } : { status: s.status });
    if (verdict.kind === 'allow_all') return { kind: 'allow_all' };
    if (verdict.kind === 'disallow_all') return { kind: 'disallow_all', failures: s.failures };
    const read = await this.read(s.body, `${origin}/robots.txt`, this.productToken);
    return { kind: 'rules', rules: robotsRulesOf(read) };
  }

  private remember(origin: string, state: RobotsState, fetchedAt: number): void {
    const old = this.local.get(origin);
    if (old) {
      this.local.delete(origin);
      this.localBytes -= old.bytes;
    }
    const bytes =
      ENTRY_BYTES + 2 * origin.length + (state.kind === 'rules' ? state.rules.approxBytes : 0);
    if (bytes > this.maxBytes) return;
    for (const [key, entry] of this.local) {
      if (this.localBytes + bytes <= this.maxBytes) break;
      this.local.delete(key);
      this.localBytes -= entry.bytes;
    }
    this.local.set(origin, { state, expiresAt: fetchedAt + TTL_MS, bytes });
    this.localBytes += bytes;
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

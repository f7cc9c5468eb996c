import { blockRulesKey, safeParseJson } from '@crawler/domain/messages';
import type { Logger } from '@crawler/adapters/log';
import type { RedisClient } from '@crawler/adapters/redis';
import {
  blockRuleSetSchema,
  CompiledBlockRules,
  NO_BLOCK_RULES,
  type BlockMatch,
  type BlockRuleMatcher,
} from '@crawler/domain/traps';

/**
 * Every operator block rule of the crawl, kept live: blocked hosts and domains (`blocked: true`
 * policies, exact or `*.example.com`) and URL block patterns, as the coordinator publishes them
 * in the hash {@link blockRulesKey}. Its `version` is read every `everyMs` (one small HGET), the
 * whole set only when the version moved; the set is validated and compiled once, so `match`
 * costs no Redis call (a map lookup per label of the host, then the patterns of the rows found).
 * Until the coordinator has published, nothing is blocked. A malformed set is logged and
 * ignored: the last good rules stay.
 */
export class LiveBlockRules implements BlockRuleMatcher {
  private timer: NodeJS.Timeout | null = null;
  private rules: CompiledBlockRules = NO_BLOCK_RULES;
  /** The version applied (or refused: a bad set is not read again until the next one). */
  private seen: string | null = null;
  private applied: number | null = null;
  private reading = false;

  constructor(private readonly deps: { redis: RedisClient; prefix: string; log: Logger }) {}

  /** The version of the rules in effect; null until the first set was read. */
  get version(): number | null {
    return this.applied;
  }

  /** Reads the rules once, then every `everyMs`. */
  async start(everyMs: number): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      // One read at a time: a slow one is not overtaken by the next tick's.
      if (this.reading) return;
      this.reading = true;
      void this.refresh()
        .catch((err: unknown) => this.deps.log.warn({ err }, 'could not read the block rules'))
        .finally(() => (this.reading = false));
    }, everyMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Why a URL (normalized; `host` without port) is kept out of the crawl, or null. */
  match(url: string, host: string): BlockMatch | null {
    return this.rules.match(url, host);
  }

  /** Reads the version, and the rules when it changed. */
  async refresh(): Promise<void> {
    const key = blockRulesKey(this.deps.prefix);
    const version = await this.deps.redis.hget(key, 'version');
    if (version === null || version === this.seen) return;
    // Both fields in one read: the coordinator writes them together.
    const [v, raw] = await this.deps.redis.hmget(key, 'version', 'rules');
    if (v === null || v === undefined || raw === null || raw === undefined) return;
    this.seen = v;
    const parsed = safeParseJson(blockRuleSetSchema, raw);
    if (!parsed?.success) {
      this.deps.log.warn(
        { version: v, value: raw.slice(0, 200), issues: parsed?.error.issues.slice(0, 3) },
        'ignored malformed block rules',
      );
      return;
    }
    this.rules = new CompiledBlockRules(parsed.data.rules);
    this.applied = Number(v);
    this.deps.log.info(
      { version: this.applied, rules: parsed.data.rules.length, patterns: this.rules.patternCount },
      'block rules applied',
    );
  }
}

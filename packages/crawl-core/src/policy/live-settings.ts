import type { Frontier } from '@crawler/frontier';
import type { Logger } from '@crawler/adapters/log';
import {
  crawlSettingsKey,
  liveCrawlSettingsSchema,
  safeParseJson,
  userAgentOf,
  type LiveCrawlSettings,
} from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
import type { HttpClient } from '../fetch/http-client';

/**
 * The crawl settings operators change from the console (PUT /v1/settings), applied without a
 * restart: read from the key the coordinator writes, every `everyMs`, and applied to the
 * frontier client (default gap, re-crawl share), the HTTP client (User-Agent contact) and link
 * discovery (max depth). Until the coordinator has written the key, the environment's values
 * hold. A malformed value is logged once and ignored: the last good settings stay.
 */
export class LiveSettings {
  private timer: NodeJS.Timeout | null = null;
  private last = '';
  private depth: number;

  constructor(
    private readonly deps: {
      redis: RedisClient;
      prefix: string;
      frontier: Frontier;
      http: HttpClient;
      uaToken: string;
      maxDepth: number;
      log: Logger;
    },
  ) {
    this.depth = deps.maxDepth;
  }

  /** Links are followed to this depth from the seeds. */
  maxDepth(): number {
    return this.depth;
  }

  async start(everyMs: number): Promise<void> {
    await this.refresh();
    this.timer = setInterval(
      () =>
        void this.refresh().catch((err: unknown) =>
          this.deps.log.warn({ err }, 'could not read the crawl settings'),
        ),
      everyMs,
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads the settings and applies them if they changed. */
  async refresh(): Promise<void> {
    const raw = await this.deps.redis.get(crawlSettingsKey(this.deps.prefix));
    if (raw === null || raw === this.last) return;
    this.last = raw;
    const parsed = safeParseJson(liveCrawlSettingsSchema, raw);
    if (!parsed?.success) {
      this.deps.log.warn({ value: raw.slice(0, 200) }, 'ignored malformed crawl settings');
      return;
    }
    this.apply(parsed.data);
  }

  private apply(s: LiveCrawlSettings): void {
    this.deps.frontier.setDefaults({
      defaultGapMs: s.default_gap_ms,
      recrawlShare: s.recrawl_share,
    });
    this.deps.http.setUserAgent(userAgentOf(this.deps.uaToken, s.user_agent_contact));
    this.depth = s.max_depth;
    this.deps.log.info({ settings: s }, 'crawl settings applied');
  }
}

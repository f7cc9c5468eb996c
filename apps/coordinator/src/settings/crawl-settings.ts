import type { Frontier } from '@crawler/frontier';
import type { Config } from '@crawler/domain/config';
import { crawlSettingsKey, type LiveCrawlSettings } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
import { auditEntry, type Actor } from '../audit/audit-entry';
import type { Store } from '../db/store';
import type { CrawlSettingsPatch, CrawlSettingsRow } from '../db/settings-repository';
import { crawlSettingsPatch, type CrawlSettingsView } from './crawl-settings.types';

type Deps = { store: Store; config: Config; redis: RedisClient; frontier: Frontier };

/** The settings in effect: what operators stored, else the environment's defaults. */
export function settingsView(config: Config, row: CrawlSettingsRow | null): CrawlSettingsView {
  const overridden: string[] = [];
  const pick = <T>(name: string, stored: T | null | undefined, fallback: T): T => {
    if (stored === null || stored === undefined) return fallback;
    overridden.push(name);
    return stored;
  };
  return {
    user_agent_contact: pick(
      'user_agent_contact',
      row?.userAgentContact,
      config.CRAWLER_CONTACT_URL,
    ),
    recrawl_share: pick('recrawl_share', row?.recrawlShare, config.FRONTIER_RECRAWL_SHARE),
    default_rate_limit_rps: pick(
      'default_rate_limit_rps',
      row?.defaultRateLimitRps,
      1000 / config.CRAWLER_DEFAULT_GAP_MS,
    ),
    max_depth: pick('max_depth', row?.maxDepth, config.CRAWLER_MAX_DEPTH),
    overridden,
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}

/** `GET /v1/settings`. */
export async function getSettings(deps: Deps): Promise<CrawlSettingsView> {
  return settingsView(deps.config, await deps.store.settings.get());
}

function stored(row: CrawlSettingsRow | null) {
  return row
    ? {
        user_agent_contact: row.userAgentContact,
        recrawl_share: row.recrawlShare,
        default_rate_limit_rps: row.defaultRateLimitRps,
        max_depth: row.maxDepth,
      }
    : null;
}

/**
 * Publishes the settings in effect for agents (one Redis key they read every few seconds) and
 * applies them to this process's frontier client. Run at start-up and after every change.
 */
export async function publishSettings(deps: Deps, row: CrawlSettingsRow | null): Promise<void> {
  const live: LiveCrawlSettings = {
    user_agent_contact: row?.userAgentContact ?? deps.config.CRAWLER_CONTACT_URL,
    recrawl_share: row?.recrawlShare ?? deps.config.FRONTIER_RECRAWL_SHARE,
    default_gap_ms: row?.defaultRateLimitRps
      ? Math.round(1000 / row.defaultRateLimitRps)
      : deps.config.CRAWLER_DEFAULT_GAP_MS,
    max_depth: row?.maxDepth ?? deps.config.CRAWLER_MAX_DEPTH,
  };
  deps.frontier.setDefaults({
    defaultGapMs: live.default_gap_ms,
    recrawlShare: live.recrawl_share,
  });
  await deps.redis.set(crawlSettingsKey(deps.config.REDIS_PREFIX), JSON.stringify(live));
}

/**
 * `PUT /v1/settings` (admin): changes some settings, with its audit entry in the same
 * transaction. Stored in Postgres (the environment's values stay the defaults), then published:
 * agents apply them within a few seconds, without a restart.
 */
export async function updateSettings(
  deps: Deps,
  actor: Actor,
  raw: unknown,
): Promise<CrawlSettingsView> {
  const p = crawlSettingsPatch.parse(raw);
  const patch: CrawlSettingsPatch = {
    ...(p.user_agent_contact !== undefined ? { userAgentContact: p.user_agent_contact } : {}),
    ...(p.recrawl_share !== undefined ? { recrawlShare: p.recrawl_share } : {}),
    ...(p.default_rate_limit_rps !== undefined
      ? { defaultRateLimitRps: p.default_rate_limit_rps }
      : {}),
    ...(p.max_depth !== undefined ? { maxDepth: p.max_depth } : {}),
  };
  const row = await deps.store.transaction(async (r) => {
    const before = await r.settings.getLocked();
    const after = await r.settings.upsert(patch);
    await r.audit.record(
      auditEntry(actor, 'settings.update', 'crawl_settings', stored(before), stored(after)),
    );
    return after;
  });
  await publishSettings(deps, row);
  return settingsView(deps.config, row);
}

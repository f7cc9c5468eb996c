import { blockRulesKey } from '@crawler/domain/messages';
import { type BlockRule, type BlockRuleSet } from '@crawler/domain/traps';
import type { RedisClient } from '@crawler/adapters/redis';
import type { BlockPatternRow } from '../db/block-pattern-repository';
import type { HostPolicyRow } from '../db/host-policy-repository';
import type { Store } from '../db/store';

/** Where the rule set goes: the crawl's Redis and key prefix. */
export interface BlockRulesDeps {
  store: Store;
  redis: RedisClient;
  prefix: string;
}

/**
 * The rule set agents apply, from the policy rows and their patterns: every row that sets
 * `blocked` (true, or false to override a blocked domain) or carries patterns, by host.
 */
export function buildBlockRuleSet(
  policies: ReadonlyArray<Pick<HostPolicyRow, 'host' | 'blocked'>>,
  patterns: readonly BlockPatternRow[],
  at: Date,
): BlockRuleSet {
  const byHost = new Map<string, BlockRule>();
  for (const p of policies)
    if (p.blocked !== null) byHost.set(p.host, { host: p.host, blocked: p.blocked, patterns: [] });
  for (const p of patterns) {
    let rule = byHost.get(p.host);
    if (!rule) byHost.set(p.host, (rule = { host: p.host, blocked: null, patterns: [] }));
    rule.patterns.push(p.pattern);
  }
  return {
    published_at: at.toISOString(),
    rules: [...byHost.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0)),
  };
}

/**
 * Publishes every block rule for agents: the hash {@link blockRulesKey} gets the set (`rules`,
 * and its `published_at`) and a new `version` in one MULTI, so a reader of both fields always gets a matching pair.
 * Agents poll `version` every 2 s and read `rules` when it moved. Publications are serialized
 * by a Postgres lock and each reads what is committed, so the last one written is the newest.
 * Run at start-up and after every change of a block or a pattern. Returns the new version.
 */
export async function publishBlockRules(deps: BlockRulesDeps): Promise<number> {
  return deps.store.transaction(async (r) => {
    await r.blockPatterns.lockRuleSet();
    const policies = await r.policies.listAll();
    const patterns = await r.blockPatterns.listAll();
    const set = buildBlockRuleSet(policies, patterns, new Date());
    const key = blockRulesKey(deps.prefix);
    const replies = await deps.redis
      .multi()
      .hincrby(key, 'version', 1)
      .hset(key, 'rules', JSON.stringify(set), 'published_at', set.published_at)
      .exec();
    const failed = replies?.find(([err]) => err !== null)?.[0];
    if (!replies || failed) throw failed ?? new Error(`publishing ${key}: the MULTI was aborted`);
    return Number(replies[0]![1]);
  });
}

/** The version and time of the set agents see now; nulls before the first publication. */
export async function publishedBlockRules(
  redis: RedisClient,
  prefix: string,
): Promise<{ version: number | null; publishedAt: string | null }> {
  const [version, publishedAt] = await redis.hmget(
    blockRulesKey(prefix),
    'version',
    'published_at',
  );
  return {
    version: version === null || version === undefined ? null : Number(version),
    publishedAt: publishedAt ?? null,
  };
}

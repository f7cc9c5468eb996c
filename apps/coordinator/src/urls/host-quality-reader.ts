import { shardOf, type Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { HostQuality, type QualityLimits, type QualityRule } from '@crawler/domain/quality';

/** A host's crawl-quality state as its agents left it (a fresh one when none was saved). */
export async function readHostQuality(
  redis: RedisClient,
  frontier: Frontier,
  host: string,
  /** The thresholds agents apply (QUALITY_*). */
  limits: QualityLimits,
): Promise<HostQuality> {
  const raw = await redis.get(frontier.keys.hostQuality(shardOf(host, frontier.shards), host));
  return HostQuality.parse(raw, limits);
}

/**
 * The quality rule that keeps a URL of the host from being fetched: a closed URL family, a deep
 * pager, a facet explosion, or learned no-op parameters (the URL without them is fetched
 * instead); null when none does.
 */
export function qualityRuleOf(quality: HostQuality, url: string): QualityRule | null {
  const verdict = quality.screen(url);
  if (verdict.kind === 'drop') return verdict.rule;
  return verdict.kind === 'strip' ? 'noop_param' : null;
}

/** URLs each crawl-quality and trap rule kept out, summed over the shards (`{p}:{s}:qc`). */
export async function qualityCounters(
  redis: RedisClient,
  frontier: Frontier,
): Promise<Record<string, number>> {
  // One command per shard (each its own cluster slot), sent together.
  const shards = await Promise.all(
    Array.from({ length: frontier.shards }, (_, s) =>
      redis.hgetall(frontier.keys.qualityCounters(s)),
    ),
  );
  const out: Record<string, number> = {};
  for (const fields of shards)
    for (const [rule, n] of Object.entries(fields)) out[rule] = (out[rule] ?? 0) + Number(n);
  return out;
}

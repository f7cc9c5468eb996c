import { blockRulesKey, safeParseJson } from '@crawler/domain/messages';
import type { RedisClient } from '@crawler/adapters/redis';
import { blockRuleSetSchema, CompiledBlockRules, NO_BLOCK_RULES } from '@crawler/domain/traps';

/** The set last read, by key: compiled once per published version. */
const compiled = new Map<string, { version: string; rules: CompiledBlockRules }>();

/**
 * The operator block rules agents apply now, as the coordinator published them (the hash
 * `blockRulesKey(prefix)`, hosts/publish-block-rules.ts): one HGET of the version, and the set
 * read and compiled only when it moved. A malformed set keeps the last good one, as agents do
 * (live-block-rules.ts); none published: nothing is blocked.
 */
export async function readBlockRules(
  redis: RedisClient,
  prefix: string,
): Promise<CompiledBlockRules> {
  const key = blockRulesKey(prefix);
  const last = compiled.get(key);
  const version = await redis.hget(key, 'version');
  if (version === null) return NO_BLOCK_RULES;
  if (last?.version === version) return last.rules;
  // Both fields in one read: the coordinator writes them together.
  const [v, raw] = await redis.hmget(key, 'version', 'rules');
  if (v === null || v === undefined || raw === null || raw === undefined)
    return last?.rules ?? NO_BLOCK_RULES;
  const parsed = safeParseJson(blockRuleSetSchema, raw);
  const rules = parsed?.success
    ? new CompiledBlockRules(parsed.data.rules)
    : (last?.rules ?? NO_BLOCK_RULES);
  compiled.set(key, { version: v, rules });
  return rules;
}
